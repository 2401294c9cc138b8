package argo

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestParentApp(t *testing.T) {
	yes := true
	apps := loadApps(t)
	tests := []struct {
		name    string
		app     *Application
		want    string
		wantVia string
		ok      bool
	}{
		{"app-of-apps tracking annotation wins over label", apps["web"], "Application root", ViaTrackingID, true},
		{"ApplicationSet controller ownerRef", apps["api-eu"], "ApplicationSet team-a/api", ViaOwnerReference, true},
		{"instance label with namespace", apps["hydrated"], "Application platform/apps", ViaInstanceLabel, true},
		{"instance label only", &Application{ObjectMeta: metav1.ObjectMeta{Name: "child", Namespace: "argocd",
			Labels: map[string]string{LabelAppInstance: "root"}}}, "Application root", ViaInstanceLabel, true},
		{"tracking-id of another namespace", &Application{ObjectMeta: metav1.ObjectMeta{Name: "child", Namespace: "team",
			Annotations: map[string]string{AnnotationTrackingID: "platform_root:argoproj.io/Application:team/child"}}},
			"Application platform/root", ViaTrackingID, true},
		{"self tracking is no parent", &Application{ObjectMeta: metav1.ObjectMeta{Name: "root", Namespace: "argocd",
			Labels: map[string]string{LabelAppInstance: "root"}}}, "", "", false},
		{"parent Application ownerRef", &Application{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "argocd",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "argoproj.io/v1alpha1", Kind: "Application", Name: "p"}}}},
			"Application argocd/p", ViaOwnerReference, true},
		{"controller ownerRef preferred", &Application{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "argocd",
			OwnerReferences: []metav1.OwnerReference{
				{APIVersion: "argoproj.io/v1alpha1", Kind: "Application", Name: "p"},
				{APIVersion: "argoproj.io/v1alpha1", Kind: "ApplicationSet", Name: "s", Controller: &yes}}}},
			"ApplicationSet argocd/s", ViaOwnerReference, true},
		{"foreign ownerRef ignored", &Application{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "argocd",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "example.com/v1", Kind: "ApplicationSet", Name: "x"}}}},
			"", "", false},
		{"standalone", &Application{ObjectMeta: metav1.ObjectMeta{Name: "solo", Namespace: "argocd"}}, "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.app.ParentApp()
			if got != tt.want || ok != tt.ok {
				t.Errorf("ParentApp = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
			if p, _ := tt.app.Parent(); p.Via != tt.wantVia {
				t.Errorf("Via = %q, want %q", p.Via, tt.wantVia)
			}
		})
	}
}

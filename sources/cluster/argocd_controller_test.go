package cluster

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestArgoController(t *testing.T) {
	tmpl := func(sa string, labels map[string]string) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{ServiceAccountName: sa}}
	}
	sts := func(name, sa string, labels, podLabels map[string]string) *appsv1.StatefulSet {
		return &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "argocd", Name: name, Labels: labels}, Spec: appsv1.StatefulSetSpec{Template: tmpl(sa, podLabels)}}
	}
	dep := func(name, sa string, labels map[string]string) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "argocd", Name: name, Labels: labels}, Spec: appsv1.DeploymentSpec{Template: tmpl(sa, nil)}}
	}
	name := map[string]string{LabelAppName: "argocd-application-controller"}
	comp := map[string]string{LabelComponent: "application-controller"}
	for _, tc := range []struct {
		name         string
		objs         []runtime.Object
		kind, wl, sa string
	}{
		{"Argo CD's install", []runtime.Object{sts("argocd-application-controller", "argocd-application-controller", name, name)}, "StatefulSet", "argocd-application-controller", "argocd-application-controller"},
		{"OpenShift GitOps", []runtime.Object{
			dep("openshift-gitops-server", "openshift-gitops-argocd-server", map[string]string{LabelComponent: "server"}),
			sts("openshift-gitops-application-controller", "openshift-gitops-argocd-application-controller", comp, nil)},
			"StatefulSet", "openshift-gitops-application-controller", "openshift-gitops-argocd-application-controller"},
		{"label on the pod template only", []runtime.Object{sts("ctl", "ctl-sa", nil, comp)}, "StatefulSet", "ctl", "ctl-sa"},
		{"a Deployment (dynamic cluster distribution)", []runtime.Object{dep("argocd-application-controller", "", name)}, "Deployment", "argocd-application-controller", "default"},
		{"a StatefulSet before a Deployment", []runtime.Object{dep("a-ctl", "dep-sa", comp), sts("z-ctl", "sts-sa", comp, nil)}, "StatefulSet", "z-ctl", "sts-sa"},
		{"other namespace", []runtime.Object{&appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "elsewhere", Name: "c", Labels: name}}}, "", "", ""},
		{"unlabelled", []runtime.Object{sts("argocd-application-controller", "argocd-application-controller", nil, nil)}, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestReader(t, tc.objs)
			got, err := r.ArgoController(context.Background(), "argocd")
			if tc.kind == "" {
				if !IsNotFound(err) {
					t.Fatalf("want not found, got %+v, %v", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Kind != tc.kind || got.Name != tc.wl || got.ServiceAccount != tc.sa || got.MatchedBy == "" {
				t.Errorf("got %+v, want %s %s running as %s", got, tc.kind, tc.wl, tc.sa)
			}
		})
	}
	r := newTestReader(t, nil)
	forbid(r.kube, "list", "apps", "statefulsets")
	if _, err := r.ArgoController(context.Background(), "argocd"); !asAccess(t, err).Forbidden {
		t.Errorf("a refused list is not reported as such: %v", err)
	}
}

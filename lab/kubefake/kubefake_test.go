package kubefake

import (
	"context"
	"slices"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// Every group the clientset has serves its kind through the typed client,
// field management records the writer on create and update, as
// kubernetes/fake's NewClientset does, and a watch sees the change.
func TestGroupsAndFieldManagement(t *testing.T) {
	ctx := context.Background()
	cs := NewClientset()
	w, err := cs.CoreV1().ConfigMaps("imgupd").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	cm, err := cs.CoreV1().ConfigMaps("imgupd").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "imgupd", Name: "state"}}, metav1.CreateOptions{FieldManager: "imgupd"})
	if err != nil {
		t.Fatal(err)
	}
	if ev := <-w.ResultChan(); ev.Type != watch.Added {
		t.Errorf("watch: %v, want Added", ev.Type)
	}
	cm.Data = map[string]string{"k": "v"}
	if cm, err = cs.CoreV1().ConfigMaps("imgupd").Update(ctx, cm, metav1.UpdateOptions{FieldManager: "imgupd"}); err != nil {
		t.Fatal(err)
	}
	if len(cm.ManagedFields) == 0 || cm.ManagedFields[0].Manager != "imgupd" {
		t.Errorf("managed fields %+v: the writer is not recorded", cm.ManagedFields)
	}
	if _, err := cs.CoordinationV1().Leases("imgupd").Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "imgupd", Name: "imgupd"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.AppsV1().Deployments("").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var verbs []string
	for _, a := range cs.Actions() {
		verbs = append(verbs, a.GetVerb()+" "+a.GetResource().Resource)
	}
	want := []string{"watch configmaps", "create configmaps", "update configmaps", "create leases", "list deployments", "create selfsubjectaccessreviews"}
	if !slices.Equal(verbs, want) {
		t.Errorf("actions %q, want %q", verbs, want)
	}
}

// The clientset serves its objects through the typed clients and records
// the actions, as kubernetes/fake's does.
func TestClientset(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "argocd", Name: "argocd-cm"}, Data: map[string]string{"k": "v"}}
	cs := NewClientset(cm)
	got, err := cs.CoreV1().ConfigMaps("argocd").Get(context.Background(), "argocd-cm", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Data["k"] != "v" {
		t.Errorf("data %v", got.Data)
	}
	if _, err := cs.CoreV1().Secrets("argocd").Get(context.Background(), "nope", metav1.GetOptions{}); err == nil {
		t.Error("a missing Secret was found")
	}
	if n := len(cs.Actions()); n != 2 {
		t.Errorf("%d actions recorded, want 2", n)
	}
	if _, err := cs.Tracker().Get(corev1.SchemeGroupVersion.WithResource("configmaps"), "argocd", "argocd-cm"); err != nil {
		t.Errorf("tracker: %v", err)
	}
}

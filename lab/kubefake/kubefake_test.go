package kubefake

import (
	"context"
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
)

// The scheme the fake types its objects with knows exactly the kinds
// kubernetes/fake's private scheme knows (built here the way its init builds
// it), so the two fakes read, list and convert the same objects.
func TestSchemeIsKubernetesFakes(t *testing.T) {
	want := runtime.NewScheme()
	metav1.AddToGroupVersion(want, schema.GroupVersion{Version: "v1"})
	if err := fake.AddToScheme(want); err != nil {
		t.Fatal(err)
	}
	gvks := func(s *runtime.Scheme) []string {
		var out []string
		for gvk, typ := range s.AllKnownTypes() {
			out = append(out, gvk.String()+" "+typ.String())
		}
		slices.Sort(out)
		return out
	}
	got, exp := gvks(scheme), gvks(want)
	if !slices.Equal(got, exp) {
		gs, es := map[string]bool{}, map[string]bool{}
		for _, g := range got {
			gs[g] = true
		}
		for _, e := range exp {
			es[e] = true
			if !gs[e] {
				t.Errorf("missing %s", e)
			}
		}
		for g := range maps.Keys(gs) {
			if !es[g] {
				t.Errorf("extra %s", g)
			}
		}
	}
	if len(got) < 500 {
		t.Errorf("only %d kinds: not client-go's scheme", len(got))
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

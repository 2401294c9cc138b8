package cluster

import (
	"errors"
	"testing"

	"github.com/imgupd/imgupd/lab/kubefake"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/model/argo"
)

// testReader is a Reader on client-go fakes with the Argo CD and Image
// Updater list kinds registered.
type testReader struct {
	*Reader
	kube *kubefake.Clientset
	dyn  *dynamicfake.FakeDynamicClient
}

func newTestReader(t *testing.T, kube []runtime.Object, dyn ...runtime.Object) testReader {
	t.Helper()
	k := kubefake.NewClientset(kube...)
	d := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), argo.ListKinds(), dyn...)
	return testReader{Reader: &Reader{Kube: k, Dynamic: d}, kube: k, dyn: d}
}

// obj decodes a YAML document into an unstructured object.
func obj(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// forbid makes every verb on resource answer 403.
func forbid(f interface {
	PrependReactor(verb, resource string, reaction k8stesting.ReactionFunc)
}, verb, group, resource string) {
	f.PrependReactor(verb, resource, func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: group, Resource: resource}, "", errors.New("RBAC: access denied"))
	})
}

// asAccess asserts err is an *AccessError.
func asAccess(t *testing.T, err error) *AccessError {
	t.Helper()
	var ae *AccessError
	if !errors.As(err, &ae) {
		t.Fatalf("want *AccessError, got %T %v", err, err)
	}
	return ae
}

package argo

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// FromUnstructured decodes an object read through the dynamic client into
// out (a pointer to one of this package's structs, or updater.ImageUpdater)
// by the objects' JSON names. Fields out does not know are dropped. A nil u
// is an error.
func FromUnstructured(u *unstructured.Unstructured, out any) error {
	if u == nil {
		return fmt.Errorf("decoding: nil object")
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), out); err != nil {
		return fmt.Errorf("decoding %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	return nil
}

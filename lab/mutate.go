package lab

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/testing"

	"github.com/imgupd/imgupd/lab/kubefake"
	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/sources/cluster"
)

// errNoFakeCluster: Apply changes the client-go fakes Start builds; an
// Env given its cluster with UseCluster (a real API server) is changed
// through that server.
var errNoFakeCluster = errors.New("lab: Apply needs the fake cluster of Start")

// Apply creates or replaces objects in the scenario's fake cluster while
// the Env runs, as kubectl apply would (whole objects, ${VAR} placeholders
// expanded as in the scenario's objects): a test changes an ImageUpdater
// CR, an Application or a ConfigMap between two diagnoses. It needs the
// cluster Start built.
func (e *Env) Apply(ctx context.Context, objects string) error {
	r, ok := e.engine.Cluster.(*cluster.Reader)
	if !ok {
		return errNoFakeCluster
	}
	kube, okKube := r.Kube.(*kubefake.Clientset)
	dyn, okDyn := r.Dynamic.(*dynamicfake.FakeDynamicClient)
	if !okKube || !okDyn {
		return errNoFakeCluster
	}
	saved := e.Scenario.Objects
	e.Scenario.Objects = objects
	objs, err := e.Objects()
	e.Scenario.Objects = saved
	if err != nil {
		return err
	}
	for _, u := range objs {
		gvk := u.GroupVersionKind()
		var tracker testing.ObjectTracker
		var obj runtime.Object = u
		if g := gvk.Group; g == argo.Group || g == argo.UpdaterGroup {
			tracker = dyn.Tracker()
		} else {
			data, err := u.MarshalJSON()
			if err != nil {
				return err
			}
			if obj, _, err = kubefake.Codecs().UniversalDeserializer().Decode(data, nil, nil); err != nil {
				return fmt.Errorf("lab: %s %s does not decode: %w", gvk.Kind, u.GetName(), err)
			}
			tracker = kube.Tracker()
		}
		gvr, _ := apimeta.UnsafeGuessKindToResource(gvk)
		if err := upsert(tracker, gvr, obj, u.GetNamespace()); err != nil {
			return fmt.Errorf("lab: applying %s %s/%s: %w", gvk.Kind, u.GetNamespace(), u.GetName(), err)
		}
	}
	return ctx.Err()
}

// upsert replaces the object, or creates it when it does not exist.
func upsert(t testing.ObjectTracker, gvr schema.GroupVersionResource, obj runtime.Object, ns string) error {
	err := t.Update(gvr, obj, ns)
	if apierrors.IsNotFound(err) {
		return t.Create(gvr, obj, ns)
	}
	return err
}

package cluster

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/model/updater"
)

// Application reads one Argo CD Application.
func (r *Reader) Application(ctx context.Context, ns, name string) (*argo.Application, error) {
	var app argo.Application
	if err := r.getObject(ctx, argo.ApplicationsGVR, ns, name, &app); err != nil {
		return nil, err
	}
	return &app, nil
}

// Applications lists the Argo CD Applications in ns ("" = all namespaces),
// in the API server's order.
func (r *Reader) Applications(ctx context.Context, ns string) ([]argo.Application, error) {
	return listObjects[argo.Application](ctx, r, argo.ApplicationsGVR, ns)
}

// ApplicationsMetadata lists the Applications in ns ("" = all namespaces)
// with their metadata only (name, namespace, labels, annotations; no spec
// nor status), in the API server's order: which Applications Image Updater
// manages, as its CRs and annotations select them, at a fraction of the
// cost of the whole objects (the API server sends PartialObjectMetadata,
// in protobuf). Without a metadata client it lists them whole.
func (r *Reader) ApplicationsMetadata(ctx context.Context, ns string) ([]argo.Application, error) {
	if r.Metadata == nil {
		return r.Applications(ctx, ns)
	}
	gvr := argo.ApplicationsGVR
	var list *metav1.PartialObjectMetadataList
	var err error
	if ns == "" {
		list, err = r.Metadata.Resource(gvr).List(ctx, r.listOptions())
	} else {
		list, err = r.Metadata.Resource(gvr).Namespace(ns).List(ctx, r.listOptions())
	}
	if err != nil {
		return nil, newAccessError("list", gvr.Group, gvr.Resource, ns, "", err)
	}
	out := make([]argo.Application, len(list.Items))
	for i := range list.Items {
		out[i].TypeMeta = metav1.TypeMeta{APIVersion: gvr.GroupVersion().String(), Kind: "Application"}
		out[i].ObjectMeta = list.Items[i].ObjectMeta
		out[i].ManagedFields = nil // never read: do not hold them
	}
	return out, nil
}

// AppProject reads one Argo CD AppProject (they live in the Argo CD
// namespace).
func (r *Reader) AppProject(ctx context.Context, ns, name string) (*argo.AppProject, error) {
	var p argo.AppProject
	if err := r.getObject(ctx, argo.AppProjectsGVR, ns, name, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// ApplicationSets lists the ApplicationSets in ns ("" = all namespaces).
func (r *Reader) ApplicationSets(ctx context.Context, ns string) ([]argo.ApplicationSet, error) {
	return listObjects[argo.ApplicationSet](ctx, r, argo.ApplicationSetsGVR, ns)
}

// ImageUpdaters lists the ImageUpdater CRs in ns ("" = all namespaces) as
// stored, i.e. with the CRD defaults the API server wrote into them (see
// updater.ApplyCRDDefaults). A cluster without the CRD answers NotFound.
func (r *Reader) ImageUpdaters(ctx context.Context, ns string) ([]updater.ImageUpdater, error) {
	return listObjects[updater.ImageUpdater](ctx, r, argo.ImageUpdatersGVR, ns)
}

func (r *Reader) resource(gvr schema.GroupVersionResource, ns string) dynamic.ResourceInterface {
	if ns == "" {
		return r.Dynamic.Resource(gvr)
	}
	return r.Dynamic.Resource(gvr).Namespace(ns)
}

func (r *Reader) getObject(ctx context.Context, gvr schema.GroupVersionResource, ns, name string, out any) error {
	u, err := r.resource(gvr, ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return newAccessError("get", gvr.Group, gvr.Resource, ns, name, err)
	}
	if err := argo.FromUnstructured(u, out); err != nil {
		return &AccessError{Verb: "get", Group: gvr.Group, Resource: gvr.Resource, Namespace: ns, Name: name, Err: err}
	}
	return nil
}

func listObjects[T any](ctx context.Context, r *Reader, gvr schema.GroupVersionResource, ns string) ([]T, error) {
	if r.Raw != nil {
		return listTyped[T](ctx, r.Raw, gvr, ns, r.listOptions())
	}
	list, err := r.resource(gvr, ns).List(ctx, r.listOptions())
	if err != nil {
		return nil, newAccessError("list", gvr.Group, gvr.Resource, ns, "", err)
	}
	out := make([]T, len(list.Items))
	for i := range list.Items {
		if err := argo.FromUnstructured(&list.Items[i], &out[i]); err != nil {
			return nil, &AccessError{Verb: "list", Group: gvr.Group, Resource: gvr.Resource, Namespace: ns, Err: err}
		}
		// Each object's maps go as soon as it is typed: a list of
		// thousands is not held twice until the last is converted.
		list.Items[i] = unstructured.Unstructured{}
	}
	return out, nil
}

// listTyped lists the objects as JSON and decodes them into their type at
// once (case-sensitive keys, as the API machinery decodes): a list of
// thousands of Applications is not first built as maps and then
// converted, which cost a fleet scan more CPU than anything it read but
// the tag lists.
func listTyped[T any](ctx context.Context, rc rest.Interface, gvr schema.GroupVersionResource, ns string, opts metav1.ListOptions) ([]T, error) {
	path := "/apis/" + gvr.Group + "/" + gvr.Version
	if ns != "" {
		path += "/namespaces/" + ns
	}
	path += "/" + gvr.Resource
	req := rc.Get().AbsPath(path).SetHeader("Accept", "application/json")
	if opts.ResourceVersion != "" {
		req = req.Param("resourceVersion", opts.ResourceVersion)
	}
	body, err := req.Do(ctx).Raw()
	if err != nil {
		return nil, newAccessError("list", gvr.Group, gvr.Resource, ns, "", err)
	}
	var list struct {
		Items []T `json:"items"`
	}
	if err := utiljson.Unmarshal(body, &list); err != nil {
		return nil, &AccessError{Verb: "list", Group: gvr.Group, Resource: gvr.Resource, Namespace: ns, Err: fmt.Errorf("decoding the list: %w", err)}
	}
	if list.Items == nil {
		list.Items = []T{}
	}
	return list.Items, nil
}

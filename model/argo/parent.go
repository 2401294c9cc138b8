package argo

import (
	"strings"
)

// Argo CD resource tracking keys.
const (
	// LabelAppInstance is the tracking label (Argo CD's "label" tracking
	// method): the name of the Application that manages the object.
	LabelAppInstance = "app.kubernetes.io/instance"
	// AnnotationTrackingID is the tracking annotation ("annotation" and
	// "annotation+label" methods): "<app>:<group>/<kind>:<namespace>/<name>".
	AnnotationTrackingID = "argocd.argoproj.io/tracking-id"
)

// How a parent was found, in ParentRef.Via.
const (
	ViaOwnerReference = "ownerReference"
	ViaTrackingID     = "annotation " + AnnotationTrackingID
	ViaInstanceLabel  = "label " + LabelAppInstance
)

// ParentRef names the object that manages an Application and so rewrites its
// spec on every reconcile or sync: an ApplicationSet (ownerReference) or a
// parent Application in the app-of-apps pattern (tracking annotation or
// label). Namespace is empty when the tracking data does not say it; Argo CD
// then means its own control-plane namespace.
type ParentRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Via       string `json:"via"`
}

// String is "Kind namespace/name" or "Kind name".
func (p ParentRef) String() string {
	if p.Namespace == "" {
		return p.Kind + " " + p.Name
	}
	return p.Kind + " " + p.Namespace + "/" + p.Name
}

// Parent returns the object that manages the Application, in this order: an
// ownerReference to an argoproj.io ApplicationSet or Application (the
// controller reference first), the tracking-id annotation, the
// app.kubernetes.io/instance label. Tracking data naming the Application
// itself is not a parent. Note that Helm charts also set the instance label
// to their release name, so a label-only result is weaker evidence than the
// other two (see Via).
func (a *Application) Parent() (ParentRef, bool) {
	var fallback *ParentRef
	for _, o := range a.OwnerReferences {
		if !strings.HasPrefix(o.APIVersion, Group+"/") || (o.Kind != KindApplicationSet && o.Kind != KindApplication) {
			continue
		}
		p := ParentRef{Kind: o.Kind, Namespace: a.Namespace, Name: o.Name, Via: ViaOwnerReference}
		if o.Controller != nil && *o.Controller {
			return p, true
		}
		if fallback == nil {
			fallback = &p
		}
	}
	if fallback != nil {
		return *fallback, true
	}
	if id := a.Annotations[AnnotationTrackingID]; id != "" {
		app, _, _ := strings.Cut(id, ":")
		if p, ok := a.trackedParent(app, ViaTrackingID); ok {
			return p, true
		}
	}
	if p, ok := a.trackedParent(a.Labels[LabelAppInstance], ViaInstanceLabel); ok {
		return p, true
	}
	return ParentRef{}, false
}

// trackedParent reads an Argo CD instance name: "name" for an Application in
// the control-plane namespace, "namespace_name" otherwise (Kubernetes names
// cannot contain "_").
func (a *Application) trackedParent(instance, via string) (ParentRef, bool) {
	if instance == "" {
		return ParentRef{}, false
	}
	p := ParentRef{Kind: KindApplication, Name: instance, Via: via}
	if ns, name, ok := strings.Cut(instance, "_"); ok {
		p.Namespace, p.Name = ns, name
	}
	if p.Name == a.Name && (p.Namespace == "" || p.Namespace == a.Namespace) {
		return ParentRef{}, false
	}
	return p, true
}

// ParentApp returns Parent().String(): the ApplicationSet or parent
// Application that would revert an argocd write-back to this Application.
func (a *Application) ParentApp() (string, bool) {
	p, ok := a.Parent()
	if !ok {
		return "", false
	}
	return p.String(), true
}

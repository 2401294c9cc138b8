package argo

import "k8s.io/apimachinery/pkg/runtime/schema"

// API groups, version and resources read through the dynamic client.
const (
	// Group is Argo CD's API group.
	Group = "argoproj.io"
	// UpdaterGroup is Image Updater's API group (v1.x CRs).
	UpdaterGroup = "argocd-image-updater.argoproj.io"
	// Version is the only served version of both groups.
	Version = "v1alpha1"

	ResourceApplications    = "applications"
	ResourceAppProjects     = "appprojects"
	ResourceApplicationSets = "applicationsets"
	ResourceImageUpdaters   = "imageupdaters"

	KindApplication    = "Application"
	KindAppProject     = "AppProject"
	KindApplicationSet = "ApplicationSet"
	KindImageUpdater   = "ImageUpdater"
)

// The GroupVersionResources of the objects above. They are values, not
// state: treat them as constants (Go has no struct constants).
var (
	ApplicationsGVR    = schema.GroupVersionResource{Group: Group, Version: Version, Resource: ResourceApplications}
	AppProjectsGVR     = schema.GroupVersionResource{Group: Group, Version: Version, Resource: ResourceAppProjects}
	ApplicationSetsGVR = schema.GroupVersionResource{Group: Group, Version: Version, Resource: ResourceApplicationSets}
	ImageUpdatersGVR   = schema.GroupVersionResource{Group: UpdaterGroup, Version: Version, Resource: ResourceImageUpdaters}
)

// ListKinds maps each GVR above to its list kind, as the dynamic client's
// fake (NewSimpleDynamicClientWithCustomListKinds) and the lab need it.
func ListKinds() map[schema.GroupVersionResource]string {
	return map[schema.GroupVersionResource]string{
		ApplicationsGVR:    KindApplication + "List",
		AppProjectsGVR:     KindAppProject + "List",
		ApplicationSetsGVR: KindApplicationSet + "List",
		ImageUpdatersGVR:   KindImageUpdater + "List",
	}
}

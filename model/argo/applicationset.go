package argo

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ApplicationSet is the part of an argoproj.io/v1alpha1 ApplicationSet the
// diagnosis reads: enough to tell whether it regenerates (and so reverts) the
// spec of an Application that argocd write-back edited.
type ApplicationSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ApplicationSetSpec `json:"spec"`
}

// ApplicationSetSpec is spec.
type ApplicationSetSpec struct {
	GoTemplate bool `json:"goTemplate,omitempty"`
	// IgnoreApplicationDifferences lists fields of generated Applications
	// the ApplicationSet leaves alone (e.g. /spec/source/helm/parameters).
	IgnoreApplicationDifferences []ApplicationSetResourceIgnoreDifferences `json:"ignoreApplicationDifferences,omitempty"`
	SyncPolicy                   *ApplicationSetSyncPolicy                 `json:"syncPolicy,omitempty"`
}

// ApplicationSetResourceIgnoreDifferences is one
// spec.ignoreApplicationDifferences[] entry.
type ApplicationSetResourceIgnoreDifferences struct {
	Name              string   `json:"name,omitempty"`
	JSONPointers      []string `json:"jsonPointers,omitempty"`
	JQPathExpressions []string `json:"jqPathExpressions,omitempty"`
}

// ApplicationSetSyncPolicy is spec.syncPolicy; ApplicationsSync
// "create-only" or "create-delete" stops the ApplicationSet from updating
// existing Applications.
type ApplicationSetSyncPolicy struct {
	PreserveResourcesOnDeletion bool    `json:"preserveResourcesOnDeletion,omitempty"`
	ApplicationsSync            *string `json:"applicationsSync,omitempty"`
}

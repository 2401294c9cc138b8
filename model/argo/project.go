package argo

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// AppProject is the part of an argoproj.io/v1alpha1 AppProject the diagnosis
// reads: sync windows (a deny window blocks the sync that would roll out an
// update), allowed source repositories and destinations.
type AppProject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec AppProjectSpec `json:"spec"`
}

// AppProjectSpec is spec.
type AppProjectSpec struct {
	SourceRepos  []string                 `json:"sourceRepos,omitempty"`
	Destinations []ApplicationDestination `json:"destinations,omitempty"`
	SyncWindows  []SyncWindow             `json:"syncWindows,omitempty"`
}

// SyncWindow is one spec.syncWindows[] entry: Kind "allow" or "deny",
// Schedule a cron expression, Duration a Go-like duration ("1h").
type SyncWindow struct {
	Kind         string   `json:"kind,omitempty"`
	Schedule     string   `json:"schedule,omitempty"`
	Duration     string   `json:"duration,omitempty"`
	Applications []string `json:"applications,omitempty"`
	Namespaces   []string `json:"namespaces,omitempty"`
	Clusters     []string `json:"clusters,omitempty"`
	ManualSync   bool     `json:"manualSync,omitempty"`
	TimeZone     string   `json:"timeZone,omitempty"`
}

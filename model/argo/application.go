package argo

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Application is the part of an argoproj.io/v1alpha1 Application the
// diagnosis reads. JSON names are Argo CD's.
type Application struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ApplicationSpec   `json:"spec"`
	Status ApplicationStatus `json:"status,omitempty"`
}

// ApplicationSpec is spec. Argo CD uses Sources when it is non-empty, else
// Source; SourceHydrator, when set, replaces both.
type ApplicationSpec struct {
	Project        string                 `json:"project,omitempty"`
	Source         *ApplicationSource     `json:"source,omitempty"`
	Sources        []ApplicationSource    `json:"sources,omitempty"`
	SourceHydrator *SourceHydrator        `json:"sourceHydrator,omitempty"`
	Destination    ApplicationDestination `json:"destination"`
	SyncPolicy     *SyncPolicy            `json:"syncPolicy,omitempty"`
}

// ApplicationDestination is spec.destination.
type ApplicationDestination struct {
	Server    string `json:"server,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
}

// SourceHydrator is spec.sourceHydrator (Argo CD's rendered-manifest
// pattern): DrySource is rendered and committed to SyncSource, which Argo CD
// then syncs from.
type SourceHydrator struct {
	DrySource  DrySource  `json:"drySource"`
	SyncSource SyncSource `json:"syncSource"`
	HydrateTo  *HydrateTo `json:"hydrateTo,omitempty"`
}

// DrySource is spec.sourceHydrator.drySource.
type DrySource struct {
	RepoURL        string                      `json:"repoURL"`
	TargetRevision string                      `json:"targetRevision"`
	Path           string                      `json:"path"`
	Helm           *ApplicationSourceHelm      `json:"helm,omitempty"`
	Kustomize      *ApplicationSourceKustomize `json:"kustomize,omitempty"`
	Plugin         *ApplicationSourcePlugin    `json:"plugin,omitempty"`
	Directory      *ApplicationSourceDirectory `json:"directory,omitempty"`
}

// SyncSource is spec.sourceHydrator.syncSource; RepoURL empty means the dry
// source's repository.
type SyncSource struct {
	RepoURL      string `json:"repoURL,omitempty"`
	TargetBranch string `json:"targetBranch"`
	Path         string `json:"path"`
}

// HydrateTo is spec.sourceHydrator.hydrateTo, a staging branch.
type HydrateTo struct {
	TargetBranch string `json:"targetBranch"`
}

// SyncPolicy is spec.syncPolicy.
type SyncPolicy struct {
	Automated   *SyncPolicyAutomated `json:"automated,omitempty"`
	SyncOptions []string             `json:"syncOptions,omitempty"`
}

// SyncPolicyAutomated is spec.syncPolicy.automated. Enabled nil means
// enabled (the block's presence turns automated sync on; enabled: false
// turns it off again, Argo CD v3).
type SyncPolicyAutomated struct {
	Prune    bool  `json:"prune,omitempty"`
	SelfHeal bool  `json:"selfHeal,omitempty"`
	Enabled  *bool `json:"enabled,omitempty"`
}

// ApplicationStatus is status.
type ApplicationStatus struct {
	Sync           SyncStatus             `json:"sync,omitempty"`
	Health         HealthStatus           `json:"health,omitempty"`
	SourceType     string                 `json:"sourceType,omitempty"`
	SourceTypes    []string               `json:"sourceTypes,omitempty"`
	Summary        ApplicationSummary     `json:"summary,omitempty"`
	Conditions     []ApplicationCondition `json:"conditions,omitempty"`
	OperationState *OperationState        `json:"operationState,omitempty"`
	ReconciledAt   *metav1.Time           `json:"reconciledAt,omitempty"`
	History        []RevisionHistory      `json:"history,omitempty"`
}

// SyncStatus is status.sync: Status is "Synced", "OutOfSync" or "Unknown";
// Revision (single source) or Revisions (multi-source) is the revision the
// comparison was made against.
type SyncStatus struct {
	Status    string   `json:"status"`
	Revision  string   `json:"revision,omitempty"`
	Revisions []string `json:"revisions,omitempty"`
}

// HealthStatus is status.health ("Healthy", "Progressing", "Degraded",
// "Suspended", "Missing", "Unknown").
type HealthStatus struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
}

// ApplicationSummary is status.summary; Images is what Image Updater treats
// as the live images.
type ApplicationSummary struct {
	Images []string `json:"images,omitempty"`
}

// ApplicationCondition is one status.conditions[] entry, e.g.
// ComparisonError, InvalidSpecError, SyncError.
type ApplicationCondition struct {
	Type               string       `json:"type"`
	Message            string       `json:"message"`
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
}

// OperationState is status.operationState, the last (or running) operation.
// Phase is "Running", "Terminating", "Failed", "Error" or "Succeeded".
type OperationState struct {
	Phase      string               `json:"phase"`
	Message    string               `json:"message,omitempty"`
	SyncResult *SyncOperationResult `json:"syncResult,omitempty"`
	StartedAt  metav1.Time          `json:"startedAt"`
	FinishedAt *metav1.Time         `json:"finishedAt,omitempty"`
}

// SyncOperationResult is status.operationState.syncResult.
type SyncOperationResult struct {
	Revision  string   `json:"revision"`
	Revisions []string `json:"revisions,omitempty"`
}

// RevisionHistory is one status.history[] entry, a completed sync.
type RevisionHistory struct {
	ID         int64       `json:"id"`
	Revision   string      `json:"revision,omitempty"`
	Revisions  []string    `json:"revisions,omitempty"`
	DeployedAt metav1.Time `json:"deployedAt"`
}

// HasMultipleSources mirrors Argo CD: spec.sources wins over spec.source as
// soon as it has an entry.
func (a *Application) HasMultipleSources() bool { return len(a.Spec.Sources) > 0 }

// AutomatedSync reports whether Argo CD syncs the Application on its own:
// spec.syncPolicy.automated is present and not switched off with
// enabled: false.
func (a *Application) AutomatedSync() bool {
	if a.Spec.SyncPolicy == nil || a.Spec.SyncPolicy.Automated == nil {
		return false
	}
	en := a.Spec.SyncPolicy.Automated.Enabled
	return en == nil || *en
}

// Key is "namespace/name".
func (a *Application) Key() string {
	if a.Namespace == "" {
		return a.Name
	}
	return a.Namespace + "/" + a.Name
}

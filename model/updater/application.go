package updater

// Application is an Argo CD Application reduced to what the Image Updater
// model reads: identity, labels and annotations (selection and the legacy
// annotation language), the source specs (write-back repository, branch and
// path defaults), the rendered source types from status (the source-type
// gate) and the live images from status.summary.images.
//
// Callers fill it from the Application object; the JSON names follow Argo
// CD's field names where a field maps one to one, so a caller may also
// unmarshal a flattened document into it.
type Application struct {
	// Name and Namespace are metadata.name and metadata.namespace.
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// Labels are metadata.labels (applicationRefs[].labelSelectors match them).
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are metadata.annotations (image-list and friends).
	Annotations map[string]string `json:"annotations,omitempty"`

	// SourceType is status.sourceType of a single-source Application:
	// "Helm", "Kustomize", "Plugin", "Directory", or "" when Argo CD could not
	// render the manifests.
	SourceType string `json:"sourceType,omitempty"`
	// SourceTypes is status.sourceTypes of a multi-source Application, index
	// aligned with spec.sources.
	SourceTypes []string `json:"sourceTypes,omitempty"`

	// Sources holds spec.source (one element, MultiSource false) or
	// spec.sources (MultiSource true).
	Sources []AppSource `json:"sources,omitempty"`
	// MultiSource is true when the Application uses spec.sources; Image
	// Updater then reads status.sourceTypes instead of status.sourceType.
	MultiSource bool `json:"multiSource,omitempty"`
	// Hydrator is spec.sourceHydrator.drySource when the Application uses the
	// Source Hydrator (read by v1.3.0+).
	Hydrator *DrySource `json:"drySource,omitempty"`

	// LiveImages is status.summary.images, as Argo CD reports them.
	LiveImages []string `json:"images,omitempty"`
}

// AppSource is one entry of spec.source / spec.sources. The Has* flags say
// whether the source carries an explicit helm, kustomize or plugin block:
// Image Updater picks the source to edit by those blocks, not by the
// rendered type.
type AppSource struct {
	RepoURL        string `json:"repoURL"`
	Path           string `json:"path,omitempty"`
	TargetRevision string `json:"targetRevision,omitempty"`
	Chart          string `json:"chart,omitempty"`
	HasHelm        bool   `json:"helm,omitempty"`
	HasKustomize   bool   `json:"kustomize,omitempty"`
	HasPlugin      bool   `json:"plugin,omitempty"`
}

// DrySource is spec.sourceHydrator.drySource. v1.3.0 decides the source type
// of a hydrated Application from its explicit helm/kustomize/plugin block and
// otherwise falls back to status.sourceType (issue #1815).
type DrySource struct {
	RepoURL        string `json:"repoURL"`
	Path           string `json:"path,omitempty"`
	TargetRevision string `json:"targetRevision,omitempty"`
	HasHelm        bool   `json:"helm,omitempty"`
	HasKustomize   bool   `json:"kustomize,omitempty"`
	HasPlugin      bool   `json:"plugin,omitempty"`
}

// Key is "namespace/name", the form Image Updater logs applications in.
func (a Application) Key() string {
	if a.Namespace == "" {
		return a.Name
	}
	return a.Namespace + "/" + a.Name
}

// Argo CD source type names as they appear in status.sourceType(s).
const (
	AppSourceHelm      = "Helm"
	AppSourceKustomize = "Kustomize"
	AppSourcePlugin    = "Plugin"
	AppSourceDirectory = "Directory"
)

// EditedSource returns the source Image Updater edits and whose path and
// repoURL it uses as write-back defaults (getApplicationSource), for the
// given resolved source type ("Helm", "Kustomize", "Plugin" or anything
// else): for a single-source Application the only source; for a multi-source
// one the first source with an explicit block of that type, else the source
// whose status.sourceTypes entry is that type, else the first with any
// helm/kustomize/plugin block, else the first source (§5.2). It returns
// false when the Application has no source at all (Image Updater then fails
// with "application source is not defined").
func (a Application) EditedSource(kind string) (AppSource, bool) {
	if len(a.Sources) == 0 {
		return AppSource{}, false
	}
	if !a.MultiSource || len(a.Sources) == 1 {
		return a.Sources[0], true
	}
	for _, s := range a.Sources {
		switch {
		case kind == AppSourceHelm && s.HasHelm,
			kind == AppSourceKustomize && s.HasKustomize,
			kind == AppSourcePlugin && s.HasPlugin:
			return s, true
		}
	}
	for i, st := range a.SourceTypes {
		if st == kind && i < len(a.Sources) && kind != "" {
			return a.Sources[i], true
		}
	}
	for _, s := range a.Sources {
		if s.HasHelm || s.HasKustomize || s.HasPlugin {
			return s, true
		}
	}
	return a.Sources[0], true
}

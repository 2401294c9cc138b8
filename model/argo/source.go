package argo

import "encoding/json"

// ApplicationSource is one spec.source / spec.sources[] entry.
type ApplicationSource struct {
	RepoURL        string `json:"repoURL"`
	Path           string `json:"path,omitempty"`
	TargetRevision string `json:"targetRevision,omitempty"`
	Chart          string `json:"chart,omitempty"`
	// Ref names the source for $ref value files of other sources.
	Ref       string                      `json:"ref,omitempty"`
	Name      string                      `json:"name,omitempty"`
	Helm      *ApplicationSourceHelm      `json:"helm,omitempty"`
	Kustomize *ApplicationSourceKustomize `json:"kustomize,omitempty"`
	Plugin    *ApplicationSourcePlugin    `json:"plugin,omitempty"`
	Directory *ApplicationSourceDirectory `json:"directory,omitempty"`
}

// ApplicationSourceHelm is source.helm, where argocd write-back puts image
// parameters.
type ApplicationSourceHelm struct {
	ValueFiles  []string        `json:"valueFiles,omitempty"`
	Parameters  []HelmParameter `json:"parameters,omitempty"`
	ReleaseName string          `json:"releaseName,omitempty"`
	// Values is the inline values as a YAML string.
	Values string `json:"values,omitempty"`
	// ValuesObject is inline values as an object; Argo CD prefers it over
	// Values. Kept raw: the diagnosis only looks keys up in it.
	ValuesObject json.RawMessage `json:"valuesObject,omitempty"`
	// FileParameters are passed as --set-file, after the parameters.
	FileParameters []HelmFileParameter `json:"fileParameters,omitempty"`
	// IgnoreMissingValueFiles: a valueFiles entry that does not exist is
	// skipped instead of failing the render.
	IgnoreMissingValueFiles bool `json:"ignoreMissingValueFiles,omitempty"`
}

// HelmFileParameter is one source.helm.fileParameters[] entry: the value
// at Name is the content of the file at Path.
type HelmFileParameter struct {
	Name string `json:"name,omitempty"`
	Path string `json:"path,omitempty"`
}

// HelmParameter is one source.helm.parameters[] entry.
type HelmParameter struct {
	Name        string `json:"name,omitempty"`
	Value       string `json:"value,omitempty"`
	ForceString bool   `json:"forceString,omitempty"`
}

// ApplicationSourceKustomize is source.kustomize; Images are entries like
// "[old=]new:tag[@digest]" that argocd write-back edits.
type ApplicationSourceKustomize struct {
	Images     []string `json:"images,omitempty"`
	NamePrefix string   `json:"namePrefix,omitempty"`
	NameSuffix string   `json:"nameSuffix,omitempty"`
}

// ApplicationSourcePlugin is source.plugin; Env is where Image Updater
// v1.3.0+ writes plugin image variables.
type ApplicationSourcePlugin struct {
	Name string     `json:"name,omitempty"`
	Env  []EnvEntry `json:"env,omitempty"`
}

// EnvEntry is one source.plugin.env[] entry.
type EnvEntry struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ApplicationSourceDirectory is source.directory.
type ApplicationSourceDirectory struct {
	Recurse bool   `json:"recurse,omitempty"`
	Include string `json:"include,omitempty"`
	Exclude string `json:"exclude,omitempty"`
}

// HelmParameter returns the value of the Helm parameter called name.
func (s ApplicationSource) HelmParameter(name string) (string, bool) {
	if s.Helm == nil {
		return "", false
	}
	for _, p := range s.Helm.Parameters {
		if p.Name == name {
			return p.Value, true
		}
	}
	return "", false
}

package updater

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ImageUpdater is the argocd-image-updater.argoproj.io/v1alpha1 ImageUpdater
// custom resource as stored by the API server. JSON names follow the CRD
// (imageupdater-v1.3.0.crd.yaml) exactly. Every optional field is a pointer
// or a slice so that "unset" (nil: inherit from the parent level) stays
// distinct from "set to false / empty string / empty list" (which overrides).
// Unmarshal it with sigs.k8s.io/yaml or encoding/json.
type ImageUpdater struct {
	APIVersion        string `json:"apiVersion,omitempty"`
	Kind              string `json:"kind,omitempty"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ImageUpdaterSpec   `json:"spec"`
	Status ImageUpdaterStatus `json:"status,omitempty"`
}

// Key is "namespace/name".
func (cr ImageUpdater) Key() string {
	if cr.Namespace == "" {
		return cr.Name
	}
	return cr.Namespace + "/" + cr.Name
}

// ImageUpdaterSpec is spec.
type ImageUpdaterSpec struct {
	// Namespace is spec.namespace, the namespace Applications are listed in
	// by v1.0.x and v1.1.x (required there). v1.2.0 removed the field and
	// lists Applications in the CR's own metadata.namespace.
	Namespace *string `json:"namespace,omitempty"`

	CommonUpdateSettings *CommonUpdateSettings `json:"commonUpdateSettings,omitempty"`
	WriteBackConfig      *WriteBackConfig      `json:"writeBackConfig,omitempty"`
	// ImagesVerification exists from v1.3.0.
	ImagesVerification *ImagesVerification `json:"imagesVerification,omitempty"`
	ApplicationRefs    []ApplicationRef    `json:"applicationRefs"`
}

// ApplicationRef is one spec.applicationRefs[] rule.
type ApplicationRef struct {
	// NamePattern is a filepath.Match glob on metadata.name.
	NamePattern string `json:"namePattern"`
	// LabelSelectors nil matches every Application; an invalid selector
	// matches none.
	LabelSelectors *metav1.LabelSelector `json:"labelSelectors,omitempty"`
	// UseAnnotations exists from v1.1.0; when true only NamePattern,
	// LabelSelectors and ImagesVerification of the CR are used and
	// everything else comes from the Application's annotations.
	UseAnnotations       *bool                 `json:"useAnnotations,omitempty"`
	CommonUpdateSettings *CommonUpdateSettings `json:"commonUpdateSettings,omitempty"`
	WriteBackConfig      *WriteBackConfig      `json:"writeBackConfig,omitempty"`
	ImagesVerification   *ImagesVerification   `json:"imagesVerification,omitempty"`
	Images               []CRImage             `json:"images,omitempty"`
}

// UsesAnnotations reports whether the ref reads the Application's legacy
// annotations under version v: useAnnotations must be true and the version
// must know the field (v1.1.0+; earlier API servers prune it).
func (r ApplicationRef) UsesAnnotations(v Version) bool {
	return v.SupportsUseAnnotations() && r.UseAnnotations != nil && *r.UseAnnotations
}

// CRImage is one applicationRefs[].images[] entry.
type CRImage struct {
	Alias                string                `json:"alias"`
	ImageName            string                `json:"imageName"`
	CommonUpdateSettings *CommonUpdateSettings `json:"commonUpdateSettings,omitempty"`
	ImagesVerification   *ImagesVerification   `json:"imagesVerification,omitempty"`
	ManifestTargets      *CRManifestTargets    `json:"manifestTargets,omitempty"`
}

// CommonUpdateSettings is a commonUpdateSettings block (CR-wide, per ref or
// per image).
type CommonUpdateSettings struct {
	UpdateStrategy *string  `json:"updateStrategy,omitempty"`
	ForceUpdate    *bool    `json:"forceUpdate,omitempty"`
	AllowTags      *string  `json:"allowTags,omitempty"`
	IgnoreTags     []string `json:"ignoreTags,omitempty"`
	PullSecret     *string  `json:"pullSecret,omitempty"`
	Platforms      []string `json:"platforms,omitempty"`
}

// WriteBackConfig is a writeBackConfig block (CR-wide or per ref).
type WriteBackConfig struct {
	// Method must match ^(argocd|git|git:[a-zA-Z0-9][a-zA-Z0-9-._/:]*)$ in a
	// stored CR; unset means argocd.
	Method    *string    `json:"method,omitempty"`
	GitConfig *GitConfig `json:"gitConfig,omitempty"`
}

// GitConfig is writeBackConfig.gitConfig.
type GitConfig struct {
	Repository      *string `json:"repository,omitempty"`
	Branch          *string `json:"branch,omitempty"`
	WriteBackTarget *string `json:"writeBackTarget,omitempty"`
	// PullRequest exists from v1.2.0.
	PullRequest *PullRequestConfig `json:"pullRequest,omitempty"`
}

// PullRequestConfig is gitConfig.pullRequest: exactly one provider block.
type PullRequestConfig struct {
	GitHub *PRProviderConfig `json:"github,omitempty"`
	GitLab *PRProviderConfig `json:"gitlab,omitempty"`
	// Labels exists only on main after v1.3.0 (PR #1781); the v1.3.0 API
	// server prunes it.
	Labels []string `json:"labels,omitempty"`
}

// PRProviderConfig is an (empty) provider block such as "github: {}".
type PRProviderConfig struct{}

// ImagesVerification is an imagesVerification block (v1.3.0+).
type ImagesVerification struct {
	// Enabled defaults to true when the block is present (CRD default).
	Enabled   *bool         `json:"enabled,omitempty"`
	CosignKey *CosignKeyRef `json:"cosignKey,omitempty"`
}

// IsEnabled is the effective enabled flag: a present block with enabled
// unset is enabled.
func (iv *ImagesVerification) IsEnabled() bool {
	if iv == nil {
		return false
	}
	return iv.Enabled == nil || *iv.Enabled
}

// CosignKeyRef names a Secret key in the CR's namespace holding a PEM key.
type CosignKeyRef struct {
	SecretName string `json:"secretName"`
	Key        string `json:"key"`
}

// CRManifestTargets is images[].manifestTargets: exactly one of the blocks.
type CRManifestTargets struct {
	Helm      *HelmTarget      `json:"helm,omitempty"`
	Kustomize *KustomizeTarget `json:"kustomize,omitempty"`
	// Plugin exists from v1.3.0.
	Plugin *PluginTarget `json:"plugin,omitempty"`
}

// HelmTarget names the Helm parameters to write; Spec wins over Name/Tag.
type HelmTarget struct {
	Name *string `json:"name,omitempty"`
	Tag  *string `json:"tag,omitempty"`
	Spec *string `json:"spec,omitempty"`
}

// KustomizeTarget is the image name as written in the kustomization.
type KustomizeTarget struct {
	Name *string `json:"name,omitempty"`
}

// PluginTarget names the plugin env variables to write; Spec wins.
type PluginTarget struct {
	Name *string `json:"name,omitempty"`
	Tag  *string `json:"tag,omitempty"`
	Spec *string `json:"spec,omitempty"`
}

// ImageUpdaterStatus is the status subresource (v1.2.0+).
type ImageUpdaterStatus struct {
	ObservedGeneration  int64              `json:"observedGeneration,omitempty"`
	LastCheckedAt       *metav1.Time       `json:"lastCheckedAt,omitempty"`
	LastUpdatedAt       *metav1.Time       `json:"lastUpdatedAt,omitempty"`
	ApplicationsMatched int32              `json:"applicationsMatched,omitempty"`
	ImagesManaged       int32              `json:"imagesManaged,omitempty"`
	RecentUpdates       []RecentUpdate     `json:"recentUpdates,omitempty"`
	Conditions          []metav1.Condition `json:"conditions,omitempty"`
}

// RecentUpdate is one status.recentUpdates[] entry.
type RecentUpdate struct {
	Alias               string      `json:"alias"`
	Image               string      `json:"image"`
	NewVersion          string      `json:"newVersion"`
	ApplicationsUpdated int32       `json:"applicationsUpdated"`
	UpdatedAt           metav1.Time `json:"updatedAt"`
	Message             string      `json:"message,omitempty"`
}

// ApplyCRDDefaults turns a user-written ImageUpdater into the object the API
// server of version v stores: structural pruning drops the fields that
// version's CRD does not know (useAnnotations before v1.1.0,
// gitConfig.pullRequest before v1.2.0, imagesVerification and
// manifestTargets.plugin before v1.3.0, pullRequest.labels before main after
// v1.3.0), and defaulting fills the schema defaults: in v1.0.0–v1.3.x
// updateStrategy "semver" and forceUpdate false into every commonUpdateSettings
// block that is present (the bug fixed by #1782 after v1.3.0), useAnnotations
// false on every ref (v1.1.0+), and enabled true in every imagesVerification
// block (v1.3.0+). spec.namespace is left alone (v1.2.0+ ignores it; see
// SelectTarget). For v0.x, which has no CRD, it does nothing. A nil cr is a
// no-op.
func ApplyCRDDefaults(cr *ImageUpdater, v Version) {
	if cr == nil || !v.UsesCRs() {
		return
	}
	defaultCUS := func(c *CommonUpdateSettings) {
		if c == nil || !v.CRDDefaultsSettings() {
			return
		}
		if c.UpdateStrategy == nil {
			s := "semver"
			c.UpdateStrategy = &s
		}
		if c.ForceUpdate == nil {
			f := false
			c.ForceUpdate = &f
		}
	}
	pruneWBC := func(w *WriteBackConfig) {
		if w == nil || w.GitConfig == nil || w.GitConfig.PullRequest == nil {
			return
		}
		if !v.SupportsPullRequests() {
			w.GitConfig.PullRequest = nil
			return
		}
		if !v.Head {
			w.GitConfig.PullRequest.Labels = nil
		}
	}
	ivs := func(iv **ImagesVerification) {
		if *iv == nil {
			return
		}
		if !v.SupportsImagesVerification() {
			*iv = nil
			return
		}
		if (*iv).Enabled == nil {
			t := true
			(*iv).Enabled = &t
		}
	}

	defaultCUS(cr.Spec.CommonUpdateSettings)
	pruneWBC(cr.Spec.WriteBackConfig)
	ivs(&cr.Spec.ImagesVerification)
	for i := range cr.Spec.ApplicationRefs {
		ref := &cr.Spec.ApplicationRefs[i]
		if v.SupportsUseAnnotations() {
			if ref.UseAnnotations == nil {
				f := false
				ref.UseAnnotations = &f
			}
		} else {
			ref.UseAnnotations = nil
		}
		defaultCUS(ref.CommonUpdateSettings)
		pruneWBC(ref.WriteBackConfig)
		ivs(&ref.ImagesVerification)
		for j := range ref.Images {
			img := &ref.Images[j]
			defaultCUS(img.CommonUpdateSettings)
			ivs(&img.ImagesVerification)
			if img.ManifestTargets != nil && !v.SupportsPluginSources() {
				img.ManifestTargets.Plugin = nil
			}
		}
	}
}

// DefaultedOverride is a commonUpdateSettings value that looks like the
// v1.0–v1.3 CRD default and overrides a different value inherited from a
// parent level: updateStrategy "semver" under a parent that chose another
// strategy, or forceUpdate false under a parent that set true (§10.10).
// From the stored object alone it cannot be told whether the user wrote the
// value or the API server defaulted it, so this is a hint, not a verdict.
type DefaultedOverride struct {
	// CR is "namespace/name" of the ImageUpdater.
	CR string `json:"cr"`
	// RefIndex and NamePattern identify the applicationRef.
	RefIndex    int    `json:"refIndex"`
	NamePattern string `json:"namePattern"`
	// Alias is the image alias, or "" for the ref-level block.
	Alias string `json:"alias,omitempty"`
	// Level is where the overriding block sits: SettingFromRef or SettingFromImage.
	Level SettingSource `json:"level"`
	// Field is "updateStrategy" or "forceUpdate".
	Field string `json:"field"`
	// Value is the overriding value; Inherited the value it hides and
	// InheritedFrom the level that set it.
	Value         string        `json:"value"`
	Inherited     string        `json:"inherited"`
	InheritedFrom SettingSource `json:"inheritedFrom"`
}

// Message is a one-line explanation for the diagnosis.
func (d DefaultedOverride) Message() string {
	where := fmt.Sprintf("applicationRefs[%d] (namePattern %q)", d.RefIndex, d.NamePattern)
	if d.Alias != "" {
		where += fmt.Sprintf(" images[%s]", d.Alias)
	}
	return fmt.Sprintf("%s of %s: %s=%s overrides %s=%s set at %s level; if you did not write it, "+
		"the v1.0–v1.3 CRD defaulted it into the commonUpdateSettings block (fixed after v1.3.0, #1782) — "+
		"set %s explicitly in that block or move the other settings up a level",
		d.CR, where, d.Field, d.Value, d.Field, d.Inherited, d.InheritedFrom, d.Field)
}

// DefaultedOverrides lists, for a stored CR, every ref- or image-level
// commonUpdateSettings block whose updateStrategy is "semver" (or whose
// forceUpdate is false) while the level above resolves to a different
// strategy (or to true). Refs that read annotations (useAnnotations under
// v1.1+) are skipped: their CR settings are ignored. Only versions that use
// CRs are considered; on main after v1.3.0 the CRD no longer defaults, but
// objects stored earlier keep the values until edited, so they are still
// reported.
func DefaultedOverrides(cr ImageUpdater, v Version) []DefaultedOverride {
	if !v.UsesCRs() {
		return nil
	}
	var out []DefaultedOverride
	check := func(parent CommonUpdateSettings, parentSrc map[string]SettingSource, blk *CommonUpdateSettings, level SettingSource, refIdx int, pattern, alias string) {
		if blk == nil {
			return
		}
		if blk.UpdateStrategy != nil && strings.EqualFold(strings.TrimSpace(*blk.UpdateStrategy), "semver") && parent.UpdateStrategy != nil {
			ps, _ := ParseStrategy(*parent.UpdateStrategy)
			if ps != StrategySemver {
				out = append(out, DefaultedOverride{CR: cr.Key(), RefIndex: refIdx, NamePattern: pattern, Alias: alias, Level: level,
					Field: "updateStrategy", Value: *blk.UpdateStrategy, Inherited: *parent.UpdateStrategy, InheritedFrom: parentSrc[FieldUpdateStrategy]})
			}
		}
		if blk.ForceUpdate != nil && !*blk.ForceUpdate && parent.ForceUpdate != nil && *parent.ForceUpdate {
			out = append(out, DefaultedOverride{CR: cr.Key(), RefIndex: refIdx, NamePattern: pattern, Alias: alias, Level: level,
				Field: "forceUpdate", Value: "false", Inherited: "true", InheritedFrom: parentSrc[FieldForceUpdate]})
		}
	}
	// The CR-wide layer is the same for every ref; the ref's only matters
	// for images that set a block (a CR of 150 refs is read for every app
	// of a fleet).
	crLevel, crSrc := MergeCommonUpdateSettings(SettingsLayer{Source: SettingFromCR, Settings: cr.Spec.CommonUpdateSettings})
	for i, ref := range cr.Spec.ApplicationRefs {
		if ref.UsesAnnotations(v) {
			continue
		}
		check(crLevel, crSrc, ref.CommonUpdateSettings, SettingFromRef, i, ref.NamePattern, "")
		if !slices.ContainsFunc(ref.Images, func(img CRImage) bool { return img.CommonUpdateSettings != nil }) {
			continue
		}
		refLevel, refSrc := MergeCommonUpdateSettings(
			SettingsLayer{Source: SettingFromCR, Settings: cr.Spec.CommonUpdateSettings},
			SettingsLayer{Source: SettingFromRef, Settings: ref.CommonUpdateSettings})
		for _, img := range ref.Images {
			check(refLevel, refSrc, img.CommonUpdateSettings, SettingFromImage, i, ref.NamePattern, img.Alias)
		}
	}
	return out
}

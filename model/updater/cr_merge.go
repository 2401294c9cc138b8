package updater

import (
	"strings"
)

// SettingSource says which configuration level an effective value came from:
// "default", "cr", "applicationRef", "image", or "annotation:<full key>".
type SettingSource string

// The configuration levels.
const (
	SettingFromDefault SettingSource = "default"
	SettingFromCR      SettingSource = "cr"
	SettingFromRef     SettingSource = "applicationRef"
	SettingFromImage   SettingSource = "image"
)

// SettingFromAnnotation is the source of a value read from the Application
// annotation with the given full key.
func SettingFromAnnotation(key string) SettingSource {
	return SettingSource("annotation:" + key)
}

// The field names used as keys of ImageConfig.Sources (the CRD's names).
const (
	FieldUpdateStrategy = "updateStrategy"
	FieldForceUpdate    = "forceUpdate"
	FieldAllowTags      = "allowTags"
	FieldIgnoreTags     = "ignoreTags"
	FieldPullSecret     = "pullSecret"
	FieldPlatforms      = "platforms"
)

var settingFields = []string{FieldUpdateStrategy, FieldForceUpdate, FieldAllowTags, FieldIgnoreTags, FieldPullSecret, FieldPlatforms}

// SettingsLayer is one level of commonUpdateSettings in merge order. Source
// is recorded for the fields this layer sets; FieldSources, when non-nil,
// overrides Source per field (the annotation parser uses it to name the
// exact key each value came from).
type SettingsLayer struct {
	Source       SettingSource
	FieldSources map[string]SettingSource
	Settings     *CommonUpdateSettings
}

func (l SettingsLayer) src(field string) SettingSource {
	if s, ok := l.FieldSources[field]; ok {
		return s
	}
	return l.Source
}

// MergeCommonUpdateSettings merges layers in order with Image Updater's
// mergeCommonUpdateSettings rule: per field, the last non-nil value wins;
// lists (ignoreTags, platforms) are replaced, never concatenated, and an
// empty non-nil list overrides. It returns the merged raw block and, per
// field, the source of the winning value (SettingFromDefault for fields no
// layer sets). Nil layers are skipped.
func MergeCommonUpdateSettings(layers ...SettingsLayer) (CommonUpdateSettings, map[string]SettingSource) {
	var m CommonUpdateSettings
	src := make(map[string]SettingSource, len(settingFields))
	for _, f := range settingFields {
		src[f] = SettingFromDefault
	}
	for _, l := range layers {
		s := l.Settings
		if s == nil {
			continue
		}
		if s.UpdateStrategy != nil {
			m.UpdateStrategy, src[FieldUpdateStrategy] = s.UpdateStrategy, l.src(FieldUpdateStrategy)
		}
		if s.ForceUpdate != nil {
			m.ForceUpdate, src[FieldForceUpdate] = s.ForceUpdate, l.src(FieldForceUpdate)
		}
		if s.AllowTags != nil {
			m.AllowTags, src[FieldAllowTags] = s.AllowTags, l.src(FieldAllowTags)
		}
		if s.IgnoreTags != nil {
			m.IgnoreTags, src[FieldIgnoreTags] = s.IgnoreTags, l.src(FieldIgnoreTags)
		}
		if s.PullSecret != nil {
			m.PullSecret, src[FieldPullSecret] = s.PullSecret, l.src(FieldPullSecret)
		}
		if s.Platforms != nil {
			m.Platforms, src[FieldPlatforms] = s.Platforms, l.src(FieldPlatforms)
		}
	}
	return m, src
}

// ToUpdateSettings parses a merged block the way newImageFromCommonUpdateSettings
// does: defaults (semver, no force, allow all, no ignore list, no pull
// secret, controller platform) for unset fields; the strategy through
// ParseStrategy and allow-tags through ParseAllowTags, whose warnings land in
// Notes. Nothing here fails: like Image Updater, bad values degrade (unknown
// strategy → semver, bad allow-tags → matches nothing).
func (m CommonUpdateSettings) ToUpdateSettings() UpdateSettings {
	us := DefaultUpdateSettings()
	if m.UpdateStrategy != nil {
		us.StrategyRaw = *m.UpdateStrategy
		var note string
		us.Strategy, note = ParseStrategy(*m.UpdateStrategy)
		if note != "" {
			us.Notes = append(us.Notes, note)
		}
	}
	if m.ForceUpdate != nil {
		us.ForceUpdate = *m.ForceUpdate
	}
	if m.AllowTags != nil {
		us.AllowTags = ParseAllowTags(*m.AllowTags)
		if us.AllowTags.Problem != "" {
			us.Notes = append(us.Notes, us.AllowTags.Problem)
		}
	}
	if m.IgnoreTags != nil {
		us.IgnoreTags = append([]string{}, m.IgnoreTags...)
		for _, p := range m.IgnoreTags {
			if strings.TrimSpace(p) == "*" {
				us.Notes = append(us.Notes, `ignore-tags contains "*": every tag is ignored, so this image can never be updated`)
				break
			}
		}
	}
	if m.PullSecret != nil {
		us.PullSecret = *m.PullSecret
	}
	if m.Platforms != nil {
		us.Platforms = append([]string{}, m.Platforms...)
	}
	return us
}

// EffectiveUpdateSettings merges the layers (MergeCommonUpdateSettings) and
// parses the result (ToUpdateSettings).
func EffectiveUpdateSettings(layers ...SettingsLayer) (UpdateSettings, map[string]SettingSource) {
	m, src := MergeCommonUpdateSettings(layers...)
	return m.ToUpdateSettings(), src
}

// MergeWriteBackConfig merges the CR-wide and the ref-level writeBackConfig
// like mergeWBCSettings: the CR-wide block is copied, then the ref-level
// method, gitConfig.repository, gitConfig.branch and gitConfig.writeBackTarget
// override field by field, and a ref-level gitConfig.pullRequest replaces the
// CR-wide one as a whole. The result is never nil (both nil → empty block,
// which means the argocd method). Sources names the level of each field that
// is set: "method", "repository", "branch", "writeBackTarget", "pullRequest".
// There is no per-image write-back configuration.
func MergeWriteBackConfig(global, ref *WriteBackConfig) (*WriteBackConfig, map[string]SettingSource) {
	out := &WriteBackConfig{}
	src := map[string]SettingSource{}
	apply := func(w *WriteBackConfig, level SettingSource) {
		if w == nil {
			return
		}
		if w.Method != nil {
			out.Method, src["method"] = w.Method, level
		}
		if w.GitConfig == nil {
			return
		}
		if out.GitConfig == nil {
			out.GitConfig = &GitConfig{}
		}
		g := w.GitConfig
		if g.Repository != nil {
			out.GitConfig.Repository, src["repository"] = g.Repository, level
		}
		if g.Branch != nil {
			out.GitConfig.Branch, src["branch"] = g.Branch, level
		}
		if g.WriteBackTarget != nil {
			out.GitConfig.WriteBackTarget, src["writeBackTarget"] = g.WriteBackTarget, level
		}
		if g.PullRequest != nil {
			pr := *g.PullRequest
			out.GitConfig.PullRequest, src["pullRequest"] = &pr, level
		}
	}
	apply(global, SettingFromCR)
	apply(ref, SettingFromRef)
	return out, src
}

// MergeImagesVerification resolves the imagesVerification block for one
// image as Image Updater v1.3.0's mergeImagesVerification does
// (pkg/argocd/argocd.go): CR, then ref, then image, field by field, the
// last non-nil enabled and the last non-nil cosignKey winning; so an image
// block with only enabled: true uses the CR's key. It returns nil and
// SettingFromDefault when no level has a block (no verification), and
// nothing at all before v1.3.0, which does not know the field. The source
// is the level of the cosignKey used, or of the most specific block when
// no level names a key. In useAnnotations mode pass cr nil: Image Updater
// then takes the ref's block only.
func MergeImagesVerification(v Version, cr, ref, img *ImagesVerification) (*ImagesVerification, SettingSource) {
	if !v.SupportsImagesVerification() {
		return nil, SettingFromDefault
	}
	var out *ImagesVerification
	src, keySrc := SettingFromDefault, SettingFromDefault
	for _, l := range []struct {
		iv  *ImagesVerification
		src SettingSource
	}{{cr, SettingFromCR}, {ref, SettingFromRef}, {img, SettingFromImage}} {
		if l.iv == nil {
			continue
		}
		if out == nil {
			out = &ImagesVerification{}
		}
		src = l.src
		if l.iv.Enabled != nil {
			out.Enabled = l.iv.Enabled
		}
		if l.iv.CosignKey != nil {
			out.CosignKey, keySrc = l.iv.CosignKey, l.src
		}
	}
	if out != nil && out.CosignKey != nil {
		src = keySrc
	}
	return out, src
}

// VerificationError says why an imagesVerification block is unusable; Image
// Updater then drops the image ("Could not set images verification settings
// for image %s, skipping").
type VerificationError struct {
	Level  SettingSource
	Reason string
}

func (e *VerificationError) Error() string {
	return "imagesVerification (" + string(e.Level) + " level): " + e.Reason
}

// ValidateImagesVerification checks the CRD rule "self.enabled == false ||
// has(self.cosignKey)" and that a cosignKey names a secret and a key.
func ValidateImagesVerification(iv *ImagesVerification, level SettingSource) error {
	if iv == nil || !iv.IsEnabled() {
		return nil
	}
	if iv.CosignKey == nil {
		return &VerificationError{Level: level, Reason: "enabled (the default when the block is present) but no verification method (cosignKey) is configured"}
	}
	if iv.CosignKey.SecretName == "" || iv.CosignKey.Key == "" {
		return &VerificationError{Level: level, Reason: "cosignKey needs both secretName and key"}
	}
	return nil
}

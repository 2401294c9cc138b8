package updater

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/imgupd/imgupd/internal/textutil"
)

// AnnotationPrefix is the prefix of every Image Updater annotation key.
const AnnotationPrefix = "argocd-image-updater.argoproj.io/"

// The application-wide annotation keys (full names).
const (
	AnnotationImageList       = AnnotationPrefix + "image-list"
	AnnotationWriteBackMethod = AnnotationPrefix + "write-back-method"
	AnnotationGitBranch       = AnnotationPrefix + "git-branch"
	AnnotationWriteBackTarget = AnnotationPrefix + "write-back-target"
	AnnotationGitRepository   = AnnotationPrefix + "git-repository"
)

// The setting names shared by per-alias ("<alias>.<name>") and, except
// platforms and the manifest-target keys, application-wide ("<name>") keys.
const (
	AnnKeyUpdateStrategy     = "update-strategy"
	AnnKeyAllowTags          = "allow-tags"
	AnnKeyIgnoreTags         = "ignore-tags"
	AnnKeyForceUpdate        = "force-update"
	AnnKeyPullSecret         = "pull-secret"
	AnnKeyPlatforms          = "platforms"
	AnnKeyHelmImageName      = "helm.image-name"
	AnnKeyHelmImageTag       = "helm.image-tag"
	AnnKeyHelmImageSpec      = "helm.image-spec"
	AnnKeyKustomizeImageName = "kustomize.image-name"
	AnnKeyTagMatch           = "tag-match"
)

// appWideAnnotationKeys are the suffixes valid without an alias.
var appWideAnnotationKeys = []string{
	"image-list", AnnKeyUpdateStrategy, AnnKeyAllowTags, AnnKeyIgnoreTags, AnnKeyForceUpdate, AnnKeyPullSecret,
	"write-back-method", "git-branch", "write-back-target", "git-repository",
}

// perAliasAnnotationKeys are the suffixes valid after "<alias>.", longest first.
var perAliasAnnotationKeys = []string{
	AnnKeyKustomizeImageName, AnnKeyHelmImageName, AnnKeyHelmImageSpec, AnnKeyHelmImageTag,
	AnnKeyUpdateStrategy, AnnKeyIgnoreTags, AnnKeyForceUpdate, AnnKeyPullSecret, AnnKeyAllowTags,
	AnnKeyPlatforms, AnnKeyTagMatch,
}

// AliasAnnotationKey is the full per-alias key "<prefix><alias>.<name>" as
// version v builds it: v0.x replaces "/" in the alias with "_"
// (normalizedSymbolicName), v1.x uses the alias verbatim.
func AliasAnnotationKey(alias, name string, v Version) string {
	if !v.UsesCRs() {
		alias = strings.ReplaceAll(alias, "/", "_")
	}
	return AnnotationPrefix + alias + "." + name
}

// AnnotationError says which annotation is wrong and why. Image Updater
// skips the Application (v1.x: "Could not create image list, skipping" /
// "Could not create common update settings, skipping") when it meets one.
type AnnotationError struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Reason string `json:"reason"`
	// Code is the Problem code that describes the error.
	Code string `json:"code,omitempty"`
}

func (e *AnnotationError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("annotation %s: %s", e.Key, e.Reason)
	}
	return fmt.Sprintf("annotation %s=%q: %s", e.Key, e.Value, e.Reason)
}

// ParseImageList reads an image-list value for version v.
//
// v1.x (getImagesFromAnnotations): split on ",", trim each item, skip empty
// items; an item with "=" is "<alias>=<image>" split on the first "=" with
// both parts trimmed, and an empty image part is an error; an empty alias
// ("=nginx") means no alias. A list without any item is an error
// ("annotation is empty").
//
// v0.x (parseImageList): split on ",", trim each item and keep every item,
// even an empty one (it becomes an image with an empty name that never
// matches a live image); the alias is whatever precedes the first "=",
// untrimmed. It never fails.
func ParseImageList(s string, v Version) ([]ImageRef, error) {
	items := strings.Split(s, ",")
	var out []ImageRef
	if !v.UsesCRs() {
		for _, it := range items {
			out = append(out, ParseImageRef(strings.TrimSpace(it), v))
		}
		return out, nil
	}
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			continue
		}
		alias, name := "", it
		if a, n, ok := strings.Cut(it, "="); ok {
			alias, name = strings.TrimSpace(a), strings.TrimSpace(n)
			if name == "" {
				return nil, &AnnotationError{Key: AnnotationImageList, Value: s, Code: ProblemImageListEmpty,
					Reason: fmt.Sprintf("empty image name in item %q", it)}
			}
		}
		ref := ParseImageRef(alias+"="+name, v)
		ref.Original = it
		out = append(out, ref)
	}
	if len(out) == 0 {
		return nil, &AnnotationError{Key: AnnotationImageList, Value: s, Code: ProblemImageListEmpty, Reason: "annotation is empty"}
	}
	return out, nil
}

// AnnotationConfig is what the legacy annotations of one Application say.
type AnnotationConfig struct {
	// Images are the image-list entries with their effective settings and
	// manifest targets (for v1.x per-alias values merged over app-wide ones).
	Images []ImageConfig `json:"images"`
	// WriteBack is the raw write-back configuration read from
	// write-back-method, git-branch, write-back-target and git-repository
	// (nil when none is set); BuildWriteBack turns it into a WriteBack.
	WriteBack *WriteBackConfig `json:"writeBack,omitempty"`
	// WriteBackSources names the annotation each write-back field came from.
	WriteBackSources map[string]SettingSource `json:"writeBackSources,omitempty"`
	// ImageListErr is the error building the image list (missing or empty
	// image-list, empty image name, a per-alias force-update that does not
	// parse, helm and kustomize keys on one alias); AppWideErr the error
	// reading the app-wide settings (an unparsable app-wide force-update).
	// Either makes v1.x skip the Application and fall through to the next
	// applicationRef.
	ImageListErr error `json:"-"`
	AppWideErr   error `json:"-"`
	// Problems are findings that do not stop Image Updater (unknown keys,
	// keys for unknown aliases, ignored keys...), plus the errors above.
	Problems []Problem `json:"problems,omitempty"`
}

// Err is the first configuration error in Image Updater's order.
func (c AnnotationConfig) Err() error {
	if c.ImageListErr != nil {
		return c.ImageListErr
	}
	return c.AppWideErr
}

// ParseAnnotations reads every Image Updater annotation of app the way
// version v does, and lints the rest.
//
// v1.x (useAnnotations): values are trimmed and empty values count as unset;
// a per-alias key overrides the app-wide key field by field; force-update is
// read with strconv.ParseBool and a value that does not parse fails the
// whole image list (per-alias) or the app-wide settings; ignore-tags keeps
// empty items; platforms is per-alias only and drops empty items; tag-match
// is not read; setting both helm.* and kustomize.image-name on one alias is
// an error. Items without alias get only the app-wide settings and the
// default Helm parameter names.
//
// v0.x: for each setting the per-alias key (alias with "/" replaced by "_")
// is looked up first, then the app-wide key, and the first key present wins
// even if its value is empty; values are not trimmed; force-update is true
// only for the exact string "true"; allow-tags falls back to the deprecated
// <alias>.tag-match; ignore-tags drops empty items; helm and kustomize keys
// may coexist (the Application's type decides which is used).
//
// The returned error is AnnotationConfig.Err(); for v0.x it is non-nil only
// when image-list is missing (v0.x then does not consider the Application).
func ParseAnnotations(app Application, v Version) (AnnotationConfig, error) {
	var cfg AnnotationConfig
	ann := app.Annotations
	raw, ok := ann[AnnotationImageList]
	if !ok {
		err := &AnnotationError{Key: AnnotationImageList, Code: ProblemImageListMissing,
			Reason: fmt.Sprintf("annotation not found on app %s", app.Key())}
		cfg.ImageListErr = err
		missing := problemf(ProblemImageListMissing, SeverityError, "%v", err)
		lint := lintAnnotationKeys(app, nil, v)
		for _, l := range lint {
			// A misspelled image-list is the cause: name it in the error,
			// and lint the other keys against the aliases it was meant to
			// declare.
			if l.Suggest == AnnotationImageList {
				missing.Message += fmt.Sprintf("; the app has %q instead: did you mean %q?", l.Key, AnnotationImageList)
				missing.Key, missing.Value, missing.Suggest = l.Key, l.Value, l.Suggest
				if refs, err := ParseImageList(l.Value, v); err == nil {
					lint = lintAnnotationKeys(app, refs, v)
				}
				break
			}
		}
		cfg.Problems = append(cfg.Problems, missing)
		cfg.Problems = append(cfg.Problems, lint...)
		return cfg, err
	}
	refs, err := ParseImageList(raw, v)
	if err != nil {
		cfg.ImageListErr = err
		cfg.Problems = append(cfg.Problems, problemf(ProblemImageListEmpty, SeverityError, "%v", err))
	}
	cfg.WriteBack, cfg.WriteBackSources = writeBackFromAnnotations(ann, v)
	if v.UsesCRs() {
		parseAnnotationsV1(app, refs, &cfg)
	} else {
		parseAnnotationsV0(app, refs, &cfg)
	}
	cfg.Problems = append(cfg.Problems, lintAnnotationKeys(app, refs, v)...)
	return cfg, cfg.Err()
}

func parseAnnotationsV1(app Application, refs []ImageRef, cfg *AnnotationConfig) {
	ann := app.Annotations
	appWide, appSrc, err := readSettingsV1(ann, "")
	if err != nil {
		cfg.AppWideErr = err
		cfg.Problems = append(cfg.Problems, problemf(ProblemForceUpdateUnparsable, SeverityError,
			"%v; Image Updater skips the application (\"Could not create common update settings\")", err).withError(err))
	}
	var noAlias int
	for _, ref := range refs {
		ic := ImageConfig{Alias: ref.Alias, Image: ref}
		layers := []SettingsLayer{{Source: SettingFromDefault, FieldSources: appSrc, Settings: appWide}}
		if ref.Alias != "" && cfg.ImageListErr == nil {
			per, perSrc, err := readSettingsV1(ann, ref.Alias)
			if err != nil {
				cfg.ImageListErr = fmt.Errorf("parse common update settings for alias %q: %w", ref.Alias, err)
				cfg.Problems = append(cfg.Problems, problemf(ProblemForceUpdateUnparsable, SeverityError,
					"%v; Image Updater skips the application (\"Could not create image list\")", err).withError(err))
			}
			layers = append(layers, SettingsLayer{Source: SettingFromImage, FieldSources: perSrc, Settings: per})
			t, terr := manifestTargetV1(ann, ref.Alias)
			if terr != nil && cfg.ImageListErr == nil {
				cfg.ImageListErr = terr
				cfg.Problems = append(cfg.Problems, problemf(ProblemHelmAndKustomize, SeverityError,
					"%v; Image Updater skips the application", terr).withError(terr))
			}
			ic.Target = t
		}
		if ref.Alias == "" {
			noAlias++
		}
		ic.Settings, ic.Sources = EffectiveUpdateSettings(layers...)
		cfg.Images = append(cfg.Images, ic)
	}
	aliasNotes(cfg, noAlias, ann)
}

func aliasNotes(cfg *AnnotationConfig, noAlias int, ann map[string]string) {
	if noAlias == 0 {
		return
	}
	hasPerAlias := false
	for k := range ann {
		if s, ok := strings.CutPrefix(k, AnnotationPrefix); ok && strings.Contains(s, ".") {
			hasPerAlias = true
			break
		}
	}
	if len(cfg.Images) > 1 || hasPerAlias {
		cfg.Problems = append(cfg.Problems, problemf(ProblemImageWithoutAlias, SeverityInfo,
			"%d image-list item(s) have no alias: they get only the app-wide settings, no per-image keys, and (Helm) the default parameters image.name/image.tag; write \"<alias>=<image>\" to configure them", noAlias))
	}
}

// readSettingsV1 mirrors getCommonUpdateSettingsFromAnnotations: alias ""
// reads the app-wide keys (no platforms key), otherwise the per-alias keys.
func readSettingsV1(ann map[string]string, alias string) (*CommonUpdateSettings, map[string]SettingSource, error) {
	key := func(name string) string {
		if alias == "" {
			return AnnotationPrefix + name
		}
		return AliasAnnotationKey(alias, name, V1_0)
	}
	out := &CommonUpdateSettings{}
	src := map[string]SettingSource{}
	set := false
	if val, ok := ann[key(AnnKeyUpdateStrategy)]; ok {
		if s := strings.TrimSpace(val); s != "" {
			out.UpdateStrategy, src[FieldUpdateStrategy], set = &s, SettingFromAnnotation(key(AnnKeyUpdateStrategy)), true
		}
	}
	if val, ok := ann[key(AnnKeyForceUpdate)]; ok {
		s := strings.TrimSpace(val)
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, nil, &AnnotationError{Key: key(AnnKeyForceUpdate), Value: val, Code: ProblemForceUpdateUnparsable,
				Reason: fmt.Sprintf("error parsing force update settings: strconv.ParseBool: parsing %q: invalid syntax (want true/false, 1/0, t/f)", s)}
		}
		out.ForceUpdate, src[FieldForceUpdate], set = &b, SettingFromAnnotation(key(AnnKeyForceUpdate)), true
	}
	if val, ok := ann[key(AnnKeyAllowTags)]; ok {
		if s := strings.TrimSpace(val); s != "" {
			out.AllowTags, src[FieldAllowTags], set = &s, SettingFromAnnotation(key(AnnKeyAllowTags)), true
		}
	}
	if val, ok := ann[key(AnnKeyIgnoreTags)]; ok {
		var list []string
		for _, t := range strings.Split(val, ",") {
			list = append(list, strings.TrimSpace(t)) // v1.x keeps empty items
		}
		out.IgnoreTags, src[FieldIgnoreTags], set = list, SettingFromAnnotation(key(AnnKeyIgnoreTags)), true
	}
	if val, ok := ann[key(AnnKeyPullSecret)]; ok {
		if s := strings.TrimSpace(val); s != "" {
			out.PullSecret, src[FieldPullSecret], set = &s, SettingFromAnnotation(key(AnnKeyPullSecret)), true
		}
	}
	if alias != "" {
		if val, ok := ann[key(AnnKeyPlatforms)]; ok {
			var list []string
			for _, p := range strings.Split(val, ",") {
				if p = strings.TrimSpace(p); p != "" {
					list = append(list, p)
				}
			}
			if len(list) > 0 {
				out.Platforms, src[FieldPlatforms], set = list, SettingFromAnnotation(key(AnnKeyPlatforms)), true
			}
		}
	}
	if !set {
		return nil, src, nil
	}
	return out, src, nil
}

// manifestTargetV1 mirrors getManifestTargetsFromAnnotations.
func manifestTargetV1(ann map[string]string, alias string) (ManifestTarget, error) {
	get := func(name string) string {
		return strings.TrimSpace(ann[AliasAnnotationKey(alias, name, V1_0)])
	}
	var t ManifestTarget
	kname := get(AnnKeyKustomizeImageName)
	hname, htag, hspec := get(AnnKeyHelmImageName), get(AnnKeyHelmImageTag), get(AnnKeyHelmImageSpec)
	helm := hname != "" || htag != "" || hspec != ""
	if helm && kname != "" {
		return t, &AnnotationError{Key: AliasAnnotationKey(alias, AnnKeyKustomizeImageName, V1_0), Value: kname, Code: ProblemHelmAndKustomize,
			Reason: fmt.Sprintf("both helm and kustomize manifest targets configured for alias %q", alias)}
	}
	switch {
	case helm:
		t = ManifestTarget{Kind: TargetKindHelm, Name: hname, Tag: htag, Spec: hspec}
	case kname != "":
		t = ManifestTarget{Kind: TargetKindKustomize, Name: kname}
	}
	return t, nil
}

func parseAnnotationsV0(app Application, refs []ImageRef, cfg *AnnotationConfig) {
	ann := app.Annotations
	// first returns the value and key of the first present key.
	first := func(keys ...string) (string, string, bool) {
		for _, k := range keys {
			if val, ok := ann[k]; ok {
				return val, k, true
			}
		}
		return "", "", false
	}
	var noAlias int
	for _, ref := range refs {
		if ref.Alias == "" {
			noAlias++
		}
		per := func(name string) string { return AliasAnnotationKey(ref.Alias, name, V0_18) }
		wide := func(name string) string { return AnnotationPrefix + name }
		var blk CommonUpdateSettings
		src := map[string]SettingSource{}
		if val, k, ok := first(per(AnnKeyUpdateStrategy), wide(AnnKeyUpdateStrategy)); ok && val != "" {
			blk.UpdateStrategy, src[FieldUpdateStrategy] = &val, SettingFromAnnotation(k)
		}
		if val, k, ok := first(per(AnnKeyForceUpdate), wide(AnnKeyForceUpdate)); ok {
			b := val == "true"
			blk.ForceUpdate, src[FieldForceUpdate] = &b, SettingFromAnnotation(k)
			if pb, err := strconv.ParseBool(strings.TrimSpace(val)); !b && (err != nil || pb) {
				cfg.Problems = append(cfg.Problems, problemf(ProblemForceUpdateUnparsable, SeverityWarning,
					"annotation %s=%q: v0.x honours only the exact string \"true\", so force-update is off for image %s", k, val, ref.String()))
			}
		}
		if val, k, ok := first(per(AnnKeyAllowTags), wide(AnnKeyAllowTags)); ok && val != "" {
			blk.AllowTags, src[FieldAllowTags] = &val, SettingFromAnnotation(k)
		} else if val, ok := ann[per(AnnKeyTagMatch)]; ok && val != "" {
			blk.AllowTags, src[FieldAllowTags] = &val, SettingFromAnnotation(per(AnnKeyTagMatch))
		}
		if val, k, ok := first(per(AnnKeyIgnoreTags), wide(AnnKeyIgnoreTags)); ok && val != "" {
			list := []string{}
			for _, t := range strings.Split(strings.TrimSpace(val), ",") {
				if t = strings.TrimSpace(t); t != "" {
					list = append(list, t)
				}
			}
			blk.IgnoreTags, src[FieldIgnoreTags] = list, SettingFromAnnotation(k)
		}
		if val, k, ok := first(per(AnnKeyPullSecret), wide(AnnKeyPullSecret)); ok && val != "" {
			blk.PullSecret, src[FieldPullSecret] = &val, SettingFromAnnotation(k)
		}
		if val, ok := ann[per(AnnKeyPlatforms)]; ok {
			blk.Platforms, src[FieldPlatforms] = strings.Split(val, ","), SettingFromAnnotation(per(AnnKeyPlatforms))
		}
		ic := ImageConfig{Alias: ref.Alias, Image: ref}
		ic.Settings, ic.Sources = EffectiveUpdateSettings(SettingsLayer{Source: SettingFromDefault, FieldSources: src, Settings: &blk})
		hspec := strings.TrimSpace(ann[per(AnnKeyHelmImageSpec)])
		hname, htag := ann[per(AnnKeyHelmImageName)], ann[per(AnnKeyHelmImageTag)]
		kname := ann[per(AnnKeyKustomizeImageName)]
		helm := hspec != "" || hname != "" || htag != ""
		switch {
		case helm:
			ic.Target = ManifestTarget{Kind: TargetKindHelm, Name: hname, Tag: htag, Spec: hspec}
			if hspec != "" {
				ic.Target.Name, ic.Target.Tag = "", ""
			}
		case kname != "":
			ic.Target = ManifestTarget{Kind: TargetKindKustomize, Name: kname}
		}
		if helm && kname != "" {
			cfg.Problems = append(cfg.Problems, problemf(ProblemHelmAndKustomize, SeverityWarning,
				"alias %q has both helm.* and kustomize.image-name annotations; v0.x uses the ones matching the application's source type and ignores the others", ref.Alias))
		}
		if ref.Name == "" {
			cfg.Problems = append(cfg.Problems, problemf(ProblemImageListEmpty, SeverityWarning,
				"image-list %q has an empty item: v0.x keeps it as an image without a name, which never matches a live image", ann[AnnotationImageList]))
		}
		cfg.Images = append(cfg.Images, ic)
	}
	aliasNotes(cfg, noAlias, ann)
}

// writeBackFromAnnotations mirrors getWriteBackConfigFromAnnotations (v1.x:
// trimmed, empty values ignored). v0.x reads the raw values, and a present
// but empty write-back-method is an invalid mechanism there.
func writeBackFromAnnotations(ann map[string]string, v Version) (*WriteBackConfig, map[string]SettingSource) {
	w := &WriteBackConfig{}
	src := map[string]SettingSource{}
	set := false
	get := func(key string) (string, bool) {
		val, ok := ann[key]
		if !ok {
			return "", false
		}
		if v.UsesCRs() {
			val = strings.TrimSpace(val)
			return val, val != ""
		}
		return val, true
	}
	git := func() *GitConfig {
		if w.GitConfig == nil {
			w.GitConfig = &GitConfig{}
		}
		return w.GitConfig
	}
	if val, ok := get(AnnotationWriteBackMethod); ok {
		w.Method, src["method"], set = &val, SettingFromAnnotation(AnnotationWriteBackMethod), true
	}
	if val, ok := get(AnnotationWriteBackTarget); ok {
		git().WriteBackTarget, src["writeBackTarget"], set = &val, SettingFromAnnotation(AnnotationWriteBackTarget), true
	}
	if val, ok := get(AnnotationGitBranch); ok {
		git().Branch, src["branch"], set = &val, SettingFromAnnotation(AnnotationGitBranch), true
	}
	if val, ok := get(AnnotationGitRepository); ok {
		git().Repository, src["repository"], set = &val, SettingFromAnnotation(AnnotationGitRepository), true
	}
	if !set {
		return nil, nil
	}
	return w, src
}

// lintAnnotationKeys finds keys Image Updater silently ignores: unknown
// names (with a "did you mean"), per-alias keys for aliases that are not in
// image-list (§10.6), keys the version does not read, and keys with a
// mistyped prefix.
func lintAnnotationKeys(app Application, refs []ImageRef, v Version) []Problem {
	aliases := map[string]bool{}
	var aliasList []string
	for _, r := range refs {
		if r.Alias == "" {
			continue
		}
		a := r.Alias
		if !v.UsesCRs() {
			a = strings.ReplaceAll(a, "/", "_")
		}
		if !aliases[a] {
			aliases[a] = true
			aliasList = append(aliasList, a)
		}
	}
	keys := make([]string, 0, len(app.Annotations))
	for k := range app.Annotations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []Problem
	for _, k := range keys {
		s, ok := strings.CutPrefix(k, AnnotationPrefix)
		if !ok {
			if strings.Contains(k, "image-updater") && !strings.HasPrefix(k, "argocd-image-updater.image-") {
				out = append(out, problemf(ProblemUnknownAnnotationKey, SeverityWarning,
					"annotation %q looks like an Image Updater key but does not start with %q; it is ignored", k, AnnotationPrefix))
			}
			continue
		}
		if slices.Contains(appWideAnnotationKeys, s) {
			continue
		}
		if alias, name, ok := splitAliasKey(s); ok {
			if !aliases[alias] {
				msg := fmt.Sprintf("annotation %q configures alias %q, but image-list has ", k, alias)
				if len(aliasList) == 0 {
					msg += "no aliased items"
				} else {
					msg += fmt.Sprintf("aliases %s", strings.Join(aliasList, ", "))
				}
				msg += "; Image Updater ignores it without a warning"
				p := Problem{Code: ProblemAnnotationForUnknownAlias, Severity: SeverityWarning, Key: k, Value: app.Annotations[k]}
				if best, _ := closest(alias, aliasList); best != "" {
					p.Suggest = AnnotationPrefix + best + "." + name
					msg += fmt.Sprintf(" (did you mean %q?)", p.Suggest)
				} else if len(aliasList) == 1 {
					p.Suggest = AnnotationPrefix + aliasList[0] + "." + name
				}
				p.Message = msg
				out = append(out, p)
				continue
			}
			if name == AnnKeyTagMatch && v.UsesCRs() {
				p := problemf(ProblemTagMatchIgnoredInV1, SeverityWarning,
					"annotation %q: tag-match is not read by v1.x; use %q", k, AnnotationPrefix+alias+"."+AnnKeyAllowTags)
				p.Key, p.Value, p.Suggest = k, app.Annotations[k], AnnotationPrefix+alias+"."+AnnKeyAllowTags
				out = append(out, p)
			}
			continue
		}
		if s == AnnKeyPlatforms {
			out = append(out, problemf(ProblemUnknownAnnotationKey, SeverityWarning,
				"annotation %q: platforms exists only per alias (\"<alias>.platforms\"); the app-wide key is ignored", k))
			continue
		}
		msg := fmt.Sprintf("annotation %q is not an Image Updater key and is ignored", k)
		p := Problem{Code: ProblemUnknownAnnotationKey, Severity: SeverityWarning, Key: k, Value: app.Annotations[k]}
		if best := suggestAnnotationKey(s, aliasList); best != "" {
			p.Suggest = AnnotationPrefix + best
			msg += fmt.Sprintf("; did you mean %q?", p.Suggest)
		}
		p.Message = msg
		out = append(out, p)
	}
	return out
}

// splitAliasKey splits "<alias>.<name>" for a known per-alias name.
func splitAliasKey(s string) (alias, name string, ok bool) {
	for _, n := range perAliasAnnotationKeys {
		if strings.HasSuffix(s, "."+n) && len(s) > len(n)+1 {
			return s[:len(s)-len(n)-1], n, true
		}
	}
	return "", "", false
}

// suggestAnnotationKey finds the closest valid key suffix for s.
func suggestAnnotationKey(s string, aliases []string) string {
	cands := append([]string{}, appWideAnnotationKeys...)
	for _, a := range aliases {
		for _, n := range perAliasAnnotationKeys {
			cands = append(cands, a+"."+n)
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '.' && i > 0 {
			for _, n := range perAliasAnnotationKeys {
				cands = append(cands, s[:i]+"."+n)
			}
		}
	}
	best, d := closest(s, cands)
	limit := len(s) / 4
	if limit < 2 {
		limit = 2
	}
	if best == "" || d > limit {
		return ""
	}
	return best
}

// closest returns the candidate with the smallest edit distance to s (first
// one on ties) and the distance; "" when there is none or s itself is one.
func closest(s string, cands []string) (string, int) {
	best, bd := "", -1
	for _, c := range cands {
		if c == s {
			return "", 0
		}
		d := levenshteinDistance(s, c)
		if bd < 0 || d < bd {
			best, bd = c, d
		}
	}
	if bd > 3 && bd*2 > len(s) {
		return "", bd
	}
	return best, bd
}

// levenshteinDistance is the edit distance between a and b; keys are
// short, so hostile input is bounded before the library runs.
func levenshteinDistance(a, b string) int {
	if len(a) > 256 || len(b) > 256 {
		if a == b {
			return 0
		}
		return max(len(a), len(b))
	}
	return textutil.Distance(a, b)
}

package updater

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/imgupd/imgupd/internal/lazyre"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

// Manifest target kinds of ImageConfig.Target.
const (
	TargetKindHelm      = "helm"
	TargetKindKustomize = "kustomize"
	TargetKindPlugin    = "plugin"
)

// ManifestTarget says where an image is written in the Application: Helm
// parameters (Name/Tag, or Spec for the full reference, Spec winning),
// the Kustomize image name (Name), or plugin env variables (Name/Tag/Spec).
// Kind "" means no explicit target: Helm uses image.name/image.tag, Kustomize
// the image's own name.
type ManifestTarget struct {
	Kind string `json:"kind,omitempty"`
	Name string `json:"name,omitempty"`
	Tag  string `json:"tag,omitempty"`
	Spec string `json:"spec,omitempty"`
}

// ImageConfig is one image Image Updater will consider for the Application,
// with its effective settings and where each setting came from.
type ImageConfig struct {
	Alias string `json:"alias,omitempty"`
	// Image is the configured reference; its Tag is the version constraint.
	Image    ImageRef       `json:"image"`
	Settings UpdateSettings `json:"settings"`
	// Sources maps each settings field (FieldUpdateStrategy...) to its level.
	Sources map[string]SettingSource `json:"sources,omitempty"`
	Target  ManifestTarget           `json:"target"`
	// Verification is the effective imagesVerification block (v1.3.0+), nil
	// for none; VerificationFrom its level.
	Verification     *ImagesVerification `json:"verification,omitempty"`
	VerificationFrom SettingSource       `json:"verificationFrom,omitempty"`
}

// DroppedImage is an image Image Updater leaves out of the list.
type DroppedImage struct {
	Alias     string `json:"alias,omitempty"`
	ImageName string `json:"imageName"`
	Reason    string `json:"reason"`
}

// SelectOptions describe the controller whose decision is modelled.
type SelectOptions struct {
	Version Version
	// ControllerNamespace is the namespace the controller runs in.
	ControllerNamespace string
	// WatchNamespaces is --watch-namespaces / IMAGE_UPDATER_WATCH_NAMESPACES:
	// empty or "" means the controller's own namespace, "*" all namespaces,
	// otherwise namespaces (elements may themselves be comma lists).
	WatchNamespaces []string
}

// SelectionMode is where the Application's configuration comes from.
type SelectionMode string

const (
	ModeNone SelectionMode = ""
	// ModeCR: images and settings from the ImageUpdater CR.
	ModeCR SelectionMode = "cr"
	// ModeUseAnnotations: a v1.1+ ref with useAnnotations: true; images and
	// settings from the Application's annotations.
	ModeUseAnnotations SelectionMode = "useAnnotations"
	// ModeV0Annotations: v0.x, annotations only.
	ModeV0Annotations SelectionMode = "v0-annotations"
)

// RefOutcome is what happened to one applicationRef for the Application.
type RefOutcome string

const (
	RefSelected        RefOutcome = "selected"
	RefNameMismatch    RefOutcome = "name-mismatch"
	RefLabelsMismatch  RefOutcome = "labels-mismatch"
	RefInvalidSelector RefOutcome = "invalid-selector"
	// RefConfigError: the ref matched but its configuration could not be
	// built; Image Updater fell through to the next ref.
	RefConfigError RefOutcome = "config-error"
	// RefNotReached: a more specific ref was selected first.
	RefNotReached RefOutcome = "not-reached"
)

// RefTrace is one applicationRef in evaluation (specificity) order. What
// decided its outcome is kept as data, and said in words by Detail only
// when someone reads it: a fleet scan traces every ref of every CR for
// every app and reads none of them.
type RefTrace struct {
	Index           int        `json:"index"`
	NamePattern     string     `json:"namePattern"`
	Specificity     int        `json:"specificity"`
	UsesAnnotations bool       `json:"usesAnnotations,omitempty"`
	Outcome         RefOutcome `json:"outcome"`
	// App is the Application's name that namePattern did not match
	// (RefNameMismatch).
	App string `json:"-"`
	// Labels are the Application's labels that Selector did not match
	// (RefLabelsMismatch).
	Labels   map[string]string `json:"-"`
	Selector labels.Selector   `json:"-"`
	// Err is the invalid selector's error (RefInvalidSelector) or why the
	// configuration could not be built (RefConfigError).
	Err error `json:"-"`
}

// Detail says why the ref had its outcome ("" when selected or not
// reached).
func (r RefTrace) Detail() string {
	switch r.Outcome {
	case RefNameMismatch:
		return fmt.Sprintf("%q does not match namePattern %q", r.App, r.NamePattern)
	case RefLabelsMismatch:
		sel := ""
		if r.Selector != nil {
			sel = r.Selector.String()
		}
		return fmt.Sprintf("labels %v do not match selector %q", r.Labels, sel)
	case RefInvalidSelector:
		return fmt.Sprintf("Invalid label selector provided: %v", r.Err)
	case RefConfigError:
		if r.Err != nil {
			return r.Err.Error()
		}
	}
	return ""
}

// MarshalJSON writes the trace with its detail in words.
func (r RefTrace) MarshalJSON() ([]byte, error) {
	type plain RefTrace
	return json.Marshal(struct {
		plain
		Detail string `json:"detail,omitempty"`
	}{plain(r), r.Detail()})
}

// CRTrace is one ImageUpdater CR's view of the Application.
type CRTrace struct {
	CR      string `json:"cr"`
	Watched bool   `json:"watched"`
	// ListingNamespace is where the CR lists Applications ("" = all
	// namespaces, which a v1.0/v1.1 CR with an empty spec.namespace does).
	ListingNamespace string     `json:"listingNamespace"`
	AppListed        bool       `json:"appListed"`
	Error            string     `json:"error,omitempty"`
	Refs             []RefTrace `json:"refs,omitempty"`
	// SelectedRef is the index (in spec order) of the ref used, or -1.
	SelectedRef int `json:"selectedRef"`
}

// Targeting is the explained answer to "which configuration, if any, does
// Image Updater apply to this Application, and with which images?".
type Targeting struct {
	App     string `json:"app"`
	Version string `json:"version"`
	// Selected is true when Image Updater processes the Application: a
	// configuration applies, the source type is supported and at least one
	// image remains.
	Selected bool          `json:"selected"`
	Mode     SelectionMode `json:"mode"`
	// CR, RefIndex and NamePattern identify the configuration used. When
	// several CRs select the app it is one that processes it (Selected, if
	// any does) whose selecting ref is the most specific (Specificity;
	// equal scores: namespace/name order): the app's own CR rather than a
	// team-wide one. The others are in Also.
	CR          string `json:"cr,omitempty"`
	RefIndex    int    `json:"refIndex"`
	NamePattern string `json:"namePattern,omitempty"`
	// Specificity is the score of the selecting ref.
	Specificity int `json:"specificity,omitempty"`
	// AlsoSelectedBy lists other CRs that select the Application too.
	AlsoSelectedBy []string `json:"alsoSelectedBy,omitempty"`
	// Also holds the configuration each of those CRs applies, in the order
	// of AlsoSelectedBy. Image Updater reconciles every CR on its own (its
	// own settings, pick and write, each on its own requeue interval) and
	// does not de-conflict them, so each of these updates the app too.
	Also []Targeting `json:"also,omitempty"`
	CRs  []CRTrace   `json:"crs,omitempty"`

	Images    []ImageConfig  `json:"images,omitempty"`
	Dropped   []DroppedImage `json:"dropped,omitempty"`
	WriteBack *WriteBack     `json:"writeBack,omitempty"`

	SourceKind      string `json:"sourceKind,omitempty"`
	SourceSupported bool   `json:"sourceSupported"`
	SourceWhy       string `json:"sourceWhy,omitempty"`

	DefaultedOverrides []DefaultedOverride `json:"defaultedOverrides,omitempty"`
	Problems           []Problem           `json:"problems,omitempty"`
}

// HasProblem reports whether a problem with the code was found.
func (t Targeting) HasProblem(code string) bool {
	for _, p := range t.Problems {
		if p.Code == code {
			return true
		}
	}
	return false
}

func (t *Targeting) add(p ...Problem) { t.Problems = append(t.Problems, p...) }

var specificitySetRE = lazyre.New(`\[.*?]`)

// Specificity is calculateSpecificity: 1,000,000 when namePattern has none
// of "*?[]"; plus the number of characters left after deleting "[...]"
// groups, "*" and "?"; plus 10,000 when labelSelectors is set and 100 per
// matchLabels entry and per matchExpressions entry.
func Specificity(ref ApplicationRef) int {
	score := 0
	p := ref.NamePattern
	if !strings.ContainsAny(p, "*?[]") {
		score += 1_000_000
	}
	lit := p
	if strings.Contains(p, "[") {
		lit = specificitySetRE().ReplaceAllString(p, "")
	}
	score += len(lit) - strings.Count(lit, "*") - strings.Count(lit, "?")
	if ref.LabelSelectors != nil {
		score += 10_000
		score += 100 * len(ref.LabelSelectors.MatchLabels)
		score += 100 * len(ref.LabelSelectors.MatchExpressions)
	}
	return score
}

// SortedRefs returns the indexes of refs from most to least specific;
// equal scores keep spec order (a stable sort, as in sortApplicationRefs).
func SortedRefs(refs []ApplicationRef) []int {
	idx := make([]int, len(refs))
	for i := range idx {
		idx[i] = i
	}
	// Each score once: the sort compares O(n log n) times.
	score := make([]int, len(refs))
	for i := range refs {
		score[i] = Specificity(refs[i])
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(score[b], score[a]) })
	return idx
}

// NamespaceWatched reports whether a controller with opts reconciles CRs in
// ns (getCacheOptions). With no watch list and no known controller
// namespace it answers true.
func NamespaceWatched(ns string, opts SelectOptions) bool {
	var list []string
	for _, w := range opts.WatchNamespaces {
		for _, p := range strings.Split(w, ",") {
			if p = strings.TrimSpace(p); p != "" {
				list = append(list, p)
			}
		}
	}
	if len(list) == 0 {
		return opts.ControllerNamespace == "" || ns == opts.ControllerNamespace
	}
	return slices.Contains(list, "*") || slices.Contains(list, ns)
}

// SourceType resolves the Application's source type as
// getApplicationSourceType does for version v, and whether Image Updater
// supports it:
//  1. git write-back forcing: a kustomization target → Kustomize; a target
//     file ending .yaml/.yml whose name does not start with
//     ".argocd-source-" → Helm (v1.x; v0.x forces only Kustomize);
//  2. multi-source: the first status.sourceTypes entry that is Helm,
//     Kustomize or Plugin, else Directory;
//  3. Source Hydrator (v1.3.0+): the drySource's helm/kustomize/plugin block,
//     else status.sourceType;
//  4. status.sourceType.
//
// Helm and Kustomize are supported; Plugin from v1.3.0; everything else
// (Directory, "" for an app whose manifests failed to render) is skipped
// with "skipping app ... because it's not of supported source type". why
// explains the decision.
func SourceType(app Application, wb WriteBack, v Version) (kind string, supported bool, why string) {
	forced := wb.forcesSourceType()
	if forced == AppSourceHelm && !v.ForcesHelmFromWriteBackTarget() {
		forced = ""
	}
	switch {
	case forced != "":
		kind, why = forced, fmt.Sprintf("forced by the git write-back target %q", wb.Target.Raw)
	case app.MultiSource:
		kind, why = AppSourceDirectory, fmt.Sprintf("multi-source application whose status.sourceTypes %v has no Helm, Kustomize or Plugin entry", app.SourceTypes)
		for _, st := range app.SourceTypes {
			if st == AppSourceHelm || st == AppSourceKustomize || st == AppSourcePlugin {
				kind, why = st, fmt.Sprintf("first Helm/Kustomize/Plugin entry of status.sourceTypes %v", app.SourceTypes)
				break
			}
		}
	case app.Hydrator != nil && v.SupportsPluginSources():
		h := app.Hydrator
		switch {
		case h.HasHelm:
			kind, why = AppSourceHelm, "drySource has a helm block"
		case h.HasKustomize:
			kind, why = AppSourceKustomize, "drySource has a kustomize block"
		case h.HasPlugin:
			kind, why = AppSourcePlugin, "drySource has a plugin block"
		default:
			kind, why = app.SourceType, fmt.Sprintf("hydrated application without a helm/kustomize/plugin block in drySource: status.sourceType %q is used (issue #1815); add an explicit block to the drySource", app.SourceType)
		}
	default:
		kind, why = app.SourceType, fmt.Sprintf("status.sourceType %q", app.SourceType)
	}
	switch kind {
	case AppSourceHelm, AppSourceKustomize:
		return kind, true, why
	case AppSourcePlugin:
		if v.SupportsPluginSources() {
			return kind, true, why
		}
		return kind, false, why + "; Plugin applications are supported from v1.3.0"
	case "":
		return kind, false, why + "; an empty source type means Argo CD has not rendered the manifests (check the app's ComparisonError)"
	}
	return kind, false, why + "; only Helm, Kustomize" + map[bool]string{true: " and Plugin", false: ""}[v.SupportsPluginSources()] + " applications are updated"
}

// crSelection is the outcome of one CR for the Application.
type crSelection struct {
	cr      *ImageUpdater
	refIdx  int
	mode    SelectionMode
	wb      WriteBack
	ann     *AnnotationConfig
	trace   CRTrace
	details []Problem
}

// SelectTarget decides, like FilterApplicationsForUpdate of the version in
// opts, whether and how Image Updater processes app given the ImageUpdater
// CRs of the cluster (as stored, see ApplyCRDDefaults), and explains every
// step: per CR whether it is watched, valid and lists the app's namespace;
// per ref its specificity and outcome; the selected CR and ref; the mode;
// the images with effective settings and their sources; the write-back
// configuration; the source-type gate; and the problems found. For v0.x the
// CRs are ignored and the annotations decide. It never fails and never
// panics; a Targeting with Selected false says why in Problems. To select
// for many Applications, prepare the CRs once with NewSelector.
func SelectTarget(app Application, crs []ImageUpdater, opts SelectOptions) Targeting {
	return NewSelector(crs, opts).Select(app)
}

// finishSelection is SelectTarget after every CR was evaluated: chosen
// are the CRs that select the app, in key order, and notes the other CRs'
// reasons, in key order.
func finishSelection(app Application, opts SelectOptions, t Targeting, chosen []*crSelection, notes []Problem) Targeting {
	_, hasImageList := app.Annotations[AnnotationImageList]
	if len(chosen) == 0 {
		t.add(notes...)
		if hasImageList {
			t.add(problemf(ProblemAnnotationsIgnoredWithoutCR, SeverityWarning,
				"the application carries %s, but no ImageUpdater CR selects it, so the annotations are ignored", AnnotationImageList))
		}
		return t
	}
	for _, n := range notes {
		if n.Severity == SeverityError {
			n.Severity = SeverityInfo
		}
		t.add(n)
	}
	// Image Updater runs every selecting CR on its own; imgupd follows one
	// in full (the later stages) and the candidates stage judges the
	// others' picks against its pick. It follows one that processes the app
	// (a CR whose images are all dropped, or whose source type is skipped,
	// writes nothing) and among those the app's own: the most specific
	// selecting ref; chosen is in key order, which breaks ties.
	slices.SortStableFunc(chosen, func(a, b *crSelection) int { return cmp.Compare(b.specificity(), a.specificity()) })
	finished := make([]Targeting, len(chosen))
	pi := -1
	for i, c := range chosen {
		finished[i] = Targeting{App: t.App, Version: t.Version, RefIndex: -1, Problems: c.details}
		finishCR(app, c, opts, &finished[i])
		if pi < 0 && finished[i].Selected {
			pi = i
		}
	}
	if pi < 0 {
		pi = 0
	}
	primary := chosen[pi]
	t.add(primary.details...)
	if len(chosen) > 1 {
		var others []string
		for i, c := range chosen {
			if i == pi {
				continue
			}
			others = append(others, c.cr.Key())
			t.Also = append(t.Also, finished[i])
		}
		t.AlsoSelectedBy = others
		t.add(problemf(ProblemMultipleCRsMatch, SeverityWarning,
			"%d ImageUpdater CRs select this application (%s and %s); Image Updater reconciles each CR on its own, with its own settings, pick and write, and does not de-conflict them: where their picks differ they rewrite the image in turn",
			len(chosen), primary.cr.Key(), strings.Join(others, ", ")))
	}
	finishCR(app, primary, opts, &t)
	return t
}

// specificity is the score of the ref the CR selected the app with.
func (s *crSelection) specificity() int {
	if s.refIdx < 0 {
		return -1
	}
	return Specificity(s.cr.Spec.ApplicationRefs[s.refIdx])
}

// buildRefConfig builds the ref's configuration; an error means
// fall-through, and the problems returned with it are the specific causes
// (the annotation problems of a useAnnotations ref, a write-back error).
func buildRefConfig(app Application, cr *ImageUpdater, ref ApplicationRef, opts SelectOptions, sel *crSelection) ([]Problem, error) {
	v := opts.Version
	if ref.UsesAnnotations(v) {
		cfg, _ := ParseAnnotations(app, v)
		if cfg.ImageListErr != nil {
			return cfg.Problems, fmt.Errorf("could not create image list: %w", cfg.ImageListErr)
		}
		wb, err := BuildWriteBack(app, cfg.WriteBack, WriteBackOptions{Version: v, ControllerNamespace: opts.ControllerNamespace, Sources: cfg.WriteBackSources})
		if err != nil {
			return append(cfg.Problems, writeBackConfigProblem(err)), fmt.Errorf("could not create write-back config: %w", err)
		}
		if cfg.AppWideErr != nil {
			return cfg.Problems, fmt.Errorf("could not create common update settings: %w", cfg.AppWideErr)
		}
		sel.mode, sel.wb, sel.ann = ModeUseAnnotations, wb, &cfg
		return nil, nil
	}
	merged, src := MergeWriteBackConfig(cr.Spec.WriteBackConfig, ref.WriteBackConfig)
	wb, err := BuildWriteBack(app, merged, WriteBackOptions{Version: v, ControllerNamespace: opts.ControllerNamespace, Sources: src})
	if err != nil {
		return []Problem{writeBackConfigProblem(err)}, fmt.Errorf("could not create write-back config: %w", err)
	}
	sel.mode, sel.wb = ModeCR, wb
	return nil, nil
}

// writeBackConfigProblem is a write-back configuration error as a problem
// naming the part and value at fault.
func writeBackConfigProblem(err error) Problem {
	p := problemf(ProblemWriteBackConfig, SeverityError, "%v; Image Updater skips the applicationRef (\"Could not create write-back config\")", err)
	var we *WriteBackError
	if errors.As(err, &we) {
		p.Key, p.Value = we.Part, we.Value
	}
	return p
}

// finishCR fills the Targeting from the selected CR/ref: images, source
// type gate, write-back findings and hints.
func finishCR(app Application, sel *crSelection, opts SelectOptions, t *Targeting) {
	v := opts.Version
	cr := sel.cr
	ref := cr.Spec.ApplicationRefs[sel.refIdx]
	t.Mode, t.CR, t.RefIndex, t.NamePattern, t.Specificity = sel.mode, cr.Key(), sel.refIdx, ref.NamePattern, Specificity(ref)
	wb := sel.wb
	t.WriteBack = &wb
	writeBackProblems(wb, t)

	if ref.UseAnnotations != nil && *ref.UseAnnotations && !v.SupportsUseAnnotations() {
		t.add(problemf(ProblemUseAnnotationsNotSupported, SeverityError,
			"applicationRefs[%d] sets useAnnotations, which %s does not know (added in v1.1.0): the API server prunes it and the ref's images (%d) are used", sel.refIdx, v.Short(), len(ref.Images)))
	}
	if _, ok := app.Annotations[AnnotationImageList]; ok && sel.mode == ModeCR {
		t.add(problemf(ProblemAnnotationsIgnoredWithoutCR, SeverityInfo,
			"the application carries %s, but the selected applicationRef does not set useAnnotations: true, so the annotations are ignored and the CR's images are used", AnnotationImageList))
	}

	switch sel.mode {
	case ModeUseAnnotations:
		t.add(sel.ann.Problems...)
		// useAnnotations: Image Updater v1.3.0 takes the ref's block alone,
		// not the CR-wide one (argocd.go, FilterApplicationsForUpdate).
		civ, civFrom := MergeImagesVerification(v, nil, ref.ImagesVerification, nil)
		for _, ic := range sel.ann.Images {
			ic.Verification, ic.VerificationFrom = civ, civFrom
			if err := ValidateImagesVerification(civ, civFrom); err != nil {
				dropImage(t, ic.Alias, ic.Image.Original, err.Error(), "Could not set images verification settings")
				continue
			}
			t.Images = append(t.Images, ic)
		}
	default:
		for _, im := range ref.Images {
			ic, reason, logPrefix := crImageConfig(cr, ref, im, v)
			if reason != "" {
				dropImage(t, im.Alias, im.ImageName, reason, logPrefix)
				continue
			}
			t.Images = append(t.Images, ic)
		}
		for _, d := range DefaultedOverrides(*cr, v) {
			if d.RefIndex != sel.refIdx {
				continue
			}
			t.DefaultedOverrides = append(t.DefaultedOverrides, d)
			t.add(problemf(ProblemCRDDefaultedOverride, SeverityWarning, "%s", d.Message()))
		}
	}
	for _, ic := range t.Images {
		for _, n := range ic.Settings.Notes {
			t.add(problemf(ProblemSettingsWarning, SeverityWarning, "image %s: %s", imageLabel(ic.Alias, ic.Image.String()), n))
		}
	}

	t.SourceKind, t.SourceSupported, t.SourceWhy = SourceType(app, wb, v)
	sourceProblems(t, v)
	if t.SourceKind == AppSourcePlugin && t.SourceSupported && wb.Method == WriteBackGit {
		for _, ic := range t.Images {
			if ic.Target.Kind != TargetKindPlugin {
				t.add(problemf(ProblemPluginGitTreatedAsHelm, SeverityWarning,
					"image %s: a Plugin application with git write-back is written as Helm parameters unless the image has manifestTargets.plugin", imageLabel(ic.Alias, ic.Image.String())))
			}
		}
	}
	if len(t.Images) == 0 {
		t.add(problemf(ProblemNoImages, SeverityError,
			"no image is left to update for %s (applicationRefs[%d] lists %d image(s), %d dropped); Image Updater drops the application silently", app.Key(), sel.refIdx, len(ref.Images), len(t.Dropped)))
	}
	t.Selected = t.SourceSupported && len(t.Images) > 0
}

// crImageConfig builds one CR image (parseImageList): settings CR → ref →
// image, manifest target, verification. A non-empty reason means dropped.
func crImageConfig(cr *ImageUpdater, ref ApplicationRef, im CRImage, v Version) (ImageConfig, string, string) {
	ic := ImageConfig{Alias: im.Alias, Image: ParseImageRef(im.Alias+"="+im.ImageName, v)}
	ic.Settings, ic.Sources = EffectiveUpdateSettings(
		SettingsLayer{Source: SettingFromCR, Settings: cr.Spec.CommonUpdateSettings},
		SettingsLayer{Source: SettingFromRef, Settings: ref.CommonUpdateSettings},
		SettingsLayer{Source: SettingFromImage, Settings: im.CommonUpdateSettings})
	if mt := im.ManifestTargets; mt != nil {
		plugin := mt.Plugin
		if !v.SupportsPluginSources() {
			plugin = nil
		}
		n := 0
		for _, set := range []bool{mt.Helm != nil, mt.Kustomize != nil, plugin != nil} {
			if set {
				n++
			}
		}
		if n > 1 {
			return ic, "manifestTargets sets more than one of helm, kustomize and plugin; only one may dictate the update method", "Could not set manifest target config"
		}
		deref := func(p *string) string {
			if p == nil {
				return ""
			}
			return *p
		}
		switch {
		case mt.Helm != nil:
			ic.Target = ManifestTarget{Kind: TargetKindHelm, Spec: deref(mt.Helm.Spec)}
			if ic.Target.Spec == "" {
				ic.Target.Name, ic.Target.Tag = deref(mt.Helm.Name), deref(mt.Helm.Tag)
			}
		case mt.Kustomize != nil:
			ic.Target = ManifestTarget{Kind: TargetKindKustomize, Name: deref(mt.Kustomize.Name)}
		case plugin != nil:
			ic.Target = ManifestTarget{Kind: TargetKindPlugin, Spec: deref(plugin.Spec)}
			if ic.Target.Spec == "" {
				ic.Target.Name, ic.Target.Tag = deref(plugin.Name), deref(plugin.Tag)
			}
			if ic.Target.Spec == "" && ic.Target.Name == "" {
				return ic, "manifestTargets.plugin needs spec or name", "Could not set manifest target config"
			}
		}
	}
	ic.Verification, ic.VerificationFrom = MergeImagesVerification(v, cr.Spec.ImagesVerification, ref.ImagesVerification, im.ImagesVerification)
	if err := ValidateImagesVerification(ic.Verification, ic.VerificationFrom); err != nil {
		return ic, err.Error(), "Could not set images verification settings"
	}
	return ic, "", ""
}

func dropImage(t *Targeting, alias, name, reason, logPrefix string) {
	t.Dropped = append(t.Dropped, DroppedImage{Alias: alias, ImageName: name, Reason: reason})
	t.add(problemf(ProblemImageDropped, SeverityError, "image %s is dropped (\"%s for image %s, skipping\"): %s", imageLabel(alias, name), logPrefix, name, reason))
}

func imageLabel(alias, name string) string {
	if alias == "" {
		return name
	}
	return fmt.Sprintf("%s (%s)", alias, name)
}

func writeBackProblems(wb WriteBack, t *Targeting) {
	for _, d := range wb.Deferred {
		code := d.Problem
		if code == "" {
			code = ProblemWriteBackWillFail
		}
		p := problemf(code, SeverityError, "%v; the application is processed but every commit fails (\"Could not update application spec\")", d)
		p.Key, p.Value = d.Part, d.Value
		t.add(p)
	}
	for _, n := range wb.Notes {
		t.add(problemf(ProblemWriteBackNote, SeverityWarning, "%s", n))
	}
}

func sourceProblems(t *Targeting, v Version) {
	if t.SourceSupported {
		return
	}
	code := ProblemUnsupportedSourceType
	if t.SourceKind == AppSourcePlugin && !v.SupportsPluginSources() {
		code = ProblemPluginNotSupportedBeforeV13
	}
	t.add(problemf(code, SeverityError, "skipping app '%s' of type '%s' because it's not of supported source type: %s", t.App, t.SourceKind, t.SourceWhy))
}

// selectV0 is the v0.x path: annotation presence selects the application.
func selectV0(app Application, opts SelectOptions, t *Targeting) {
	v := opts.Version
	cfg, err := ParseAnnotations(app, v)
	t.add(cfg.Problems...)
	if err != nil {
		return
	}
	t.Mode = ModeV0Annotations
	wb, werr := BuildWriteBack(app, cfg.WriteBack, WriteBackOptions{Version: v, ControllerNamespace: opts.ControllerNamespace, Sources: cfg.WriteBackSources})
	if werr != nil {
		t.add(problemf(ProblemWriteBackConfig, SeverityError, "%v; v0.x fails the application's update cycle", werr))
	} else {
		t.WriteBack = &wb
		writeBackProblems(wb, t)
	}
	t.SourceKind, t.SourceSupported, t.SourceWhy = SourceType(app, wb, v)
	sourceProblems(t, v)
	t.Images = cfg.Images
	for _, ic := range t.Images {
		for _, n := range ic.Settings.Notes {
			t.add(problemf(ProblemSettingsWarning, SeverityWarning, "image %s: %s", imageLabel(ic.Alias, ic.Image.String()), n))
		}
	}
	t.Selected = t.SourceSupported && len(t.Images) > 0 && werr == nil
}

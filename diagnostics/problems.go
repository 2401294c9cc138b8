package diagnostics

import "github.com/imgupd/imgupd/diagnostics/updater"

// problemDoc documents one updater.Problem code as a finding.
type problemDoc struct {
	problem string
	code    Code
	stage   StageID
	title   string
	meaning string
	fix     string
}

// problemDocs maps the model's configuration problems to finding codes.
// TestCatalogueCoversModel fails when the model gains a code not listed here.
var problemDocs = []problemDoc{
	{updater.ProblemNoCR, "TARGET_NO_IMAGEUPDATER_CR", StageTarget, "no ImageUpdater CR selects the app",
		"v1.x runs, but no ImageUpdater CR in a watched namespace selects this Application: nothing is ever updated.",
		"Create an ImageUpdater CR whose applicationRefs select the app (useAnnotations: true keeps its annotations)."},
	{updater.ProblemCRNoApplicationRefs, "TARGET_CR_NO_APPLICATION_REFS", StageTarget, "the CR has no applicationRefs",
		"The controller rejects the CR: no application references defined.", "Add applicationRefs[] with a namePattern."},
	{updater.ProblemCRInvalidNamePattern, "TARGET_CR_INVALID_NAME_PATTERN", StageTarget, "a namePattern is not a valid glob",
		"filepath.Match rejects the pattern; the whole CR fails.", "Fix the pattern (*, ?, [...]; escape with \\)."},
	{updater.ProblemCRNamespaceNotWatched, "TARGET_CR_NAMESPACE_NOT_WATCHED", StageTarget, "the CR's namespace is not watched",
		"The CR lives outside --watch-namespaces / IMAGE_UPDATER_WATCH_NAMESPACES; it is never reconciled and gets no status.",
		"Move the CR, or add its namespace to the watched list (* for all)."},
	{updater.ProblemCRSpecNamespaceIgnored, "TARGET_CR_SPEC_NAMESPACE_IGNORED", StageTarget, "spec.namespace is ignored",
		"v1.2+ lists Applications in the CR's own namespace and no longer reads spec.namespace.",
		"Create the CR in the Applications' namespace."},
	{updater.ProblemCRSpecNamespaceMissing, "TARGET_CR_SPEC_NAMESPACE_MISSING", StageTarget, "spec.namespace is not set",
		"v1.0 and v1.1 list Applications in spec.namespace.", "Set spec.namespace to the Applications' namespace."},
	{updater.ProblemAppNotInCRNamespace, "TARGET_APP_NOT_IN_CR_NAMESPACE", StageTarget, "the app is outside the CR's namespace",
		"The CR only lists Applications in its namespace (v1.2+: metadata.namespace; v1.0/1.1: spec.namespace).",
		"Create the CR in the Application's namespace."},
	{updater.ProblemNoMatchingRef, "TARGET_NO_MATCHING_REF", StageTarget, "no applicationRef matches the app",
		"Neither namePattern nor labelSelectors of any ref match; the app is silently ignored.",
		"Fix namePattern or labelSelectors; the evidence shows each ref and why it did not match."},
	{updater.ProblemInvalidLabelSelector, "TARGET_INVALID_LABEL_SELECTOR", StageTarget, "a label selector is invalid",
		"The ref's labelSelectors cannot be parsed; the ref matches nothing.", "Fix matchLabels / matchExpressions."},
	{updater.ProblemRefConfigErrorFellThrough, "TARGET_REF_CONFIG_ERROR_FELL_THROUGH", StageTarget, "a broken ref fell through to a broader one",
		"The most specific matching ref could not be built, and Image Updater silently used the next one.",
		"Fix the error shown for the specific ref."},
	{updater.ProblemRefConfigErrorNoFallback, "TARGET_REF_CONFIG_ERROR", StageTarget, "the matching ref cannot be built",
		"Every matching ref failed to build; the app is dropped with a warning in the logs.", "Fix the error shown."},
	{updater.ProblemMultipleCRsMatch, "TARGET_MULTIPLE_CRS_MATCH", StageTarget, "several CRs select the app",
		"CRs are not de-conflicted; they fight over the app.", "Keep one CR per app."},
	{updater.ProblemAnnotationsIgnoredWithoutCR, "TARGET_ANNOTATIONS_IGNORED", StageTarget, "the app's annotations are ignored",
		"v1.x only reads argocd-image-updater.argoproj.io annotations through a CR ref with useAnnotations: true; after an upgrade from v0.x updates stop silently.",
		"Create an ImageUpdater CR with applicationRefs: [{namePattern: <app>, useAnnotations: true}], or move the settings into it."},
	{updater.ProblemUseAnnotationsNotSupported, "TARGET_USE_ANNOTATIONS_NOT_SUPPORTED", StageTarget, "useAnnotations needs v1.1",
		"v1.0 has no useAnnotations field.", "Upgrade to v1.1+, or move the settings into the CR."},
	{updater.ProblemImageListMissing, "TARGET_IMAGE_LIST_MISSING", StageTarget, "the image-list annotation is missing",
		"Annotation mode needs argocd-image-updater.argoproj.io/image-list.", "Add image-list: <alias>=<image>."},
	{updater.ProblemImageListEmpty, "TARGET_IMAGE_LIST_EMPTY", StageTarget, "the image-list annotation is empty", "", "Fill it in."},
	{updater.ProblemForceUpdateUnparsable, "TARGET_FORCE_UPDATE_UNPARSABLE", StageTarget, "force-update is not a boolean",
		"v1.x parses force-update with strconv.ParseBool; a bad value fails the whole image list and the app is skipped (the CR stays Ready).",
		"Use true or false."},
	{updater.ProblemHelmAndKustomize, "TARGET_HELM_AND_KUSTOMIZE_ON_ALIAS", StageTarget, "helm and kustomize keys on one alias",
		"Image Updater refuses an alias with both helm.* and kustomize.image-name keys; the app is skipped.", "Keep the keys of the app's source type."},
	{updater.ProblemAnnotationForUnknownAlias, "TARGET_ANNOTATION_FOR_UNKNOWN_ALIAS", StageTarget, "an annotation names an alias not in image-list",
		"Image Updater ignores it silently and uses the defaults (image.name / image.tag).", "Rename the key to the alias used in image-list."},
	{updater.ProblemUnknownAnnotationKey, "TARGET_UNKNOWN_ANNOTATION_KEY", StageTarget, "an annotation key is not one Image Updater reads",
		"The key has Image Updater's prefix but is not a key it knows (a typo); the message suggests the closest real key.", "Rename it as suggested."},
	{updater.ProblemTagMatchIgnoredInV1, "TARGET_TAG_MATCH_IGNORED", StageTarget, "tag-match is only read by v0.x", "", "Use allow-tags."},
	{updater.ProblemUnsupportedSourceType, CodeSourceUnsupported, StageSource, "", "", ""},
	{updater.ProblemPluginNotSupportedBeforeV13, CodeSourcePluginBeforeV13, StageSource, "", "", ""},
	{updater.ProblemPluginGitTreatedAsHelm, CodeSourcePluginAsHelm, StageSource, "", "", ""},
	{updater.ProblemImageWithoutAlias, "TARGET_IMAGE_WITHOUT_ALIAS", StageTarget, "an image has no alias",
		"An image-list entry without alias gets only the app-wide settings.", "Give it an alias: <alias>=<image>."},
	{updater.ProblemImageDropped, "TARGET_IMAGE_DROPPED", StageTarget, "an image is dropped",
		"Its manifest target or verification settings are invalid; Image Updater skips that image.", "Fix the settings shown."},
	{updater.ProblemNoImages, "TARGET_NO_IMAGES", StageTarget, "no image is left to update",
		"After dropping invalid images nothing is left; the app is dropped silently.", "Fix the images' settings."},
	{updater.ProblemWriteBackConfig, "WRITEBACK_CONFIG_ERROR", StageWriteBack, "the write-back configuration is invalid",
		"The method, branch or target does not parse.", "Fix the part named."},
	{updater.ProblemWriteBackWillFail, "WRITEBACK_WILL_FAIL", StageWriteBack, "the write-back will fail at commit time",
		"The configuration parses, but the commit fails every cycle (e.g. a git:secret in another namespace on v1.3).", "Fix the part named."},
	{updater.ProblemWriteBackNote, "WRITEBACK_NOTE", StageWriteBack, "note on the write-back configuration", "", ""},
	{updater.ProblemCRDDefaultedOverride, "TARGET_CRD_DEFAULTED_STRATEGY", StageTarget, "a CRD default overrides an inherited setting",
		"The v1.0–v1.3 CRD writes updateStrategy: semver / forceUpdate: false into every commonUpdateSettings block you write; the stored block overrides the value set at a higher level.",
		"Set updateStrategy explicitly in that block (or upgrade the CRDs and re-apply)."},
	{updater.ProblemSettingsWarning, "TARGET_SETTINGS_WARNING", StageTarget, "a setting is read differently than written",
		"A deprecated strategy name, an unknown strategy (read as semver), an invalid allow-tags (matches nothing)...", "Use the value the message names."},
}

func problemIndex() map[string]problemDoc {
	m := make(map[string]problemDoc, len(problemDocs))
	for _, d := range problemDocs {
		m[d.problem] = d
	}
	return m
}

var problemsByCode = problemIndex()

// targetProblemEntries are the catalogue entries of the model's problems
// (those not already catalogued under their own stage).
func targetProblemEntries() []Entry {
	var out []Entry
	for _, d := range problemDocs {
		if d.title == "" {
			continue // catalogued with its stage
		}
		sev := Fail
		switch d.problem {
		case updater.ProblemImageWithoutAlias, updater.ProblemWriteBackNote:
			sev = Info
		case updater.ProblemRefConfigErrorFellThrough, updater.ProblemMultipleCRsMatch, updater.ProblemInvalidLabelSelector,
			updater.ProblemCRSpecNamespaceIgnored, updater.ProblemCRSpecNamespaceMissing, updater.ProblemUnknownAnnotationKey,
			updater.ProblemAnnotationForUnknownAlias, updater.ProblemTagMatchIgnoredInV1, updater.ProblemCRDDefaultedOverride,
			updater.ProblemSettingsWarning:
			sev = Warn
		}
		out = append(out, Entry{Code: d.code, Stage: d.stage, Severity: sev, Title: d.title, Meaning: d.meaning, Fix: d.fix})
	}
	return out
}

// severityOf maps the model's problem severity to a finding severity.
func severityOf(s updater.Severity) Severity {
	switch s {
	case updater.SeverityError:
		return Fail
	case updater.SeverityWarning:
		return Warn
	}
	return Info
}

// problemFinding turns a model problem into a finding.
func problemFinding(p updater.Problem) Finding {
	d, ok := problemsByCode[p.Code]
	code, stage := Code("TARGET_"+p.Code), StageTarget
	if ok {
		code, stage = d.code, d.stage
	}
	f := Finding{Code: code, Stage: stage, Severity: severityOf(p.Severity), Title: p.Message}
	if e, ok := catalogue[code]; ok {
		f.Detail = e.Meaning
		if e.Fix != "" {
			f.Fix = &Fix{Summary: e.Fix}
		}
	}
	return f
}

package report

import "github.com/imgupd/imgupd/model/updater"

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
		"Create an ImageUpdater CR in the Application's namespace whose applicationRefs select it: spec.applicationRefs: [{namePattern: <app>, useAnnotations: true}] keeps its annotations."},
	{updater.ProblemCRNoApplicationRefs, "TARGET_CR_NO_APPLICATION_REFS", StageTarget, "the CR has no applicationRefs",
		"The controller rejects the CR: no application references defined.",
		"Add spec.applicationRefs: [{namePattern: <app>, images: [{alias: <alias>, imageName: <image>}]}] to the CR."},
	{updater.ProblemCRInvalidNamePattern, "TARGET_CR_INVALID_NAME_PATTERN", StageTarget, "a namePattern is not a valid glob",
		"filepath.Match rejects the pattern; the whole CR fails.",
		"Write namePattern as a glob (*, ?, [a-z]; escape a literal [ with \\[), e.g. namePattern: web-*."},
	{updater.ProblemCRNamespaceNotWatched, "TARGET_CR_NAMESPACE_NOT_WATCHED", StageTarget, "the CR's namespace is not watched",
		"The CR lives outside --watch-namespaces / IMAGE_UPDATER_WATCH_NAMESPACES; it is never reconciled and gets no status.",
		"Move the CR to a watched namespace, or add its namespace: kubectl -n argocd set env deploy/argocd-image-updater-controller IMAGE_UPDATER_WATCH_NAMESPACES=<namespaces,...> (\"*\" for all)."},
	{updater.ProblemCRSpecNamespaceIgnored, "TARGET_CR_SPEC_NAMESPACE_IGNORED", StageTarget, "spec.namespace is ignored",
		"v1.2+ lists Applications in the CR's own namespace and no longer reads spec.namespace.",
		"Create the CR in the Applications' namespace (metadata.namespace) and remove spec.namespace."},
	{updater.ProblemCRSpecNamespaceMissing, "TARGET_CR_SPEC_NAMESPACE_MISSING", StageTarget, "spec.namespace is not set",
		"v1.0 and v1.1 list Applications in spec.namespace.", "Set spec.namespace: <the Applications' namespace> on the CR."},
	{updater.ProblemAppNotInCRNamespace, "TARGET_APP_NOT_IN_CR_NAMESPACE", StageTarget, "the app is outside the CR's namespace",
		"The CR only lists Applications in its namespace (v1.2+: metadata.namespace; v1.0/1.1: spec.namespace).",
		"Create the CR (metadata.namespace) in the Application's namespace."},
	{updater.ProblemNoMatchingRef, "TARGET_NO_MATCHING_REF", StageTarget, "no applicationRef matches the app",
		"Neither namePattern nor labelSelectors of any ref match; the app is silently ignored.",
		"Make an applicationRef match: namePattern: <app name> (or a glob), and labelSelectors.matchLabels only with labels the Application has (kubectl get application <app> --show-labels)."},
	{updater.ProblemInvalidLabelSelector, "TARGET_INVALID_LABEL_SELECTOR", StageTarget, "a label selector is invalid",
		"The ref's labelSelectors cannot be parsed; the ref matches nothing.",
		"Write matchExpressions with operator In, NotIn, Exists or DoesNotExist, and values only for In and NotIn."},
	{updater.ProblemRefConfigErrorFellThrough, "TARGET_REF_CONFIG_ERROR_FELL_THROUGH", StageTarget, "a broken ref fell through to a broader one",
		"The most specific matching ref could not be built, and Image Updater silently used the next one.",
		"Correct the more specific applicationRef: with useAnnotations: true the annotation the finding before this one names (kubectl -n <ns> annotate application <app> --overwrite <key>=<value>), else its writeBackConfig.method or writeBackConfig.gitConfig.branch."},
	{updater.ProblemRefConfigErrorNoFallback, "TARGET_REF_CONFIG_ERROR", StageTarget, "the matching ref cannot be built",
		"Every matching ref failed to build; the app is dropped with a warning in the logs.",
		"Correct the applicationRef: with useAnnotations: true the annotation the finding before this one names (kubectl -n <ns> annotate application <app> --overwrite <key>=<value>), else its writeBackConfig.method or writeBackConfig.gitConfig.branch."},
	{updater.ProblemMultipleCRsMatch, "TARGET_MULTIPLE_CRS_MATCH", StageTarget, "several CRs select the app",
		"Image Updater reconciles each CR on its own and does not de-conflict them; the candidates stage compares their picks for each image (CANDIDATES_CRS_DISAGREE when they differ).",
		"Narrow namePattern or labelSelectors in all CRs but one, so that exactly one selects the app."},
	{updater.ProblemAnnotationsIgnoredWithoutCR, "TARGET_ANNOTATIONS_IGNORED", StageTarget, "the app's annotations are ignored",
		"v1.x only reads argocd-image-updater.argoproj.io annotations through a CR ref with useAnnotations: true; after an upgrade from v0.x updates stop silently.",
		"Create an ImageUpdater CR with applicationRefs: [{namePattern: <app>, useAnnotations: true}], or move the settings into it."},
	{updater.ProblemUseAnnotationsNotSupported, "TARGET_USE_ANNOTATIONS_NOT_SUPPORTED", StageTarget, "useAnnotations needs v1.1",
		"v1.0 has no useAnnotations field.", "Upgrade Image Updater to v1.1 or later, or move the settings into spec.applicationRefs[].images."},
	{updater.ProblemImageListMissing, "TARGET_IMAGE_LIST_MISSING", StageTarget, "the image-list annotation is missing",
		"Annotation mode needs argocd-image-updater.argoproj.io/image-list.",
		"kubectl -n <ns> annotate application <app> argocd-image-updater.argoproj.io/image-list=<alias>=<image> (and remove a misspelled key with <key>-)."},
	{updater.ProblemImageListEmpty, "TARGET_IMAGE_LIST_EMPTY", StageTarget, "the image-list annotation is empty",
		"The annotation exists but names no image.",
		"kubectl -n <ns> annotate application <app> --overwrite argocd-image-updater.argoproj.io/image-list=<alias>=<image>"},
	{updater.ProblemForceUpdateUnparsable, "TARGET_FORCE_UPDATE_UNPARSABLE", StageTarget, "force-update is not a boolean",
		"v1.x parses force-update with strconv.ParseBool; a bad value fails the whole image list and the app is skipped (the CR stays Ready).",
		"kubectl -n <ns> annotate application <app> --overwrite argocd-image-updater.argoproj.io/<alias>.force-update=true (or false)"},
	{updater.ProblemHelmAndKustomize, "TARGET_HELM_AND_KUSTOMIZE_ON_ALIAS", StageTarget, "helm and kustomize keys on one alias",
		"Image Updater refuses an alias with both helm.* and kustomize.image-name keys; the app is skipped.",
		"Remove the keys of the other source type, e.g. for a Helm app: kubectl -n <ns> annotate application <app> argocd-image-updater.argoproj.io/<alias>.kustomize.image-name-"},
	{updater.ProblemAnnotationForUnknownAlias, "TARGET_ANNOTATION_FOR_UNKNOWN_ALIAS", StageTarget, "an annotation names an alias not in image-list",
		"Image Updater ignores it silently: the alias it was meant for gets the defaults (Helm parameters image.name / image.tag, the image's own Kustomize name), so the update is written where the source does not read it.",
		"Rename the key to the alias used in image-list: kubectl -n <ns> annotate application <app> argocd-image-updater.argoproj.io/<alias>.<key>=<value> argocd-image-updater.argoproj.io/<wrong alias>.<key>-"},
	{updater.ProblemUnknownAnnotationKey, "TARGET_UNKNOWN_ANNOTATION_KEY", StageTarget, "an annotation key is not one Image Updater reads",
		"The key has Image Updater's prefix but is not a key it knows (a typo); the message suggests the closest real key.",
		"Rename the key to the suggested one: kubectl -n <ns> annotate application <app> <suggested key>=<value> <misspelled key>-"},
	{updater.ProblemTagMatchIgnoredInV1, "TARGET_TAG_MATCH_IGNORED", StageTarget, "tag-match is only read by v0.x",
		"v1.x does not read <alias>.tag-match.", "Rename <alias>.tag-match to <alias>.allow-tags (same value)."},
	{updater.ProblemUnsupportedSourceType, CodeSourceUnsupported, StageSource, "", "", ""},
	{updater.ProblemPluginNotSupportedBeforeV13, CodeSourcePluginBeforeV13, StageSource, "", "", ""},
	{updater.ProblemPluginGitTreatedAsHelm, CodeSourcePluginAsHelm, StageSource, "", "", ""},
	{updater.ProblemImageWithoutAlias, "TARGET_IMAGE_WITHOUT_ALIAS", StageTarget, "an image has no alias",
		"An image-list entry without alias gets only the app-wide settings.", "Give it an alias: image-list: <alias>=<image>."},
	{updater.ProblemImageDropped, "TARGET_IMAGE_DROPPED", StageTarget, "an image is dropped",
		"Its manifest target or verification settings are invalid; Image Updater skips that image.",
		"Give the image exactly one of manifestTargets.helm, .kustomize or .plugin, and an imagesVerification with cosignKey (secretName, key) when enabled."},
	{updater.ProblemNoImages, "TARGET_NO_IMAGES", StageTarget, "no image is left to update",
		"After dropping invalid images nothing is left; the app is dropped silently.",
		"Give the applicationRef at least one valid image: images: [{alias: <alias>, imageName: <image>, manifestTargets: {helm: {name: image.repository, tag: image.tag}}}]."},
	{updater.ProblemWriteBackConfig, "WRITEBACK_CONFIG_ERROR", StageWriteBack, "the write-back configuration is invalid",
		"The method, branch or target does not parse.",
		"Write method as argocd, git, git:repocreds or git:secret:<namespace>/<name>; branch as <branch>, <base>:<target> or :<target>; writeBackTarget as kustomization[:<dir>] or helmvalues[:<file>]."},
	{updater.ProblemWriteBackWillFail, "WRITEBACK_WILL_FAIL", StageWriteBack, "the write-back will fail at commit time",
		"The configuration parses, but the commit fails every cycle.",
		"Write method as git:secret:<app namespace>/<name> for a Secret in the Application's namespace, gitConfig.repository as an https:// or SSH URL, and writeBackTarget as kustomization:<dir> or helmvalues:<file>."},
	{updater.ProblemWriteBackInsecureURL, CodeWriteBackInsecureURL, StageWriteBack, "", "", ""},
	{updater.ProblemWriteBackSecretNamespace, CodeWriteBackSecretNS, StageWriteBack, "", "", ""},
	{updater.ProblemWriteBackSecretRef, CodeWriteBackSecretRef, StageWriteBack, "", "", ""},
	{updater.ProblemWriteBackTargetRejected, CodeWriteBackTargetRejected, StageWriteBack, "", "", ""},
	{updater.ProblemWriteBackNote, "WRITEBACK_NOTE", StageWriteBack, "note on the write-back configuration", "", ""},
	{updater.ProblemCRDDefaultedOverride, "TARGET_CRD_DEFAULTED_STRATEGY", StageTarget, "a CRD default overrides an inherited setting",
		"The v1.0–v1.3 CRD writes updateStrategy: semver / forceUpdate: false into every commonUpdateSettings block you write; the stored block overrides the value set at a higher level. When the two strategies pick different tags, Image Updater writes the wrong one.",
		"Set updateStrategy explicitly in the defaulted block (e.g. images[0].commonUpdateSettings.updateStrategy: newest-build), or install the v1.4 CRDs and re-apply the CR."},
	{updater.ProblemSettingsWarning, "TARGET_SETTINGS_WARNING", StageTarget, "a setting is read differently than written",
		"A deprecated strategy name, an unknown strategy (read as semver), an invalid allow-tags (matches nothing)...",
		"Write updateStrategy as semver, newest-build, alphabetical or digest, and allowTags as regexp:<expression> or any."},
}

// problemStates are the states of the failing problem codes that are not
// "blocked".
var problemStates = map[string]State{
	updater.ProblemAnnotationForUnknownAlias: StateWrongUpdate,
	updater.ProblemCRDDefaultedOverride:      StateWrongUpdate,
}

// ProblemFinding is the finding code and stage under which one of the
// model's problems (an updater.Problem code) is reported.
type ProblemFinding struct {
	Code  Code
	Stage StageID
}

// ProblemFindings maps every updater.Problem code the catalogue documents
// to its finding code and stage (the engine's TestCatalogueCoversModel
// fails when the model gains a code not listed).
func ProblemFindings() map[string]ProblemFinding {
	m := make(map[string]ProblemFinding, len(problemDocs))
	for _, d := range problemDocs {
		m[d.problem] = ProblemFinding{Code: d.code, Stage: d.stage}
	}
	return m
}

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
			updater.ProblemTagMatchIgnoredInV1, updater.ProblemSettingsWarning:
			sev = Warn
		}
		x := Entry{Code: d.code, Stage: d.stage, Severity: sev, Title: d.title, Meaning: d.meaning, Fix: d.fix}
		if sev == Fail {
			x.State = StateBlocked
			if st, ok := problemStates[d.problem]; ok {
				x.State = st
			}
		}
		out = append(out, x)
	}
	return out
}

package updaterlog

import (
	"regexp"
	"strings"
	"sync"

	"github.com/imgupd/imgupd/internal/lazyre"
	"github.com/imgupd/imgupd/model/updater"
)

// Capture names with a fixed meaning across the catalogue. Other captures are
// named after what they hold (constraint, strategy, namespace, ...).
const (
	CaptureImage = "image" // an image name as the controller printed it (with or without registry, see the entry)
	CaptureApp   = "app"   // an Application as printed: "name" or "namespace/name"
	CaptureError = "error" // the error text after a colon
)

// Entry is one catalogued message.
type Entry struct {
	// Code is stable and machine-readable; it never changes meaning.
	Code string
	// Level is the level the controller logs the message at.
	Level string
	// Formats are the format strings as the controller passes them to logrus;
	// several when releases word the same event differently.
	Formats []string
	// Captures names the verbs of each format, in order (CaptureImage,
	// CaptureApp, CaptureError or a descriptive name).
	Captures []string
	// Prefix: the formats only fix the beginning of the message.
	Prefix bool
	// Since and Before bound the releases that log the message: Since zero
	// means every release, Before zero means up to the newest.
	Since, Before updater.Version
	// Meaning is a short explanation for humans.
	Meaning string

	patterns []pattern
}

type pattern struct {
	// re is compiled when a message first has its prefix: a log reaches
	// a few of the catalogue's formats, and compiling them all cost a
	// one-shot command (a diagnosis, a "where") more than reading its log.
	re     func() *regexp.Regexp
	prefix string
	verbs  []byte // the verb letter of each capture
}

// LoggedBy reports whether release v logs this message.
func (e Entry) LoggedBy(v updater.Version) bool {
	if !v.AtLeast(e.Since.Major, e.Since.Minor, e.Since.Patch) {
		return false
	}
	if e.Before != (updater.Version{}) && v.AtLeast(e.Before.Major, e.Before.Minor, e.Before.Patch) {
		return false
	}
	return true
}

// Message codes, for callers that test for a specific message.
const (
	CodeStartupBanner         = "startup.banner"
	CodeStartupWarmUp         = "startup.warmup"
	CodeStartupWarmUpDone     = "startup.warmup_done"
	CodeStartupController     = "startup.controller"
	CodeCycleStart            = "cycle.start"
	CodeCycleResults          = "cycle.results"
	CodeTargetListing         = "target.listing"
	CodeTargetNoApps          = "target.no_apps"
	CodeTargetNoCRsRunOnce    = "target.no_crs_run_once"
	CodeTargetLabelSelector   = "target.label_selector_invalid"
	CodeTargetNamePattern     = "target.invalid_name_pattern"
	CodeCRFailed              = "cr.failed"
	CodeCRReconcileFailed     = "cr.reconcile_failed"
	CodeAppUnsupportedSource  = "app.unsupported_source"
	CodeAppAnnotationMissing  = "app.annotation_missing"
	CodeAppNameFiltered       = "app.name_filtered"
	CodeAppImageListInvalid   = "app.image_list_invalid"
	CodeAppWriteBackInvalid   = "app.writeback_invalid"
	CodeAppSettingsInvalid    = "app.settings_invalid"
	CodeAppManifestTarget     = "app.manifest_target_invalid"
	CodeAppVerifySettings     = "app.verification_settings_invalid"
	CodeImageNotLive          = "image.not_live"
	CodeImageConsidering      = "image.considering"
	CodeImageConstraint       = "image.constraint"
	CodeImageNoConstraint     = "image.no_constraint"
	CodeImageDigestReselected = "image.digest_reselected"
	CodeRegistryEndpoint      = "registry.endpoint_failed"
	CodeRegistryInferred      = "registry.inferred"
	CodeCredsInvalidReference = "creds.invalid_reference"
	CodeCredsFetchFailed      = "creds.fetch_failed"
	CodeCredsSetFailed        = "creds.set_failed"
	CodeCredsCrossNamespace   = "creds.cross_namespace"
	CodeRegistryClient        = "registry.client_failed"
	CodeRegistryRepository    = "registry.repository_failed"
	CodeRegistryAuthRetry     = "registry.auth_retry"
	CodeRegistryAuthCacheDrop = "registry.auth_cache_cleared"
	CodeRegistryTagsFailed    = "registry.tags_failed"
	CodeRegistryMetadata      = "registry.metadata_failed"
	CodeRegistryNoMetadata    = "registry.metadata_missing"
	CodeTagsNoneFound         = "tags.none_found"
	CodeTagsNoneForStrategy   = "tags.none_for_strategy"
	CodeTagsNoneForConstraint = "tags.none_for_constraint"
	CodeTagsCandidates        = "tags.candidates"
	CodeTagsInvalidConstraint = "tags.invalid_constraint"
	CodeTagsNewestFailed      = "tags.newest_failed"
	CodeTagsNoSuitable        = "tags.no_suitable"
	CodeImageAlreadyInSpec    = "image.already_in_spec"
	CodeImageUpToDate         = "image.up_to_date"
	CodeImageSetting          = "image.setting"
	CodeImageUpdated          = "image.updated"
	CodeVerifyFailed          = "verify.failed"
	CodeVerifyNoMethod        = "verify.no_method"
	CodeImageSetFailed        = "image.set_failed"
	CodeCommitStart           = "commit.start"
	CodeCommitLiveSpec        = "commit.live_spec_updated"
	CodeCommitAppSpec         = "commit.app_spec_updated"
	CodeCommitDryRun          = "commit.dry_run"
	CodeCommitFailed          = "commit.failed"
	CodeGitNoChange           = "git.no_change"
	CodeGitPRDedupe           = "git.pr_dedupe"
	CodeStrategyRenamedLatest = "config.strategy_renamed_latest"
	CodeStrategyRenamedName   = "config.strategy_renamed_name"
	CodeAllowTagsSyntax       = "config.allow_tags_syntax"
	CodeAllowTagsRegexp       = "config.allow_tags_regexp"
	CodeAllowTagsFunction     = "config.allow_tags_function"
	CodeTagListSort           = "config.taglistsort"
	CodePanic                 = "process.panic"
)

// entries is the catalogue source. Formats are quoted from the Image Updater
// sources as given in the reference (docs/image-updater-model.md §6, §10);
// keep them verbatim so that a diff against upstream stays readable.
var entries = []Entry{
	// Start-up. The banner wording is v0.x's ("%s %s starting [loglevel:...]");
	// the controller-runtime lines come from v1.x's manager.
	{Code: CodeStartupBanner, Level: LevelInfo, Prefix: true,
		Formats: []string{"argocd-image-updater %s starting"}, Captures: []string{"version"},
		Meaning: "the controller process started; what follows is its first cycles"},
	{Code: CodeStartupWarmUp, Level: LevelInfo,
		Formats: []string{"Warming up image cache"},
		Meaning: "start-up warm-up: every target is processed once in dry-run mode; not a real cycle"},
	{Code: CodeStartupWarmUpDone, Level: LevelInfo,
		Formats:  []string{"Finished cache warm-up, pre-loaded %d meta data entries from %d registries"},
		Captures: []string{"entries", "registries"},
		Meaning:  "start-up warm-up finished; real update cycles follow"},
	{Code: CodeStartupController, Level: LevelInfo, Since: updater.V1_0, Prefix: true,
		Formats: []string{"Starting Controller", "Starting workers", "Starting EventSource", "Starting manager", "starting manager"},
		Meaning: "the v1.x controller manager is starting"},

	// Cycles and targets.
	{Code: CodeCycleStart, Level: LevelInfo,
		Formats: []string{
			"Starting image update cycle, considering %d application(s) for update",
			"Starting image update cycle, considering %d annotated application(s) for update", // v0.x
		},
		Captures: []string{"applications"},
		Meaning:  "an update cycle started (per ImageUpdater CR in v1.x, global in v0.x)"},
	{Code: CodeCycleResults, Level: LevelInfo,
		Formats:  []string{"Processing results: applications=%d images_considered=%d images_skipped=%d images_updated=%d errors=%d"},
		Captures: []string{"applications", "images_considered", "images_skipped", "images_updated", "errors"},
		Meaning:  "an update cycle ended; images_skipped counts not-live images and images without a candidate, errors counts registry, credential, constraint, verification, set and commit errors"},
	{Code: CodeTargetListing, Level: LevelDebug, Since: updater.V1_0,
		Formats: []string{"Listing all applications in target namespace: %s"}, Captures: []string{"namespace"},
		Meaning: "the CR lists the Applications of this namespace"},
	{Code: CodeTargetNoApps, Level: LevelInfo, Since: updater.V1_0,
		Formats: []string{"No applications found in target namespace: %s"}, Captures: []string{"namespace"},
		Meaning: "the CR's namespace holds no Applications (v1.2+: the CR's own namespace; v1.0/1.1: spec.namespace)"},
	{Code: CodeTargetNoCRsRunOnce, Level: LevelInfo, Since: updater.V1_0,
		Formats: []string{"No CRs found in run-once mode"},
		Meaning: "no ImageUpdater CR in a watched namespace: nothing is updated (annotations alone are ignored in v1.x)"},
	{Code: CodeTargetLabelSelector, Level: LevelWarning, Since: updater.V1_0,
		Formats: []string{"Invalid label selector provided: %v"}, Captures: []string{CaptureError},
		Meaning: "an applicationRef's labelSelectors is invalid; that ref matches no Application"},
	{Code: CodeTargetNamePattern, Level: LevelError, Since: updater.V1_0,
		Formats:  []string{"invalid application name pattern '%s': %v"},
		Captures: []string{"pattern", CaptureError},
		Meaning:  "an applicationRef's namePattern is not a valid glob; the whole CR fails (usually seen inside \"Failed to process ImageUpdater CR\")"},
	{Code: CodeCRFailed, Level: LevelError, Since: updater.V1_0,
		Formats: []string{"Failed to process ImageUpdater CR: %v"}, Captures: []string{CaptureError},
		Meaning: "the whole CR failed (e.g. an invalid namePattern or no applicationRefs); none of its Applications were processed"},
	{Code: CodeCRReconcileFailed, Level: LevelWarning, Since: updater.V1_0,
		Formats:  []string{"Reconciliation failed for %s/%s, will retry at normal interval: %v"},
		Captures: []string{"cr_namespace", "cr_name", CaptureError},
		Meaning:  "the CR's reconciliation failed and is retried at the next interval"},

	// Application selection.
	{Code: CodeAppUnsupportedSource, Level: LevelWarning,
		Formats:  []string{"skipping app '%s' of type '%s' because it's not of supported source type"},
		Captures: []string{CaptureApp, "source_type"},
		Meaning:  "the Application's source type is not Helm, Kustomize (or Plugin in v1.3); an empty type means its manifests did not render"},
	{Code: CodeAppAnnotationMissing, Level: LevelTrace, Before: updater.V1_0,
		Formats:  []string{"skipping app '%s' of type '%s' because required annotation is missing"},
		Captures: []string{CaptureApp, "source_type"},
		Meaning:  "v0.x: the Application has no image-list annotation"},
	{Code: CodeAppNameFiltered, Level: LevelDebug, Before: updater.V1_0,
		Formats: []string{"Skipping app '%s' because it does not match requested patterns"}, Captures: []string{CaptureApp},
		Meaning: "v0.x: the Application does not match --match-application-name / label"},
	{Code: CodeAppImageListInvalid, Level: LevelWarning, Since: updater.V1_0,
		Formats: []string{"Could not create image list, skipping: %v"}, Captures: []string{CaptureError},
		Meaning: "the Application's image list (image-list annotation with useAnnotations, or CR images) could not be built; the Application is dropped without counting an error"},
	{Code: CodeAppWriteBackInvalid, Level: LevelWarning, Since: updater.V1_0,
		Formats: []string{"Could not create write-back config, skipping: %v"}, Captures: []string{CaptureError},
		Meaning: "the write-back configuration is invalid; the ref is skipped and a less specific ref may match instead"},
	{Code: CodeAppSettingsInvalid, Level: LevelWarning, Since: updater.V1_0,
		Formats: []string{"Could not create common update settings, skipping: %v"}, Captures: []string{CaptureError},
		Meaning: "the update settings are invalid; the ref is skipped and a less specific ref may match instead"},
	{Code: CodeAppManifestTarget, Level: LevelWarning, Since: updater.V1_0,
		Formats:  []string{"Could not set manifest target config for image %s, skipping: %v"},
		Captures: []string{CaptureImage, CaptureError},
		Meaning:  "the image's manifestTargets are invalid; the image is dropped"},
	{Code: CodeAppVerifySettings, Level: LevelWarning, Since: updater.V1_3,
		Formats:  []string{"Could not set images verification settings for image %s, skipping: %v"},
		Captures: []string{CaptureImage, CaptureError},
		Meaning:  "the image's imagesVerification settings are invalid; the image is dropped"},

	// Live image and constraint.
	{Code: CodeImageNotLive, Level: LevelDebug,
		Formats: []string{"Image '%s' seems not to be live in this application, skipping"}, Captures: []string{CaptureImage},
		Meaning: "no image with this registry and name is in the Application's status.summary.images (the name is printed without its registry)"},
	{Code: CodeImageConsidering, Level: LevelDebug,
		Formats: []string{"Considering this image for update"},
		Meaning: "the image is live and goes on to tag selection"},
	{Code: CodeImageConstraint, Level: LevelDebug,
		Formats: []string{"Using version constraint '%s' when looking for a new tag"}, Captures: []string{"constraint"},
		Meaning: "the constraint (the tag part of the configured image) used for tag selection"},
	{Code: CodeImageNoConstraint, Level: LevelDebug,
		Formats: []string{"Using no version constraint when looking for a new tag"},
		Meaning: "no constraint: v1.3+ treats it as * (pre-releases excluded)"},
	{Code: CodeImageDigestReselected, Level: LevelDebug, Since: updater.V1_3, Prefix: true,
		Formats: []string{"Multiple containers reference image '%s'; re-selected live image"}, Captures: []string{CaptureImage},
		Meaning: "several containers run this image; the live image was re-selected by tag and digest"},

	// Registry and credentials.
	{Code: CodeRegistryEndpoint, Level: LevelError,
		Formats: []string{"Could not get registry endpoint from configuration: %v"}, Captures: []string{CaptureError},
		Meaning: "no registry endpoint could be resolved for the image (registries.conf)"},
	{Code: CodeRegistryInferred, Level: LevelInfo,
		Formats: []string{"Inferred registry from prefix %s to use API %s"}, Captures: []string{"prefix", "api_url"},
		Meaning: "the registry is not in registries.conf; https://<prefix> is used without credentials"},
	{Code: CodeCredsInvalidReference, Level: LevelWarning,
		Formats: []string{"Invalid credential reference specified: %s"}, Captures: []string{"reference"},
		Meaning: "the pull-secret/credentials reference is malformed (want pullsecret:ns/name, secret:ns/name#field, env:VAR or ext:/path)"},
	{Code: CodeCredsFetchFailed, Level: LevelWarning,
		Formats: []string{"Could not fetch credentials: %v"}, Captures: []string{CaptureError},
		Meaning: "the referenced credentials could not be read (missing secret or field, no matching auths key)"},
	{Code: CodeCredsSetFailed, Level: LevelError,
		Formats: []string{"Could not set registry endpoint credentials: %v"}, Captures: []string{CaptureError},
		Meaning: "credentials failed; the registry is not contacted for this image"},
	{Code: CodeCredsCrossNamespace, Level: LevelError, Since: updater.V1_3,
		Formats:  []string{"commonUpdateSettings.pullSecret namespace '%s' differs from app namespace '%s'"},
		Captures: []string{"secret_namespace", "app_namespace"},
		Meaning:  "v1.3+: an image-level pull secret must live in the Application's namespace"},
	{Code: CodeRegistryClient, Level: LevelError,
		Formats: []string{"Could not create registry client: %v"}, Captures: []string{CaptureError},
		Meaning: "the registry client could not be created"},
	{Code: CodeRegistryRepository, Level: LevelError,
		Formats:  []string{"Failed to create repository for image '%s': %v"},
		Captures: []string{CaptureImage, CaptureError},
		Meaning:  "the registry could not be reached or refused the repository (network, proxy, DNS, TLS); a tag-listing error follows"},
	{Code: CodeRegistryAuthRetry, Level: LevelInfo, Since: updater.V1_0,
		Formats: []string{"credentials invalid (401/403), refetching and retrying once"},
		Meaning: "the registry refused cached credentials; they are fetched again and the request retried once"},
	{Code: CodeRegistryAuthCacheDrop, Level: LevelInfo, Since: updater.V1_0,
		Formats: []string{"registry returned 401/403 with valid cached creds, clearing cache for refetch"},
		Meaning: "the registry refused cached credentials; the cache is cleared"},
	{Code: CodeRegistryTagsFailed, Level: LevelError,
		Formats: []string{"Could not get tags from registry: %v"}, Captures: []string{CaptureError},
		Meaning: "listing tags failed (authentication, permission, rate limit, network, or digest strategy without constraint); counted as an error"},
	{Code: CodeRegistryMetadata, Level: LevelError,
		Formats: []string{
			"Error fetching metadata for %s:%s - neither V1 or V2 or OCI manifest returned by registry: %v",
			"error fetching metadata for %s:%s: %v",
		},
		Captures: []string{CaptureImage, "tag", CaptureError},
		Meaning:  "the manifest of a tag could not be read (newest-build/digest); the tag is dropped, not counted as an error"},
	{Code: CodeRegistryNoMetadata, Level: LevelDebug,
		Formats: []string{"No metadata found for %s:%s"}, Captures: []string{CaptureImage, "tag"},
		Meaning: "a tag has no usable metadata (e.g. no manifest for the wanted platform); it is dropped"},

	// Tag selection.
	{Code: CodeTagsNoneFound, Level: LevelWarning, Since: updater.V1_2,
		Formats: []string{"no tags found for image %s in registry"}, Captures: []string{CaptureImage},
		Meaning: "no tag left for the image; v1.3.0 also says this when allow-tags, ignore-tags or the platform filter removed every tag"},
	{Code: CodeTagsNoneForStrategy, Level: LevelWarning, Since: updater.V1_2,
		Formats: []string{"no tags for image %s matched by the %s strategy"}, Captures: []string{CaptureImage, "strategy"},
		Meaning: "tags exist but none is usable by the update strategy (e.g. no semver tags)"},
	{Code: CodeTagsNoneForConstraint, Level: LevelWarning, Since: updater.V1_2,
		Formats: []string{"no tags for image %s matched constraint %q"}, Captures: []string{CaptureImage, "constraint"},
		Meaning: "tags exist but none satisfies the constraint"},
	{Code: CodeTagsCandidates, Level: LevelDebug,
		Formats: []string{"found %d from %d tags eligible for consideration"}, Captures: []string{"eligible", "total"},
		Meaning: "how many tags survived filtering"},
	{Code: CodeTagsInvalidConstraint, Level: LevelError,
		Formats: []string{"invalid constraint '%s' given: '%v'"}, Captures: []string{"constraint", CaptureError},
		Meaning: "the constraint is not a semver constraint (e.g. latest, main); semver never updates this image"},
	{Code: CodeTagsNewestFailed, Level: LevelError,
		Formats: []string{"Unable to find newest version from available tags: %v"}, Captures: []string{CaptureError},
		Meaning: "tag selection failed: improper constraint, or (v0.x to v1.1.0) a running tag that is not a semantic version"},
	{Code: CodeTagsNoSuitable, Level: LevelDebug,
		Formats: []string{"No suitable image tag for upgrade found in list of available tags."},
		Meaning: "no candidate tag; the image is skipped"},
	{Code: CodeImageAlreadyInSpec, Level: LevelInfo,
		Formats: []string{"New image %s already set in spec"}, Captures: []string{CaptureImage},
		Meaning: "the Application spec already names the chosen tag, but it is not running yet (Argo CD has not synced)"},
	{Code: CodeImageUpToDate, Level: LevelDebug,
		Formats: []string{"Image '%s' already on latest allowed version"}, Captures: []string{CaptureImage},
		Meaning: "the running tag is the best allowed tag; up to v1.1 also shown when no tag was left at all"},

	// Update and write-back.
	{Code: CodeImageSetting, Level: LevelInfo,
		Formats: []string{"Setting new image to %s"}, Captures: []string{CaptureImage},
		Meaning: "a newer tag was chosen and is set in the in-memory spec"},
	{Code: CodeImageUpdated, Level: LevelInfo,
		Formats:  []string{"Successfully updated image '%s' to '%s', but pending spec update (dry run=%v)"},
		Captures: []string{"from", CaptureImage, "dry_run"},
		Meaning:  "the image was changed in memory; the write-back follows (unless dry run)"},
	{Code: CodeVerifyFailed, Level: LevelError, Since: updater.V1_3,
		Formats: []string{"Unable to verify image %s with public key: %v"}, Captures: []string{CaptureImage, CaptureError},
		Meaning: "cosign verification of the new image failed; it is not updated"},
	{Code: CodeVerifyNoMethod, Level: LevelError, Since: updater.V1_3,
		Formats: []string{"Image verification enabled but no verification method configured for %s"}, Captures: []string{CaptureImage},
		Meaning: "imagesVerification is enabled without a cosign key; the image is not updated"},
	{Code: CodeImageSetFailed, Level: LevelError,
		Formats: []string{"Error while trying to update image: %v"}, Captures: []string{CaptureError},
		Meaning: "the new image could not be set in the spec"},
	{Code: CodeCommitStart, Level: LevelInfo,
		Formats: []string{"Committing %d parameter update(s) for application %s"}, Captures: []string{"count", CaptureApp},
		Meaning: "write-back starts (not in dry-run mode)"},
	{Code: CodeCommitLiveSpec, Level: LevelInfo,
		Formats: []string{"Successfully updated the live application spec"},
		Meaning: "write-back succeeded"},
	{Code: CodeCommitAppSpec, Level: LevelInfo,
		Formats: []string{"Successfully updated application spec for %s"}, Captures: []string{CaptureApp},
		Meaning: "write-back succeeded (seen on v1.3.0 next to the live-spec line)"},
	{Code: CodeCommitDryRun, Level: LevelInfo,
		Formats: []string{"Dry run - not committing %d changes to application"}, Captures: []string{"count"},
		Meaning: "dry run (the --dry-run flag, or the start-up warm-up): nothing is written"},
	{Code: CodeCommitFailed, Level: LevelError,
		Formats: []string{"Could not update application spec: %v"}, Captures: []string{CaptureError},
		Meaning: "write-back failed (git credentials, branch, push, or the Kubernetes update); images_updated is reset to 0"},
	{Code: CodeGitNoChange, Level: LevelDebug,
		Formats: []string{"target parameter file and marshaled data are the same, skipping commit."},
		Meaning: "git write-back: the file already holds these values; nothing to commit (Argo CD has not synced it yet)"},
	{Code: CodeGitPRDedupe, Level: LevelInfo, Since: updater.V1_2,
		Formats: []string{"Skipping PR creation: another application already created a PR for the same write-back target in this cycle"},
		Meaning: "another Application already opened the pull request for this write-back target"},

	// Configuration warnings.
	{Code: CodeStrategyRenamedLatest, Level: LevelWarning, Prefix: true,
		Formats: []string{`"latest" strategy has been renamed to "newest-build"`},
		Meaning: "the deprecated strategy name latest is used; it means newest-build"},
	{Code: CodeStrategyRenamedName, Level: LevelWarning, Prefix: true,
		Formats: []string{`"name" strategy has been renamed to "alphabetical"`},
		Meaning: "the deprecated strategy name name is used; it means alphabetical"},
	{Code: CodeAllowTagsSyntax, Level: LevelWarning,
		Formats: []string{"Invalid match option syntax '%s', ignoring"}, Captures: []string{"allow_tags"},
		Meaning: "allow-tags has no function prefix (want regexp:<re> or any); it matches nothing, so no tag is a candidate"},
	{Code: CodeAllowTagsRegexp, Level: LevelWarning,
		Formats: []string{"Could not compile regexp '%s'"}, Captures: []string{"allow_tags"},
		Meaning: "allow-tags regexp does not compile; it matches nothing, so no tag is a candidate"},
	{Code: CodeAllowTagsFunction, Level: LevelWarning,
		Formats: []string{"Unknown match function: %s"}, Captures: []string{"function"},
		Meaning: "allow-tags names an unknown function; it matches nothing, so no tag is a candidate"},
	{Code: CodeTagListSort, Level: LevelInfo,
		Formats:  []string{"taglistsort is set to '%s' but update strategy '%s' requires metadata. Results may not be what you expect."},
		Captures: []string{"sort_mode", "strategy"},
		Meaning:  "the registry's tagsortmode replaces build dates by list positions for a strategy that needs them"},

	// The process itself.
	{Code: CodePanic, Level: LevelFatal, Prefix: true,
		Formats: []string{"panic: %v", "fatal error: %v"}, Captures: []string{CaptureError},
		Meaning: "the controller crashed; look at the stack trace and restart count"},
}

// catalogue is the compiled, immutable form of entries, compiled on first
// use (Classify, Lookup, Catalogue) rather than at package init.
var catalogue = sync.OnceValue(func() []Entry { return compileCatalogue(entries) })

func compileCatalogue(src []Entry) []Entry {
	out := make([]Entry, len(src))
	for i, e := range src {
		for _, f := range e.Formats {
			expr, verbs, err := formatExpr(f, e.Prefix)
			if err != nil {
				panic(err) // a mistake in the table above; caught by TestCatalogueCompiles
			}
			if len(verbs) != len(e.Captures) {
				panic(&FormatError{Format: f, Reason: "capture names do not match the verbs"})
			}
			e.patterns = append(e.patterns, pattern{re: lazyre.New(expr), prefix: literalPrefix(f), verbs: verbs})
		}
		out[i] = e
	}
	return out
}

// Catalogue returns the catalogued messages, in table order. The slice is a
// copy; changing it does not change Classify.
func Catalogue() []Entry {
	out := append([]Entry(nil), catalogue()...)
	for i := range out {
		out[i].Formats = append([]string(nil), out[i].Formats...)
		out[i].Captures = append([]string(nil), out[i].Captures...)
	}
	return out
}

// Lookup returns the catalogue entry for a code.
func Lookup(code string) (Entry, bool) {
	for _, e := range catalogue() {
		if e.Code == code {
			return e, true
		}
	}
	return Entry{}, false
}

// Match is a classified line.
type Match struct {
	// Code is the catalogue code.
	Code string
	// Captures holds the values of the message's verbs by capture name, %q
	// values unquoted, plus the captures of the cause, if any, under names
	// the message does not use.
	Captures map[string]string
	// Meaning is the catalogue's short explanation.
	Meaning string
	// Cause is the code of a known error inside the message's error capture
	// (see Causes), or "".
	Cause string
}

// Classify matches a line's message against the catalogue. Lines without a
// message (unparsed lines other than klog, controller-runtime and panics)
// never match. The level is not checked: releases move messages between
// levels, and the wording is what identifies them.
func Classify(l Line) (Match, bool) {
	msg := strings.TrimSpace(l.Msg)
	if msg == "" {
		return Match{}, false
	}
	for _, e := range catalogue() {
		for _, p := range e.patterns {
			if !strings.HasPrefix(msg, p.prefix) {
				continue
			}
			sub := p.re().FindStringSubmatch(msg)
			if sub == nil {
				continue
			}
			m := Match{Code: e.Code, Meaning: e.Meaning, Captures: make(map[string]string, len(e.Captures))}
			for i, name := range e.Captures {
				v := sub[i+1]
				if p.verbs[i] == 'q' {
					v = unquoteLenient(v)
				}
				m.Captures[name] = v
			}
			errText, hasErr := m.Captures[CaptureError]
			if c, caps, ok := classifyCause(errText); hasErr && ok {
				m.Cause = c
				for k, v := range caps {
					if _, taken := m.Captures[k]; !taken {
						m.Captures[k] = v
					}
				}
			}
			return m, true
		}
	}
	return Match{}, false
}

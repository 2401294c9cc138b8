package diagnostics

import (
	"sort"
	"strings"
)

// Code is a stable finding code: safe to match in scripts and alerts.
type Code string

// Entry documents a code: what it means and what to change.
type Entry struct {
	Code     Code     `json:"code"`
	Stage    StageID  `json:"stage"`
	Severity Severity `json:"severity"`
	Title    string   `json:"title"`
	Meaning  string   `json:"meaning"`
	Fix      string   `json:"fix"`
}

// Lookup returns the catalogue entry of a code (case-insensitive).
func Lookup(c string) (Entry, bool) {
	e, ok := catalogue[Code(strings.ToUpper(strings.TrimSpace(c)))]
	return e, ok
}

// Catalogue returns every entry, in stage order then code order.
func Catalogue() []Entry {
	order := map[StageID]int{}
	for i, s := range Stages() {
		order[s.ID] = i
	}
	out := make([]Entry, 0, len(catalogue))
	for _, e := range catalogue {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if order[out[i].Stage] != order[out[j].Stage] {
			return order[out[i].Stage] < order[out[j].Stage]
		}
		return out[i].Code < out[j].Code
	})
	return out
}

// Codes that can appear in any stage.
const (
	CodeReadForbidden Code = "READ_FORBIDDEN"
	CodeCheckTimeout  Code = "CHECK_TIMEOUT"
)

// Health.
const (
	CodeUpdaterNotFound        Code = "HEALTH_UPDATER_NOT_FOUND"
	CodeUpdaterNotReady        Code = "HEALTH_UPDATER_NOT_READY"
	CodeUpdaterScaledToZero    Code = "HEALTH_UPDATER_SCALED_TO_ZERO"
	CodeUpdaterReplicas        Code = "HEALTH_UPDATER_MULTIPLE_REPLICAS"
	CodeUpdaterInstalls        Code = "HEALTH_UPDATER_MULTIPLE_INSTALLS"
	CodeUpdaterRunning         Code = "HEALTH_UPDATER_RUNNING"
	CodeUpdaterVersionUnknown  Code = "HEALTH_UPDATER_VERSION_UNKNOWN"
	CodeUpdaterNoCycles        Code = "HEALTH_NO_UPDATE_CYCLES"
	CodeUpdaterCycling         Code = "HEALTH_UPDATE_CYCLES"
	CodeUpdaterLogErrors       Code = "HEALTH_LOG_ERRORS_FOR_APP"
	CodeUpdaterLogsUnavailable Code = "HEALTH_LOGS_UNAVAILABLE"
	CodeRegistriesConfInvalid  Code = "HEALTH_REGISTRIES_CONF_INVALID"
	CodeRegistriesConfWarning  Code = "HEALTH_REGISTRIES_CONF_WARNING"
)

// Target.
const (
	CodeAppNotFound   Code = "TARGET_APP_NOT_FOUND"
	CodeTargetMatched Code = "TARGET_SELECTED"
)

// Source and mapping.
const (
	CodeSourceUnsupported       Code = "SOURCE_UNSUPPORTED_TYPE"
	CodeSourcePluginBeforeV13   Code = "SOURCE_PLUGIN_NOT_SUPPORTED_BEFORE_V13"
	CodeSourcePluginAsHelm      Code = "SOURCE_PLUGIN_GIT_WRITEBACK_TREATED_AS_HELM"
	CodeSourceSupported         Code = "SOURCE_SUPPORTED"
	CodeHelmParamNotInValues    Code = "SOURCE_HELM_PARAMETER_NOT_IN_VALUES"
	CodeKustomizeNameNotUsed    Code = "SOURCE_KUSTOMIZE_NAME_NOT_USED"
	CodeSourceNotReadable       Code = "SOURCE_NOT_READABLE"
	CodeSourceMappingChecked    Code = "SOURCE_MAPPING_MATCHES"
	CodeSourceChartFromHelmRepo Code = "SOURCE_CHART_NOT_IN_GIT"
)

// Live image.
const (
	CodeLiveSummaryEmpty Code = "LIVE_SUMMARY_EMPTY"
	CodeLiveNotLive      Code = "LIVE_IMAGE_NOT_LIVE"
	CodeLiveForced       Code = "LIVE_FORCE_UPDATE"
	CodeLiveOK           Code = "LIVE_IMAGE_FOUND"
)

// Registry and network.
const (
	CodeRegistryEndpoint          Code = "REGISTRY_ENDPOINT"
	CodeRegistryCredsRef          Code = "REGISTRY_CREDENTIALS_INVALID_REFERENCE"
	CodeRegistryCredsFetch        Code = "REGISTRY_CREDENTIALS_UNAVAILABLE"
	CodeRegistryPullSecretMissing Code = "REGISTRY_PULL_SECRET_MISSING"
	CodeRegistryPullSecretKey     Code = "REGISTRY_PULL_SECRET_KEY_MISMATCH"
	CodeRegistrySecretNamespace   Code = "REGISTRY_PULL_SECRET_OTHER_NAMESPACE"
	CodeRegistryCredsUnchecked    Code = "REGISTRY_CREDENTIALS_NOT_CHECKED"
	CodeRegistryUnauthorized      Code = "REGISTRY_UNAUTHORIZED"
	CodeRegistryForbidden         Code = "REGISTRY_FORBIDDEN"
	CodeRegistryNotFound          Code = "REGISTRY_REPOSITORY_NOT_FOUND"
	CodeRegistryRateLimited       Code = "REGISTRY_RATE_LIMITED"
	CodeRegistryDNS               Code = "REGISTRY_DNS"
	CodeRegistryConnect           Code = "REGISTRY_CONNECT"
	CodeRegistryTLS               Code = "REGISTRY_TLS"
	CodeRegistryTimeout           Code = "REGISTRY_TIMEOUT"
	CodeRegistryProxy             Code = "REGISTRY_PROXY_FAILED"
	CodeRegistryNotRegistry       Code = "REGISTRY_NOT_A_REGISTRY"
	CodeRegistryError             Code = "REGISTRY_ERROR"
	CodeRegistryProxyMissing      Code = "REGISTRY_UPDATER_PROXY_MISSING"
	CodeRegistryNoProxyMissing    Code = "REGISTRY_UPDATER_NO_PROXY_MISSING"
	CodeRegistryOK                Code = "REGISTRY_REACHABLE"
	CodeRegistryECRNoCredentials  Code = "REGISTRY_ECR_WITHOUT_CREDENTIALS"
)

// Candidates.
const (
	CodeCandidatesUpdate        Code = "CANDIDATES_UPDATE_DUE"
	CodeCandidatesUpToDate      Code = "CANDIDATES_UP_TO_DATE"
	CodeCandidatesNewerDropped  Code = "CANDIDATES_NEWER_TAGS_DROPPED"
	CodeCandidatesNone          Code = "CANDIDATES_NONE"
	CodeCandidatesConstraint    Code = "CANDIDATES_IMPROPER_CONSTRAINT"
	CodeCandidatesDigestNoTag   Code = "CANDIDATES_DIGEST_WITHOUT_TAG"
	CodeCandidatesRunningTag    Code = "CANDIDATES_RUNNING_TAG_NOT_SEMVER"
	CodeCandidatesDowngrade     Code = "CANDIDATES_DOWNGRADE"
	CodeCandidatesAlreadyInSpec Code = "CANDIDATES_ALREADY_IN_SPEC"
	CodeCandidatesTie           Code = "CANDIDATES_NEWEST_BUILD_TIE"
	CodeCandidatesPlatform      Code = "CANDIDATES_PLATFORM_MISMATCH"
)

// Write-back.
const (
	CodeWriteBackMethod         Code = "WRITEBACK_METHOD"
	CodeWriteBackParentReverts  Code = "WRITEBACK_ARGOCD_REVERTED_BY_PARENT"
	CodeWriteBackSourceFile     Code = "WRITEBACK_ARGOCD_SOURCE_FILE_OVERRIDES"
	CodeWriteBackCredsMissing   Code = "WRITEBACK_GIT_CREDENTIALS_MISSING"
	CodeWriteBackInsecureURL    Code = "WRITEBACK_GIT_URL_NOT_SECURE"
	CodeWriteBackAuthFailed     Code = "WRITEBACK_GIT_AUTH_FAILED"
	CodeWriteBackRepoNotFound   Code = "WRITEBACK_GIT_REPO_NOT_FOUND"
	CodeWriteBackGitUnreachable Code = "WRITEBACK_GIT_UNREACHABLE"
	CodeWriteBackBranchMissing  Code = "WRITEBACK_GIT_BRANCH_NOT_FOUND"
	CodeWriteBackBranchMismatch Code = "WRITEBACK_GIT_BRANCH_NOT_TRACKED"
	CodeWriteBackTargetMissing  Code = "WRITEBACK_GIT_TARGET_NOT_FOUND"
	CodeWriteBackPushDenied     Code = "WRITEBACK_GIT_PUSH_DENIED"
	CodeWriteBackTLSUnverified  Code = "WRITEBACK_GIT_TLS_NOT_VERIFIED"
	CodeWriteBackLastCommit     Code = "WRITEBACK_LAST_COMMIT"
	CodeWriteBackCommitFailed   Code = "WRITEBACK_COMMIT_FAILED_IN_LOGS"
	CodeWriteBackOK             Code = "WRITEBACK_OK"
)

// Sync.
const (
	CodeSyncManual       Code = "SYNC_AUTOMATED_OFF"
	CodeSyncWindow       Code = "SYNC_WINDOW_DENIES"
	CodeSyncFailed       Code = "SYNC_OPERATION_FAILED"
	CodeSyncConditions   Code = "SYNC_APP_CONDITIONS"
	CodeSyncOutOfSync    Code = "SYNC_OUT_OF_SYNC"
	CodeSyncBehind       Code = "SYNC_REVISION_BEHIND_WRITEBACK"
	CodeSyncOK           Code = "SYNC_OK"
	CodeSyncUnhealthy    Code = "SYNC_APP_UNHEALTHY"
	CodeHistoryUpdates   Code = "HISTORY_LAST_UPDATES"
	CodeHistoryNone      Code = "HISTORY_NO_UPDATES"
	CodeHistoryCRStatus  Code = "HISTORY_CR_STATUS"
	CodeHistoryImageDate Code = "HISTORY_IMAGE_CHANGED"
)

func e(c Code, st StageID, sev Severity, title, meaning, fix string) Entry {
	return Entry{Code: c, Stage: st, Severity: sev, Title: title, Meaning: meaning, Fix: fix}
}

var catalogue = func() map[Code]Entry {
	m := map[Code]Entry{}
	add := func(es ...Entry) {
		for _, x := range es {
			if _, dup := m[x.Code]; dup {
				panic("duplicate finding code " + x.Code)
			}
			m[x.Code] = x
		}
	}
	add(
		e(CodeReadForbidden, StageHealth, Unknown, "a read was forbidden by RBAC",
			"imgupd's ServiceAccount (or your kubeconfig user) may not read an object the check needs; the check is reported as not done, never as passed.",
			"Grant the rule named in the finding to imgupd's ClusterRole (it only needs get/list/watch)."),
		e(CodeCheckTimeout, StageHealth, Unknown, "a check ran out of time",
			"A check did not finish within its deadline (or the diagnosis's); what it could not check is listed.",
			"Re-run; if a registry or git server is slow, raise --timeout."),

		e(CodeUpdaterNotFound, StageHealth, Fail, "Image Updater is not installed",
			"No Deployment running argocd-image-updater was found in the expected namespace or elsewhere: nothing updates any image.",
			"Install Image Updater (e.g. kubectl apply -n argocd -f .../config/install.yaml) or pass --updater-namespace."),
		e(CodeUpdaterNotReady, StageHealth, Fail, "Image Updater is not ready",
			"Its Deployment has no ready replica (crash loop, image pull error, bad registries.conf): no update cycle runs.",
			"kubectl -n <ns> describe deploy/<name> and kubectl -n <ns> logs deploy/<name> --previous."),
		e(CodeUpdaterScaledToZero, StageHealth, Fail, "Image Updater is scaled to zero",
			"The Deployment asks for 0 replicas.",
			"kubectl -n <ns> scale deploy/<name> --replicas=1"),
		e(CodeUpdaterReplicas, StageHealth, Warn, "Image Updater runs more than one replica",
			"Several replicas process the same Applications and may push conflicting commits.",
			"Run one replica."),
		e(CodeUpdaterInstalls, StageHealth, Warn, "more than one Image Updater is installed",
			"Several controllers may process the same Applications or CRs and fight.",
			"Keep one installation per Argo CD, or scope each with --watch-namespaces."),
		e(CodeUpdaterRunning, StageHealth, Pass, "Image Updater is running",
			"The Deployment is ready; its version and mode decide how the rest of the diagnosis is read.", ""),
		e(CodeUpdaterVersionUnknown, StageHealth, Warn, "Image Updater's version is unknown",
			"The image tag is not a version (latest, a digest); the diagnosis assumes the newest release it knows.",
			"Pin Image Updater to a release tag."),
		e(CodeUpdaterNoCycles, StageHealth, Warn, "no update cycle in the recent logs",
			"No 'Processing results' line in the log window: the controller is idle, has no CR to process, or logs elsewhere.",
			"Check the target stage (is there an ImageUpdater CR it watches?) and the log level."),
		e(CodeUpdaterCycling, StageHealth, Pass, "update cycles run",
			"The logs show update cycles; the counters of the last one are in the evidence.", ""),
		e(CodeUpdaterLogErrors, StageHealth, Warn, "Image Updater logged errors for this app",
			"Recent error lines mention the Application; they are the controller's own account of what failed.",
			"Read the evidence; the stage that explains it follows."),
		e(CodeUpdaterLogsUnavailable, StageHealth, Unknown, "Image Updater's logs could not be read",
			"The log checks were not made (no pods, RBAC for pods/log, or no kubelet).",
			"Grant get on pods/log in Image Updater's namespace."),
		e(CodeRegistriesConfInvalid, StageHealth, Fail, "registries.conf does not parse",
			"Image Updater reads registries.conf strictly at start; a bad file stops the controller (could not load registry configuration).",
			"Fix the entry and field named, then restart Image Updater."),
		e(CodeRegistriesConfWarning, StageHealth, Warn, "registries.conf has a surprise",
			"registries.conf parses but does something unexpected (shadowed prefixes, a docker.io entry that is not the default...).",
			"See the finding."),

		e(CodeAppNotFound, StageTarget, Fail, "the Application does not exist",
			"No Application of that name in that namespace; the closest names are listed.",
			"Check the name and -n namespace."),
		e(CodeTargetMatched, StageTarget, Pass, "Image Updater picks up the Application",
			"The CR and applicationRef (or annotations) that select the app, and the effective settings of each image.", ""),

		e(CodeSourceUnsupported, StageSource, Fail, "the source type is not supported",
			"Image Updater only updates Helm, Kustomize and (v1.3) Plugin sources; Directory apps and apps whose manifests failed to render (type '') are skipped with a warning.",
			"Use a Helm or Kustomize source, fix the render error (see the app's conditions), or set a kustomization/helmvalues write-back target."),
		e(CodeSourcePluginBeforeV13, StageSource, Fail, "Plugin sources need Image Updater v1.3",
			"Plugin sources and manifestTargets.plugin are not supported before v1.3.0.", "Upgrade Image Updater."),
		e(CodeSourcePluginAsHelm, StageSource, Warn, "a Plugin app with git write-back is handled as Helm",
			"Without manifestTargets.plugin, Image Updater writes Helm parameters for a Plugin app.", "Add manifestTargets.plugin to the image."),
		e(CodeSourceSupported, StageSource, Pass, "the source type is supported", "", ""),
		e(CodeHelmParamNotInValues, StageSource, Fail, "the Helm parameter is not in the chart's values",
			"Image Updater writes the image to Helm parameters the chart does not read; it reports success and nothing changes in the cluster.",
			"Set helm.name/helm.tag (or <alias>.helm.image-name/-tag) to the chart's real value paths."),
		e(CodeKustomizeNameNotUsed, StageSource, Fail, "the Kustomize image name is not used by the manifests",
			"Image Updater writes an images: entry for a name the kustomization does not use; it reports success and nothing changes.",
			"Set kustomize.name to the image name the manifests use."),
		e(CodeSourceNotReadable, StageSource, Unknown, "the source repository could not be read",
			"The mapping checks need the app's source from git; they were not made.", "See the git error."),
		e(CodeSourceMappingChecked, StageSource, Pass, "the manifest mapping matches the source", "", ""),
		e(CodeSourceChartFromHelmRepo, StageSource, Info, "the chart comes from a Helm repository",
			"The chart's values are not in git, so parameter names were not checked against them.", ""),

		e(CodeLiveSummaryEmpty, StageLive, Fail, "the Application reports no running images",
			"status.summary.images is empty (never synced, render failure, or Argo CD issue argo-cd#27861): Image Updater treats every image as not live and skips it.",
			"Sync the app once, fix its render errors, or set forceUpdate: true on the image."),
		e(CodeLiveNotLive, StageLive, Fail, "the image is not live in the Application",
			"Image Updater only updates images found in status.summary.images with the same registry and name; the configured name differs from what runs (registry prefix, library/, path, Kustomize newName).",
			"Write the image name exactly as it runs (the finding gives it), set kustomize.name, or forceUpdate: true."),
		e(CodeLiveForced, StageLive, Info, "the image is not live but forceUpdate adds it", "With forceUpdate the first cycle always updates.", ""),
		e(CodeLiveOK, StageLive, Pass, "the image is live", "", ""),

		e(CodeRegistryEndpoint, StageRegistry, Info, "registry endpoint", "Which registries.conf entry (or built-in default, or inference) Image Updater uses for the image, and why.", ""),
		e(CodeRegistryCredsRef, StageRegistry, Fail, "the credential reference is invalid",
			"A pullSecret / credentials value does not parse (missing pullsecret: prefix, no #field...); Image Updater logs 'Invalid credential reference' and fails the image.",
			"Write it as pullsecret:<ns>/<name>, secret:<ns>/<name>#<field>, env:<VAR> or ext:/abs/path."),
		e(CodeRegistryCredsFetch, StageRegistry, Fail, "the credentials cannot be fetched",
			"The secret field, environment variable or script Image Updater would read for credentials is missing or malformed.",
			"Create the secret or set the variable named, with a user:pass value."),
		e(CodeRegistryPullSecretMissing, StageRegistry, Fail, "the pull secret does not exist", "", "Create the secret in the namespace named."),
		e(CodeRegistryPullSecretKey, StageRegistry, Fail, "no auths key of the pull secret matches the registry",
			"Image Updater picks the auths key that starts with the registry's API URL or host; keys like https://index.docker.io/v1/ do not match Docker Hub's API (https://registry-1.docker.io).",
			"Add an auths entry keyed with the API URL the finding names."),
		e(CodeRegistrySecretNamespace, StageRegistry, Fail, "the pull secret is in another namespace",
			"Since v1.3.0 an image-level pullsecret:/secret: must be in the Application's namespace.",
			"Copy the secret to the Application's namespace and point at it, or use registry-level credentials in registries.conf."),
		e(CodeRegistryCredsUnchecked, StageRegistry, Unknown, "the credentials could not be checked from here",
			"ext: scripts run inside the Image Updater pod; imgupd cannot run them.", ""),
		e(CodeRegistryUnauthorized, StageRegistry, Fail, "the registry wants credentials (401)",
			"Tags cannot be listed without valid credentials; Image Updater logs 'Could not get tags from registry'.",
			"Configure credentials for the registry (registries.conf credentials or the image's pullSecret)."),
		e(CodeRegistryForbidden, StageRegistry, Fail, "the registry denies access (403)",
			"The credentials are valid but may not pull this repository.",
			"GHCR: a token with read:packages; ECR: ecr:ListImages/BatchGetImage for the role; Harbor: project membership."),
		e(CodeRegistryNotFound, StageRegistry, Fail, "the repository does not exist in the registry", "", "Check the image path (and defaultns for one-part names)."),
		e(CodeRegistryRateLimited, StageRegistry, Fail, "the registry rate-limits (429)",
			"Docker Hub and others throttle anonymous or busy clients; metadata strategies make one request per tag.",
			"Add credentials, set limit: in registries.conf, narrow allow-tags, or mirror the images."),
		e(CodeRegistryDNS, StageRegistry, Fail, "the registry host does not resolve", "", "Check the host name and the cluster's DNS; behind a proxy, the updater needs HTTPS_PROXY."),
		e(CodeRegistryConnect, StageRegistry, Fail, "the registry cannot be reached", "", "Check firewalls, network policies and the port."),
		e(CodeRegistryTLS, StageRegistry, Fail, "the registry's TLS certificate is not trusted", "", "Add ca_data (v1.3) or insecure: true to the registries.conf entry, or use an http:// api_url for a plain-HTTP registry."),
		e(CodeRegistryTimeout, StageRegistry, Fail, "the registry does not answer in time", "", "Usually a missing proxy: set HTTPS_PROXY (and NO_PROXY) on the Image Updater Deployment."),
		e(CodeRegistryProxy, StageRegistry, Fail, "the proxy fails", "", "Fix HTTPS_PROXY, or add the registry to NO_PROXY."),
		e(CodeRegistryNotRegistry, StageRegistry, Fail, "the API URL is not a registry", "GET /v2/ answered neither 200 nor 401.", "Fix api_url in registries.conf."),
		e(CodeRegistryError, StageRegistry, Fail, "the registry request failed", "", "See the error."),
		e(CodeRegistryProxyMissing, StageRegistry, Fail, "Image Updater has no proxy for this registry",
			"imgupd reached the registry through a proxy, but the Image Updater pod has no HTTP(S)_PROXY that covers it.",
			"Add the proxy environment variables to the Image Updater Deployment."),
		e(CodeRegistryNoProxyMissing, StageRegistry, Warn, "the registry is sent through Image Updater's proxy",
			"Image Updater's HTTPS_PROXY applies to this registry host; an internal registry usually must be in NO_PROXY.",
			"Add the registry host to NO_PROXY on the Image Updater Deployment."),
		e(CodeRegistryOK, StageRegistry, Pass, "the registry answers", "", ""),
		e(CodeRegistryECRNoCredentials, StageRegistry, Fail, "an ECR image has no credentials",
			"Amazon ECR never serves anonymous pulls: Image Updater needs a token, usually from an IAM role for its ServiceAccount (IRSA) exchanged by an ext: credentials script.",
			"Annotate Image Updater's ServiceAccount with an IAM role (eks.amazonaws.com/role-arn) allowed ecr:GetAuthorizationToken, ecr:ListImages and ecr:BatchGetImage, and set credentials: ext:/scripts/ecr-login.sh on the registries.conf entry."),

		e(CodeCandidatesUpdate, StageCandidates, Info, "an update is due", "Image Updater would pick a different tag than the one running; the following stages say whether it is written and deployed.", ""),
		e(CodeCandidatesUpToDate, StageCandidates, Pass, "the image is up to date", "The running tag is the one Image Updater picks.", ""),
		e(CodeCandidatesNewerDropped, StageCandidates, Warn, "newer tags are not candidates",
			"Tags that look newer than the running one were dropped by a filter, the constraint or the platform; each one's reason is listed.",
			"Widen the filter or constraint that dropped them."),
		e(CodeCandidatesNone, StageCandidates, Fail, "no tag is a candidate",
			"allow-tags, ignore-tags, the platform, the strategy or the constraint removed every tag; the image is skipped every cycle.",
			"Loosen the rule that removed the tags (the table shows which)."),
		e(CodeCandidatesConstraint, StageCandidates, Fail, "the constraint is not a semver constraint",
			"The tag part of the image (latest, stable, main) is used as a semver constraint; Image Updater fails the image ('improper constraint').",
			"Remove the tag from the image name, write a range (~1.2), or use update-strategy digest to follow that tag."),
		e(CodeCandidatesDigestNoTag, StageCandidates, Fail, "the digest strategy has no tag to follow", "", "Add the tag to follow to the image name (app:latest)."),
		e(CodeCandidatesRunningTag, StageCandidates, Fail, "the running tag is not a version",
			"Image Updater before v1.1.1/v1.2.0 fails the semver strategy when the running tag is not semver.",
			"Upgrade Image Updater, or deploy a version tag once."),
		e(CodeCandidatesDowngrade, StageCandidates, Warn, "the pick is lower than the running tag",
			"needsUpdate compares for equality: a running tag outside the constraint is moved to the best allowed tag, even downwards.",
			"Widen the constraint if the running version is wanted."),
		e(CodeCandidatesAlreadyInSpec, StageCandidates, Warn, "the spec already asks for the new tag",
			"Image Updater has written the update; it is not running because Argo CD has not synced it (see the sync stage).", ""),
		e(CodeCandidatesTie, StageCandidates, Warn, "newest-build picked a tie",
			"Several tags share the newest build time; the greater name wins (often latest).",
			"Add the unwanted tag to ignore-tags."),
		e(CodeCandidatesPlatform, StageCandidates, Warn, "tags were dropped for their platform",
			"newest-build and digest keep only images for the configured platforms, or the controller's own (linux/amd64) when none is set; linux/arm64/v8 does not match linux/arm64.",
			"Set platforms on the image to what you build."),

		e(CodeWriteBackMethod, StageWriteBack, Info, "write-back method", "How Image Updater records the update: argocd (the Application spec) or git (a commit).", ""),
		e(CodeWriteBackParentReverts, StageWriteBack, Fail, "a parent will revert the argocd write-back",
			"The Application is managed by a parent Application or an ApplicationSet; the parameters Image Updater sets on the spec are overwritten on the parent's next sync.",
			"Use git write-back (write-back-method: git), or manage the image in the parent's source."),
		e(CodeWriteBackSourceFile, StageWriteBack, Fail, "a .argocd-source file overrides the argocd write-back",
			"An .argocd-source-<app>.yaml in git sets the same parameters; Argo CD applies it over the spec.",
			"Remove the file, or switch to git write-back, which maintains it."),
		e(CodeWriteBackCredsMissing, StageWriteBack, Fail, "git credentials for write-back are missing",
			"No Argo CD repository credentials match the repository (git:repocreds), or the git:secret secret is missing or lacks username/password or sshPrivateKey.",
			"Add repository credentials in Argo CD's namespace, or create the secret with the fields named."),
		e(CodeWriteBackInsecureURL, StageWriteBack, Fail, "git:secret needs an https:// or SSH repository URL",
			"With an http:// URL Image Updater fails: could not get creds for repo: unknown repository type.", "Use the https:// or SSH URL of the repository."),
		e(CodeWriteBackAuthFailed, StageWriteBack, Fail, "git rejects the write-back credentials", "", "Renew the token or key; it needs write access to the repository."),
		e(CodeWriteBackRepoNotFound, StageWriteBack, Fail, "the write-back repository does not exist", "", "Fix gitConfig.repository / git-repository, or the source repoURL."),
		e(CodeWriteBackGitUnreachable, StageWriteBack, Fail, "the git server cannot be reached", "", "Check the URL, DNS, proxy and TLS."),
		e(CodeWriteBackBranchMissing, StageWriteBack, Fail, "the write-back branch does not exist",
			"A branch without a colon must already exist (git fetch ... couldn't find remote ref).", "Create the branch, or use base:target to create it from a base."),
		e(CodeWriteBackBranchMismatch, StageWriteBack, Warn, "Argo CD does not deploy the write-back branch",
			"Image Updater commits to a branch other than the Application's targetRevision; the commit is never deployed unless something merges it.",
			"Set the branch to the targetRevision, or merge the branch."),
		e(CodeWriteBackTargetMissing, StageWriteBack, Fail, "the write-back target file is missing",
			"kustomization / helmvalues targets must exist (could not find kustomization in ...).", "Point write-back-target at the existing file or directory."),
		e(CodeWriteBackPushDenied, StageWriteBack, Fail, "the credentials may not push",
			"The git server refuses a push session with these credentials (read-only token, deploy key without write).", "Give the token write access (GitHub: contents: write / repo scope)."),
		e(CodeWriteBackTLSUnverified, StageWriteBack, Info, "Image Updater does not verify this git server",
			"With git:secret credentials Image Updater skips TLS and host-key verification, so imgupd probed the same way.", ""),
		e(CodeWriteBackLastCommit, StageWriteBack, Info, "last commit by Image Updater", "", ""),
		e(CodeWriteBackCommitFailed, StageWriteBack, Fail, "Image Updater's last write-back failed",
			"The controller logged 'Could not update application spec' for this app (a protected branch, a rejected push, a conflict).", "See the logged error."),
		e(CodeWriteBackOK, StageWriteBack, Pass, "write-back can succeed", "", ""),

		e(CodeSyncManual, StageSync, Warn, "automated sync is off",
			"Image Updater changes the Application (or git), but Argo CD only deploys on a manual sync.", "Enable automated sync, or sync after each update."),
		e(CodeSyncWindow, StageSync, Fail, "a sync window blocks syncs now",
			"The AppProject has a deny window (or no allow window) active now; Argo CD will not sync (Image Updater ignores windows).", "Wait for the window, or sync manually if the window allows it."),
		e(CodeSyncFailed, StageSync, Fail, "the last sync failed", "", "See the operation message; fix and sync again."),
		e(CodeSyncConditions, StageSync, Warn, "the Application has error conditions", "", "See the conditions."),
		e(CodeSyncOutOfSync, StageSync, Info, "the Application is out of sync", "", ""),
		e(CodeSyncBehind, StageSync, Warn, "the deployed revision does not contain the write-back commit", "", "Sync the Application."),
		e(CodeSyncUnhealthy, StageSync, Warn, "the Application is not healthy", "", "See the health message."),
		e(CodeSyncOK, StageSync, Pass, "Argo CD will deploy updates", "", ""),

		e(CodeHistoryUpdates, StageHistory, Info, "recent updates", "ImagesUpdated events and the CR's recentUpdates.", ""),
		e(CodeHistoryNone, StageHistory, Info, "no recorded update", "No ImagesUpdated event or recentUpdates entry for this app.", ""),
		e(CodeHistoryCRStatus, StageHistory, Info, "the ImageUpdater CR's status", "", ""),
		e(CodeHistoryImageDate, StageHistory, Info, "the running image changed", "", ""),
	)
	for _, p := range targetProblemEntries() {
		add(p)
	}
	return m
}()

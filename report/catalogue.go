package report

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
	// State is what the code means for the answer when it is the root cause
	// (failing codes only): blocked unless said otherwise.
	State   State  `json:"state,omitempty"`
	Title   string `json:"title"`
	Meaning string `json:"meaning"`
	Fix     string `json:"fix"`
	// Role is the role of every finding of this code (see Role), if any.
	Role Role `json:"role,omitempty"`
}

// Lookup returns the catalogue entry of a code (case-insensitive).
func Lookup(c string) (Entry, bool) {
	e, ok := catalogue[Code(strings.ToUpper(strings.TrimSpace(c)))]
	return e, ok
}

// CatalogueByCode returns every entry by its code (a copy: the caller may
// keep it).
func CatalogueByCode() map[Code]Entry {
	m := make(map[Code]Entry, len(catalogue))
	for c, e := range catalogue {
		m[c] = e
	}
	return m
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
	// CodeSecretAccessNotVerified: imgupd could not ask whether the
	// component that uses a Secret may read it, so it read nothing.
	CodeSecretAccessNotVerified Code = "SECRET_ACCESS_NOT_VERIFIED"
	// CodeRepoCredsOtherHost: a repo-creds template's URL prefix matches a
	// repository on another host; Argo CD sends it there, imgupd does not.
	CodeRepoCredsOtherHost Code = "REPO_CREDS_TEMPLATE_MATCHES_OTHER_HOST"
)

// Health.
const (
	CodeUpdaterNotFound        Code = "HEALTH_UPDATER_NOT_FOUND"
	CodeUpdaterNotReady        Code = "HEALTH_UPDATER_NOT_READY"
	CodeUpdaterScaledToZero    Code = "HEALTH_UPDATER_SCALED_TO_ZERO"
	CodeUpdaterDryRun          Code = "HEALTH_UPDATER_DRY_RUN"
	CodeUpdaterAppFiltered     Code = "HEALTH_UPDATER_APP_FILTERED"
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
	CodeHelmValueOverridden     Code = "SOURCE_HELM_VALUE_OVERRIDDEN"
	CodeHelmValueFileMissing    Code = "SOURCE_HELM_VALUE_FILE_MISSING"
	CodeKustomizeNameNotUsed    Code = "SOURCE_KUSTOMIZE_NAME_NOT_USED"
	CodeKustomizeImageOverride  Code = "SOURCE_KUSTOMIZE_IMAGE_OVERRIDDEN"
	CodeTargetWrittenTwice      Code = "SOURCE_TARGET_WRITTEN_TWICE"
	CodeSourceNotReadable       Code = "SOURCE_NOT_READABLE"
	CodeSourceMappingChecked    Code = "SOURCE_MAPPING_MATCHES"
	CodeSourceChartFromHelmRepo Code = "SOURCE_CHART_NOT_IN_GIT"
	CodeSourceImageElsewhere    Code = "SOURCE_IMAGE_IN_ANOTHER_SOURCE"
	CodeSourceTooLarge          Code = "SOURCE_TOO_LARGE"
	CodeSourceRepoSecretsDenied Code = "SOURCE_REPO_SECRETS_FORBIDDEN_FOR_ARGOCD"
	CodeSourceArgoSAUnknown     Code = "SOURCE_ARGOCD_SERVICEACCOUNT_UNKNOWN"
	CodeSourceArgoReadsRepo     Code = "SOURCE_ARGOCD_READS_REPOSITORY"
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
	CodeRegistryPullSecretDenied  Code = "REGISTRY_PULL_SECRET_FORBIDDEN_FOR_UPDATER"
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
	CodeRegistryTagListTooLarge   Code = "REGISTRY_TAG_LIST_TOO_LARGE"
	// ext: credentials (registries.conf credentials: ext:/path, or an
	// image's pullSecret): the script's path against the volumes of Image
	// Updater's Deployment (stage_registry_ext.go).
	CodeRegistryExtNotMounted Code = "REGISTRY_EXT_SCRIPT_NOT_MOUNTED"
	CodeRegistryExtFailed     Code = "REGISTRY_EXT_SCRIPT_FAILED"
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
	CodeCandidatesRollback      Code = "CANDIDATES_ROLLBACK"
	CodeCandidatesAlreadyInSpec Code = "CANDIDATES_ALREADY_IN_SPEC"
	CodeCandidatesTie           Code = "CANDIDATES_NEWEST_BUILD_TIE"
	CodeCandidatesPlatform      Code = "CANDIDATES_PLATFORM_MISMATCH"
	CodeCandidatesPartialList   Code = "CANDIDATES_FROM_PARTIAL_TAG_LIST"
	// Registry permissions per operation: the tags list, but the metadata
	// reads a strategy needs (manifests, config blobs) are refused
	// (stage_candidates_refused.go).
	CodeRegistryManifestForbidden   Code = "REGISTRY_MANIFEST_FORBIDDEN"
	CodeRegistryMetadataRateLimited Code = "REGISTRY_METADATA_RATE_LIMITED"
	CodeRegistryMetadataPartial     Code = "REGISTRY_METADATA_PARTIALLY_REFUSED"
	// Signature verification (imagesVerification, v1.3.0+): signature_check.go.
	CodeSignatureVerified    Code = "CANDIDATES_SIGNATURE_VERIFIED"
	CodeSignatureMissing     Code = "CANDIDATES_SIGNATURE_MISSING"
	CodeSignatureWrongKey    Code = "CANDIDATES_SIGNATURE_WRONG_KEY"
	CodeSignatureKeyInvalid  Code = "CANDIDATES_SIGNATURE_KEY_INVALID"
	CodeSignatureKeyMissing  Code = "CANDIDATES_SIGNATURE_KEY_MISSING"
	CodeSignatureKeyDenied   Code = "CANDIDATES_SIGNATURE_KEY_FORBIDDEN_FOR_UPDATER"
	CodeSignatureNotVerified Code = "CANDIDATES_SIGNATURE_NOT_VERIFIED"

	CodeCandidatesCRsDisagree  Code = "CANDIDATES_CRS_DISAGREE"
	CodeCandidatesCRsAgree     Code = "CANDIDATES_CRS_AGREE"
	CodeCandidatesOtherCRImage Code = "CANDIDATES_OTHER_CR_IMAGE_NOT_JUDGED"
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
	CodeWriteBackTargetNotRead  Code = "WRITEBACK_GIT_TARGET_NOT_RENDERED"
	CodeWriteBackPushDenied     Code = "WRITEBACK_GIT_PUSH_DENIED"
	CodeWriteBackTLSUnverified  Code = "WRITEBACK_GIT_TLS_NOT_VERIFIED"
	CodeWriteBackLastCommit     Code = "WRITEBACK_LAST_COMMIT"
	CodeWriteBackCommitFailed   Code = "WRITEBACK_COMMIT_FAILED_IN_LOGS"
	CodeWriteBackOK             Code = "WRITEBACK_OK"
	CodeWriteBackProtected      Code = "WRITEBACK_GIT_BRANCH_PROTECTED"
	CodeWriteBackPushUnverified Code = "WRITEBACK_GIT_PUSH_NOT_VERIFIED"
	CodeWriteBackSecretNS       Code = "WRITEBACK_GIT_SECRET_OTHER_NAMESPACE"
	CodeWriteBackSecretRef      Code = "WRITEBACK_GIT_SECRET_REF_INVALID"
	CodeWriteBackTargetRejected Code = "WRITEBACK_TARGET_REJECTED"
	CodeWriteBackGitTooLarge    Code = "WRITEBACK_GIT_TOO_LARGE"
	CodeWriteBackSecretDenied   Code = "WRITEBACK_SECRET_FORBIDDEN_FOR_UPDATER"
	CodeWriteBackRepoDenied     Code = "WRITEBACK_REPO_SECRETS_FORBIDDEN_FOR_UPDATER"
	// CodeWriteBackKustomizeCollide: two Kustomize overrides take one entry
	// of kustomize.images as Argo CD merges them (a registry with a port).
	CodeWriteBackKustomizeCollide Code = "WRITEBACK_KUSTOMIZE_OVERRIDES_COLLIDE"
	// CodeWriteBackCAUnknown: the write-back server's certificate is signed
	// by a CA Image Updater's git client does not trust (nothing for the
	// host in its TLS data path).
	CodeWriteBackCAUnknown Code = "WRITEBACK_GIT_CA_UNKNOWN"
	// CodeWriteBackHostKeyUnknown: the SSH host key of the write-back
	// server is not in the known_hosts Image Updater reads.
	CodeWriteBackHostKeyUnknown Code = "WRITEBACK_GIT_HOST_KEY_UNKNOWN"
	// CodeWriteBackHostKeyMismatch: the known_hosts Image Updater reads
	// lists another key for the host than the one it presents.
	CodeWriteBackHostKeyMismatch Code = "WRITEBACK_GIT_HOST_KEY_MISMATCH"
	// Pull-request write-back (v1.2+, gitConfig.pullRequest).
	CodeWriteBackPullRequest      Code = "WRITEBACK_PULL_REQUEST"
	CodeWriteBackPROpen           Code = "WRITEBACK_PULL_REQUEST_OPEN"
	CodeWriteBackPRNotMergeable   Code = "WRITEBACK_PULL_REQUEST_NOT_MERGEABLE"
	CodeWriteBackPRRefused        Code = "WRITEBACK_PULL_REQUEST_REFUSED"
	CodeWriteBackPRCredentials    Code = "WRITEBACK_PULL_REQUEST_CREDENTIALS_UNSUPPORTED"
	CodeWriteBackPRPermUnverified Code = "WRITEBACK_PULL_REQUEST_PERMISSION_NOT_VERIFIED"
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
	CodeHistoryWritten   Code = "HISTORY_PICK_WRITTEN"
)

// e is a catalogue entry; a failing entry is blocked unless in() says
// otherwise.
func e(c Code, st StageID, sev Severity, title, meaning, fix string) Entry {
	x := Entry{Code: c, Stage: st, Severity: sev, Title: title, Meaning: meaning, Fix: fix}
	if sev == Fail {
		x.State = StateBlocked
	}
	return x
}

// in sets the state a failing entry implies.
func (x Entry) in(s State) Entry {
	x.State = s
	return x
}

// as sets the role of the code's findings.
func (x Entry) as(r Role) Entry {
	x.Role = r
	return x
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
			"imgupd's ServiceAccount (or your kubeconfig user) may not read an object the check needs; the check is reported as not verified, never as passed. It decides the state only when the read is one the pick depends on (the Application, Image Updater, its CRs, a pull secret).",
			"Add the rule the finding names to imgupd's ClusterRole in deploy/rbac.yaml (for example - apiGroups: [\"\"] resources: [\"pods/log\"] verbs: [\"get\"]), then kubectl apply -f deploy/rbac.yaml."),
		e(CodeSecretAccessNotVerified, StageHealth, Unknown, "a credential check was not verified: imgupd could not ask who may read the Secret",
			"Before imgupd reads a Secret for a check it asks the API server (a SubjectAccessReview, which writes nothing) whether the component that uses it (Image Updater's ServiceAccount, or Argo CD's for its repository Secrets) may read it. It could not ask (no create on subjectaccessreviews, no answer, or no Image Updater Deployment to learn the ServiceAccount from), so it read no Secret and the credential check is not verified, never passed.",
			"Grant imgupd - apiGroups: [\"authorization.k8s.io\"] resources: [\"subjectaccessreviews\"] verbs: [\"create\"] in its ClusterRole (the chart has it), or point it at Image Updater's namespace with --updater-namespace."),
		e(CodeRepoCredsOtherHost, StageSource, Warn, "a repo-creds template matches a repository on another host",
			"Argo CD (and Image Updater's git:repocreds) match credential templates by plain string prefix: a template for https://github.com also matches https://github.com.evil.example/..., so whoever can point an Application there receives the template's credentials. imgupd does not send them there; it reads the repository anonymously.",
			"End the repo-creds url with a slash (url: https://github.com/ or https://github.com/org/), so the prefix stops at the host (and organisation); check that no Application uses a repoURL on the other host."),
		e(CodeCheckTimeout, StageHealth, Unknown, "a check ran out of time",
			"A check did not finish within its deadline (or the diagnosis's); what it could not check is listed as not verified.",
			"Re-run with a longer deadline (imgupd diagnose APP --timeout 60s); if a registry or git server is slow from where imgupd runs, run imgupd in the cluster next to Image Updater (imgupd serve, or a kubectl run pod)."),

		e(CodeUpdaterNotFound, StageHealth, Fail, "Image Updater is not installed",
			"No Deployment running argocd-image-updater was found in the expected namespace or elsewhere: nothing updates any image.",
			"Install it next to Argo CD: kubectl apply -n argocd -f https://raw.githubusercontent.com/argoproj-labs/argocd-image-updater/stable/config/install.yaml (or pass --updater-namespace NS when it runs elsewhere)."),
		e(CodeUpdaterNotReady, StageHealth, Fail, "Image Updater is not ready",
			"Its Deployment has no ready replica (crash loop, image pull error, bad registries.conf): no update cycle runs.",
			"kubectl -n <ns> logs deploy/<name> --previous names why the controller exits (a registries.conf that does not parse is the usual one: fix key registries.conf of ConfigMap argocd-image-updater-config); kubectl -n <ns> describe deploy/<name> shows image pull and scheduling errors."),
		e(CodeUpdaterScaledToZero, StageHealth, Fail, "Image Updater is scaled to zero",
			"The Deployment asks for 0 replicas.",
			"kubectl -n <ns> scale deploy/<name> --replicas=1"),
		e(CodeUpdaterDryRun, StageHealth, Fail, "Image Updater runs with --dry-run: it picks tags and writes none",
			"The controller's command line sets --dry-run (alone, or =true, =1, =t: the last --dry-run word wins; no environment variable sets it). Every cycle then picks the tags, logs 'Successfully updated image ... (dry run=true)' and 'Dry run - not committing N changes to application', and writes nothing: no spec change, no commit, no ImagesUpdated event. Its own records still count the changes: the cycle's images_updated, and in v1.x the CR's status (N images updated, recentUpdates 'Updated from A to B'); they are what a dry run would have written, never a write. The start-up warm-up also logs 'Dry run - not committing' once per CR whatever the flag says: that alone is not this.",
			"Remove the --dry-run word from the container's args (or command) of Image Updater's Deployment: kubectl -n <ns> edit deploy/<name>, or the JSON patch the finding shows (it tests the word first); the Deployment rolls its pod, and the next cycle writes."),
		e(CodeUpdaterAppFiltered, StageHealth, Fail, "Image Updater's command line leaves the Application out",
			"Image Updater v0.x processes only the Applications its command line lets through: --match-application-label is a label selector for the list of Applications, --match-application-name a list of patterns (filepath.Match; each use of the flag adds to it, a comma separates several) the name must match. An Application they leave out is never processed: no log line at info level, no update. v1.x has no such flags (its CRs select the Applications).",
			"Label the Application to match the selector, or add its name to the patterns (another --match-application-name=<app> in the container's args), or remove the flag; the Deployment rolls its pod."),
		e(CodeUpdaterReplicas, StageHealth, Warn, "Image Updater runs more than one replica",
			"Several replicas process the same Applications and may push conflicting commits.",
			"kubectl -n <ns> scale deploy/<name> --replicas=1"),
		e(CodeUpdaterInstalls, StageHealth, Warn, "more than one Image Updater is installed",
			"Several controllers may process the same Applications or CRs and fight.",
			"Delete the extra Deployment (kubectl -n <ns> delete deploy/<name>), or give each controller its own namespaces with --watch-namespaces (env IMAGE_UPDATER_WATCH_NAMESPACES)."),
		e(CodeUpdaterRunning, StageHealth, Pass, "Image Updater is running",
			"The Deployment is ready; its version and mode decide how the rest of the diagnosis is read.", "").as(RoleContext),
		e(CodeUpdaterVersionUnknown, StageHealth, Warn, "Image Updater's version is unknown",
			"The image tag is not a version (latest, a digest); the diagnosis assumes the newest release it knows.",
			"Pin the controller to a release: kubectl -n <ns> set image deploy/<name> <container>=quay.io/argoprojlabs/argocd-image-updater:v1.3.0"),
		e(CodeUpdaterNoCycles, StageHealth, Warn, "no update cycle in the recent logs",
			"No 'Processing results' line in the log window: the controller is idle, has no CR to process, or logs elsewhere.",
			"Create an ImageUpdater CR in a namespace the controller watches (kubectl get imageupdaters -A lists them), and keep log.level at info or debug in ConfigMap argocd-image-updater-config so each cycle is logged."),
		e(CodeUpdaterCycling, StageHealth, Pass, "update cycles run",
			"The logs show update cycles; the counters of the last one are in the evidence.", "").as(RoleLastCycle),
		e(CodeUpdaterLogErrors, StageHealth, Info, "Image Updater logged errors for this app",
			"Recent warning and error lines about the Application: the controller's own account of what fails. The stage that explains them follows in the report.", "").as(RoleContext),
		e(CodeUpdaterLogsUnavailable, StageHealth, Unknown, "Image Updater's logs could not be read",
			"The log checks were not made (no pods, RBAC for pods/log, or no kubelet answering). The state does not depend on them; what only the logs show (a rejected push) is listed as not verified.",
			"Grant imgupd - apiGroups: [\"\"] resources: [\"pods/log\"] verbs: [\"get\"] in Image Updater's namespace, or give the log to imgupd: kubectl -n argocd logs deploy/argocd-image-updater-controller --since=30m > iu.log && imgupd diagnose APP --updater-log iu.log").as(RoleLogsUnread),
		e(CodeRegistriesConfInvalid, StageHealth, Fail, "registries.conf does not parse",
			"Image Updater reads registries.conf strictly at start; a bad file stops the controller (could not load registry configuration).",
			"Correct key registries.conf of ConfigMap argocd-image-updater-config (parsed strictly: remove unknown keys, fix types), then kubectl -n <ns> rollout restart deploy/<name>."),
		e(CodeRegistriesConfWarning, StageHealth, Warn, "registries.conf has a surprise",
			"registries.conf parses but does something unexpected (shadowed prefixes, a docker.io entry that is not the default...).",
			"Give every registries.conf entry its own prefix, and set default: true on the docker.io entry when un-prefixed images (nginx) should use its credentials."),

		e(CodeAppNotFound, StageTarget, Fail, "the Application does not exist",
			"No Application of that name in that namespace; the closest names are listed. Nothing can be said about its updates.",
			"Use the Application's exact name and namespace: kubectl get applications -A shows them; then imgupd diagnose NAME -n NAMESPACE.").in(StateUnknown),
		e(CodeTargetMatched, StageTarget, Pass, "Image Updater picks up the Application",
			"The CR and applicationRef (or annotations) that select the app, and the effective settings of each image.", "").as(RoleContext),

		e(CodeSourceUnsupported, StageSource, Fail, "the source type is not supported",
			"Image Updater only updates Helm, Kustomize and (v1.3) Plugin sources; Directory apps and apps whose manifests failed to render (type '') are skipped with a warning.",
			"Give the source a helm: or kustomize: block (spec.source.kustomize: {}), fix the render error in status.conditions, or set writeBackConfig.gitConfig.writeBackTarget: kustomization (helmvalues:<file>) so git write-back treats it as Kustomize (Helm)."),
		e(CodeSourcePluginBeforeV13, StageSource, Fail, "Plugin sources need Image Updater v1.3",
			"Plugin sources and manifestTargets.plugin are not supported before v1.3.0.",
			"Upgrade: kubectl -n argocd set image deploy/argocd-image-updater-controller argocd-image-updater-controller=quay.io/argoprojlabs/argocd-image-updater:v1.3.0"),
		e(CodeSourcePluginAsHelm, StageSource, Warn, "a Plugin app with git write-back is handled as Helm",
			"Without manifestTargets.plugin, Image Updater writes Helm parameters for a Plugin app.",
			"Add manifestTargets: {plugin: {name: IMAGE_NAME, tag: IMAGE_TAG}} to the image, with the env names your plugin reads."),
		e(CodeSourceSupported, StageSource, Pass, "the source type is supported", "", ""),
		e(CodeHelmParamNotInValues, StageSource, Fail, "the Helm parameter is not in the chart's values",
			"Image Updater writes the image to Helm value paths the chart does not read (its values do not define them); it reports success. A wrong update when the rendered image is then not the pick (an unread tag or spec, or a tag paired with another image's repository); a warning when only the name path is unread and the chart's own repository value names the image, so the new tag runs.",
			"Set manifestTargets.helm.name and .tag (annotations <alias>.helm.image-name and <alias>.helm.image-tag) to the chart's value paths, e.g. name: image.repository, tag: image.tag.").in(StateWrongUpdate),
		e(CodeHelmValueOverridden, StageSource, Fail, "something Argo CD applies after Image Updater's write sets the value again",
			"Argo CD renders a Helm source with the chart's values.yaml, then helm.valueFiles in order, then the inline values (valuesObject, else values), then helm.parameters (--set) and fileParameters (--set-file), the later winning, after merging .argocd-source.yaml and .argocd-source-<app>.yaml into the source. Image Updater writes the image to one of these (a values file with git write-back to helmvalues:, parameters otherwise); when a later one sets the same path, Image Updater reports success, commits, and the app keeps rendering the pinned value.",
			"Remove the pin (the parameter, the inline value, or the key in the later values file), or let Image Updater write where nothing overrides it: the argocd write-back method or the default .argocd-source target write parameters, or helmvalues:<the last values file that sets it>.").in(StateWrongUpdate),
		e(CodeKustomizeNameNotUsed, StageSource, Fail, "the Kustomize image name is not used by the manifests",
			"Image Updater writes an images: entry for a name the kustomization does not use; it reports success and nothing changes.",
			"Set manifestTargets.kustomize.name (annotation <alias>.kustomize.image-name) to the image name the manifests' image: fields use.").in(StateWrongUpdate),
		e(CodeHelmValueFileMissing, StageSource, Fail, "a helm.valueFiles entry does not exist",
			"Argo CD passes every valueFiles entry to helm; a missing one fails the render (ComparisonError) unless the source sets ignoreMissingValueFiles, and nothing of the app syncs until it exists. A helmvalues: file Image Updater writes is created by its first commit.",
			"Add the file, remove the entry, or set ignoreMissingValueFiles: true in the source's helm block.").in(StateNotDeployed),
		e(CodeKustomizeImageOverride, StageSource, Fail, "the Application's kustomize.images sets the image over the kustomization Image Updater writes",
			"Argo CD runs `kustomize edit set image` in the source path for each entry of the source's kustomize.images (.argocd-source files merged in) before it builds; with git write-back to a kustomization, an entry for the same image with a tag sets it again, so Image Updater's commit changes nothing that is rendered.",
			"Remove the entry from the Application's kustomize.images (or the .argocd-source file), or let Image Updater write kustomize.images itself: the argocd write-back method, or git write-back to the default .argocd-source target.").in(StateWrongUpdate),
		e(CodeTargetWrittenTwice, StageSource, Fail, "two images are written to the same Helm parameter or Kustomize image",
			"Image Updater checks each live image on its own and writes each to its manifest target: Helm parameters (helm.image-name, helm.image-tag, helm.image-spec; image.name and image.tag by default) or a Kustomize images entry (kustomize.image-name; the image's own name by default). Two images of one app mapped to the same parameter or Kustomize name are both written in one cycle, in image-list (CR images) order, and the last one wins; two ImageUpdater CRs write theirs in turn. The container that reads the parameter then runs the other image, and the first image's update is never deployed; Image Updater reports both as updated.",
			"Give one of the images its own parameter names (manifestTargets.helm.name/.tag or .spec; annotations <alias>.helm.image-name, <alias>.helm.image-tag, <alias>.helm.image-spec) or its own Kustomize name (manifestTargets.kustomize.name; <alias>.kustomize.image-name): the value paths or image name its own container reads.").in(StateWrongUpdate),
		e(CodeSourceImageElsewhere, StageSource, Fail, "Image Updater writes to a source that does not render the image",
			"In a multi-source Application Image Updater edits one source (the first with a helm/kustomize block of the app's type); the image is rendered by another, so the parameters it writes change nothing.",
			"Move the image's parameters to the source Image Updater edits, or give the source that renders the image the explicit helm: (kustomize:) block so Image Updater picks it, or use git write-back with writeBackTarget: helmvalues:<file> of that source.").in(StateWrongUpdate),
		e(CodeSourceNotReadable, StageSource, Unknown, "the source repository could not be read",
			"The mapping checks need the app's source as Argo CD reads it (its repository Secret, argocd-tls-certs-cm, argocd-ssh-known-hosts-cm); they were not made. The state does not depend on them.",
			"Let imgupd read what Argo CD reads: get on configmaps argocd-tls-certs-cm and argocd-ssh-known-hosts-cm and list on secrets in Argo CD's namespace (deploy/rbac.yaml), and network access from imgupd to the git or Helm host."),
		e(CodeSourceTooLarge, StageSource, Unknown, "the source answered past imgupd's read bound",
			"The git server (a ref advertisement over 32 MiB, a pack over 64 MiB or objects declaring over 128 MiB) or the Helm repository (index.yaml or a chart over 64 MiB, a chart's index entries over 4 MiB) sent more than imgupd reads, so the mapping checks were not made. Argo CD clones git to disk and reads Helm indexes up to 1G: it may read the source, slowly, or fail on its timeouts. The state does not depend on it.",
			"Keep the manifests Argo CD deploys in a repository of ordinary size (or prune old chart versions from the Helm repository), and check that the app renders: argocd app manifests <app>."),
		e(CodeSourceRepoSecretsDenied, StageSource, Warn, "Argo CD's ServiceAccount may not read its repository Secrets",
			"The API server says the ServiceAccount imgupd takes for Argo CD (--argocd-service-account, else the serviceAccountName of Argo CD's application controller StatefulSet or Deployment, else argocd-application-controller, in Argo CD's namespace), which exists, may not list and watch Secrets there, so Argo CD would read no repository credentials. imgupd did not read them either and read the source anonymously. Usually the ServiceAccount name is not the one your Argo CD runs as.",
			"Tell imgupd the ServiceAccount Argo CD's application controller runs as (--argocd-service-account, config serve.argocd-service-account, chart value argocd.serviceAccount), or give it get, list and watch on secrets in Argo CD's namespace."),
		e(CodeSourceArgoSAUnknown, StageSource, Unknown, "imgupd does not know the ServiceAccount Argo CD reads its repository Secrets with",
			"imgupd asks the API server whether Argo CD's ServiceAccount may list its repository Secrets before it reads them for a source. It takes that ServiceAccount from --argocd-service-account, else from Argo CD's application controller (the StatefulSet or Deployment labelled app.kubernetes.io/name=argocd-application-controller or app.kubernetes.io/component=application-controller in Argo CD's namespace), else the usual name argocd-application-controller. The one it asked about does not exist (RBAC answers no for any name), or was guessed and could not be read: the answer says nothing about Argo CD, so imgupd read the source without the Secrets and the mapping checks may not be verified. An Application Synced from the repository settles it (SOURCE_ARGOCD_READS_REPOSITORY).",
			"Tell imgupd the ServiceAccount Argo CD's application controller runs as (--argocd-service-account, config serve.argocd-service-account, chart value argocd.serviceAccount), or let imgupd list statefulsets and deployments in Argo CD's namespace so it finds it."),
		e(CodeSourceArgoReadsRepo, StageSource, Info, "Argo CD reads the repository: the Application is synced from it",
			"The API server said no about the ServiceAccount imgupd knows for Argo CD, but that ServiceAccount does not exist (or was guessed and could not be read), so the answer says nothing about Argo CD; and the Application is Synced from the repository at a revision Argo CD resolved: Argo CD reads it, with its repository Secrets when it is private. imgupd reads the source with them, as Argo CD does. When imgupd could not ask the API server at all, it reads no Secret, synced or not.", "").as(RoleContext),
		e(CodeSourceMappingChecked, StageSource, Pass, "the manifest mapping matches the source", "", ""),
		e(CodeSourceChartFromHelmRepo, StageSource, Info, "the chart comes from a Helm repository",
			"The chart's values.yaml was read from its Helm or OCI repository, as Argo CD fetches it.", ""),

		e(CodeLiveSummaryEmpty, StageLive, Fail, "the Application reports no running images",
			"status.summary.images is empty (never synced, render failure, or Argo CD issue argo-cd#27861): Image Updater treats every image as not live and skips it.",
			"Sync the Application once (argocd app sync APP) or fix its render error (status.conditions); to update anyway, set commonUpdateSettings.forceUpdate: true on the image (annotation <alias>.force-update: \"true\")."),
		e(CodeLiveNotLive, StageLive, Fail, "the image is not live in the Application",
			"Image Updater only updates images found in status.summary.images with the same registry and name; the configured name differs from what runs (registry prefix, library/, path, Kustomize newName), or the app does not run the image. It skips such an image and goes on with the others: the root cause (blocked) only when no configured image is live; a warning when another one is (a multi-image CR whose chart runs some of its images, upstream issue #1584).",
			"Write imageName exactly as the running image (registry and path as in status.summary.images; the finding gives the value), set manifestTargets.kustomize.name, or set forceUpdate: true."),
		e(CodeLiveForced, StageLive, Info, "the image is not live but forceUpdate adds it", "With forceUpdate the first cycle always updates.", ""),
		e(CodeLiveOK, StageLive, Pass, "the image is live", "", ""),

		e(CodeRegistryEndpoint, StageRegistry, Info, "registry endpoint", "Which registries.conf entry (or built-in default, or inference) Image Updater uses for the image, and why.", ""),
		e(CodeRegistryCredsRef, StageRegistry, Fail, "the credential reference is invalid",
			"A pullSecret / credentials value does not parse (missing pullsecret: prefix, no #field...); Image Updater logs 'Invalid credential reference' and fails the image.",
			"Write it as pullsecret:<namespace>/<secret>, secret:<namespace>/<secret>#<field>, env:<VAR> or ext:/absolute/path."),
		e(CodeRegistryCredsFetch, StageRegistry, Fail, "the credentials cannot be fetched",
			"The secret field, environment variable or script Image Updater would read for credentials is missing or malformed.",
			"Create what the reference names with a user:pass value, e.g. kubectl -n <namespace> create secret generic <secret> --from-literal=<field>=<user>:<token>, or set the env var on the Image Updater Deployment."),
		e(CodeRegistryPullSecretMissing, StageRegistry, Fail, "the pull secret does not exist", "",
			"kubectl -n <namespace> create secret docker-registry <secret> --docker-server=<registry API URL> --docker-username=<user> --docker-password=<token>"),
		e(CodeRegistryPullSecretKey, StageRegistry, Fail, "no auths key of the pull secret matches the registry",
			"Image Updater picks the auths key that starts with the registry's API URL or host; keys like https://index.docker.io/v1/ do not match Docker Hub's API (https://registry-1.docker.io).",
			"Add an auths entry keyed with the API URL the finding names (Docker Hub: https://registry-1.docker.io) to the secret's .dockerconfigjson."),
		e(CodeRegistrySecretNamespace, StageRegistry, Fail, "the pull secret is in another namespace",
			"Since v1.3.0 an image-level pullsecret:/secret: must be in the Application's namespace.",
			"Copy the secret to the Application's namespace and set pullSecret: pullsecret:<app namespace>/<secret>, or move the credentials to credentials: of the registries.conf entry."),
		e(CodeRegistryPullSecretDenied, StageRegistry, Fail, "Image Updater may not read the pull secret",
			"The image's credentials name a Secret (pullsecret: or secret:, at image or registries.conf level) that Image Updater's ServiceAccount may not get: the API server says so. Image Updater fails to fetch the credentials every cycle (could not fetch secret ... forbidden) and lists no tags. imgupd did not read the Secret either, and sent nothing to the registry.",
			"Add a Role and RoleBinding (rules: resources: [secrets], resourceNames: [<name>], verbs: [get]) that let Image Updater's ServiceAccount get that Secret in its namespace, or move the Secret where Image Updater reads Secrets (its own namespace; for an image's pullSecret on v1.3+, the Application's namespace) and point pullsecret:<namespace>/<name> there."),
		e(CodeRegistryCredsUnchecked, StageRegistry, Unknown, "the credentials could not be checked from here",
			"ext: scripts run inside the Image Updater pod; imgupd cannot run them.",
			"Run the script where Image Updater runs it: kubectl -n argocd exec deploy/argocd-image-updater-controller -- <script path> must print user:pass."),
		e(CodeRegistryUnauthorized, StageRegistry, Fail, "the registry wants credentials (401)",
			"Tags cannot be listed without valid credentials; Image Updater logs 'Could not get tags from registry'.",
			"Set pullSecret: pullsecret:<app namespace>/<secret> on the image (a docker-registry Secret for the registry), or credentials: on the registries.conf entry."),
		e(CodeRegistryForbidden, StageRegistry, Fail, "the registry denies access (403)",
			"The credentials are valid but may not pull this repository.",
			"Give the credentials read access: GHCR a token with read:packages; ECR ecr:ListImages and ecr:BatchGetImage for the role; Harbor project membership (Guest or more)."),
		e(CodeRegistryNotFound, StageRegistry, Fail, "the repository does not exist in the registry", "",
			"Correct the repository path in imageName (a one-part name gets defaultns, library/ on Docker Hub) to the path you push to."),
		e(CodeRegistryRateLimited, StageRegistry, Fail, "the registry rate-limits (429)",
			"Docker Hub and others throttle anonymous or busy clients; metadata strategies make one request per tag.",
			"Add credentials (pullSecret or registries.conf credentials), set limit: <requests/s> on the registries.conf entry, narrow allowTags, or mirror the images."),
		e(CodeRegistryDNS, StageRegistry, Fail, "the registry host does not resolve", "",
			"Correct the registry host in imageName (api_url in registries.conf); when the registry is only reachable through a proxy, set HTTPS_PROXY on Image Updater: kubectl -n argocd set env deploy/argocd-image-updater-controller HTTPS_PROXY=http://<proxy>:<port>"),
		e(CodeRegistryConnect, StageRegistry, Fail, "the registry cannot be reached", "",
			"Allow egress from Image Updater's pod to the registry's host and port (a NetworkPolicy egress rule, the firewall), or route it through a proxy: kubectl -n argocd set env deploy/argocd-image-updater-controller HTTPS_PROXY=http://<proxy>:<port>"),
		e(CodeRegistryTLS, StageRegistry, Fail, "the registry's TLS certificate is not trusted", "",
			"Add ca_data: <PEM> (v1.3) or insecure: true to the registries.conf entry, or api_url: http://... for a plain-HTTP registry."),
		e(CodeRegistryTimeout, StageRegistry, Fail, "the registry does not answer in time", "",
			"Usually a missing proxy: kubectl -n argocd set env deploy/argocd-image-updater-controller HTTPS_PROXY=http://<proxy>:<port> NO_PROXY=<internal hosts>"),
		e(CodeRegistryProxy, StageRegistry, Fail, "the proxy fails", "Image Updater sends the registry through the proxy in its HTTP(S)_PROXY, and that proxy refuses or fails the connection.",
			"Point HTTPS_PROXY of the Image Updater Deployment at a working proxy, or exempt the registry: kubectl -n argocd set env deploy/argocd-image-updater-controller NO_PROXY=<registry host>,<existing NO_PROXY>"),
		e(CodeRegistryNotRegistry, StageRegistry, Fail, "the API URL is not a registry", "GET /v2/ answered neither 200 nor 401.",
			"Set api_url of the registries.conf entry to the registry's API base, the URL whose /v2/ answers 200 or 401."),
		e(CodeRegistryError, StageRegistry, Fail, "the registry request failed", "The registry answered with an error imgupd does not classify; its status and message are in the finding.",
			"Try the same request from Image Updater's network: kubectl run regcheck --rm -it --restart=Never --image=curlimages/curl -- curl -sv https://<registry>/v2/ and fix what it shows on the registry side."),
		e(CodeRegistryProxyMissing, StageRegistry, Fail, "Image Updater has no proxy for this registry",
			"imgupd reached the registry through a proxy, but the Image Updater pod has no HTTP(S)_PROXY that covers it.",
			"kubectl -n argocd set env deploy/argocd-image-updater-controller HTTPS_PROXY=http://<proxy>:<port> NO_PROXY=localhost,127.0.0.1,.svc,.cluster.local"),
		e(CodeRegistryNoProxyMissing, StageRegistry, Warn, "the registry is sent through Image Updater's proxy",
			"Image Updater's HTTPS_PROXY applies to this registry host; an internal registry usually must be in NO_PROXY.",
			"kubectl -n argocd set env deploy/argocd-image-updater-controller NO_PROXY=<registry host>,<existing NO_PROXY>"),
		e(CodeRegistryOK, StageRegistry, Pass, "the registry answers", "", ""),
		e(CodeRegistryECRNoCredentials, StageRegistry, Fail, "an ECR image has no credentials",
			"Amazon ECR never serves anonymous pulls: Image Updater needs a token, usually from an IAM role for its ServiceAccount (IRSA) exchanged by an ext: credentials script.",
			"Annotate Image Updater's ServiceAccount with an IAM role (eks.amazonaws.com/role-arn) allowed ecr:GetAuthorizationToken, ecr:ListImages and ecr:BatchGetImage, mount an ECR login script in Image Updater's container (a ConfigMap, defaultMode: 0755, at /app/scripts/ecr-login.sh: the image ships none) and set credentials: ext:/app/scripts/ecr-login.sh on the registries.conf entry."),

		e(CodeRegistryExtNotMounted, StageRegistry, Fail, "the ext: credentials script is not in Image Updater's container",
			"The credentials are ext:<path>, a script Image Updater runs in its own container; no volume of its Deployment provides that path and the image ships nothing there, so it fails every cycle with 'could not stat <path>: … no such file or directory' and lists no tags.",
			"Mount the script at that path: add a ConfigMap holding it and a volume (configMap, defaultMode: 0755) with a volumeMount (mountPath the script's directory, or the file with subPath) to the Image Updater Deployment, e.g. kubectl -n argocd patch deployment argocd-image-updater-controller --type strategic -p '<volume and volumeMount>'; or point credentials: at a path that is mounted."),
		e(CodeRegistryExtFailed, StageRegistry, Fail, "the ext: credentials script fails in Image Updater's container",
			"Image Updater's log says the ext: script could not be run ('could not stat', 'error executing': not there, not executable, an interpreter missing from the image, or it exits non-zero) or printed no user:pass line; it lists no tags for the image.",
			"Run it as Image Updater does: kubectl -n argocd exec deploy/argocd-image-updater-controller -- <script path> must print one user:pass line; make it executable (defaultMode: 0755 on its ConfigMap volume) and use only tools the image has (sh, aws, wget)."),
		e(CodeRegistryTagListTooLarge, StageRegistry, Warn, "the tag list is past imgupd's read bound",
			"The registry lists more than imgupd reads (100,000 tags, 32 MiB or 10,000 pages), or its list never ends. Image Updater has no bound: every cycle it reads every page into memory, so a list this long costs its pod memory (OOMKilled restarts) and cycle time. imgupd stopped at the bound and chose from the tags it read (see CANDIDATES_FROM_PARTIAL_TAG_LIST).",
			"Delete old tags with the registry's retention policy (Harbor tag retention, GitLab cleanup policies, ECR lifecycle rules), or push the images Image Updater follows to a repository with fewer tags; kubectl -n argocd get pods shows whether Image Updater restarts (OOMKilled)."),

		e(CodeCandidatesUpdate, StageCandidates, Info, "an update is due", "Image Updater would pick a different tag than the one running; the following stages say whether it is written and deployed.", "").as(RoleContext),
		e(CodeCandidatesUpToDate, StageCandidates, Pass, "the image is up to date", "The running tag is the one Image Updater picks.", ""),
		e(CodeCandidatesNewerDropped, StageCandidates, Fail, "newer tags are not candidates",
			"Tags that are newer than the running one were dropped by a filter, the constraint, the pre-release rule or the platform, so Image Updater keeps the running tag; each one's reason is listed. It may be what you configured: the report says what holds them back.",
			"Widen what dropped them: the constraint in imageName (e.g. ~1.2 → ^1.2), allowTags, ignoreTags or platforms; for pre-releases, a constraint with a pre-release part such as >=1.0.0-0.").in(StateHeldBack),
		e(CodeCandidatesNone, StageCandidates, Fail, "no tag is a candidate",
			"allow-tags, ignore-tags, the platform, the strategy or the constraint removed every tag; the image is skipped every cycle.",
			"Loosen the rule that removed every tag: allowTags (regexp:<re> must match your tags), ignoreTags (an entry \"*\" removes all), platforms (the ones your images are built for), or the constraint.").in(StateHeldBack),
		e(CodeCandidatesConstraint, StageCandidates, Fail, "the constraint is not a semver constraint",
			"The tag part of the image (latest, stable, main) is used as a semver constraint; Image Updater fails the image ('improper constraint').",
			"Remove the tag from imageName (ghcr.io/acme/web), write a range (ghcr.io/acme/web:~1.2), or set updateStrategy: digest to follow that tag."),
		e(CodeCandidatesDigestNoTag, StageCandidates, Fail, "the digest strategy has no tag to follow", "",
			"Name the tag to follow in imageName (ghcr.io/acme/web:latest) with updateStrategy: digest."),
		e(CodeCandidatesRunningTag, StageCandidates, Fail, "the running tag is not a version",
			"Image Updater before v1.1.1/v1.2.0 fails the semver strategy when the running tag is not semver.",
			"Upgrade Image Updater to v1.2 or later (kubectl -n argocd set image deploy/argocd-image-updater-controller argocd-image-updater-controller=quay.io/argoprojlabs/argocd-image-updater:v1.3.0), or deploy a version tag once."),
		e(CodeCandidatesDowngrade, StageCandidates, Fail, "the pick is lower than the running tag",
			"needsUpdate compares for equality: a running tag outside the constraint is moved to the best allowed tag, even downwards.",
			"Widen the constraint in imageName so it includes the running version (e.g. :1.20 → :>=1.20), or pin the version you want.").in(StateWrongUpdate),
		e(CodeCandidatesRollback, StageCandidates, Info, "a rollback to a pinned version",
			"The constraint names one exact version (imageName repo:1.0.0, =1.0.0 or v1.0.0; or the tag the digest strategy follows) below the running tag: Image Updater moves the image down to it, as asked, and Argo CD deploys it. A range that leaves the running version out (1.20 is >=1.20.0 <1.21.0) is not a pin: that is CANDIDATES_DOWNGRADE. While the pin stays, no newer tag is picked.",
			"When the rollback is no longer needed, write a range in imageName again (e.g. :~1.2) so Image Updater follows new releases."),
		e(CodeCandidatesAlreadyInSpec, StageCandidates, Info, "the spec already asks for the new tag",
			"Image Updater has written the update; it runs once Argo CD syncs it (the sync stage says whether it will).", "").as(RoleContext),
		e(CodeCandidatesTie, StageCandidates, Fail, "newest-build picked a tie",
			"Several tags share the newest build time; the greater name wins (often latest). When a word beats a version tag, Image Updater writes the word (a wrong update); otherwise it is a warning.",
			"Add the tag that should not win to the image's ignoreTags, e.g. ignoreTags: [\"latest\"].").in(StateWrongUpdate),
		e(CodeRegistryManifestForbidden, StageCandidates, Fail, "the account may list tags but not read their manifests",
			"The strategy reads each tag's metadata (newest-build: the build date in the image config; digest: the manifest's digest; platforms: the manifest list), and the registry refuses those reads (401/403) while it lists the tags: the account has a list permission without pull. Image Updater drops every refused tag ('Error fetching metadata for …: denied') and finds none ('no tags found for image … in registry'); no filter is at fault.",
			"Give the account Image Updater uses pull (read) permission on the repository, not only list: ECR ecr:BatchGetImage and ecr:GetDownloadUrlForLayer next to ecr:ListImages on the repository's IAM policy; a Harbor robot account the Pull permission on the repository; GHCR a token with read:packages; any other registry the repository:<name>:pull scope."),
		e(CodeRegistryMetadataRateLimited, StageCandidates, Fail, "the registry rate-limits the metadata reads (429)",
			"The tags list, but the registry answers 429 to the per-tag manifest or config reads the strategy needs (one or two requests per tag, each cycle); Image Updater drops those tags and does not retry them within the cycle.",
			"Set limit: <requests/s> on the registry's registries.conf entry, give the image credentials (pullSecret, or credentials: on the entry) so that the account's higher limit applies, or narrow allowTags so fewer tags are read."),
		e(CodeRegistryMetadataPartial, StageCandidates, Warn, "the registry refused the metadata of some tags",
			"Some tags' manifests or configs were refused (401, 403 or 429) while the others were read: those tags are dropped, by Image Updater as by imgupd, and one of them may be the build that should win (their build dates are unknown).",
			"Give the account pull permission on every tag of the repository (ECR: ecr:BatchGetImage and ecr:GetDownloadUrlForLayer; Harbor: the robot's Pull permission; a tag-scoped policy that leaves tags out), or for 429 set limit: <requests/s> on the registries.conf entry."),
		e(CodeCandidatesPlatform, StageCandidates, Warn, "tags were dropped for their platform",
			"newest-build and digest keep only images for the configured platforms, or the controller's own (linux/amd64) when none is set; linux/arm64/v8 does not match linux/arm64.",
			"Set platforms on the image to what you build (platforms: [\"linux/arm64\"]), or build the images for the controller's platform too (docker buildx build --platform linux/amd64,linux/arm64)."),

		e(CodeCandidatesCRsDisagree, StageCandidates, Fail, "several CRs pick different tags",
			"Image Updater reconciles each ImageUpdater CR on its own, with its own settings, every check interval, and does not de-conflict CRs that select the same app. Each CR writes its pick whenever the running tag differs from it (downwards too), so two CRs with different picks rewrite the image in turn, one write per cycle and sync; a CR that picks nothing leaves the image to the other, which moves it past the first CR's constraint.",
			"Let one CR own the app: narrow the team-wide CR's applicationRefs (labelSelectors the app does not match: kubectl label application <app> image-updater-cr=<own-cr>, and matchExpressions [{key: image-updater-cr, operator: DoesNotExist}] on the team-wide ref), or drop the app from one of the CRs.").in(StateWrongUpdate),
		e(CodeCandidatesCRsAgree, StageCandidates, Info, "several CRs pick the same tag",
			"Several ImageUpdater CRs select the app and each would write the same tag: they do not fight, for now. Different settings may still make them disagree on a later tag.", ""),
		e(CodeCandidatesOtherCRImage, StageCandidates, Unknown, "another CR updates an image imgupd does not judge",
			"Another ImageUpdater CR that selects the app lists a live image the followed CR does not; Image Updater updates it with that CR's settings, and imgupd does not pick for it. It does not change the answer for the followed CR's images.",
			"Read Image Updater's log lines for the app with imageUpdater_name=<cr> (kubectl -n argocd logs deploy/argocd-image-updater-controller | grep 'application=<ns>/<app>'), or run imgupd simulate <image> with that CR's constraint and strategy."),
		e(CodeCandidatesPartialList, StageCandidates, Unknown, "the pick was made from part of the tag list",
			"The tag list stopped at imgupd's read bound, so the candidate table holds the tags read and the pick is the best of them; findings that depend on the tags not listed are warnings. It decides the state only when the tags past the bound could change it: an update due among the tags read (the running tag a candidate below the pick) stays due, since a later tag can only be picked instead; up to date, no candidate or a downgrade could change.",
			"Prune the repository below 100,000 tags (the registry's retention policy) so imgupd reads all of it, or read the pick in Image Updater's log: kubectl -n argocd logs deploy/argocd-image-updater-controller | grep 'Setting new image'."),

		e(CodeSignatureVerified, StageCandidates, Pass, "the pick is signed with the configured key",
			"imagesVerification is on for the image, and a cosign signature of the picked tag's manifest digest verifies with the ECDSA public key in the cosignKey Secret, as Image Updater v1.3 checks it before it writes the tag.", ""),
		e(CodeSignatureMissing, StageCandidates, Fail, "the pick has no cosign signature",
			"imagesVerification is on for the image and the picked tag has no cosign signature of its manifest digest where Image Updater v1.3 looks (OCI referrers, then the tags sha256-<hex> and sha256-<hex>.sig; a signature of another digest does not count). Image Updater logs \"Unable to verify image … no cosign signature found\", counts an error and writes nothing, every cycle.",
			"Sign the image with the key whose public half is in the cosignKey Secret: cosign sign --key cosign.key <registry>/<repository>@<digest>. Or, if the image is not meant to be verified, set imagesVerification.enabled: false on the image."),
		e(CodeSignatureWrongKey, StageCandidates, Fail, "the pick is not signed with the configured key",
			"The picked tag has cosign signatures, but none verifies with the public key in the cosignKey Secret: the image was signed with another key, or the Secret holds the wrong key. Image Updater logs \"Unable to verify image … no matching signature found\" and writes nothing, every cycle.",
			"Put the public key of the key that signs the images into the Secret (cosign public-key --key cosign.key), or sign the image with the key the Secret holds."),
		e(CodeSignatureKeyInvalid, StageCandidates, Fail, "the cosignKey is not an ECDSA public key in PEM",
			"Image Updater v1.3 reads the Secret's field as one PEM block holding a PKIX ECDSA public key (cosign.pub); anything else (a private key, RSA or ed25519, base64 twice) fails every signature, so no update is ever written.",
			"Store cosign.pub as written by cosign generate-key-pair (-----BEGIN PUBLIC KEY-----, ECDSA P-256) in the Secret's field."),
		e(CodeSignatureKeyMissing, StageCandidates, Fail, "the cosignKey Secret or its field does not exist",
			"Image Updater v1.3 reads imagesVerification.cosignKey from the Secret in the Application's namespace when it builds the image list; when the Secret or the field is missing it logs \"Could not set images verification settings for image …, skipping\" and drops the image every cycle.",
			"Create the Secret in the Application's namespace with the public key under the named field: kubectl -n <namespace> create secret generic <secretName> --from-file=<key>=cosign.pub"),
		e(CodeSignatureKeyDenied, StageCandidates, Fail, "Image Updater may not read the cosignKey Secret",
			"Image Updater's ServiceAccount may not get the Secret that holds the cosign public key, so it drops the image every cycle (\"Could not set images verification settings\"). imgupd did not read it either.",
			"Let Image Updater's ServiceAccount get the Secret: a Role with resources: [\"secrets\"], resourceNames: [\"<secretName>\"], verbs: [\"get\"] in the Application's namespace, and a RoleBinding to the ServiceAccount."),
		e(CodeSignatureNotVerified, StageCandidates, Unknown, "the pick's signature could not be checked",
			"imagesVerification is on, and imgupd could not read the key or the signatures (registry failure, a Secret it may not ask about), so it cannot tell whether Image Updater verifies the pick and writes it.",
			"Fix the read named in the finding and re-run, or read the answer in Image Updater's log: kubectl -n argocd logs deploy/argocd-image-updater-controller | grep 'Unable to verify image'."),

		e(CodeWriteBackMethod, StageWriteBack, Info, "write-back method", "How Image Updater records the update: argocd (the Application spec) or git (a commit).", "").as(RoleContext),
		e(CodeWriteBackParentReverts, StageWriteBack, Fail, "a parent will revert the argocd write-back",
			"The Application is managed by a parent Application or an ApplicationSet; the parameters Image Updater sets on the spec are overwritten on the parent's next sync.",
			"Use git write-back (writeBackConfig.method: git, annotation write-back-method: git), or manage the image in the parent's source.").in(StateNotDeployed),
		e(CodeWriteBackSourceFile, StageWriteBack, Fail, "a .argocd-source file overrides the argocd write-back",
			"An .argocd-source-<app>.yaml in git sets the same parameters; Argo CD applies it over the spec.",
			"git rm <path>/.argocd-source-<app>.yaml, or switch to git write-back (method: git), which maintains that file.").in(StateWrongUpdate),
		e(CodeWriteBackCredsMissing, StageWriteBack, Fail, "git credentials for write-back are missing",
			"No Argo CD repository credentials match the repository (git:repocreds), or the git:secret secret is missing or lacks username/password or sshPrivateKey.",
			"Add a repository Secret in Argo CD's namespace (label argocd.argoproj.io/secret-type: repository, data url, username, password), or create the git:secret Secret with username and password (or sshPrivateKey)."),
		e(CodeWriteBackInsecureURL, StageWriteBack, Fail, "git:secret needs an https:// or SSH repository URL",
			"With an http:// URL Image Updater fails: could not get creds for repo: unknown repository type.",
			"Set gitConfig.repository (annotation git-repository) to the https:// or SSH URL of the repository."),
		e(CodeWriteBackSecretNS, StageWriteBack, Fail, "the git:secret is in another namespace",
			"Since v1.3.0 the secret of git:secret:<namespace>/<name> must be in the Application's namespace (secret namespace differs from app namespace).",
			"Copy the Secret into the Application's namespace and write method: git:secret:<app namespace>/<name>."),
		e(CodeWriteBackSecretRef, StageWriteBack, Fail, "the git:secret reference is incomplete",
			"Before v1.3.0 git:secret needs namespace/name; a reference without a name fails every commit.",
			"Write method: git:secret:<app namespace>/<secret name>."),
		e(CodeWriteBackTargetRejected, StageWriteBack, Fail, "the write-back target is rejected",
			"The target path parses but Image Updater refuses it when committing (an empty path, a bare kustomization file since v1.3.0).",
			"Write writeBackTarget as kustomization:<directory> (to edit a kustomization's images) or helmvalues:<values file>."),
		e(CodeWriteBackSecretDenied, StageWriteBack, Fail, "Image Updater may not read the git:secret Secret",
			"The write-back method names a Secret (git:secret:<namespace>/<name>) that Image Updater's ServiceAccount may not get: every commit fails before it starts (could not get creds for repo ... forbidden). imgupd did not read the Secret either, and sent nothing to the git server.",
			"Add a Role and RoleBinding (rules: resources: [secrets], resourceNames: [<name>], verbs: [get]) that let Image Updater's ServiceAccount get that Secret, or move the Secret where Image Updater reads Secrets and write git:secret:<namespace>/<name> (on v1.3+ the Application's namespace)."),
		e(CodeWriteBackRepoDenied, StageWriteBack, Fail, "Image Updater may not read Argo CD's repository Secrets",
			"git write-back with git:repocreds (method git) reads Argo CD's repository Secrets in --argocd-namespace (ARGOCD_NAMESPACE, default its own) with Image Updater's own ServiceAccount, through an informer (list and watch). The API server says it may not, so every commit fails. imgupd did not read them for this check.",
			"Add a Role and RoleBinding in Argo CD's namespace that let Image Updater's ServiceAccount get, list and watch secrets, or use git:secret:<name> with a Secret Image Updater may read."),
		e(CodeWriteBackAuthFailed, StageWriteBack, Fail, "git rejects the write-back credentials", "",
			"Renew the token or key the write-back uses (the repository Secret's password or sshPrivateKey, or the git:secret Secret); it needs write access (GitHub: Contents read and write)."),
		e(CodeWriteBackRepoNotFound, StageWriteBack, Fail, "the write-back repository does not exist", "",
			"Set gitConfig.repository (annotation git-repository) or the source's repoURL to the repository's clone URL (GitLab needs the .git suffix)."),
		e(CodeWriteBackGitUnreachable, StageWriteBack, Fail, "the git server cannot be reached", "",
			"Correct the host in gitConfig.repository, or let Image Updater's pod reach it: NetworkPolicy egress, or HTTPS_PROXY on the Image Updater Deployment."),
		e(CodeWriteBackBranchMissing, StageWriteBack, Fail, "the write-back branch does not exist",
			"A branch without a colon must already exist (git fetch ... couldn't find remote ref).",
			"Create it (git push origin main:refs/heads/<branch>), or write gitConfig.branch: main:<branch> so Image Updater creates it from main."),
		e(CodeWriteBackBranchMismatch, StageWriteBack, Fail, "Argo CD does not deploy the write-back branch",
			"Image Updater commits to a branch other than the Application's targetRevision; the commit is never deployed unless something merges it.",
			"Set gitConfig.branch to the targetRevision (branch: main), or merge the write-back branch into it.").in(StateNotDeployed),
		e(CodeWriteBackTargetMissing, StageWriteBack, Fail, "the write-back target file is missing",
			"kustomization / helmvalues targets must exist (could not find kustomization in ...).",
			"Point writeBackTarget at what exists: kustomization:<directory with kustomization.yaml> or helmvalues:<existing values file>."),
		e(CodeWriteBackTargetNotRead, StageWriteBack, Fail, "Argo CD does not read the values file Image Updater writes",
			"With git write-back to helmvalues:<file>, Image Updater writes (and, when it is missing, creates) that file and pushes, counted as an update; Argo CD reads only the chart's values.yaml and the files in the source's helm.valueFiles, so the commit changes nothing that is rendered.",
			"Add the file to the Application's helm.valueFiles, or point writeBackTarget at a values file the Application reads.").in(StateWrongUpdate),
		e(CodeWriteBackPushDenied, StageWriteBack, Fail, "the credentials may not push",
			"The git server refuses a push with these credentials (read-only token, deploy key without write).",
			"Give the write-back token write access (GitHub: Contents read and write, or the repo scope; GitLab: write_repository with the Developer role; a deploy key with write access), in the repository Secret's password or the git:secret Secret."),
		e(CodeWriteBackProtected, StageWriteBack, Fail, "the write-back branch is protected",
			"The forge's API says the branch Image Updater pushes to is protected (or a ruleset blocks direct pushes): every commit is rejected (GH006 / pre-receive hook declined).",
			"Commit to a side branch and merge it (gitConfig.branch: main:image-updater), open pull requests (v1.2+: gitConfig.pullRequest: {github: {}}), or let the write-back identity bypass the protection."),
		e(CodeWriteBackPushUnverified, StageWriteBack, Unknown, "whether the branch accepts the push was not verified",
			"imgupd cannot ask this forge (or these credentials) whether the branch is protected; a rejected push shows only in Image Updater's log.",
			"Let imgupd read Image Updater's log (get on pods/log, or imgupd diagnose APP --updater-log FILE), or let it ask the forge: --forge github:ghe.corp.example (gitlab, gitea, forgejo, bitbucket) for a self-hosted one, with token (not SSH key) write-back credentials."),
		e(CodeWriteBackTLSUnverified, StageWriteBack, Info, "Image Updater does not verify this git server",
			"With git:secret credentials Image Updater skips TLS and host-key verification, so imgupd probed the same way.", ""),
		e(CodeWriteBackLastCommit, StageWriteBack, Info, "last commit by Image Updater", "", ""),
		e(CodeWriteBackCommitFailed, StageWriteBack, Fail, "Image Updater's last write-back failed",
			"The controller logged 'Could not update application spec' for this app (a protected branch, a rejected push, a conflict).",
			"For a protected branch (GH006, pre-receive hook declined): gitConfig.branch: main:image-updater or gitConfig.pullRequest; for authentication errors: renew the write-back token; a conflict clears on the next cycle."),
		e(CodeWriteBackGitTooLarge, StageWriteBack, Unknown, "the write-back repository answered past imgupd's read bound",
			"The git server sent more than imgupd reads (a ref advertisement over 32 MiB, a pack over 64 MiB or objects declaring over 128 MiB), so the write-back checks (branch, target file, push) were not made. Image Updater clones the repository with git to disk for each commit, without such a bound.",
			"Write back to a repository of ordinary size (gitConfig.repository), and read whether Image Updater's commits go through in its log: kubectl -n argocd logs deploy/argocd-image-updater-controller | grep 'Could not update application spec'."),
		e(CodeWriteBackKustomizeCollide, StageWriteBack, Fail, "two Kustomize overrides take one entry of kustomize.images",
			"Image Updater sets each live image of a Kustomize Application in spec.source.kustomize.images through Argo CD's MergeImage, which replaces the first entry that KustomizeImage.Match accepts: it compares the text before the first '=' of the new override, or, without a Kustomize name, before its first ':'. For images on a registry with a port (host:5000/team/a, host:5000/team/b) that text is the host, so each override replaces the previous one and only the last image set keeps its override. Image Updater logs every image as updated and the CR's status.recentUpdates lists them, but the others never move (and after each sync the next cycle loses them again): a wrong update. An override in the spec that no image of the CR sets (one set by hand) is replaced the same way: a warning. Git write-back writes the same merged list.",
			"Set manifestTargets.kustomize.name on each of these images (annotation <alias>.kustomize.image-name) to the image name its manifests use, e.g. host:5000/team/a: the override is then written as name=image:tag and matched by the name before '='.").in(StateWrongUpdate),
		e(CodeWriteBackCAUnknown, StageWriteBack, Fail, "Image Updater does not trust the git server's CA",
			"The write-back repository's HTTPS certificate is signed by a CA Image Updater's git client does not trust, so every clone fails (x509: certificate signed by unknown authority; git: SSL certificate problem). Its git client (Argo CD's, vendored) trusts a CA only from a file named by the host (without port) in its TLS data path, ARGOCD_TLS_DATA_PATH (default /app/config/tls), which it hands to git as GIT_SSL_CAINFO. Argo CD's argocd-tls-certs-cm is not mounted in Image Updater's pod by its install (argocd-image-updater#346). With git:secret credentials Image Updater does not verify TLS at all.",
			"Put the CA in a ConfigMap under the key <host>, mount it in Image Updater's container and point ARGOCD_TLS_DATA_PATH at the mount (or, when a ConfigMap is already mounted there, add the key <host> to it): kubectl -n <ns> create configmap argocd-image-updater-git-ca --from-file=<host>=ca.pem, then a volume, a volumeMount and the env var on the Deployment."),
		e(CodeWriteBackHostKeyUnknown, StageWriteBack, Fail, "Image Updater does not know the git server's SSH host key",
			"The write-back repository is reached over SSH and its host key is not in the known_hosts Image Updater's git client reads: ssh_known_hosts in ARGOCD_SSH_DATA_PATH (default /app/config/ssh, where its install mounts argocd-ssh-known-hosts-cm). git runs with StrictHostKeyChecking=yes, so every fetch fails (Host key verification failed; go-git: knownhosts: key is unknown). With git:secret credentials Image Updater does not check host keys at all.",
			"Run ssh-keyscan against the host yourself, check the fingerprint with the git host's admins, and add the line to key ssh_known_hosts of the ConfigMap mounted at /app/config/ssh (argocd-ssh-known-hosts-cm); mount that ConfigMap on Image Updater's Deployment if nothing is mounted there."),
		e(CodeWriteBackHostKeyMismatch, StageWriteBack, Fail, "the git server presents another SSH host key than Image Updater knows",
			"The known_hosts Image Updater reads lists a key for the write-back host, and the server presents another one: the server's key changed, or something in between answers for it. git refuses every fetch (REMOTE HOST IDENTIFICATION HAS CHANGED, Host key verification failed; go-git: knownhosts: key mismatch).",
			"Ask the git host's admins for the fingerprint of its key; only if the key really changed, replace the host's line in key ssh_known_hosts of the ConfigMap mounted at /app/config/ssh with what ssh-keyscan prints. Never add a key you did not check."),
		e(CodeWriteBackPullRequest, StageWriteBack, Info, "updates are proposed as pull requests",
			"gitConfig.pullRequest (v1.2+): Image Updater pushes each update to a branch image-updater-<target>-<hash> and opens a pull request (GitHub) or merge request (GitLab) against the branch Argo CD deploys; nothing is deployed until someone merges it. While it is open, Image Updater skips that update (open PR ... already exists, skipping update).", "").as(RoleContext),
		e(CodeWriteBackPROpen, StageWriteBack, Info, "Image Updater's pull request waits for a merge",
			"The forge lists an open pull (merge) request from one of Image Updater's image-updater-* branches into the branch Argo CD deploys: the update is written there and deploys once someone merges it. The evidence says how old it is and whether the forge says it can merge (conflicts, required checks, reviews).", ""),
		e(CodeWriteBackPRNotMergeable, StageWriteBack, Fail, "Image Updater's pull request cannot be merged as it is",
			"The forge says Image Updater's open pull (merge) request cannot be merged: it conflicts with the base branch, or required checks fail, or reviews are missing. Image Updater does not rebase it; while it stays open it skips the update.",
			"Resolve what the forge names (review, fix the checks), or, for a conflict, delete the pull request's branch (git push origin :refs/heads/<branch>): the request closes and Image Updater opens a new one from the current base on its next cycle.").in(StateWaitingForMerge),
		e(CodeWriteBackPRRefused, StageWriteBack, Fail, "the forge refuses to open Image Updater's pull request",
			"Image Updater pushed its branch but the forge's API refused to open the pull (merge) request (could not create PR/MR ...: 403): the write-back token may push but not open pull requests. The branch stays, nothing reaches the deployed branch.",
			"Give the write-back token (the repository Secret's password, or the git:secret Secret's) the right to open pull requests: GitHub fine-grained token Pull requests: Read and write (and Contents: Read and write), or a classic token with the repo scope; GitLab: the api scope and at least the Developer role on the project.").in(StateBlocked),
		e(CodeWriteBackPRCredentials, StageWriteBack, Fail, "SSH credentials cannot open pull requests",
			"Image Updater opens pull requests through the forge's API with the write-back token; with an SSH key (sshPrivateKey) it fails every update before pushing: credentials type *git.SSHCreds do not support PR creation (use HTTPS or GitHub App credentials).",
			"Use an https:// repository URL with a token (username and password) or GitHub App credentials for the write-back, or drop gitConfig.pullRequest."),
		e(CodeWriteBackPRPermUnverified, StageWriteBack, Unknown, "whether the token may open pull requests was not verified",
			"The forge does not tell imgupd, without writing, whether this token may open pull requests (fine-grained GitHub tokens and GitHub App tokens do not list their permissions; an unknown forge answers nothing). Image Updater's log shows the answer after its cycle (created PR #N, or could not create PR ...: 403).",
			"Check the token's permissions on the forge: GitHub Pull requests: Read and write (classic: repo), GitLab api scope with the Developer role; or read Image Updater's log after its next cycle: kubectl -n argocd logs deploy/argocd-image-updater-controller | grep -E 'created (PR|MR)|could not create (PR|MR)'."),
		e(CodeWriteBackOK, StageWriteBack, Pass, "write-back can succeed", "", ""),

		e(CodeSyncManual, StageSync, Fail, "automated sync is off",
			"Image Updater changes the Application (or git), but Argo CD only deploys on a manual sync.",
			"kubectl -n <ns> patch application <app> --type merge -p '{\"spec\":{\"syncPolicy\":{\"automated\":{}}}}' (or sync after each update: argocd app sync <app>)").in(StateNotDeployed),
		e(CodeSyncWindow, StageSync, Fail, "a sync window blocks syncs now",
			"The AppProject has a deny window (or no allow window) active now; Argo CD will not sync (Image Updater ignores windows).",
			"Wait for the window to end, sync by hand where the window sets manualSync: true (argocd app sync <app>), or change spec.syncWindows of the AppProject.").in(StateNotDeployed),
		e(CodeSyncFailed, StageSync, Fail, "the last sync failed", "Argo CD's last sync operation failed; new tags are not deployed until a sync succeeds.",
			"Fix what status.operationState.message says (argocd app get <app> shows it), then argocd app sync <app>.").in(StateNotDeployed),
		e(CodeSyncConditions, StageSync, Warn, "the Application has error conditions", "",
			"Fix what status.conditions says: a ComparisonError means the manifests do not render (argocd app manifests <app> shows the error); then argocd app get <app> --refresh."),
		e(CodeSyncOutOfSync, StageSync, Info, "the Application is out of sync", "", ""),
		e(CodeSyncBehind, StageSync, Info, "the deployed revision does not contain the write-back commit yet",
			"Argo CD has not yet synced Image Updater's commit; with automated sync it does on its next refresh (3 minutes by default).", "").as(RoleContext),
		e(CodeSyncUnhealthy, StageSync, Warn, "the Application is not healthy", "",
			"Fix what status.health.message says; argocd app resources <app> lists the unhealthy resources and kubectl describe shows why."),
		e(CodeSyncOK, StageSync, Pass, "Argo CD will deploy updates", "", ""),

		e(CodeHistoryUpdates, StageHistory, Info, "recent updates", "ImagesUpdated events and the CR's recentUpdates.", ""),
		e(CodeHistoryNone, StageHistory, Info, "no recorded update", "No ImagesUpdated event or recentUpdates entry for this app.", ""),
		e(CodeHistoryCRStatus, StageHistory, Warn, "the ImageUpdater CR's status reports errors",
			"The CR's Ready or Error condition says the last reconcile had errors; its message names them.",
			"kubectl -n <ns> get imageupdater <name> -o jsonpath='{.status.conditions}' shows the message; the report's root cause is usually the same error."),
		e(CodeHistoryImageDate, StageHistory, Info, "the running image changed", "", ""),
		e(CodeHistoryWritten, StageHistory, Info, "Image Updater has written the pick",
			"What Image Updater left shows it has already written the tag it picks and that tag is not running yet: the Application spec holds it (argocd write-back), or an ImagesUpdated event, the CR's status.recentUpdates or its log records the write (git write-back), with its commit when imgupd read it. The pick is judged as before the write: what is wrong with it stays wrong once written. With argocd write-back, a write the log or an event records that the spec no longer holds is a warning: something reverts the spec (a parent Application, an ApplicationSet), and Image Updater writes it again each cycle.", ""),
	)
	for _, p := range targetProblemEntries() {
		add(p)
	}
	return m
}()

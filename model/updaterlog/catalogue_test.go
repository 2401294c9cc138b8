package updaterlog

import (
	"fmt"
	"maps"
	"testing"

	"github.com/imgupd/imgupd/model/updater"
)

type classifyCase struct {
	level  string
	msg    string
	fields kv
	code   string
	caps   map[string]string // expected subset of Captures
	cause  string
}

// classifyCases holds one or more real-looking lines per catalogued message.
var classifyCases = []classifyCase{
	{"info", "argocd-image-updater v0.12.2+b2f5e1a starting [loglevel:DEBUG, interval:2m0s, healthport:8080]", nil,
		CodeStartupBanner, map[string]string{"version": "v0.12.2+b2f5e1a"}, ""},
	{"info", "Warming up image cache", nil, CodeStartupWarmUp, nil, ""},
	{"info", "Finished cache warm-up, pre-loaded 12 meta data entries from 2 registries", nil,
		CodeStartupWarmUpDone, map[string]string{"entries": "12", "registries": "2"}, ""},
	{"info", "Starting Controller", kv{{"controller", "imageupdater"}, {"controllerGroup", "argocd-image-updater.argoproj.io"}, {"controllerKind", "ImageUpdater"}},
		CodeStartupController, nil, ""},
	{"info", "Starting image update cycle, considering 1 application(s) for update", crFields,
		CodeCycleStart, map[string]string{"applications": "1"}, ""},
	{"info", "Starting image update cycle, considering 3 annotated application(s) for update", nil,
		CodeCycleStart, map[string]string{"applications": "3"}, ""},
	{"info", "Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=1", crFields,
		CodeCycleResults, map[string]string{"applications": "1", "images_considered": "1", "images_skipped": "0", "images_updated": "0", "errors": "1"}, ""},
	{"debug", "Listing all applications in target namespace: argocd", crFields,
		CodeTargetListing, map[string]string{"namespace": "argocd"}, ""},
	{"info", "No applications found in target namespace: team-a", crFields,
		CodeTargetNoApps, map[string]string{"namespace": "team-a"}, ""},
	{"info", "No CRs found in run-once mode", nil, CodeTargetNoCRsRunOnce, nil, ""},
	{"warning", "Invalid label selector provided: key: Invalid value: \"app/\": name part must be non-empty", crFields,
		CodeTargetLabelSelector, map[string]string{"error": "key: Invalid value: \"app/\": name part must be non-empty"}, ""},
	{"error", "Failed to process ImageUpdater CR: invalid application name pattern 'web-[': syntax error in pattern", crFields,
		CodeCRFailed, map[string]string{"error": "invalid application name pattern 'web-[': syntax error in pattern", "pattern": "web-["}, "target.invalid_name_pattern"},
	{"error", "invalid application name pattern 'web-[': syntax error in pattern", crFields,
		CodeTargetNamePattern, map[string]string{"pattern": "web-[", "error": "syntax error in pattern"}, ""},
	{"error", "Failed to process ImageUpdater CR: no application references defined in ImageUpdater CR", crFields,
		CodeCRFailed, nil, "target.no_refs"},
	{"warning", "Reconciliation failed for argocd/demo, will retry at normal interval: applications.argoproj.io is forbidden: User \"system:serviceaccount:argocd:argocd-image-updater\" cannot list resource", crFields,
		CodeCRReconcileFailed, map[string]string{"cr_namespace": "argocd", "cr_name": "demo"}, "k8s.forbidden"},
	{"warning", "skipping app 'argocd/web' of type 'Directory' because it's not of supported source type", crFields,
		CodeAppUnsupportedSource, map[string]string{"app": "argocd/web", "source_type": "Directory"}, ""},
	{"warning", "skipping app 'web' of type '' because it's not of supported source type", nil,
		CodeAppUnsupportedSource, map[string]string{"app": "web", "source_type": ""}, ""},
	{"trace", "skipping app 'web' of type 'Helm' because required annotation is missing", nil,
		CodeAppAnnotationMissing, map[string]string{"app": "web", "source_type": "Helm"}, ""},
	{"debug", "Skipping app 'web' because it does not match requested patterns", nil,
		CodeAppNameFiltered, map[string]string{"app": "web"}, ""},
	{"warning", "Could not create image list, skipping: argocd-image-updater.argoproj.io/image-list annotation not found on app argocd/web", appFields,
		CodeAppImageListInvalid, map[string]string{"annotated_app": "argocd/web"}, "annotations.image_list_missing"},
	{"warning", "Could not create image list, skipping: error parsing force update settings: strconv.ParseBool: parsing \"yes\": invalid syntax", appFields,
		CodeAppImageListInvalid, nil, "annotations.force_update_invalid"},
	{"warning", "Could not create image list, skipping: both helm and kustomize manifest targets configured for alias \"web\"", appFields,
		CodeAppImageListInvalid, map[string]string{"alias": "web"}, "annotations.helm_and_kustomize"},
	{"warning", "Could not create write-back config, skipping: secret namespace 'other' differs from app namespace 'argocd'", appFields,
		CodeAppWriteBackInvalid, map[string]string{"secret_namespace": "other", "app_namespace": "argocd"}, "git.secret_cross_namespace"},
	{"warning", "Could not create common update settings, skipping: invalid update strategy: newest", appFields,
		CodeAppSettingsInvalid, nil, ""},
	{"warning", "Could not set manifest target config for image web, skipping: both helm and kustomize manifest targets configured for alias \"web\"", appFields,
		CodeAppManifestTarget, map[string]string{"image": "web"}, "annotations.helm_and_kustomize"},
	{"warning", "Could not set images verification settings for image web, skipping: cosign key not found", appFields,
		CodeAppVerifySettings, map[string]string{"image": "web"}, ""},
	{"debug", "Image 'acme/web' seems not to be live in this application, skipping", imgFields,
		CodeImageNotLive, map[string]string{"image": "acme/web"}, ""},
	{"debug", "Considering this image for update", imgFields, CodeImageConsidering, nil, ""},
	{"debug", "Using version constraint '~1.2' when looking for a new tag", imgFields,
		CodeImageConstraint, map[string]string{"constraint": "~1.2"}, ""},
	{"debug", "Using no version constraint when looking for a new tag", imgFields, CodeImageNoConstraint, nil, ""},
	{"debug", "Multiple containers reference image 'ghcr.io/acme/web'; re-selected live image by tag 1.2.3", imgFields,
		CodeImageDigestReselected, map[string]string{"image": "ghcr.io/acme/web"}, ""},
	{"error", "Could not get registry endpoint from configuration: no default endpoint", imgFields,
		CodeRegistryEndpoint, nil, ""},
	{"info", "Inferred registry from prefix registry.acme.io to use API https://registry.acme.io", imgFields,
		CodeRegistryInferred, map[string]string{"prefix": "registry.acme.io", "api_url": "https://registry.acme.io"}, ""},
	{"warning", "Invalid credential reference specified: argocd/regcred", imgFields,
		CodeCredsInvalidReference, map[string]string{"reference": "argocd/regcred"}, ""},
	{"warning", "Could not fetch credentials: no valid auth entry for registry https://registry-1.docker.io found in image pull secret", imgFields,
		CodeCredsFetchFailed, map[string]string{"registry_url": "https://registry-1.docker.io"}, "creds.no_auth_entry"},
	{"warning", "Could not fetch credentials: could not fetch credentials: env 'REG_CREDS' is not set", imgFields,
		CodeCredsFetchFailed, map[string]string{"env": "REG_CREDS"}, "creds.env_unset"},
	{"error", "Could not set registry endpoint credentials: no valid auth entry for registry https://ghcr.io found in image pull secret", imgFields,
		CodeCredsSetFailed, nil, "creds.no_auth_entry"},
	{"warning", "Could not fetch credentials: could not stat /app/scripts/ecr-login.sh: stat /app/scripts/ecr-login.sh: no such file or directory", imgFields,
		CodeCredsFetchFailed, map[string]string{"script": "/app/scripts/ecr-login.sh"}, "creds.ext_missing"},
	{"error", "Could not set registry endpoint credentials: error executing /app/auth/auth.sh: fork/exec /app/auth/auth.sh: permission denied", imgFields,
		CodeCredsSetFailed, map[string]string{"script": "/app/auth/auth.sh"}, "creds.ext_failed"},
	{"error", "Could not set registry endpoint credentials: invalid script output, must be single line with syntax <username>:<password>", imgFields,
		CodeCredsSetFailed, nil, "creds.ext_output"},
	{"error", "commonUpdateSettings.pullSecret namespace 'registry' differs from app namespace 'argocd'", imgFields,
		CodeCredsCrossNamespace, map[string]string{"secret_namespace": "registry", "app_namespace": "argocd"}, ""},
	{"error", "Could not create registry client: invalid endpoint", imgFields, CodeRegistryClient, nil, ""},
	{"error", "Failed to create repository for image 'acme/web': Get \"https://registry.acme.io/v2/\": proxyconnect tcp: dial tcp 10.0.0.9:3128: connect: connection refused", imgFields,
		CodeRegistryRepository, map[string]string{"image": "acme/web"}, "net.proxy"},
	{"info", "credentials invalid (401/403), refetching and retrying once", imgFields, CodeRegistryAuthRetry, nil, ""},
	{"info", "registry returned 401/403 with valid cached creds, clearing cache for refetch", imgFields, CodeRegistryAuthCacheDrop, nil, ""},
	{"error", "Could not get tags from registry: Get \"https://registry.acme.io/v2/acme/web/tags/list\": no basic auth credentials", imgFields,
		CodeRegistryTagsFailed, map[string]string{"error": "Get \"https://registry.acme.io/v2/acme/web/tags/list\": no basic auth credentials"}, "registry.no_basic_auth"},
	{"error", "Could not get tags from registry: denied", imgFields, CodeRegistryTagsFailed, map[string]string{"error": "denied"}, "registry.denied"},
	{"error", "Could not get tags from registry: toomanyrequests: You have reached your pull rate limit.", imgFields,
		CodeRegistryTagsFailed, nil, "registry.rate_limited"},
	{"error", "Could not get tags from registry: unauthorized: authentication required", imgFields,
		CodeRegistryTagsFailed, nil, "registry.unauthorized"},
	{"error", "Could not get tags from registry: Get \"https://reg.invalid/v2/\": dial tcp: lookup reg.invalid on 10.96.0.10:53: no such host", imgFields,
		CodeRegistryTagsFailed, map[string]string{"host": "reg.invalid"}, "net.no_such_host"},
	{"error", "Could not get tags from registry: cannot use update strategy 'digest' for image 'ghcr.io/acme/web' without a version constraint", imgFields,
		CodeRegistryTagsFailed, nil, "registry.digest_without_constraint"},
	{"error", "Could not get tags from registry: Get \"https://reg.acme.io/v2/\": tls: failed to verify certificate: x509: certificate signed by unknown authority", imgFields,
		CodeRegistryTagsFailed, nil, "tls.untrusted"},
	{"error", "Error fetching metadata for acme/web:1.2.3 - neither V1 or V2 or OCI manifest returned by registry: unexpected media type", imgFields,
		CodeRegistryMetadata, map[string]string{"image": "acme/web", "tag": "1.2.3"}, ""},
	{"error", "error fetching metadata for acme/web:1.2.4: toomanyrequests: rate limit", imgFields,
		CodeRegistryMetadata, map[string]string{"image": "acme/web", "tag": "1.2.4"}, "registry.rate_limited"},
	{"debug", "No metadata found for acme/web:1.2.4", imgFields, CodeRegistryNoMetadata, map[string]string{"tag": "1.2.4"}, ""},
	{"warning", "no tags found for image ghcr.io/acme/web in registry", imgFields,
		CodeTagsNoneFound, map[string]string{"image": "ghcr.io/acme/web"}, ""},
	{"warning", "no tags for image ghcr.io/acme/web matched by the semver strategy", imgFields,
		CodeTagsNoneForStrategy, map[string]string{"image": "ghcr.io/acme/web", "strategy": "semver"}, ""},
	{"warning", "no tags for image ghcr.io/acme/web matched constraint \"~1.9\"", imgFields,
		CodeTagsNoneForConstraint, map[string]string{"image": "ghcr.io/acme/web", "constraint": "~1.9"}, ""},
	{"debug", "found 1 from 3 tags eligible for consideration", imgFields,
		CodeTagsCandidates, map[string]string{"eligible": "1", "total": "3"}, ""},
	{"error", "invalid constraint 'latest' given: 'improper constraint: latest'", imgFields,
		CodeTagsInvalidConstraint, map[string]string{"constraint": "latest", "error": "improper constraint: latest"}, "constraint.improper"},
	{"error", "Unable to find newest version from available tags: improper constraint: latest", imgFields,
		CodeTagsNewestFailed, map[string]string{"bad_constraint": "latest"}, "constraint.improper"},
	{"error", "Unable to find newest version from available tags: Invalid Semantic Version", v0Fields,
		CodeTagsNewestFailed, nil, "semver.invalid_running_tag"},
	{"debug", "No suitable image tag for upgrade found in list of available tags.", imgFields, CodeTagsNoSuitable, nil, ""},
	{"info", "New image ghcr.io/acme/web:1.2.4 already set in spec", imgFields,
		CodeImageAlreadyInSpec, map[string]string{"image": "ghcr.io/acme/web:1.2.4"}, ""},
	{"debug", "Image 'ghcr.io/acme/web:1.2.3' already on latest allowed version", imgFields,
		CodeImageUpToDate, map[string]string{"image": "ghcr.io/acme/web:1.2.3"}, ""},
	{"info", "Setting new image to ghcr.io/acme/web:1.2.4", imgFields,
		CodeImageSetting, map[string]string{"image": "ghcr.io/acme/web:1.2.4"}, ""},
	{"info", "Successfully updated image 'ghcr.io/acme/web:1.2.3' to 'ghcr.io/acme/web:1.2.4', but pending spec update (dry run=false)", imgFields,
		CodeImageUpdated, map[string]string{"from": "ghcr.io/acme/web:1.2.3", "image": "ghcr.io/acme/web:1.2.4", "dry_run": "false"}, ""},
	{"error", "Unable to verify image ghcr.io/acme/web:1.2.4 with public key: no matching signatures", imgFields,
		CodeVerifyFailed, map[string]string{"image": "ghcr.io/acme/web:1.2.4", "error": "no matching signatures"}, ""},
	{"error", "Image verification enabled but no verification method configured for ghcr.io/acme/web", imgFields,
		CodeVerifyNoMethod, map[string]string{"image": "ghcr.io/acme/web"}, ""},
	{"error", "Error while trying to update image: could not set image", imgFields, CodeImageSetFailed, nil, ""},
	{"info", "Committing 1 parameter update(s) for application argocd/web", appFields,
		CodeCommitStart, map[string]string{"count": "1", "app": "argocd/web"}, ""},
	{"info", "Successfully updated the live application spec", appFields, CodeCommitLiveSpec, nil, ""},
	{"info", "Successfully updated application spec for web", crFields, CodeCommitAppSpec, map[string]string{"app": "web"}, ""},
	{"info", "Dry run - not committing 1 changes to application", appFields, CodeCommitDryRun, map[string]string{"count": "1"}, ""},
	{"error", "Could not update application spec: could not get creds for repo 'http://git.acme.io/deploy.git': unknown repository type", appFields,
		CodeCommitFailed, nil, "git.unknown_repo_type"},
	{"error", "Could not update application spec: git fetch origin release --force --prune --depth 1 failed: couldn't find remote ref release", appFields,
		CodeCommitFailed, map[string]string{"ref": "release"}, "git.remote_ref_missing"},
	{"error", "Could not update application spec: credentials for 'https://github.com/acme/deploy' are not configured in Argo CD settings", appFields,
		CodeCommitFailed, map[string]string{"repo": "https://github.com/acme/deploy"}, "git.creds_not_configured"},
	{"debug", "target parameter file and marshaled data are the same, skipping commit.", appFields, CodeGitNoChange, nil, ""},
	{"info", "Skipping PR creation: another application already created a PR for the same write-back target in this cycle", appFields, CodeGitPRDedupe, nil, ""},
	{"warning", `"latest" strategy has been renamed to "newest-build". Please switch to the new convention as support for the old naming convention will be removed in future versions.`, imgFields,
		CodeStrategyRenamedLatest, nil, ""},
	{"warning", `"name" strategy has been renamed to "alphabetical". Please switch to the new convention as support for the old naming convention will be removed in future versions.`, imgFields,
		CodeStrategyRenamedName, nil, ""},
	{"warning", "Invalid match option syntax '^1\\.2', ignoring", imgFields, CodeAllowTagsSyntax, map[string]string{"allow_tags": "^1\\.2"}, ""},
	{"warning", "Could not compile regexp '^1.(2'", imgFields, CodeAllowTagsRegexp, map[string]string{"allow_tags": "^1.(2"}, ""},
	{"warning", "Unknown match function: glob", imgFields, CodeAllowTagsFunction, map[string]string{"function": "glob"}, ""},
	{"info", "taglistsort is set to 'latest-first' but update strategy 'newest-build' requires metadata. Results may not be what you expect.", imgFields,
		CodeTagListSort, map[string]string{"sort_mode": "latest-first", "strategy": "newest-build"}, ""},
	{"fatal", "panic: runtime error: invalid memory address or nil pointer dereference", nil, CodePanic, nil, ""},
}

func TestCatalogueCompiles(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Catalogue() {
		if seen[e.Code] {
			t.Errorf("duplicate code %s", e.Code)
		}
		seen[e.Code] = true
		if e.Meaning == "" || len(e.Formats) == 0 || NormalizeLevel(e.Level) != e.Level {
			t.Errorf("%s: incomplete entry", e.Code)
		}
	}
}

func TestEveryEntryHasACase(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range classifyCases {
		covered[c.code] = true
	}
	for _, e := range Catalogue() {
		if !covered[e.Code] {
			t.Errorf("no classify case for %s", e.Code)
		}
	}
}

func TestClassify(t *testing.T) {
	for i, c := range classifyCases {
		for _, form := range []string{"text", "json"} {
			t.Run(fmt.Sprintf("%02d-%s-%s", i, c.code, form), func(t *testing.T) {
				raw := textLine(c.level, c.msg, c.fields)
				if form == "json" {
					raw = jsonLine(c.level, c.msg, c.fields)
				}
				lines := ParseString(raw + "\n")
				if len(lines) != 1 {
					t.Fatalf("got %d lines from %q", len(lines), raw)
				}
				l := lines[0]
				if !l.Parsed || l.Msg != c.msg || l.Level != NormalizeLevel(c.level) {
					t.Fatalf("parse %q: parsed=%v level=%q msg=%q", raw, l.Parsed, l.Level, l.Msg)
				}
				for _, f := range c.fields {
					if l.Fields[f[0]] != f[1] {
						t.Errorf("field %s = %q, want %q", f[0], l.Fields[f[0]], f[1])
					}
				}
				m, ok := Classify(l)
				if !ok || m.Code != c.code {
					t.Fatalf("Classify(%q) = %q, %v; want %s", c.msg, m.Code, ok, c.code)
				}
				for k, want := range c.caps {
					if got, has := m.Captures[k]; !has || got != want {
						t.Errorf("capture %s = %q (present %v), want %q", k, got, has, want)
					}
				}
				if m.Cause != c.cause {
					t.Errorf("cause = %q, want %q", m.Cause, c.cause)
				}
				if m.Meaning == "" {
					t.Error("no meaning")
				}
			})
		}
	}
}

func TestClassifyNoMatch(t *testing.T) {
	for _, msg := range []string{
		"",
		"Processing results: applications=x",
		"Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=1 extra",
		"Some unrelated message",
		"Starting image update cycle",
	} {
		if m, ok := Classify(Line{Msg: msg, Parsed: true}); ok {
			t.Errorf("Classify(%q) = %s, want no match", msg, m.Code)
		}
	}
}

func TestLoggedBy(t *testing.T) {
	tests := []struct {
		code string
		v    updater.Version
		want bool
	}{
		{CodeTagsNoneFound, updater.V1_1, false},
		{CodeTagsNoneFound, updater.V1_2, true},
		{CodeTagsNoneFound, updater.Version{Major: 1, Minor: 3, Head: true}, true},
		{CodeAppAnnotationMissing, updater.V0_18, true},
		{CodeAppAnnotationMissing, updater.V1_0, false},
		{CodeCredsCrossNamespace, updater.V1_2, false},
		{CodeCredsCrossNamespace, updater.V1_3, true},
		{CodeCycleResults, updater.V0_18, true},
		{CodeTargetNoCRsRunOnce, updater.V0_18, false},
	}
	for _, tt := range tests {
		e, ok := Lookup(tt.code)
		if !ok {
			t.Fatalf("no entry %s", tt.code)
		}
		if got := e.LoggedBy(tt.v); got != tt.want {
			t.Errorf("%s.LoggedBy(%s) = %v, want %v", tt.code, tt.v, got, tt.want)
		}
	}
}

func TestCatalogueIsACopy(t *testing.T) {
	c := Catalogue()
	c[0].Code = "changed"
	c[0].Formats[0] = "changed"
	if e := Catalogue()[0]; e.Code == "changed" || e.Formats[0] == "changed" {
		t.Fatal("Catalogue exposes the compiled table")
	}
}

func TestCompileFormat(t *testing.T) {
	re, verbs, err := compileFormat("a %s b %d c %q d %v 100%%", false)
	if err != nil {
		t.Fatal(err)
	}
	if string(verbs) != "sdqv" {
		t.Fatalf("verbs %q", verbs)
	}
	sub := re.FindStringSubmatch(`a x.y b -3 c "q\"r" d rest: more 100%`)
	want := []string{"x.y", "-3", `"q\"r"`, "rest: more"}
	if sub == nil || !maps.Equal(toMap(sub[1:]), toMap(want)) {
		t.Fatalf("got %q", sub)
	}
	for _, bad := range []string{"trailing %", "bad %x verb"} {
		if _, _, err := compileFormat(bad, false); err == nil {
			t.Errorf("compileFormat(%q) accepted", bad)
		}
	}
}

func toMap(s []string) map[int]string {
	m := map[int]string{}
	for i, v := range s {
		m[i] = v
	}
	return m
}

package updaterlog

import (
	"regexp"
	"sync"
)

// Cause is a known error text that appears inside a catalogued message's
// error (e.g. `no basic auth credentials` inside `Could not get tags from
// registry: ...`). Logs only carry errors as text, so this is the one place
// where matching strings is the only way; the engine should still prefer
// reproducing the failure with typed errors where it can.
type Cause struct {
	Code     string
	Pattern  string   // an unanchored RE2 pattern
	Captures []string // names of the pattern's groups, in order
	Meaning  string

	re *regexp.Regexp
}

// causes is ordered from specific to general; the first match wins. A cause
// code equals a message code where the error is also logged on its own.
// They are compiled on first use, not at package init.
var causes = sync.OnceValue(func() []Cause { return compileCauses(causeTable) })

// causeTable is the source of causes.
var causeTable = []Cause{
	// ext: credentials scripts (registry-scanner pkg/image/credentials.go,
	// FetchCredentials, CredentialSourceExt; the same words since v0.x).
	{Code: "creds.ext_missing", Pattern: `could not stat (/\S*?):? `, Captures: []string{"script"},
		Meaning: "the ext: credentials script is not in the controller's container (nothing mounted at that path)"},
	{Code: "creds.ext_failed", Pattern: `error executing (/\S*?):? `, Captures: []string{"script"},
		Meaning: "the ext: credentials script could not be run or exited non-zero (not executable, an interpreter missing, a failing command)"},
	{Code: "creds.ext_output", Pattern: `invalid script output, must be single line`,
		Meaning: "the ext: credentials script printed something other than one user:pass line"},
	{Code: "creds.ext_relative", Pattern: `path to script must be absolute, but is '([^']*)'`, Captures: []string{"script"},
		Meaning: "the ext: credentials path is not absolute"},
	{Code: "creds.no_auth_entry", Pattern: `no valid auth entry for registry (\S+) found in image pull secret`, Captures: []string{"registry_url"},
		Meaning: "the pull secret has no auths key starting with the registry's API URL or host (Docker Hub needs https://registry-1.docker.io, not index.docker.io/v1/)"},
	{Code: "creds.env_unset", Pattern: `env '([^']*)' is not set`, Captures: []string{"env"},
		Meaning: "the env: credential variable is not set in the controller"},
	{Code: "creds.invalid_spec", Pattern: `invalid credential spec|unknown credential source|invalid secret definition`,
		Meaning: "the credential reference is malformed"},
	{Code: "registry.no_basic_auth", Pattern: `no basic auth credentials`,
		Meaning: "the registry wants credentials and none are configured for it"},
	{Code: "registry.rate_limited", Pattern: `(?i)toomanyrequests|too many requests|\b429\b`,
		Meaning: "the registry rate-limits the controller (Docker Hub pull limits); not retried within the cycle"},
	{Code: "k8s.forbidden", Pattern: `is forbidden: User "([^"]*)"`, Captures: []string{"user"},
		Meaning: "the controller's service account lacks an RBAC permission"},
	{Code: "registry.denied", Pattern: `(?i)\bdenied\b|\b403\b|forbidden`,
		Meaning: "the credentials are valid but not allowed to read this repository"},
	{Code: "registry.unauthorized", Pattern: `(?i)unauthorized|authentication required|\b401\b`,
		Meaning: "the registry rejected the credentials (or got none)"},
	{Code: "registry.not_v2", Pattern: `does not seem to be a valid v2 Docker Registry API`,
		Meaning: "the API URL does not answer GET /v2/ with 200 or 401 (wrong api_url?)"},
	{Code: "registry.digest_without_constraint", Pattern: `cannot use update strategy 'digest' for image '([^']*)' without a version constraint`, Captures: []string{"digest_image"},
		Meaning: "the digest strategy needs the tag to track in the image name"},
	{Code: "net.proxy", Pattern: `proxyconnect tcp`,
		Meaning: "the HTTP(S) proxy the controller uses failed"},
	{Code: "net.no_such_host", Pattern: `lookup (\S+?)(?: on \S+)?: no such host`, Captures: []string{"host"},
		Meaning: "the registry host name does not resolve from the controller"},
	{Code: "net.refused", Pattern: `connection refused`,
		Meaning: "nothing listens at the registry address"},
	{Code: "net.timeout", Pattern: `i/o timeout|context deadline exceeded|Client\.Timeout exceeded|TLS handshake timeout`,
		Meaning: "the registry did not answer in time (network policy, firewall, proxy)"},
	{Code: "tls.untrusted", Pattern: `x509: |tls: failed to verify`,
		Meaning: "the registry's TLS certificate is not trusted (internal CA: set insecure or mount the CA)"},
	{Code: "constraint.improper", Pattern: `improper constraint: (.*)`, Captures: []string{"bad_constraint"},
		Meaning: "the constraint is not a semver constraint (e.g. latest)"},
	{Code: "semver.invalid_running_tag", Pattern: `(?i)invalid semantic version`,
		Meaning: "up to v1.1.0 a running tag that is not a version (latest, main-abc) fails the semver strategy"},
	{Code: CodeTargetNamePattern, Pattern: `invalid application name pattern '([^']*)'`, Captures: []string{"pattern"},
		Meaning: "an applicationRef's namePattern is not a valid glob; the whole CR fails"},
	{Code: "target.no_refs", Pattern: `no application references defined in ImageUpdater CR`,
		Meaning: "the CR has no applicationRefs"},
	{Code: "annotations.image_list_missing", Pattern: `image-list annotation not found on app (\S+)`, Captures: []string{"annotated_app"},
		Meaning: "useAnnotations is set but the Application has no image-list annotation"},
	{Code: "annotations.image_list_empty", Pattern: `annotation is empty on app (\S+)|empty image name in`, Captures: []string{"annotated_app"},
		Meaning: "the image-list annotation is empty or has an empty entry"},
	{Code: "annotations.force_update_invalid", Pattern: `error parsing force update settings`,
		Meaning: "force-update is not a boolean; the Application is dropped and not counted as an error"},
	{Code: "annotations.helm_and_kustomize", Pattern: `both helm and kustomize manifest targets configured for alias "([^"]*)"`, Captures: []string{"alias"},
		Meaning: "an alias has both helm and kustomize keys; the Application is dropped and not counted as an error"},
	{Code: "git.secret_cross_namespace", Pattern: `secret namespace '([^']*)' differs from app namespace '([^']*)'`, Captures: []string{"secret_namespace", "app_namespace"},
		Meaning: "v1.3+: the git:secret: write-back secret must live in the Application's namespace"},
	{Code: "git.unknown_repo_type", Pattern: `unknown repository type`,
		Meaning: "git:secret: write-back needs an https:// or SSH repository URL"},
	{Code: "git.creds_not_configured", Pattern: `credentials for '([^']*)' are not configured in Argo CD settings`, Captures: []string{"repo"},
		Meaning: "git write-back found no Argo CD repository credentials for the repository"},
	{Code: "git.creds_failed", Pattern: `could not get creds for repo '([^']*)'`, Captures: []string{"repo"},
		Meaning: "git write-back credentials could not be built"},
	{Code: "git.remote_ref_missing", Pattern: `couldn't find remote ref (\S+)`, Captures: []string{"ref"},
		Meaning: "the write-back branch does not exist (a branch without ':' must already exist)"},
	{Code: "k8s.conflict", Pattern: `the object has been modified`,
		Meaning: "the Application changed while it was being updated"},
}

func compileCauses(table []Cause) []Cause {
	src := append([]Cause(nil), table...)
	for i := range src {
		src[i].re = regexp.MustCompile(src[i].Pattern)
		if src[i].re.NumSubexp() != len(src[i].Captures) {
			panic(&FormatError{Format: src[i].Pattern, Reason: "capture names do not match the groups"})
		}
	}
	return src
}

// Causes returns the known error causes, in matching order (a copy).
func Causes() []Cause {
	return append([]Cause(nil), causes()...)
}

// classifyCause finds the first known cause in an error text.
func classifyCause(text string) (string, map[string]string, bool) {
	for _, c := range causes() {
		sub := c.re.FindStringSubmatch(text)
		if sub == nil {
			continue
		}
		caps := make(map[string]string, len(c.Captures))
		for i, name := range c.Captures {
			caps[name] = sub[i+1]
		}
		return c.Code, caps, true
	}
	return "", nil, false
}

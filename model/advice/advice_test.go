package advice_test

import (
	"strings"
	"testing"

	"github.com/imgupd/imgupd/internal/netclass"
	"github.com/imgupd/imgupd/model/advice"
	"github.com/imgupd/imgupd/sources/forge"
	"github.com/imgupd/imgupd/sources/gitsource"
	"github.com/imgupd/imgupd/sources/helmchart"
	"github.com/imgupd/imgupd/sources/registry"
)

// TestEveryKindAdvised: every kind of every source has its own advice, one
// line, not the catch-all for failures no kind describes.
func TestEveryKindAdvised(t *testing.T) {
	t.Parallel()
	check := func(source, kind, got, fallback string) {
		t.Helper()
		switch {
		case got == "" || strings.ContainsAny(got, "\n\r"):
			t.Errorf("%s %s: advice %q is not one line", source, kind, got)
		case kind != "Other" && got == fallback:
			t.Errorf("%s %s: only the catch-all advice", source, kind)
		case kind == "Other" && got != fallback:
			t.Errorf("%s Other: %q, want the catch-all", source, got)
		}
	}
	for _, k := range registry.Kinds() {
		check("registry", string(k), advice.ForRegistry(advice.Registry{Kind: string(k), Host: "r.example"}),
			advice.ForRegistry(advice.Registry{Kind: "Other", Host: "r.example"}))
	}
	for _, k := range gitsource.Kinds() {
		check("git", string(k), advice.ForGit(advice.Git{Kind: string(k), URL: "https://g.example/r"}),
			advice.ForGit(advice.Git{Kind: "Other", URL: "https://g.example/r"}))
	}
	for _, k := range helmchart.ErrorKinds() {
		check("chart", string(k), advice.ForChart(advice.Chart{Kind: string(k), Host: "c.example", Versions: []string{"1.2.3"}}),
			advice.ForChart(advice.Chart{Kind: "Other", Host: "c.example"}))
	}
	for _, k := range forge.Kinds() {
		check("forge", string(k), advice.ForForge(advice.Forge{Kind: string(k), Forge: "GitHub", Repo: "acme/web", Branch: "main"}),
			advice.ForForge(advice.Forge{Kind: "Other", Forge: "GitHub"}))
	}
}

func TestRegistry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    advice.Registry
		want string
	}{
		{"no host", advice.Registry{Kind: "Connect"}, "Nothing accepted the connection to the registry."},
		{"caller deadline", advice.Registry{Kind: "Timeout", Host: "r", CallerDeadline: true}, "r did not answer before the diagnosis deadline."},
		{"network timeout", advice.Registry{Kind: "Timeout", Host: "r"}, "r did not answer in time. Traffic is likely dropped"},
		{"ghcr forbidden", advice.Registry{Kind: "Forbidden", Host: "GHCR.io", Where: "GHCR.io/o/p"}, "On GHCR a personal access token needs the read:packages scope"},
		{"other forbidden", advice.Registry{Kind: "Forbidden", Host: "r", Where: "r/p"}, "may not pull r/p: grant the account or token pull (read) access to it. (On GHCR: a PAT needs read:packages.)"},
		{"no repository", advice.Registry{Kind: "NotFound", Op: "list tags", Host: "r", Repository: "team/app"}, "The repository team/app does not exist on r."},
		{"no manifest", advice.Registry{Kind: "NotFound", Op: "manifest", Host: "r"}, "The manifest is missing on r"},
		{"retry after", advice.Registry{Kind: "RateLimited", Host: "r", RetryAfter: 30e9}, "r is rate limiting these requests (Retry-After 30s). Image Updater"},
		{"not a registry", advice.Registry{Kind: "NotRegistry", Host: "hub.docker.com", Status: 404}, "GET /v2/ on hub.docker.com answered HTTP 404"},
		{"tag list", advice.Registry{Kind: "TooLarge", Where: "r/p", TagListOver: "more than 10 tags"}, "The tag list of r/p is more than 10 tags."},
		{"config", advice.Registry{Kind: "TooLarge", Host: "r", Where: "r/p"}, "r serves an image config larger than any real one; check what was pushed to r/p."},
		{"unknown kind", advice.Registry{Kind: "Unheard", Host: "r"}, "Unexpected failure talking to r;"},
	} {
		if got := advice.ForRegistry(tc.f); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q lacks %q", tc.name, got, tc.want)
		}
	}
}

// TestRegistryImage: what the engine knows about the image (its endpoint,
// whether it has credentials) comes before the failure's own advice.
func TestRegistryImage(t *testing.T) {
	t.Parallel()
	unauth := advice.Registry{Kind: "Unauthorized", Host: "r"}
	for _, tc := range []struct {
		name     string
		f        advice.Registry
		host     string
		hasCreds bool
		want     string
	}{
		{"ghcr", advice.Registry{Kind: "Forbidden", Host: "ghcr.io"}, "ghcr.io", true, "GHCR: the token needs the read:packages scope"},
		{"ecr", unauth, "1.dkr.ecr.eu-west-1.amazonaws.com", false, "ECR: Image Updater needs a token from an IAM role"},
		{"no credentials", unauth, "r", false, "The registry wants credentials and none are configured for this image"},
		{"credentials refused", unauth, "r", true, advice.ForRegistry(unauth)},
	} {
		if got := advice.ForRegistryImage(tc.f, tc.host, tc.hasCreds); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestGit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    advice.Git
		want string
	}{
		{"403", advice.Git{Kind: "AuthFailed", URL: "u", Status: 403}, "u accepted who the credentials belong to but refused this access (HTTP 403)"},
		{"401", advice.Git{Kind: "AuthFailed", URL: "u"}, "u refused the credentials"},
		{"no branch name", advice.Git{Kind: "BranchNotFound", URL: "u"}, "u has no branch the branch."},
		{"host key, local", advice.Git{Kind: "HostKeyUnknown", URL: "git@h:o/r", Host: "h", Port: "22"}, "not in this machine's known_hosts"},
		{"host key, port", advice.Git{Kind: "HostKeyUnknown", URL: "ssh://git@h:2222/o/r", Host: "h", Port: "2222", KnownHostsGiven: true}, "no entry for [h]:2222"},
		{"mismatch", advice.Git{Kind: "HostKeyMismatch", URL: "u", KnownHostsGiven: true}, "the key differs from the one in argocd-ssh-known-hosts-cm"},
		{"http URL", advice.Git{Kind: "UnsupportedURL", URL: "ftp://h/r"}, "is not an https://, http:// or SSH URL"},
		{"git:secret URL", advice.Git{Kind: "UnsupportedURL", URL: "h:r", NeedsSecureURL: true}, "cannot use git:secret credentials with h:r"},
		{"too large", advice.Git{Kind: "TooLarge", URL: "u", Limit: "pack past 1 GiB"}, "u answered with more than imgupd reads (pack past 1 GiB)."},
		{"known hosts", advice.Git{Kind: "Other", BadKnownHosts: true}, "The ssh_known_hosts data of argocd-ssh-known-hosts-cm does not parse"},
		{"proxy 407", advice.Git{Kind: "Proxy", URL: "u", Status: 407}, "the proxy wants credentials (HTTP 407)"},
		{"proxy 403", advice.Git{Kind: "Proxy", URL: "u", Proxy: "http://p:3128", Status: 403}, "http://p:3128 refused to tunnel to u (HTTP 403)"},
		{"ssh not socks", advice.Git{Kind: "Proxy", URL: "u", SSHNotSOCKS: true}, "u is an SSH repository, which Argo CD sends through its repository proxy as SOCKS5"},
		{"bad proxy", advice.Git{Kind: "Proxy", BadProxy: true}, "The proxy of the repository Secret is not a URL"},
		{"socks", advice.Git{Kind: "Proxy", URL: "git@h:r", SSH: true, RepoProxy: true, Proxy: "socks5://p"}, "socks5://p (the proxy field of the Argo CD repository Secret) could not tunnel SSH"},
		{"repo proxy", advice.Git{Kind: "Proxy", URL: "u", RepoProxy: true}, "could not be used to reach u"},
		{"env proxy", advice.Git{Kind: "Proxy", URL: "u"}, "The HTTP(S) proxy of the environment (HTTPS_PROXY/HTTP_PROXY)"},
	} {
		if got := advice.ForGit(tc.f); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q lacks %q", tc.name, got, tc.want)
		}
	}
}

func TestChart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    advice.Chart
		want string
	}{
		{"stale index", advice.Chart{Kind: "ChartNotFound", Op: "download", URL: "https://c/app-1.tgz"}, "index.yaml lists https://c/app-1.tgz but"},
		{"no chart", advice.Chart{Kind: "ChartNotFound", HelmRepo: true, Chart: "app"}, `The repository's index.yaml has no chart "app"`},
		{"no oci repository", advice.Chart{Kind: "ChartNotFound", URL: "oci://r:5000/charts/nope:1.0"}, "The registry has no repository r:5000/charts/nope:"},
		{"no versions", advice.Chart{Kind: "VersionNotFound", Chart: "app"}, `Chart "app" has no versions`},
		{"versions", advice.Chart{Kind: "VersionNotFound", Versions: []string{"v2.4.1", "1.0.0"}}, `(newest: v2.4.1) or a constraint that matches one (e.g. "2.*")`},
		{"cross host", advice.Chart{Kind: "Unauthorized", Host: "cdn", CrossHost: true, CredsGiven: true}, "spec.source.helm.passCredentials: true"},
		{"none sent", advice.Chart{Kind: "Unauthorized", Host: "c", HelmRepo: true}, "c requires credentials and none were sent: set username and password in the repository Secret (argocd.argoproj.io/secret-type: repository or repo-creds) whose url matches the repoURL."},
		{"refused", advice.Chart{Kind: "Unauthorized", Host: "c", CredentialsSent: true}, "c rejected the credentials: update username/password in the repository Secret for the registry (for OCI"},
		{"index too large", advice.Chart{Kind: "TooLarge", Op: "index", URL: "u", Limit: 10}, "u is larger than imgupd's read limit (10 bytes;"},
		{"chart too large", advice.Chart{Kind: "TooLarge", Op: "extract", Limit: 10}, "The chart is larger than imgupd's read limit (10 bytes,"},
		{"bad chart", advice.Chart{Kind: "BadChart", Detail: "no values.yaml"}, "(no values.yaml): republish it"},
		{"tls settings", advice.Chart{Kind: "TLS", Op: "tls", Host: "c:8443", Detail: "bad PEM"}, "The TLS settings cannot be used (bad PEM): fix the CA under the key c in argocd-tls-certs-cm"},
	} {
		if got := advice.ForChart(tc.f); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q lacks %q", tc.name, got, tc.want)
		}
	}
}

func TestForge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    advice.Forge
		want string
	}{
		{"app JWT", advice.Forge{Kind: "Unauthorized", Forge: "GitHub", Op: "create installation token"}, "GitHub refused the App's JWT"},
		{"token", advice.Forge{Kind: "Unauthorized"}, "the forge's API refused the write-back token"},
		{"bitbucket", advice.Forge{Kind: "Forbidden", Forge: "Bitbucket", Scope: "admin"}, "Bitbucket lets only admin tokens read branch restrictions"},
		{"scope", advice.Forge{Kind: "Forbidden", Forge: "GitLab", Repo: "g/p"}, "the token may not read g/p's branch settings; it lacks read access to the repository."},
		{"unknown kind", advice.Forge{Kind: "Unheard"}, "Unexpected failure asking the forge's API"},
	} {
		if got := advice.ForForge(tc.f); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q lacks %q", tc.name, got, tc.want)
		}
	}
}

// TestTLS: one advice for every source, by what the handshake said, in
// the terms of the configuration that reaches the server.
func TestTLS(t *testing.T) {
	t.Parallel()
	plain := netclass.TLSFacts{PlainHTTP: true, WrongName: true} // the first fact counts
	name := netclass.TLSFacts{WrongName: true, UnknownAuthority: true}
	ca := netclass.TLSFacts{UnknownAuthority: true}
	alert := netclass.TLSFacts{RemoteAlert: true, ClientCertAlert: true}
	for _, tc := range []struct {
		name string
		c    advice.TLSCase
		want string
	}{
		{"registry plain", advice.TLSCase{Source: advice.SourceRegistry, Name: "r", Facts: plain}, "use an http:// api_url for it in registries.conf."},
		{"git plain", advice.TLSCase{Source: advice.SourceGit, Name: "u", Facts: plain}, "the URL scheme or port is wrong."},
		{"chart plain", advice.TLSCase{Source: advice.SourceChart, Name: "c", Facts: plain}, "use an http:// spec.source.repoURL."},
		{"oci plain", advice.TLSCase{Source: advice.SourceChart, Name: "c", Facts: plain, OCI: true}, "set insecureOCIForceHttp: true"},
		{"registry name", advice.TLSCase{Source: advice.SourceRegistry, Name: "r", Facts: name}, "or set insecure: true for this registry in registries.conf."},
		{"git name", advice.TLSCase{Source: advice.SourceGit, Name: "u", Facts: name}, "use the name the certificate was issued for."},
		{"chart name", advice.TLSCase{Source: advice.SourceChart, Name: "c", Facts: name}, "in spec.source.repoURL, or set insecure: true in the repository Secret."},
		{"registry CA", advice.TLSCase{Source: advice.SourceRegistry, Name: "r", Facts: ca}, "add the CA as ca_data (or ca_file"},
		{"chart CA", advice.TLSCase{Source: advice.SourceChart, Name: "c", CertsKey: "c", Facts: ca}, "signed by a CA Argo CD does not trust: add the CA to argocd-tls-certs-cm under the key c"},
		{"chart own CA", advice.TLSCase{Source: advice.SourceChart, Name: "c", CertsKey: "c", Facts: ca, CAGiven: true}, "not signed by the CA under the key c in argocd-tls-certs-cm"},
		{"git CA", advice.TLSCase{Source: advice.SourceGit, Name: "u", CertsKey: "h", Facts: ca}, "The certificate of u is not trusted here: add the CA to argocd-tls-certs-cm under the key h"},
		{"git CA replaces", advice.TLSCase{Source: advice.SourceGit, Name: "u", CertsKey: "h", Facts: ca, CAGiven: true, CAReplaces: true}, "Argo CD trusts only that CA, not the system roots"},
		{"git extra CA", advice.TLSCase{Source: advice.SourceGit, Name: "u", CertsKey: "h", Facts: ca, CAGiven: true}, "trusted neither by the system roots nor by the extra CA given"},
		{"git alert", advice.TLSCase{Source: advice.SourceGit, Name: "u", Facts: alert}, "it probably requires a TLS client certificate"},
		{"git alert, cert", advice.TLSCase{Source: advice.SourceGit, Name: "u", Facts: alert, ClientCert: true}, "refused the TLS client certificate of the repository Secret"},
		{"git alert, bad pair", advice.TLSCase{Source: advice.SourceGit, Name: "u", Facts: alert, ClientCert: true, ClientCertBad: true}, "is not a valid pair"},
		{"chart alert", advice.TLSCase{Source: advice.SourceChart, Name: "c", Facts: alert}, "c requires a TLS client certificate"},
		{"chart alert, cert", advice.TLSCase{Source: advice.SourceChart, Name: "c", Facts: alert, ClientCert: true}, "c rejected the TLS client certificate"},
		{"chart other", advice.TLSCase{Source: advice.SourceChart, Name: "c", CertsKey: "c"}, "check the scheme and port of spec.source.repoURL"},
		{"registry other", advice.TLSCase{Source: advice.SourceRegistry, Name: "r"}, "check that api_url uses the right scheme and port"},
	} {
		if got := advice.TLS(tc.c); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q lacks %q", tc.name, got, tc.want)
		}
	}
}

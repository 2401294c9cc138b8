package cluster

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/imgupd/imgupd/internal/giturl"
)

// Repository is what Argo CD's repo-server (and Image Updater's
// git:repocreds, which calls the same code) resolves for one repository URL:
// the repository Secret that matches it, the fields a credential template
// filled in, and where each came from. Data holds the merged secret fields
// and is never printed (see Format).
type Repository struct {
	// RepoURL is the URL asked for; URL is the one fetched (the matched
	// Secret's url, else RepoURL).
	RepoURL, URL string
	// Secret is the matched repository Secret ("" none); Template the
	// repo-creds Secret whose credentials were copied ("" none).
	Secret, Template string
	// Project is the matched Secret's project ("" unscoped).
	Project string
	// Data is the merged secret data: credentials, proxy, flags.
	Data map[string][]byte
	// Why says in one line how the match was made (no secret values).
	Why string
	// Err is a field Argo CD cannot parse (a boolean that is not one): Argo
	// CD then fails to read the repository at all.
	Err error
	// TemplateOtherHost is set when the credentials came from a repo-creds
	// template whose url prefix matches across a host boundary (the
	// template for https://github.com matching
	// https://github.com.evil.example/...): the template's host[:port],
	// which is not the repository's. Argo CD sends the credentials to the
	// repository's host anyway; imgupd must not. A template whose url names
	// no host ("https://") is for every host under its prefix and crosses no
	// host boundary: not set.
	TemplateOtherHost string
	// TemplateURL is that template's url (credentials in it redacted).
	TemplateURL string
}

// Format prints the repository with Data values masked.
func (r Repository) Format(f fmt.State, verb rune) {
	keys := make([]string, 0, len(r.Data))
	for k := range r.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(f, "Repository{URL:%s Secret:%s Template:%s Project:%s Data:%s}", redactURL(r.URL), r.Secret, r.Template, r.Project, strings.Join(keys, ","))
}

// credentialKeys are the fields that hold or select credentials.
var credentialKeys = []string{"username", "password", "bearerToken", "sshPrivateKey", "tlsClientCertData", "tlsClientCertKey",
	"githubAppPrivateKey", "githubAppID", "githubAppInstallationID", "githubAppEnterpriseBaseUrl", "gcpServiceAccountKey",
	"useAzureWorkloadIdentity", "azureServicePrincipalClientId", "azureServicePrincipalClientID", "azureServicePrincipalClientSecret",
	"azureServicePrincipalTenantId", "azureServicePrincipalTenantID", "azureActiveDirectoryEndpoint"}

// WithoutCredentials is the repository with every credential field
// removed (anonymous access, the rest of the configuration kept).
func (r Repository) WithoutCredentials() Repository {
	d := make(map[string][]byte, len(r.Data))
	for k, v := range r.Data {
		d[k] = v
	}
	for _, k := range credentialKeys {
		delete(d, k)
	}
	r.Data = d
	return r
}

// Get returns a merged field ("" when unset).
func (r Repository) Get(key string) string { return string(r.Data[key]) }

// Bool reads a boolean field as Argo CD does (strconv.ParseBool; unset is
// false).
func (r Repository) Bool(key string) bool {
	b, _ := strconv.ParseBool(strings.TrimSpace(r.Get(key)))
	return b
}

// Insecure is Argo CD's IsInsecure for git: insecure or
// insecureIgnoreHostKey (only a repository Secret's; a template's insecure
// is ignored).
func (r Repository) Insecure() bool { return r.Bool("insecure") || r.Bool("insecureIgnoreHostKey") }

// HasCredentials is Argo CD's Repository.HasCredentials.
func (r Repository) HasCredentials() bool { return hasCredentials(r.Data) }

func hasCredentials(d map[string][]byte) bool {
	for _, k := range []string{"username", "password", "bearerToken", "sshPrivateKey", "tlsClientCertData", "githubAppPrivateKey", "azureServicePrincipalClientSecret"} {
		if len(d[k]) > 0 {
			return true
		}
	}
	b, _ := strconv.ParseBool(string(d["useAzureWorkloadIdentity"]))
	return b
}

// templateFill are the fields a credential template fills when empty;
// templateOverwrite those it overwrites, even with false
// (CopyCredentialsFrom).
var (
	templateFill = []string{"username", "password", "bearerToken", "sshPrivateKey", "tlsClientCertData", "tlsClientCertKey",
		"githubAppPrivateKey", "githubAppID", "githubAppInstallationID", "githubAppEnterpriseBaseUrl", "gcpServiceAccountKey",
		"azureServicePrincipalClientID", "azureServicePrincipalClientSecret", "azureServicePrincipalTenantID", "azureActiveDirectoryEndpoint",
		"proxy", "noProxy", "type"}
	templateOverwrite = []string{"enableOCI", "insecureOCIForceHttp", "forceHttpBasicAuth", "useAzureWorkloadIdentity"}
	repoBools         = []string{"insecure", "insecureIgnoreHostKey", "enableOCI", "insecureOCIForceHttp", "forceHttpBasicAuth", "enableLfs", "useAzureWorkloadIdentity"}
)

// ResolveRepository finds the repository configuration Argo CD uses for
// repoURL in an Application of project: among the "repository" Secrets
// whose url is the same after ArgoNormalizeURL, the one scoped to the
// project wins, else an unscoped one (Secrets of other projects are
// skipped); when the result holds no credentials, the "repo-creds" template
// whose normalised url is the longest string prefix (no path boundary) fills
// the empty credential fields. A URL that does not normalise matches
// Secrets only by its exact text and never a template.
func ResolveRepository(creds []RepoCred, repoURL, project string) Repository {
	want := ArgoNormalizeURL(repoURL)
	same := func(u string) bool {
		if want == "" {
			return strings.TrimSpace(u) == strings.TrimSpace(repoURL)
		}
		return ArgoNormalizeURL(u) == want
	}
	var scoped, unscoped *RepoCred
	for i := range creds {
		c := &creds[i]
		if c.Type != SecretTypeRepository || !same(c.URL) {
			continue
		}
		switch c.Project {
		case project:
			if project != "" && scoped == nil {
				scoped = c
			}
			if project == "" {
				unscoped = c
			}
		case "":
			unscoped = c
		}
	}
	out := Repository{RepoURL: repoURL, URL: repoURL, Data: map[string][]byte{}}
	var why []string
	if m := firstNonNil(scoped, unscoped); m != nil {
		out.Secret, out.Project, out.URL = m.SecretName, m.Project, m.URL
		for k, v := range m.Data {
			out.Data[k] = v
		}
		scope := "unscoped"
		if m.Project != "" {
			scope = "project " + m.Project
		}
		why = append(why, fmt.Sprintf("repository Secret %s (%s) has url %s", m.SecretName, scope, redactURL(m.URL)))
	} else {
		why = append(why, fmt.Sprintf("no repository Secret has url %s", redactURL(repoURL)))
	}
	if !hasCredentials(out.Data) && want != "" {
		var best *RepoCred
		bestLen := 0
		for i := range creds {
			c := &creds[i]
			if c.Type != SecretTypeRepoCreds {
				continue
			}
			p := ArgoNormalizeURL(c.URL)
			if p != "" && strings.HasPrefix(want, p) && len(p) > bestLen {
				best, bestLen = c, len(p)
			}
		}
		if best != nil {
			out.Template = best.SecretName
			for _, k := range templateFill {
				if len(out.Data[k]) == 0 && len(best.Data[k]) > 0 {
					out.Data[k] = best.Data[k]
				}
			}
			for _, k := range templateOverwrite {
				out.Data[k] = best.Data[k]
			}
			why = append(why, fmt.Sprintf("credentials from repo-creds %s (longest url prefix %s)", best.SecretName, redactURL(best.URL)))
			if th, rh := OriginOf(best.URL), OriginOf(repoURL); th != "" && th != rh {
				out.TemplateOtherHost, out.TemplateURL = th, redactURL(best.URL)
				why = append(why, fmt.Sprintf("the template is for host %s, the repository is on %s", th, rh))
			}
		} else if out.Secret == "" || !hasCredentials(out.Data) {
			why = append(why, "no repo-creds url is a prefix of it: anonymous access")
		}
	}
	for _, k := range repoBools {
		if v := strings.TrimSpace(string(out.Data[k])); v != "" {
			if _, err := strconv.ParseBool(v); err != nil {
				out.Err = fmt.Errorf("field %s=%q of Secret %s is not a boolean: Argo CD cannot read the repository", k, v, firstName(out.Secret, out.Template))
			}
		}
	}
	out.Why = strings.Join(why, "; ")
	return out
}

func firstNonNil(a, b *RepoCred) *RepoCred {
	if a != nil {
		return a
	}
	return b
}

func firstName(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// IsArgoSSHURL reports whether Argo CD treats the URL as SSH: any
// user@host... without another scheme (giturl.IsSSH: Argo CD's IsSSHURL,
// case-sensitive as Argo CD's is).
func IsArgoSSHURL(u string) bool {
	_, ok := giturl.IsSSH(strings.TrimSpace(u))
	return ok
}

// ArgoNormalizeURL is Argo CD's git.NormalizeGitURL (giturl.ArgoNormalize):
// the whole URL lower-cased, scp form user@host:path as user@host/path,
// one trailing ".git" removed, a leading "ssh://" dropped; "" when it does
// not parse. A trailing "/", a port, the scheme and userinfo are kept, so
// URLs that differ in them are different repositories to Argo CD.
func ArgoNormalizeURL(raw string) string { return giturl.ArgoNormalize(raw) }

// OriginOf is the host and port a repository URL is fetched from, lower
// case, as far as credentials go (scp and ssh:// URLs and scheme-less OCI
// repositories included); "" when it does not parse.
func OriginOf(raw string) string {
	s := ArgoNormalizeURL(raw)
	if s == "" {
		return ""
	}
	if !strings.Contains(s, "://") {
		s = "ssh://" + s // Argo CD's normal form drops ssh://; a scheme-less OCI path parses the same
	}
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return u.Host
}

// HostOf is the host name of a repository URL, without port, as Argo CD
// keys argocd-tls-certs-cm (scheme-less and scp URLs included).
func HostOf(raw string) string {
	s := strings.TrimSpace(raw)
	if u, ok := giturl.Parse(s); ok && u.SCP && IsArgoSSHURL(s) {
		return u.Hostname()
	}
	if !strings.Contains(s, "://") {
		s = "dummy://" + s
	}
	u, ok := giturl.Parse(s)
	if !ok {
		return ""
	}
	return u.Hostname()
}

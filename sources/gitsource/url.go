package gitsource

import (
	"strings"

	"github.com/imgupd/imgupd/internal/giturl"
)

// NormalizeURL returns a repository URL in a form for comparison: userinfo
// removed, host lower-cased, trailing "/" and ".git" removed, and the
// scp-like SSH form "git@host:org/repo" rewritten as "ssh://host/org/repo".
// Scheme, port and path case are kept (paths are case-sensitive on most
// git hosts). Strings that do not parse as URLs are only trimmed.
func NormalizeURL(raw string) string {
	s := strings.TrimSpace(raw)
	p, ok := giturl.Parse(s)
	if ok && p.SCP {
		s = "ssh://" + p.Host + "/" + strings.TrimPrefix(p.Path, "/")
		p, ok = giturl.Parse(s)
	}
	if !ok || p.URL.Host == "" {
		return trimRepoSuffix(s)
	}
	u := p.URL
	u.User = nil
	u.Host = strings.ToLower(u.Host)
	u.Scheme = strings.ToLower(u.Scheme)
	u.RawQuery, u.Fragment, u.RawPath = "", "", ""
	u.Path = trimRepoSuffix(u.Path)
	return u.String()
}

func trimRepoSuffix(p string) string {
	for {
		q := strings.TrimSuffix(strings.TrimSuffix(p, "/"), ".git")
		if q == p {
			return p
		}
		p = q
	}
}

// SameRepo reports whether two URLs name the same repository after
// NormalizeURL: credentials, a trailing ".git" or "/" and host case do not
// matter; scheme does ("https://" and SSH URLs of one repository are
// different to Argo CD's credential matching, too).
func SameRepo(a, b string) bool { return NormalizeURL(a) == NormalizeURL(b) }

// RequiresSecureURL reports whether Image Updater's git:secret credentials
// cannot be used with this URL as written, because they need an https://
// or SSH URL (image-updater.md §10.2): with http://, git://, file:// or a
// local path Image Updater fails with "could not get creds for repo '...':
// unknown repository type". The test mirrors Argo CD's IsSSHURL and
// IsHTTPSURL, which are case-sensitive.
func RequiresSecureURL(raw string) bool {
	return !isArgoSSH(raw) && !strings.HasPrefix(raw, "https://")
}

// isArgoSSH is Argo CD's IsSSHURL (util/git), which Image Updater uses to
// choose SSH credentials.
func isArgoSSH(raw string) bool {
	_, ok := giturl.IsSSH(raw)
	return ok
}

// IsSSHURL reports whether Argo CD and Image Updater treat the URL as SSH
// (and so use sshPrivateKey): "git@host:org/repo" or "ssh://user@host/...".
// Argo CD's test needs a user: "ssh://host/repo" is not SSH to it.
func IsSSHURL(raw string) bool { return isArgoSSH(strings.TrimSpace(raw)) }

// CheckSecretURL returns an *Error of Kind UnsupportedURL when
// RequiresSecureURL(raw), else nil.
func CheckSecretURL(raw string) error {
	if !RequiresSecureURL(raw) {
		return nil
	}
	return &Error{Kind: UnsupportedURL, Op: "check URL", URL: redactURL(raw), Err: errNeedsSecureURL}
}

// redactURL removes userinfo (user names included: they may be tokens)
// from anything URL-shaped.
func redactURL(raw string) string { return giturl.Redact(raw) }

// Package giturl is the one parser of git repository URLs: git's scp-like
// SSH form ("git@host:org/repo") and URLs ("https://", "ssh://", ...),
// split once into a URL, and Argo CD's own reading of them (util/git:
// IsSSHURL, NormalizeGitURL, SameURL), which decides which credentials Argo
// CD and Image Updater use for a repository.
//
// It is pure (no I/O) and compiles its two patterns on first use.
package giturl

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/imgupd/imgupd/internal/lazyre"
)

// scpRE is git's scp-like SSH syntax "user@host:path" (checked only on a
// string without "://").
var scpRE = lazyre.New(`^([^@/:]+)@([^/:]+):(.*)$`)

// argoSSHRE is Argo CD's sshURLRegex (util/git/git.go), as Argo CD writes
// it: an optional "ssh://", a user, "@", and the rest with no other "@".
// It is case-sensitive, as Argo CD's is: "SSH://git@host/repo" is not SSH
// to Argo CD's IsSSHURL (NormalizeGitURL lower-cases before it asks).
var argoSSHRE = lazyre.New(`^(ssh://)?([^/:]*?)@[^@]+$`)

// URL is a git repository URL as written, split into its parts. The
// scp-like form has no *url.URL: it is not one (its ":" is not a port).
type URL struct {
	// SCP reports git's scp-like form "user@host:path"; User, Host and
	// Path are its parts as written.
	SCP bool
	// User is the scp form's user; for a URL, URL.User has it.
	User string
	// Host is the scp form's host as written, or the URL's host and port
	// (url.URL.Host).
	Host string
	// Path is the scp form's path after ":", or the URL's escaped path.
	Path string
	// URL is the parsed URL; nil for the scp form.
	URL *url.URL
}

// Parse splits raw, without its surrounding white space: the scp form
// when it has no "://", else url.Parse's reading (whose Host may be "": a
// local path). ok is false when neither reads it.
func Parse(raw string) (u URL, ok bool) {
	s := strings.TrimSpace(raw)
	if m := scpRE().FindStringSubmatch(s); m != nil && !strings.Contains(s, "://") {
		return URL{SCP: true, User: m[1], Host: m[2], Path: m[3]}, true
	}
	p, err := url.Parse(s)
	if err != nil {
		return URL{}, false
	}
	return URL{Host: p.Host, Path: p.EscapedPath(), URL: p}, true
}

// Hostname is the host without port or IPv6 brackets, as written.
func (u URL) Hostname() string {
	if u.SCP {
		return u.Host
	}
	return u.URL.Hostname()
}

// Redact removes userinfo (user names included: they may be tokens) from
// anything URL-shaped: the scp form as "host:path", a URL without its
// User, else everything up to the last "@" (after "://" if any).
func Redact(raw string) string {
	s := strings.TrimSpace(raw)
	u, ok := Parse(s)
	switch {
	case ok && u.SCP:
		return u.Host + ":" + u.Path
	case ok:
		u.URL.User = nil
		return u.URL.String()
	}
	if i := strings.Index(s, "://"); i >= 0 {
		if at := strings.LastIndex(s[i+3:], "@"); at >= 0 {
			return s[:i+3] + s[i+3+at+1:]
		}
		return s
	}
	if at := strings.LastIndex(s, "@"); at >= 0 {
		return s[at+1:]
	}
	return s
}

// IsSSH is Argo CD's IsSSHURL: whether Argo CD and Image Updater treat raw
// as SSH (and so use sshPrivateKey), and the user it names. Any
// "user@..." with no other scheme is SSH; "ssh://host/repo" without a user
// is not. raw is read as it is, case and white space included.
func IsSSH(raw string) (user string, ok bool) {
	m := argoSSHRE().FindStringSubmatch(raw)
	if m == nil {
		return "", false
	}
	return m[2], true
}

// ArgoNormalize is Argo CD's NormalizeGitURL: the whole URL trimmed and
// lower-cased, the scp form user@host:path as user@host/path, one trailing
// ".git" removed, a leading "ssh://" dropped; "" when it does not parse (or
// its port is not a number). A trailing "/", a port, the scheme and
// userinfo are kept, so URLs that differ in them are different
// repositories to Argo CD.
func ArgoNormalize(raw string) string {
	s := strings.ToLower(strings.TrimSpace(raw))
	if s == "" {
		return ""
	}
	if _, ssh := IsSSH(s); ssh && !strings.HasPrefix(s, "ssh://") {
		// The scp form's first ":" would parse as a port.
		s = "ssh://" + strings.Replace(s, ":", "/", 1)
	}
	s = strings.TrimSuffix(s, ".git")
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	if u.Port() != "" {
		if _, err := strconv.Atoi(u.Port()); err != nil {
			return ""
		}
	}
	return strings.TrimPrefix(u.String(), "ssh://")
}

// ArgoSameURL is Argo CD's SameURL: both normalise (ArgoNormalize, an
// unparsable URL kept as written) to the same non-empty string.
func ArgoSameURL(a, b string) bool {
	na, nb := allowInvalid(a), allowInvalid(b)
	return na != "" && nb != "" && na == nb
}

func allowInvalid(raw string) string {
	if n := ArgoNormalize(raw); n != "" {
		return n
	}
	return raw
}

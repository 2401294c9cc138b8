package forge

import (
	"net"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/imgupd/imgupd/internal/giturl"
	"github.com/imgupd/imgupd/internal/textutil"
)

// Repo is a repository on a recognised forge, as parsed from its git URL.
type Repo struct {
	Forge Forge `json:"forge"`
	// Host is the git host, lower-case, with the port when an http(s) URL
	// names a non-default one ("git.corp:8443"), IPv6 in brackets. SSH ports are dropped.
	Host string `json:"host"`
	// Owner is the user, organisation or workspace; on GitLab the whole
	// namespace, subgroups included ("group/sub").
	Owner string `json:"owner"`
	// Name is the repository (GitLab: project) name, without ".git".
	Name string `json:"name"`
	// APIURL is the forge's API base, without a trailing "/".
	APIURL string `json:"apiURL"`
}

// Path is "owner/name" (GitLab: "group/sub/project").
func (r Repo) Path() string { return r.Owner + "/" + r.Name }

// Recognise finds the forge serving repoURL and the repository's owner
// and name. It accepts https:// and http:// URLs, ssh:// (also git+ssh://,
// ssh+git://, git://) and the scp form "git@host:owner/repo.git"; it drops
// userinfo, the SSH port, a trailing "/" and ".git".
//
// configured entries are tried first, so a configured host wins over the
// built-in table (github.com, gitlab.com, bitbucket.org, codeberg.org); an
// entry that does not Validate is skipped. GitLab paths may have
// subgroups; on the other forges the path must be exactly owner/name.
// When the host is unknown, or the URL or its path is not a repository
// of that forge, ok is false and the caller should report the push
// check as not verified.
func Recognise(repoURL string, configured []Endpoint) (repo Repo, ok bool) {
	host, port, ssh, segs, ok := splitRepoURL(repoURL)
	if !ok {
		return Repo{}, false
	}
	ep, api, ok := findEndpoint(host, port, ssh, configured)
	if !ok {
		return Repo{}, false
	}
	switch ep.Kind {
	case GitLab:
		if len(segs) < 2 {
			return Repo{}, false
		}
		for _, s := range segs {
			if s == "-" { // GitLab's separator before UI routes: not a project path
				return Repo{}, false
			}
		}
	default:
		if len(segs) != 2 {
			return Repo{}, false
		}
	}
	n := len(segs) - 1
	return Repo{Forge: ep.Kind, Host: joinHost(host, port), Owner: strings.Join(segs[:n], "/"), Name: segs[n], APIURL: api}, true
}

// splitRepoURL returns the lower-case host, the http(s) port when it is not
// the scheme's default (else ""), whether the URL is SSH (or git://, whose
// port says nothing about the API's), and the path's segments with ".git"
// removed from the last one.
func splitRepoURL(raw string) (host, port string, ssh bool, segs []string, ok bool) {
	var path string
	p, parsed := giturl.Parse(raw)
	switch {
	case !parsed:
		return "", "", false, nil, false
	case p.SCP:
		host, path, ssh = p.Host, p.Path, true
	default:
		u := p.URL
		if u.Host == "" || u.Opaque != "" {
			return "", "", false, nil, false
		}
		switch strings.ToLower(u.Scheme) {
		case "https", "http":
			port = u.Port()
			if (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
				port = ""
			}
		case "ssh", "git+ssh", "ssh+git", "git":
			// The port is the SSH (or git daemon) port, not the API's.
			ssh = true
		default:
			return "", "", false, nil, false
		}
		host, path = p.Hostname(), p.Path
		if u.RawQuery != "" || u.Fragment != "" {
			return "", "", false, nil, false
		}
	}
	host = strings.ToLower(host)
	if host == "" || !validHost(host) || (port != "" && !allDigits(port)) {
		return "", "", false, nil, false
	}
	path = strings.Trim(path, "/")
	for {
		p := strings.TrimSuffix(strings.TrimSuffix(path, "/"), ".git")
		if p == path {
			break
		}
		path = p
	}
	for _, e := range strings.Split(path, "/") {
		seg, err := url.PathUnescape(e)
		if err != nil || !validSegment(seg) {
			return "", "", false, nil, false
		}
		segs = append(segs, seg)
	}
	return host, port, ssh, segs, true
}

func validHost(h string) bool {
	for _, r := range h {
		if r <= ' ' || textutil.IsHidden(r) || r == utf8.RuneError || strings.ContainsRune(`/\@?#[]%`, r) {
			return false
		}
	}
	return true
}

// validSegment rejects empty, relative and hidden-character segments (textutil.IsHidden: C0,
// DEL, C1, format characters such as bidi overrides, fillers; and bytes that are not UTF-8) and
// characters no forge allows in owner or repository names.
func validSegment(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		if r <= ' ' || textutil.IsHidden(r) || r == utf8.RuneError || strings.ContainsRune(`/\?#%:@"<>|*`, r) {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// findEndpoint picks the endpoint for host[:port]: a configured entry with
// that exact host and port; else a configured entry without a port for
// the host; else, for SSH URLs (whose port was dropped), a configured
// entry for the host on any port; else the built-in table (no ports).
func findEndpoint(host, port string, ssh bool, configured []Endpoint) (Endpoint, string, bool) {
	key, bare := joinHost(host, port), joinHost(host, "")
	var hostOnly *Endpoint
	var hostOnlyAPI string
	for i := range configured {
		ep := configured[i]
		api, err := ep.Validate()
		if err != nil {
			continue
		}
		h := normalHost(ep.Host)
		if h == key {
			return ep, api, true
		}
		if hostOnly != nil {
			continue
		}
		if (port != "" && h == bare) || (ssh && hostname(h) == host) {
			hostOnly, hostOnlyAPI = &configured[i], api
		}
	}
	if hostOnly != nil {
		return *hostOnly, hostOnlyAPI, true
	}
	if ep, ok := builtin[key]; ok {
		return ep, ep.APIURL, true
	}
	return Endpoint{}, "", false
}

// joinHost is host[:port], with IPv6 addresses in brackets either way, so
// that the result can stand in a URL.
func joinHost(host, port string) string {
	if port != "" {
		return net.JoinHostPort(host, port)
	}
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}

// normalHost is a configured host in joinHost's form, lower-case.
func normalHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if hn, port, err := net.SplitHostPort(h); err == nil {
		return joinHost(hn, port)
	}
	return joinHost(strings.Trim(h, "[]"), "")
}

// hostname is h without a ":port" (and without IPv6 brackets).
func hostname(h string) string {
	if hn, _, err := net.SplitHostPort(h); err == nil {
		return hn
	}
	return strings.Trim(h, "[]")
}

package gitsource

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/imgupd/imgupd/internal/netclass"
	"github.com/imgupd/imgupd/model/advice"
)

// Facts is what the failure says and which settings were in use, for the
// advice the engine gives (package advice): this package classifies, it
// does not advise.
func (e *Error) Facts() advice.Git {
	host, port := e.hostPort()
	f := advice.Git{Kind: string(e.Kind), URL: e.URL, Host: host, Port: port, SSH: isSSHRepo(e.URL), Branch: e.Branch,
		Status: e.Status, Proxy: e.Proxy,
		KnownHostsGiven: e.hint.knownHosts, CAGiven: e.hint.ca, CAReplaces: e.hint.caReplaces,
		ClientCert: e.hint.clientCert, ClientCertBad: e.hint.clientCertBad, RepoProxy: e.hint.repoProxy,
		NeedsSecureURL: errors.Is(e.Err, errNeedsSecureURL), BadKnownHosts: errors.Is(e.Err, errBadKnownHosts),
		SSHNotSOCKS: errors.Is(e.Err, errSSHNotSOCKS), BadProxy: errors.Is(e.Err, errBadProxy),
		TLS: netclass.TLSFactsOf(e.Err)}
	if e.Kind == TooLarge {
		f.Limit = fmt.Sprintf("%s", e.Limit)
	}
	return f
}

// isSSHRepo reports whether a redacted repository URL is SSH.
func isSSHRepo(u string) bool {
	return strings.HasPrefix(strings.ToLower(u), "ssh://") || !strings.Contains(u, "://")
}

// hostPort is the host (without port) and port of e.URL; the port is the
// scheme's default when the URL has none.
func (e *Error) hostPort() (host, port string) {
	s := e.URL
	if !strings.Contains(s, "://") {
		if h, _, ok := strings.Cut(s, ":"); ok && h != "" { // scp-like "host:path"
			return h, "22"
		}
		return s, "22"
	}
	u, err := url.Parse(s)
	if err != nil {
		return s, ""
	}
	port = u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80", "ssh": "22"}[strings.ToLower(u.Scheme)]
	}
	return u.Hostname(), port
}

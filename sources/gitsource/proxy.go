package gitsource

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"golang.org/x/net/http/httpproxy"
)

var (
	errBadProxy    = errors.New("the repository proxy is not a URL with a host (http://, https://, socks5:// or socks5h://)")
	errSSHNotSOCKS = errors.New("an SSH repository goes through its proxy as SOCKS5, so the proxy must be socks5:// or socks5h:// " +
		"(Argo CD's go-git fails with \"proxy: unknown scheme\")")
)

// parseProxy checks a repository proxy URL. The error never contains the
// URL (it may hold a password).
func parseProxy(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return nil, errBadProxy
	}
	switch u.Scheme {
	case "http", "https", "socks5", "socks5h":
		return u, nil
	}
	return nil, errBadProxy
}

// redactProxy is the proxy URL without userinfo, path or query:
// "http://proxy.corp:3128".
func redactProxy(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return "(unparsable proxy URL)"
	}
	return u.Scheme + "://" + u.Host
}

// httpProxyFunc is Argo CD's proxy.GetCallback for a set proxy: the same
// proxy for http and https, with noProxy as exceptions, by
// golang.org/x/net/http/httpproxy (which never proxies localhost or
// loopback addresses).
func httpProxyFunc(proxy, noProxy string) func(*http.Request) (*url.URL, error) {
	pf := (&httpproxy.Config{HTTPProxy: proxy, HTTPSProxy: proxy, NoProxy: noProxy}).ProxyFunc()
	return func(r *http.Request) (*url.URL, error) {
		u, err := pf(r.URL)
		if err != nil {
			return nil, errBadProxy // its text would quote the URL
		}
		return u, nil
	}
}

// sshProxyOptions is the go-git endpoint proxy for an SSH repository, as
// Argo CD's newClient sets it: the URL without userinfo, and the userinfo
// as SOCKS5 credentials.
func sshProxyOptions(raw string) (transport.ProxyOptions, error) {
	u, err := parseProxy(raw)
	if err != nil {
		return transport.ProxyOptions{}, err
	}
	if u.Scheme != "socks5" && u.Scheme != "socks5h" {
		return transport.ProxyOptions{}, errSSHNotSOCKS
	}
	o := transport.ProxyOptions{URL: u.Scheme + "://" + u.Host}
	if u.User != nil {
		o.Username = u.User.Username()
		o.Password, _ = u.User.Password()
	}
	return o, nil
}

// splitNoProxy is the non-empty entries of a NO_PROXY list.
func splitNoProxy(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// proxyStatusError is an HTTP proxy's non-200 answer to CONNECT, which
// net/http reports only as text; OnProxyConnectResponse makes it typed.
type proxyStatusError struct {
	Status int
	Text   string
}

func (e *proxyStatusError) Error() string {
	return fmt.Sprintf("the proxy answered CONNECT with %d %s", e.Status, e.Text)
}

// checkProxyConnect is the transport's OnProxyConnectResponse.
func checkProxyConnect(_ context.Context, _ *url.URL, _ *http.Request, res *http.Response) error {
	if res.StatusCode == http.StatusOK {
		return nil
	}
	return &proxyStatusError{Status: res.StatusCode, Text: http.StatusText(res.StatusCode)}
}

// socksFailure returns the SOCKS dialer's *net.OpError in err's chain
// (golang.org/x/net/proxy: "When the Op field of net.OpError contains
// "socks", the Source field contains a proxy server address"), or nil.
func socksFailure(err error) *net.OpError {
	for err != nil {
		var op *net.OpError
		if !errors.As(err, &op) {
			return nil
		}
		if strings.HasPrefix(op.Op, "socks ") {
			return op
		}
		err = op.Err
	}
	return nil
}

package gitsource

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	labgit "github.com/imgupd/imgupd/lab/git"

	"github.com/imgupd/imgupd/internal/netclass"
	"github.com/imgupd/imgupd/lab/loopback"
)

// corpHost is a name that resolves nowhere: only the test proxies (and
// the dialer of mapDialer) map it to 127.0.0.1, as a corporate proxy
// resolves internal names.
const corpHost = "git.corp.example"

func startProxy(t *testing.T, socks bool, opts ...labgit.ProxyOption) *labgit.Proxy {
	t.Helper()
	start := labgit.StartProxy
	if socks {
		start = labgit.StartSOCKS5Proxy
	}
	p, err := start(append([]labgit.ProxyOption{labgit.WithProxyHost(corpHost, "127.0.0.1")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	addr, err := loopback.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// mapDialer is an HTTP transport that dials corpHost at 127.0.0.1, for a
// direct (not proxied) connection to it.
func mapDialer() *http.Transport {
	var d net.Dialer
	return &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, port, err := net.SplitHostPort(addr); err == nil && host == corpHost {
			addr = net.JoinHostPort("127.0.0.1", port)
		}
		return d.DialContext(ctx, network, addr)
	}}
}

func portOf(t *testing.T, hostport string) string {
	t.Helper()
	_, port, err := net.SplitHostPort(hostport)
	if err != nil {
		t.Fatal(err)
	}
	return port
}

func TestHTTPSProxy(t *testing.T) {
	t.Parallel()
	lab := startLab(t, labgit.WithCertNames(corpHost), labgit.WithBasicAuth(writerUser, writerPass))
	target := net.JoinHostPort(corpHost, portOf(t, lab.Host))
	repo := "https://" + target + "/team/app.git"
	const proxyPass = "proxy-pass-51c2"
	p := startProxy(t, false, labgit.WithProxyAuth("px", proxyPass), labgit.WithProxyDeny("blocked.corp.example"))
	dead := "http://px:" + proxyPass + "@" + closedAddr(t)
	auth := func(proxy, noProxy string) Auth {
		return Auth{Username: writerUser, Password: writerPass, CAData: lab.CAPEM, CAReplacesSystemRoots: true, Proxy: proxy, NoProxy: noProxy}
	}
	ctx := context.Background()

	t.Run("through the proxy", func(t *testing.T) {
		c := newClient()
		a := auth(p.URLWithAuth(), "other.example,10.0.0.0/8")
		r, err := c.LsRemote(ctx, repo, a)
		if err != nil {
			t.Fatal(err)
		}
		if r.DefaultBranch != "main" {
			t.Errorf("remote = %+v", r)
		}
		if _, err := c.Snapshot(ctx, repo, "main", a); err != nil {
			t.Fatal(err)
		}
		if pc, err := c.CanPush(ctx, repo, a); err != nil || !pc.Allowed {
			t.Errorf("CanPush = %+v, %v", pc, err)
		}
		if !slices.Contains(p.Targets(), target) {
			t.Errorf("the proxy saw no CONNECT to %s: %v", target, p.Targets())
		}
	})
	t.Run("no proxy, the name does not resolve", func(t *testing.T) {
		_, err := New(WithTimeout(5e9)).LsRemote(ctx, repo, auth("", ""))
		if err == nil {
			t.Fatal("want error")
		}
	})
	t.Run("wrong proxy password", func(t *testing.T) {
		_, err := newClient().LsRemote(ctx, repo, auth("http://px:wrong-9d1@"+p.Host, ""))
		e := wantKind(t, err, netclass.Proxy)
		if e.Status != http.StatusProxyAuthRequired || e.Proxy != p.URL || strings.Contains(e.Error(), "wrong-9d1") {
			t.Errorf("error = %v (status %d, proxy %q)", e, e.Status, e.Proxy)
		}
		if !strings.Contains(adviceFor(e), "407") {
			t.Errorf("hint = %s", adviceFor(e))
		}
	})
	t.Run("host denied by the proxy", func(t *testing.T) {
		_, err := newClient().LsRemote(ctx, "https://blocked.corp.example/team/app.git", auth(p.URLWithAuth(), ""))
		if e := wantKind(t, err, netclass.Proxy); e.Status != http.StatusForbidden || !strings.Contains(adviceFor(e), "refused to tunnel") {
			t.Errorf("error = %v, hint %s", e, adviceFor(e))
		}
	})
	t.Run("proxy refuses connections", func(t *testing.T) {
		_, err := newClient().LsRemote(ctx, repo, auth(dead, ""))
		e := wantKind(t, err, netclass.Proxy)
		u, _ := url.Parse(dead)
		if e.Proxy != "http://"+u.Host || !strings.Contains(e.Error(), "(proxy http://"+u.Host+")") ||
			strings.Contains(e.Error(), proxyPass) || !strings.Contains(adviceFor(e), "http://"+u.Host) {
			t.Errorf("error = %v; hint %s", e, adviceFor(e))
		}
	})
	t.Run("noProxy bypasses the proxy", func(t *testing.T) {
		before := len(p.Targets())
		c := New(WithTimeout(20e9), WithHTTPClient(&http.Client{Transport: mapDialer()}))
		for _, noProxy := range []string{"corp.example", ".corp.example", corpHost, "10.0.0.1, " + target} {
			if _, err := c.LsRemote(ctx, repo, auth(dead, noProxy)); err != nil {
				t.Errorf("noProxy %q: %v", noProxy, err)
			}
		}
		if _, err := c.LsRemote(ctx, repo, auth(dead, "other.example")); err == nil {
			t.Error("noProxy other.example: the dead proxy was not used")
		}
		if after := len(p.Targets()); after != before {
			t.Errorf("proxy used: %v", p.Targets())
		}
	})
	t.Run("loopback is never proxied", func(t *testing.T) {
		// golang.org/x/net/http/httpproxy, which Argo CD uses, never
		// proxies localhost and loopback addresses.
		if _, err := newClient().LsRemote(ctx, lab.RepoURL("team/app"), auth(dead, "")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("environment proxy fails", func(t *testing.T) {
		u, _ := url.Parse("http://" + closedAddr(t))
		c := New(WithTimeout(20e9), WithTransport(&http.Transport{Proxy: http.ProxyURL(u)}))
		_, err := c.LsRemote(ctx, repo, Auth{InsecureSkipTLS: true})
		e := wantKind(t, err, netclass.Proxy)
		if e.Proxy != "" || !strings.Contains(e.Error(), u.Host) || !strings.Contains(adviceFor(e), "HTTPS_PROXY") {
			t.Errorf("error = %v; hint %s", e, adviceFor(e))
		}
	})
	t.Run("not a proxy URL", func(t *testing.T) {
		for _, bad := range []string{"http://px:" + proxyPass + "@", "ftp://proxy:21", "::"} {
			_, err := newClient().LsRemote(ctx, repo, auth(bad, ""))
			e := wantKind(t, err, netclass.Proxy)
			if !errors.Is(err, errBadProxy) || strings.Contains(e.Error(), proxyPass) {
				t.Errorf("%q: %v", bad, e)
			}
		}
	})
}

// TestHTTPProxyForward reads a plain-HTTP repository through the proxy,
// which forwards absolute-URL requests.
func TestHTTPProxyForward(t *testing.T) {
	t.Parallel()
	lab := authedLab(t)
	p := startProxy(t, false)
	target := net.JoinHostPort(corpHost, portOf(t, lab.Host))
	a := Auth{Username: writerUser, Password: writerPass, Proxy: p.URL}
	if _, err := newClient().Snapshot(context.Background(), "http://"+target+"/team/app.git", "main", a); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.Targets(), target) {
		t.Errorf("targets = %v", p.Targets())
	}
}

// TestSSHProxy tunnels SSH through a SOCKS5 proxy, as Argo CD does with a
// repository proxy for an SSH URL.
func TestSSHProxy(t *testing.T) {
	t.Parallel()
	lab := startLab(t)
	key := testSSHKey(t)
	srv := startSSH(t, lab, labgit.WithAuthorizedKey(publicKey(t, key)))
	const socksPass = "socks-pass-77e0"
	socks := startProxy(t, true, labgit.WithProxyAuth("px", socksPass))
	repo := srv.RepoURLAt(corpHost, "team/app")
	target := net.JoinHostPort(corpHost, portOf(t, srv.Addr))
	auth := func(proxy string) Auth {
		// NoProxy does not apply to SSH (Argo CD ignores it there).
		return Auth{SSHPrivateKey: key, KnownHosts: srv.KnownHostsFor(corpHost), Proxy: proxy, NoProxy: "corp.example"}
	}
	ctx := context.Background()

	t.Run("through the proxy", func(t *testing.T) {
		c := newClient()
		if _, err := c.LsRemote(ctx, repo, auth(socks.URLWithAuth())); err != nil {
			t.Fatal(err)
		}
		snap, err := c.Snapshot(ctx, repo, "main", auth(socks.URLWithAuth()))
		if err != nil {
			t.Fatal(err)
		}
		if !snap.Exists("README.md") || !slices.Contains(socks.Targets(), target) {
			t.Errorf("targets = %v", socks.Targets())
		}
	})
	t.Run("socks5h", func(t *testing.T) {
		if _, err := newClient().LsRemote(ctx, repo, auth(strings.Replace(socks.URLWithAuth(), "socks5:", "socks5h:", 1))); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("known hosts under the dialed name", func(t *testing.T) {
		a := auth(socks.URLWithAuth())
		a.KnownHosts = srv.KnownHosts() // [127.0.0.1]:PORT, not the name dialed
		_, err := newClient().LsRemote(ctx, repo, a)
		wantKind(t, err, HostKeyUnknown)
	})
	t.Run("wrong SOCKS5 password", func(t *testing.T) {
		_, err := newClient().LsRemote(ctx, repo, auth("socks5://px:wrong-3e7@"+socks.Host))
		e := wantKind(t, err, netclass.Proxy)
		if e.Proxy != socks.URL || strings.Contains(e.Error(), "wrong-3e7") {
			t.Errorf("error = %v", e)
		}
	})
	t.Run("proxy refuses connections", func(t *testing.T) {
		dead := closedAddr(t)
		_, err := newClient().LsRemote(ctx, repo, auth("socks5://px:"+socksPass+"@"+dead))
		e := wantKind(t, err, netclass.Proxy)
		if e.Proxy != "socks5://"+dead || strings.Contains(e.Error(), socksPass) || !strings.Contains(adviceFor(e), dead) {
			t.Errorf("error = %v; hint %s", e, adviceFor(e))
		}
	})
	t.Run("an HTTP proxy cannot carry SSH", func(t *testing.T) {
		_, err := newClient().LsRemote(ctx, repo, auth("http://px:"+socksPass+"@proxy.corp.example:3128"))
		e := wantKind(t, err, netclass.Proxy)
		if !errors.Is(err, errSSHNotSOCKS) || strings.Contains(e.Error(), socksPass) || !strings.Contains(adviceFor(e), "socks5://") {
			t.Errorf("error = %v; hint %s", e, adviceFor(e))
		}
	})
}

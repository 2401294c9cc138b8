package labgit

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/proxy"
)

func startProxyT(t *testing.T, socks bool, opts ...ProxyOption) *Proxy {
	t.Helper()
	start := StartProxy
	if socks {
		start = StartSOCKS5Proxy
	}
	p, err := start(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// TestHTTPProxy: the git CLI reaches an HTTPS repository under a name only
// the proxy resolves, through CONNECT with proxy credentials (Argo CD sets
// https_proxy for its git CLI); plain HTTP is forwarded; wrong credentials
// get 407 and denied hosts 403.
func TestHTTPProxy(t *testing.T) {
	t.Parallel()
	s := startT(t, WithCertNames("git.corp.example"))
	if err := s.CreateRepo("app", sampleSpec()); err != nil {
		t.Fatal(err)
	}
	plain := startT(t)
	if err := plain.CreateRepo("app", sampleSpec()); err != nil {
		t.Fatal(err)
	}
	p := startProxyT(t, false, WithProxyAuth("px", "pw"), WithProxyHost("git.corp.example", "127.0.0.1"), WithProxyDeny("blocked.corp.example"))
	if !strings.HasPrefix(p.URL, "http://127.0.0.1:") || p.URLWithAuth() != "http://px:pw@"+p.Host {
		t.Fatalf("URL %q, with auth %q", p.URL, p.URLWithAuth())
	}
	_, port, _ := net.SplitHostPort(s.Host)
	_, plainPort, _ := net.SplitHostPort(plain.Host)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, s.CAPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	env := []string{"https_proxy=" + p.URLWithAuth(), "http_proxy=" + p.URLWithAuth(), "GIT_SSL_CAINFO=" + caFile}
	if out, err := gitCLIEnv(t, dir, env, "ls-remote", "https://git.corp.example:"+port+"/app.git"); err != nil || !strings.Contains(out, "refs/heads/main") {
		t.Errorf("https through the proxy: %v\n%s", err, out)
	}
	if out, err := gitCLIEnv(t, dir, env, "ls-remote", "http://git.corp.example:"+plainPort+"/app.git"); err != nil || !strings.Contains(out, "refs/heads/main") {
		t.Errorf("http through the proxy: %v\n%s", err, out)
	}
	want := []string{"git.corp.example:" + port, "git.corp.example:" + plainPort}
	if got := p.Targets(); !slices.Contains(got, want[0]) || !slices.Contains(got, want[1]) {
		t.Errorf("targets = %v, want %v", got, want)
	}

	refused := p.Refused() // git's curl asks without credentials first
	get := func(proxyURL, target string) (int, error) {
		u, _ := url.Parse(proxyURL)
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(u), TLSClientConfig: tlsConfigFor(t, s.CAPEM),
			OnProxyConnectResponse: func(_ context.Context, _ *url.URL, _ *http.Request, res *http.Response) error {
				if res.StatusCode != http.StatusOK {
					return &statusError{res.StatusCode}
				}
				return nil
			}}}
		res, err := c.Get(target)
		if err != nil {
			var se *statusError
			if errors.As(err, &se) {
				return se.code, nil
			}
			return 0, err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, nil
	}
	if code, err := get("http://px:wrong@"+p.Host, "https://git.corp.example:"+port+"/app.git/info/refs?service=git-upload-pack"); code != http.StatusProxyAuthRequired {
		t.Errorf("wrong proxy password: %d, %v", code, err)
	}
	if code, err := get(p.URLWithAuth(), "https://blocked.corp.example:"+port+"/"); code != http.StatusForbidden {
		t.Errorf("denied host: %d, %v", code, err)
	}
	if p.Refused() != refused+2 {
		t.Errorf("refused = %d, want %d", p.Refused(), refused+2)
	}
}

type statusError struct{ code int }

func (e *statusError) Error() string { return http.StatusText(e.code) }

// TestSOCKS5Proxy: a SOCKS5 client (golang.org/x/net/proxy, as go-git's
// SSH transport uses) reaches the SSH server under a mapped name with the
// proxy's credentials, and is refused with wrong ones or a denied host.
func TestSOCKS5Proxy(t *testing.T) {
	t.Parallel()
	s := startT(t)
	srv, err := s.StartSSH()
	if err != nil {
		t.Fatal(err)
	}
	p := startProxyT(t, true, WithProxyAuth("px", "pw"), WithProxyHost("git.corp.example", "127.0.0.1"), WithProxyDeny("blocked.corp.example"))
	if !strings.HasPrefix(p.URL, "socks5://127.0.0.1:") {
		t.Fatalf("URL = %q", p.URL)
	}
	dial := func(user, pass, target string) error {
		d, err := proxy.SOCKS5("tcp", p.Host, &proxy.Auth{User: user, Password: pass}, proxy.Direct)
		if err != nil {
			return err
		}
		c, err := d.Dial("tcp", target)
		if err != nil {
			return err
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		banner := make([]byte, 14)
		if _, err := io.ReadFull(c, banner); err != nil {
			return err
		}
		if string(banner) != "SSH-2.0-labgit" {
			t.Errorf("banner = %q", banner)
		}
		return nil
	}
	target := "git.corp.example:" + srv.Addr[strings.LastIndex(srv.Addr, ":")+1:]
	if err := dial("px", "pw", target); err != nil {
		t.Fatal(err)
	}
	if err := dial("px", "wrong", target); err == nil {
		t.Error("wrong password accepted")
	}
	if err := dial("px", "pw", "blocked.corp.example:22"); err == nil {
		t.Error("denied host accepted")
	}
	if got := p.Targets(); len(got) != 2 || got[0] != target {
		t.Errorf("targets = %v", got)
	}
	if p.Refused() != 2 {
		t.Errorf("refused = %d", p.Refused())
	}
}

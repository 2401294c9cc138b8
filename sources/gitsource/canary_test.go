package gitsource

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	labgit "github.com/imgupd/imgupd/lab/git"
	"github.com/imgupd/imgupd/model/updater"
)

const (
	canaryPass       = "CANARY-pass-7731"
	canaryURLPass    = "CANARY-url-5521"
	canaryPassphrase = "CANARY-phrase-9912"
	canaryProxyPass  = "CANARY-proxy-6630"
	canaryClientKey  = "CANARY-clientkey-4471"
)

// TestCanarySecrets runs failing and succeeding operations with secrets in
// every place they can be given and checks no printed form holds one.
func TestCanarySecrets(t *testing.T) {
	t.Parallel()
	lab := startLab(t, labgit.WithBasicAuth(writerUser, writerPass), labgit.WithReadOnlyUser(readerUser, canaryPass))
	tlsLab := startLab(t, labgit.WithTLS())
	certLab := startLab(t, labgit.WithClientCertRequired())
	clientCert, clientKey, err := certLab.IssueClientCert("canary")
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := labgit.StartProxy(labgit.WithProxyAuth("px", "other-password"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	sshKey := testSSHKey(t)
	sshSrv := startSSH(t, lab, labgit.WithAuthorizedKey(publicKey(t, sshKey)))
	deadProxy := closedAddr(t)
	// A server that echoes the credentials it gets into its error bodies.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		status := map[string]int{"/401.git": 401, "/403.git": 403, "/404.git": 404}[strings.TrimSuffix(r.URL.Path, "/info/refs")]
		if status == 0 {
			status = 500
		}
		w.Header().Set("WWW-Authenticate", "Basic")
		http.Error(w, fmt.Sprintf("bad credentials %s:%s (%s)", u, p, r.Header.Get("Authorization")), status)
	}))
	t.Cleanup(echo.Close)

	key := testSSHKey(t)
	secrets := []string{canaryPass, canaryURLPass, canaryPassphrase, canaryProxyPass, canaryClientKey}
	for _, k := range []string{key.Reveal(), sshKey.Reveal(), string(clientKey)} {
		for _, line := range strings.Split(k, "\n") {
			if len(line) > 20 && !strings.HasPrefix(line, "-----") {
				secrets = append(secrets, line)
			}
		}
	}
	withCert := func(key string) Auth {
		return Auth{CAData: certLab.CAPEM, CAReplacesSystemRoots: true, TLSClientCert: clientCert, TLSClientKey: updater.Secret(key)}
	}
	withProxy := func(proxyURL string) Auth {
		return Auth{Username: "bot", Password: canaryPass, InsecureSkipTLS: true, Proxy: proxyURL, NoProxy: "none.example"}
	}
	full := Auth{Username: "bot", Password: canaryPass, SSHPrivateKey: key, SSHKeyPassphrase: canaryPassphrase}
	withURL := func(base, path string) string {
		return strings.Replace(base, "://", "://bot:"+canaryURLPass+"@", 1) + path
	}

	var printed []string
	record := func(vals ...any) {
		for _, v := range vals {
			printed = append(printed, fmt.Sprintf("%v|%+v|%#v|%s", v, v, v, v))
			if b, err := json.Marshal(v); err == nil {
				printed = append(printed, string(b))
			}
		}
	}
	recordErr := func(err error) {
		if err == nil {
			return
		}
		record(err)
		if e, ok := err.(*Error); ok {
			printed = append(printed, adviceFor(e), e.URL)
		}
	}

	ctx := context.Background()
	c := newClient()
	for _, tc := range []struct {
		url  string
		auth Auth
	}{
		{lab.RepoURL("team/app"), Auth{Username: writerUser, Password: canaryPass}},                             // AuthFailed
		{withURL(lab.URL, "/team/app.git"), Auth{}},                                                             // URL userinfo, AuthFailed
		{withURL(lab.URL, "/team/missing.git"), Auth{}},                                                         // URL userinfo
		{withURL("https://git.invalid", "/team/app.git"), full},                                                 // DNS
		{tlsLab.RepoURL("team/app"), full},                                                                      // TLS
		{withURL(tlsLab.URL, "/team/app.git"), Auth{}},                                                          // TLS, URL userinfo
		{echo.URL + "/401.git", full},                                                                           // echoed in 401 body
		{echo.URL + "/403.git", full},                                                                           // echoed in 403 body
		{echo.URL + "/404.git", full},                                                                           // echoed in 404 body
		{echo.URL + "/500.git", full},                                                                           // echoed in 500 body
		{withURL("file://", "/tmp/x.git"), full},                                                                // UnsupportedURL
		{"ssh://git@127.0.0.1:1/x.git", Auth{SSHPrivateKey: "garbage " + canaryPass}},                           // bad key
		{"ssh://git@127.0.0.1:1/x.git", Auth{SSHPrivateKey: key, SSHKeyPassphrase: canaryPassphrase}},           // wrong passphrase use
		{certLab.RepoURL("team/app"), withCert(string(clientKey))},                                              // client certificate: success
		{certLab.RepoURL("team/app"), withCert(canaryClientKey)},                                                // invalid key: TLS refused
		{certLab.RepoURL("team/app"), withCert("-----BEGIN EC PRIVATE KEY-----\n" + canaryClientKey)},           // invalid PEM key
		{"https://git.corp.example/team/app.git", withProxy("http://px:" + canaryProxyPass + "@" + deadProxy)},  // proxy refused
		{"https://git.corp.example/team/app.git", withProxy("http://px:" + canaryProxyPass + "@" + proxy.Host)}, // 407
		{"https://git.corp.example/team/app.git", withProxy("http://px:" + canaryProxyPass + "@[bad")},          // not a URL
		{"https://git.corp.example/team/app.git", withProxy("http://px:" + canaryProxyPass + "@")},              // no host
		{sshSrv.RepoURLAt("git.corp.example", "team/app"), Auth{SSHPrivateKey: sshKey, KnownHosts: sshSrv.KnownHostsFor("git.corp.example"),
			Proxy: "socks5://px:" + canaryProxyPass + "@" + deadProxy}}, // SOCKS5 refused
		{sshSrv.RepoURL("team/app"), Auth{SSHPrivateKey: sshKey, Proxy: "http://px:" + canaryProxyPass + "@proxy:3128"}}, // not SOCKS5
		{sshSrv.RepoURL("team/app"), Auth{SSHPrivateKey: sshKey, KnownHosts: []byte{}}},                                  // host key unknown
		{sshSrv.RepoURL("team/app"), Auth{SSHPrivateKey: sshKey, KnownHosts: sshSrv.KnownHosts()}},                       // success
	} {
		_, err := c.LsRemote(ctx, tc.url, tc.auth)
		recordErr(err)
		_, err = c.Snapshot(ctx, tc.url, "main", tc.auth)
		recordErr(err)
		pc, err := c.CanPush(ctx, tc.url, tc.auth)
		recordErr(err)
		record(pc, tc.auth)
	}
	pc, err := c.CanPush(ctx, lab.RepoURL("team/app"), Auth{Username: readerUser, Password: canaryPass})
	if err != nil || pc.Allowed {
		t.Fatalf("read-only CanPush = %+v, %v", pc, err)
	}
	record(pc, c.Stats(), full, &full, withCert(canaryClientKey), withProxy("http://px:"+canaryProxyPass+"@proxy:3128"))
	recordErr(CheckSecretURL(withURL("http://git.example.com", "/team/app.git")))

	if len(printed) < 80 {
		t.Fatalf("only %d printed forms", len(printed))
	}
	for _, p := range printed {
		for _, s := range secrets {
			if strings.Contains(p, s) {
				t.Errorf("secret %.12q… printed in: %s", s, p)
			}
		}
	}
}

var _ updater.Secret = canaryPass

package forge_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"
	"sync"
	"testing"

	labforge "github.com/imgupd/imgupd/lab/forge"
	"github.com/imgupd/imgupd/model/advice"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/sources/forge"
)

const (
	appID          = 123456
	installationID = 987654
)

var (
	keysOnce sync.Once
	appKey   *rsa.PrivateKey
	otherKey *rsa.PrivateKey
)

// testKeys generates the App's key and an unrelated one once per run
// (RSA generation is the slow part of these tests).
func testKeys(t *testing.T) (*rsa.PrivateKey, *rsa.PrivateKey) {
	t.Helper()
	keysOnce.Do(func() {
		var err error
		if appKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
		if otherKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
	})
	return appKey, otherKey
}

func pemPKCS1(k *rsa.PrivateKey) updater.Secret {
	return updater.Secret(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
}

func pemPKCS8(t *testing.T, k *rsa.PrivateKey) updater.Secret {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return updater.Secret(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// keyMaterial are the base64 lines of a PEM key, none of which may ever
// be printed.
func keyMaterial(k updater.Secret) []string {
	var out []string
	for _, l := range strings.Split(k.Reveal(), "\n") {
		if len(l) > 20 && !strings.HasPrefix(l, "-----") {
			out = append(out, l)
		}
	}
	return out
}

func appLab(t *testing.T) (*labforge.Server, *forge.Client) {
	key, _ := testKeys(t)
	cfg := labConfig()
	cfg.Apps = []labforge.App{{ID: appID, InstallationID: installationID, PublicKey: &key.PublicKey,
		Token: labforge.Token{Repos: []string{ghRepo}, Push: true, NoPermissions: true}}}
	return startLab(t, cfg)
}

func TestGitHubAppTokenRoundTrip(t *testing.T) {
	t.Parallel()
	key, _ := testKeys(t)
	lab, c := appLab(t)
	ctx := context.Background()
	for _, pk := range []updater.Secret{pemPKCS1(key), pemPKCS8(t, key)} {
		tok, err := c.GitHubAppToken(ctx, lab.GitHubAPI()+"/", appID, installationID, pk)
		if err != nil {
			t.Fatalf("GitHubAppToken: %v", err)
		}
		if !strings.HasPrefix(tok.Reveal(), "ghs_") || fmt.Sprint(tok) != "***" {
			t.Fatalf("token %v: want a masked ghs_ token", tok)
		}
		// The minted token works for the push check, as Argo CD's git would
		// use it (username x-access-token).
		p, err := c.BranchProtection(ctx, "https://"+ghesHost+"/"+ghRepo, "dev",
			updater.Credentials{Username: forge.GitHubAppUsername, Password: tok})
		if err != nil {
			t.Fatalf("BranchProtection with the App token: %v", err)
		}
		if p.Verdict != forge.PushNotBlocked || p.CanPush != nil {
			t.Errorf("verdict %s canPush %v, want PushNotBlocked and no push answer", p.Verdict, p.CanPush)
		}
	}
	var posts int
	for _, r := range lab.Requests() {
		if r.Dialect == "github-app" {
			posts++
			if r.Method != "POST" || r.Path != fmt.Sprintf("/api/v3/app/installations/%d/access_tokens", installationID) ||
				r.Auth != "Bearer" || r.Accept != "application/vnd.github.v3+json" || r.Status != 201 {
				t.Errorf("token request %+v", r)
			}
		}
	}
	if posts != 2 {
		t.Errorf("%d token requests, want 2", posts)
	}
}

func TestGitHubAppTokenFailures(t *testing.T) {
	t.Parallel()
	key, other := testKeys(t)
	lab, c := appLab(t)
	ctx := context.Background()
	good, wrong := pemPKCS1(key), pemPKCS1(other)
	for _, tc := range []struct {
		name    string
		app     int64
		inst    int64
		key     updater.Secret
		want    forge.Kind
		request bool
	}{
		{"wrong key", appID, installationID, wrong, forge.Unauthorized, true},
		{"wrong app id", appID + 1, installationID, good, forge.Unauthorized, true},
		{"wrong installation", appID, installationID + 1, good, forge.NotFound, true},
		{"garbage key", appID, installationID, updater.Secret("-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n-----END RSA PRIVATE KEY-----\n"), forge.InvalidKey, false},
		{"not PEM", appID, installationID, updater.Secret("CANARY-not-a-key-material-123456"), forge.InvalidKey, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := c.GitHubAppToken(ctx, lab.GitHubAPI(), tc.app, tc.inst, tc.key)
			fe := wantKind(t, err, tc.want)
			if tok != "" {
				t.Error("a token came with the error")
			}
			if (fe.URL != "") != tc.request {
				t.Errorf("URL %q, request made: %t", fe.URL, tc.request)
			}
			if advice.ForForge(fe.Facts()) == "" {
				t.Error("no hint")
			}
			printed := fmt.Sprintf("%v|%+v|%#v|%s|%s", err, err, err, advice.ForForge(fe.Facts()), fe.Error())
			for _, m := range append(keyMaterial(tc.key), "CANARY-not-a-key") {
				if strings.Contains(printed, m) {
					t.Errorf("key material printed: %s", printed)
				}
			}
			if strings.Contains(printed, "eyJ") { // a JWT's header
				t.Errorf("JWT printed: %s", printed)
			}
		})
	}
}

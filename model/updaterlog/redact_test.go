package updaterlog

import (
	"strings"
	"testing"
)

// canary is a secret that must never survive Redact.
const canary = "Canary7s3cr3tXyZ"

func TestRedactCanary(t *testing.T) {
	inputs := []string{
		`https://bot:` + canary + `@git.acme.io/deploy.git`,
		`ssh://` + canary + `@git.acme.io/deploy.git`,
		`https://x-access-token:` + canary + `@github.com/acme/deploy`,
		`Authorization: Bearer ` + canary,
		`authorization=Basic ` + canary,
		`"Authorization":"Bearer ` + canary + `"`,
		`header Bearer ` + canary + `.more`,
		`password=` + canary,
		`password="` + canary + ` with space"`,
		`password: ` + canary,
		`{"username":"bot","password":"` + canary + `","auth":"` + canary + `"}`,
		`msg="pull secret {\"auths\":{\"ghcr.io\":{\"password\":\"` + canary + `\"}}}"`,
		`token=` + canary,
		`access_token=` + canary + `&scope=repository:a:pull`,
		`https://auth.docker.io/token?account=bot&refresh_token=` + canary,
		`githubAppPrivateKey: ` + canary,
		`client_secret='` + canary + `'`,
		`api_key=` + canary,
		`-----BEGIN OPENSSH PRIVATE KEY-----\n` + canary + `\n-----END OPENSSH PRIVATE KEY-----`,
		`-----BEGIN RSA PRIVATE KEY-----` + canary, // truncated line
		`Invalid credential reference specified: bot:` + canary,
		`Invalid credential reference specified: ghcr.io=bot:` + canary,
	}
	for _, in := range inputs {
		got := Redact(in)
		if strings.Contains(got, canary) {
			t.Errorf("Redact(%q) = %q leaks the canary", in, got)
		}
		if Redact(got) != got {
			t.Errorf("Redact not idempotent on %q: %q then %q", in, got, Redact(got))
		}
	}
	// Known token shapes, without any key around them.
	for _, tok := range []string{
		"ghp_" + strings.Repeat("a1B2", 9),
		"github_pat_" + strings.Repeat("x9", 20),
		"glpat-" + strings.Repeat("Zz", 10),
		"xoxb-1234567890-abcdefghij",
		"AKIA" + strings.Repeat("Q", 16),
		"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJib3QifQ.c2lnbmF0dXJlLXNpZw",
	} {
		if got := Redact("value " + tok + " end"); strings.Contains(got, tok) {
			t.Errorf("token %q not masked: %q", tok, got)
		}
	}
}

func TestRedactKeepsEvidence(t *testing.T) {
	for _, s := range []string{
		`time="2026-11-29T10:00:00Z" level=error msg="Could not get tags from registry: unauthorized: authentication required" application=argocd/web image_name=ghcr.io/acme/web`,
		`Could not fetch credentials: no valid auth entry for registry https://registry-1.docker.io found in image pull secret`,
		`Invalid credential reference specified: pullsecret:argocd/regcred`,
		`Invalid credential reference specified: ghcr.io=secret:argocd/creds#token`,
		`Get "https://ghcr.io/v2/acme/web/tags/list": no basic auth credentials`,
		`https://ghcr.io/token?scope=repository:acme/web:pull&service=ghcr.io`,
		`Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=1`,
	} {
		if got := Redact(s); got != s {
			t.Errorf("Redact changed evidence:\n in %q\nout %q", s, got)
		}
	}
}

func TestRedactShape(t *testing.T) {
	tests := map[string]string{
		`https://bot:pw@git.acme.io/x.git`:           `https://***@git.acme.io/x.git`,
		`Authorization: Bearer abc.def`:              `Authorization: Bearer ***`,
		`password="a b" user=bot`:                    `password="***" user=bot`,
		`{"password":"p","user":"bot"}`:              `{"password":"***","user":"bot"}`,
		`msg="x \"token\":\"t\" y"`:                  `msg="x \"token\":\"***\" y"`,
		`Invalid credential reference specified: ab`: `Invalid credential reference specified: ***`,
	}
	for in, want := range tests {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLineRedacted(t *testing.T) {
	raw := `time="2026-11-29T10:00:00Z" level=error msg="Could not update application spec: Get \"https://bot:` + canary + `@git.acme.io/x.git\": denied" application=argocd/web password=` + canary
	l := ParseString(raw)[0]
	r := l.Redacted()
	for _, s := range []string{r.Raw, r.Msg, r.Fields["password"]} {
		if strings.Contains(s, canary) {
			t.Errorf("leak: %q", s)
		}
	}
	if r.Fields["application"] != "argocd/web" || r.Level != LevelError {
		t.Errorf("evidence lost: %+v", r)
	}
	if !strings.Contains(l.Raw, canary) {
		t.Error("Redacted changed the original line")
	}
	m, _ := Classify(l)
	e := Event{Line: l, Match: m}.Redacted()
	if strings.Contains(e.Captures[CaptureError], canary) {
		t.Errorf("capture leak: %q", e.Captures[CaptureError])
	}

	ref := ParseString(`level=warning msg="Invalid credential reference specified: bot:` + canary + `"`)[0]
	m, _ = Classify(ref)
	if e := (Event{Line: ref, Match: m}).Redacted(); strings.Contains(e.Captures["reference"], canary) {
		t.Errorf("reference capture leak: %q", e.Captures["reference"])
	}
}

// TestRedactGaps: secret=, pw=, -p S3cret, the second word of
// "password: a b" and a password with an @ in a URL are masked.
func TestRedactGaps(t *testing.T) {
	tests := map[string]string{
		`secret=` + canary:                                `secret=***`,
		`webhook secret: ` + canary:                       `webhook secret: ***`,
		`pw=` + canary + ` user=bot`:                      `pw=*** user=bot`,
		`user=bot pass=` + canary:                         `user=bot pass=***`,
		`docker login -u bot -p ` + canary + ` ghcr.io`:   `docker login -u bot -p *** ghcr.io`,
		`git-credential --password ` + canary:             `git-credential --password ***`,
		`cli --token=` + canary + ` --verbose`:            `cli --token=*** --verbose`,
		`password: a ` + canary:                           `password: ***`,
		`msg="password: a ` + canary + `" user=bot`:       `msg="password: ***" user=bot`,
		"password: a " + canary + "\nnext line":           "password: ***\nnext line",
		`https://u:p@` + canary + `@git.acme.io/x.git`:    `https://***@git.acme.io/x.git`,
		`https://bot:ab/` + canary + `@git.acme.io/x.git`: `https://***@git.acme.io/x.git`,
		`clone "https://bot:` + canary + `@h/x" failed`:   `clone "https://***@h/x" failed`,
		`a://b@c://d:` + canary + `@f/g`:                  `a://***@f/g`,
		`{"password": "a ` + canary + `", "user": "bot"}`: `{"password": "***", "user": "bot"}`,
		`pull_secret=secret:argocd/creds#token x=1`:       `pull_secret=secret:argocd/creds#token x=1`,
	}
	for in, want := range tests {
		got := Redact(in)
		if got != want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

// TestRedactKeepsHarmlessText: tags, image names, digests, credential
// references and words that only contain a secret keyword stay.
func TestRedactKeepsHarmlessText(t *testing.T) {
	for _, s := range []string{
		`Setting new image to ghcr.io/acme/web:v1.2.3-p1`,
		`time="2026-11-29T10:00:00Z" level=info msg="Successfully updated image 'ghcr.io/acme/web:1.2.3' to 'ghcr.io/acme/web:1.2.4'" image_digest=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef`,
		`image ghcr.io/acme/web@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef is live`,
		`GET https://ghcr.io/v2/acme/web/manifests/sha256:0123456789abcdef: 404`,
		`https://registry.npmjs.org/@scope/pkg`,
		`method: git:secret:argocd/git-creds`,
		`pullSecret: pullsecret:argocd/regcred`,
		`commonUpdateSettings.pullSecret namespace 'team' differs from app namespace 'argocd'`,
		`secretName: regcred bypass=1 pwm=2 passthrough: yes`,
		`kubectl -n argocd get pods -o wide`,
		`pull_secret=pullsecret:argocd/regcred`,
	} {
		if got := Redact(s); got != s {
			t.Errorf("Redact changed harmless text:\n in %q\nout %q", s, got)
		}
		if l := ParseString(`level=info msg=x pull_secret=pullsecret:argocd/regcred`)[0].Redacted(); l.Fields["pull_secret"] != "pullsecret:argocd/regcred" {
			t.Errorf("a credential reference under a secret-like key was masked: %q", l.Fields["pull_secret"])
		}
	}
}

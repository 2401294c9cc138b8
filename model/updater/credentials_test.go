package updater

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestParseCredentialRefAccepts(t *testing.T) {
	tests := []struct {
		in    string
		want  CredentialRef
		note  string // substring of a Note, "" = no notes
		canon string
	}{
		{"pullsecret:argocd/hub", CredentialRef{Kind: CredPullSecret, Namespace: "argocd", Name: "hub", Field: ".dockerconfigjson"}, "", "pullsecret:argocd/hub"},
		{"PullSecret:argocd/hub", CredentialRef{Kind: CredPullSecret, Namespace: "argocd", Name: "hub", Field: ".dockerconfigjson"}, "", "pullsecret:argocd/hub"},
		{"ghcr.io=pullsecret:ns/n", CredentialRef{Registry: "ghcr.io", Kind: CredPullSecret, Namespace: "ns", Name: "n", Field: ".dockerconfigjson"}, "is ignored", "ghcr.io=pullsecret:ns/n"},
		{"https://ghcr.io=pullsecret:ns/n", CredentialRef{Registry: "https://ghcr.io", Kind: CredPullSecret, Namespace: "ns", Name: "n", Field: ".dockerconfigjson"}, "is ignored", "https://ghcr.io=pullsecret:ns/n"},
		{"secret:ns/n#creds", CredentialRef{Kind: CredSecret, Namespace: "ns", Name: "n", Field: "creds"}, "", "secret:ns/n#creds"},
		{"SECRET:ns/n#creds", CredentialRef{Kind: CredSecret, Namespace: "ns", Name: "n", Field: "creds"}, "", "secret:ns/n#creds"},
		{"env:REGISTRY_CREDS", CredentialRef{Kind: CredEnv, Env: "REGISTRY_CREDS"}, "", "env:REGISTRY_CREDS"},
		{"env:my-var", CredentialRef{Kind: CredEnv, Env: "my-var"}, "not a usual environment variable", "env:my-var"},
		{"ext:/app/scripts/ecr.sh", CredentialRef{Kind: CredExt, Path: "/app/scripts/ecr.sh"}, "", "ext:/app/scripts/ecr.sh"},
		// Upstream accepts these at parse time; they fail later.
		{"ext:scripts/ecr.sh", CredentialRef{Kind: CredExt, Path: "scripts/ecr.sh"}, "not absolute", "ext:scripts/ecr.sh"},
		{"pullsecret:ns/name#field", CredentialRef{Kind: CredPullSecret, Namespace: "ns", Name: "name#field", Field: ".dockerconfigjson"}, "takes no #field", "pullsecret:ns/name#field"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseCredentialRef(tt.in)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			tt.want.Raw = tt.in
			if got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
			if got.String() != tt.canon {
				t.Errorf("String() = %q, want %q", got.String(), tt.canon)
			}
			notes := got.Notes()
			if tt.note == "" && len(notes) > 0 {
				t.Errorf("unexpected notes %q", notes)
			}
			if tt.note != "" && !regAnyContains(notes, tt.note) {
				t.Errorf("notes %q lack %q", notes, tt.note)
			}
		})
	}
}

func TestParseCredentialRefRejects(t *testing.T) {
	tests := []struct {
		in       string
		part     string
		fix      string // substring
		upstream string // exact
	}{
		{"argocd/hub", "type", "write pullsecret:argocd/hub", "invalid credential spec: argocd/hub"},
		{"hub", "type", "pullsecret:<namespace>/hub", "invalid credential spec: hub"},
		{"MY_CREDS", "type", "env:MY_CREDS", "invalid credential spec: MY_CREDS"},
		{"/opt/creds.sh", "type", "ext:/opt/creds.sh", "invalid credential spec: /opt/creds.sh"},
		{"ns/n#f", "type", "secret:ns/n#f", "invalid credential spec: ns/n#f"},
		{":x", "type", "before the value", "invalid credential spec: :***"},
		{"pullsecret:", "value", "pullsecret:<namespace>/<name>", "invalid credential spec: pullsecret:"},
		{"ext:/opt/a:b", "value", "may not contain ':'", "invalid credential spec: ext:/opt/a:b"},
		{"secret:ns/n", "field", "secret:ns/n#<field>", "invalid secret definition: ns/n"},
		{"secret:ns/n#a#b", "field", "single #", "invalid secret definition: ns/n#a#b"},
		{"secret:#f", "name", "secret:<namespace>/<name>#f", "invalid secret definition: #f"},
		{"secret:ns/n#", "field", "secret:ns/n#<field>", "invalid secret definition: ns/n#"},
		{"secret:n#f", "namespace", "secret:<namespace>/n#f", "invalid secret definition: n#f"},
		{"pullsecret:hub", "namespace", "pullsecret:<namespace>/hub", "invalid secret definition: hub"},
		{"pullsecret:a/b/c", "name", "<namespace>/<name>", "invalid secret definition: a/b/c"},
		{"pullsecret:/b", "namespace", "pullsecret:<namespace>/b", "invalid secret definition: /b"},
		{"pullsecret:a/", "name", "pullsecret:a/<name>", "invalid secret definition: a/"},
		{"pull-secret:a/b", "type", "write pullsecret:", "unknown credential source: pull-secret"},
		{"vault:a/b", "type", "no literal credentials", "unknown credential source: vault"},
		{"=pullsecret:a/b", "registry", "drop the '='", "unknown credential source: =pullsecret"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParseCredentialRef(tt.in)
			var e *CredentialRefError
			if !errors.As(err, &e) {
				t.Fatalf("want *CredentialRefError, got %T %v", err, err)
			}
			if e.Part != tt.part {
				t.Errorf("part = %q, want %q (%v)", e.Part, tt.part, e)
			}
			if !strings.Contains(e.Fix, tt.fix) {
				t.Errorf("fix %q lacks %q", e.Fix, tt.fix)
			}
			if e.Upstream != tt.upstream {
				t.Errorf("upstream = %q, want %q", e.Upstream, tt.upstream)
			}
		})
	}
}

func TestParseCredentialRefMasksLiteralPasswords(t *testing.T) {
	const pw = "hunter2-canary"
	for _, in := range []string{"admin:" + pw, "admin:" + pw + ":x", "reg.io=admin:" + pw} {
		t.Run(in, func(t *testing.T) {
			_, err := ParseCredentialRef(in)
			if err == nil {
				t.Fatal("accepted a literal user:password")
			}
			var e *CredentialRefError
			errors.As(err, &e)
			for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), e.Upstream, e.Input} {
				if strings.Contains(s, pw) {
					t.Errorf("leaked the value: %s", s)
				}
			}
		})
	}
}

func TestCheckSecretNamespace(t *testing.T) {
	tests := []struct {
		name   string
		ref    string
		appNS  string
		level  CredentialLevel
		v      Version
		reject bool
		errNS  string
	}{
		{"other namespace v1.3", "pullsecret:argocd/hub", "team", CredLevelImage, V1_3, true, "argocd"},
		{"other namespace head", "pullsecret:argocd/hub", "team", CredLevelImage, headV13, true, "argocd"},
		{"other namespace v1.2 allowed", "pullsecret:argocd/hub", "team", CredLevelImage, V1_2, false, ""},
		{"other namespace v0.18 allowed", "pullsecret:argocd/hub", "team", CredLevelImage, V0_18, false, ""},
		{"registry level exempt", "pullsecret:argocd/hub", "team", CredLevelRegistry, V1_3, false, ""},
		{"same namespace", "pullsecret:team/hub", "team", CredLevelImage, V1_3, false, ""},
		{"secret other namespace", "secret:argocd/creds#f", "team", CredLevelImage, V1_3, true, "argocd"},
		{"env not checked", "env:CREDS", "team", CredLevelImage, V1_3, false, ""},
		{"ext not checked", "ext:/a/b", "team", CredLevelImage, V1_3, false, ""},
		// The check is a literal, case-sensitive prefix test on the raw string.
		{"registry prefix escapes the check", "ghcr.io=pullsecret:argocd/hub", "team", CredLevelImage, V1_3, false, ""},
		{"upper-case type escapes the check", "PullSecret:argocd/hub", "team", CredLevelImage, V1_3, false, ""},
		{"no slash passes the check", "pullsecret:hub", "team", CredLevelImage, V1_3, false, ""},
		{"empty namespace is another namespace", "pullsecret:/hub", "team", CredLevelImage, V1_3, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckSecretNamespace(tt.ref, tt.appNS, tt.level, tt.v)
			if !tt.reject {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			var e *SecretNamespaceError
			if !errors.As(err, &e) {
				t.Fatalf("want *SecretNamespaceError, got %v", err)
			}
			want := fmt.Sprintf("commonUpdateSettings.pullSecret namespace '%s' differs from app namespace '%s'", tt.errNS, tt.appNS)
			if err.Error() != want || e.Namespace != tt.errNS {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
			if !strings.Contains(e.Fix(), "registries.conf") {
				t.Errorf("Fix() = %q", e.Fix())
			}
		})
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func dockerConfig(entries map[string]string) []byte {
	auths := map[string]any{}
	for k, v := range entries {
		auths[k] = map[string]any{"auth": b64(v)}
	}
	b, _ := json.Marshal(map[string]any{"auths": auths})
	return b
}

func TestMatchDockerConfig(t *testing.T) {
	hub := DockerHubEndpoint()
	ghcr := Endpoint{Name: "ghcr", APIURL: "https://ghcr.io"}
	local := Endpoint{Name: "local", APIURL: "http://registry.local:5000"}
	tests := []struct {
		name      string
		ep        Endpoint
		data      []byte
		key       string // chosen key; "" = error expected
		user      string
		pass      string
		code      CredentialErrorCode
		errText   string // exact Error(), when set
		same      string // a key expected to be flagged SameRegistry
		fix       string // substring of the error's Fix
		ambiguous bool
		flapping  bool
	}{
		{name: "hub: docker login key does not match", ep: hub, data: dockerConfig(map[string]string{"https://index.docker.io/v1/": "u:p"}),
			code: CredErrNoAuthEntry, errText: "no valid auth entry for registry https://registry-1.docker.io found in image pull secret",
			same: "https://index.docker.io/v1/", fix: `rename the auths key "https://index.docker.io/v1/" to "https://registry-1.docker.io"`},
		{name: "hub: docker.io key does not match", ep: hub, data: dockerConfig(map[string]string{"docker.io": "u:p"}),
			code: CredErrNoAuthEntry, same: "docker.io", fix: "rename"},
		{name: "hub: registry-1 host key matches", ep: hub, data: dockerConfig(map[string]string{"registry-1.docker.io": "u:p"}), key: "registry-1.docker.io", user: "u", pass: "p"},
		{name: "hub: API URL key with path matches", ep: hub, data: dockerConfig(map[string]string{"https://registry-1.docker.io/v2/": "u:p"}), key: "https://registry-1.docker.io/v2/", user: "u", pass: "p"},
		{name: "ghcr: https key", ep: ghcr, data: dockerConfig(map[string]string{"https://ghcr.io": "bot:tok"}), key: "https://ghcr.io", user: "bot", pass: "tok"},
		{name: "ghcr: host key", ep: ghcr, data: dockerConfig(map[string]string{"ghcr.io": "bot:tok"}), key: "ghcr.io", user: "bot", pass: "tok"},
		{name: "ghcr: only the matching key is used", ep: ghcr, data: dockerConfig(map[string]string{"ghcr.io": "bot:tok", "quay.io": "x:y"}), key: "ghcr.io", user: "bot", pass: "tok"},
		{name: "ghcr: password keeps colons", ep: ghcr, data: dockerConfig(map[string]string{"ghcr.io": "bot:a:b"}), key: "ghcr.io", user: "bot", pass: "a:b"},
		{name: "ghcr: empty user and password accepted", ep: ghcr, data: dockerConfig(map[string]string{"ghcr.io": ":"}), key: "ghcr.io"},
		{name: "ghcr: plain prefix match without boundary", ep: ghcr, data: dockerConfig(map[string]string{"ghcr.io.example.com": "u:p"}), key: "ghcr.io.example.com", user: "u", pass: "p"},
		{name: "ghcr: http key does not match", ep: ghcr, data: dockerConfig(map[string]string{"http://ghcr.io": "u:p"}), code: CredErrNoAuthEntry, same: "http://ghcr.io"},
		{name: "ghcr: upper case does not match", ep: ghcr, data: dockerConfig(map[string]string{"GHCR.IO": "u:p"}), code: CredErrNoAuthEntry, same: "GHCR.IO"},
		{name: "ghcr: other registry only", ep: ghcr, data: dockerConfig(map[string]string{"quay.io": "u:p"}), code: CredErrNoAuthEntry, fix: `add an auths entry keyed "https://ghcr.io"`},
		{name: "local plain http host:port key", ep: local, data: dockerConfig(map[string]string{"registry.local:5000": "u:p"}), key: "registry.local:5000", user: "u", pass: "p"},
		{name: "two matching keys disagree", ep: ghcr, data: dockerConfig(map[string]string{"ghcr.io": "a:1", "https://ghcr.io": "b:2"}), key: "ghcr.io", user: "a", pass: "1", ambiguous: true, flapping: true},
		{name: "two matching keys agree", ep: ghcr, data: dockerConfig(map[string]string{"ghcr.io": "a:1", "https://ghcr.io": "a:1"}), key: "ghcr.io", user: "a", pass: "1", ambiguous: true},
		{name: "empty auths", ep: ghcr, data: []byte(`{"auths":{}}`), code: CredErrNoAuthEntry, fix: "auths object is empty"},
		{name: "no auths", ep: ghcr, data: []byte(`{"credHelpers":{"ghcr.io":"x"}}`), code: CredErrDockerConfig, errText: "no credentials in image pull secret", fix: "credHelpers"},
		{name: "not JSON", ep: ghcr, data: []byte(`auths:`), code: CredErrDockerConfig, errText: "invalid character 'a' looking for beginning of value"},
		{name: "entry not an object", ep: ghcr, data: []byte(`{"auths":{"ghcr.io":"x"}}`), code: CredErrDockerConfig,
			errText: "invalid auth entry for registry entry ghcr.io ('auths' entry should be map)"},
		{name: "username/password without auth", ep: ghcr, data: []byte(`{"auths":{"ghcr.io":{"username":"u","password":"p"}}}`), code: CredErrDockerConfig,
			errText: "invalid auth token for registry entry ghcr.io ('auth' should be string')", fix: "reads only \"auth\""},
		{name: "auth not base64", ep: ghcr, data: []byte(`{"auths":{"ghcr.io":{"auth":"not base64!"}}}`), code: CredErrDockerConfig,
			errText: "could not base64-decode auth data for registry entry ghcr.io: illegal base64 data at input byte 3"},
		{name: "auth without colon", ep: ghcr, data: []byte(`{"auths":{"ghcr.io":{"auth":"` + b64("tokenonly") + `"}}}`), code: CredErrMalformed,
			errText: "invalid data after base64 decoding auth entry for registry entry ghcr.io"},
		{name: "broken matching entry is not skipped", ep: ghcr, data: []byte(`{"auths":{"ghcr.io":{"auth":"!"},"quay.io":{"auth":"` + b64("u:p") + `"}}}`), code: CredErrDockerConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := MatchDockerConfig(tt.data, tt.ep)
			if tt.key == "" {
				var e *CredentialError
				if !errors.As(err, &e) {
					t.Fatalf("want *CredentialError, got %T %v", err, err)
				}
				if e.Code != tt.code {
					t.Errorf("code = %s, want %s (%v)", e.Code, tt.code, err)
				}
				if tt.errText != "" && err.Error() != tt.errText {
					t.Errorf("Error() = %q, want %q", err.Error(), tt.errText)
				}
				if tt.fix != "" && !strings.Contains(e.Fix, tt.fix) {
					t.Errorf("fix %q lacks %q", e.Fix, tt.fix)
				}
				if e.Code == CredErrNoAuthEntry && m.Suggestion != tt.ep.APIURL {
					t.Errorf("suggestion = %q", m.Suggestion)
				}
			} else {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				if m.Key != tt.key || m.Credentials.Username != tt.user || m.Credentials.Password.Reveal() != tt.pass {
					t.Errorf("got key %q user %q pass %q", m.Key, m.Credentials.Username, m.Credentials.Password.Reveal())
				}
			}
			if m.Ambiguous != tt.ambiguous || m.Flapping != tt.flapping {
				t.Errorf("ambiguous/flapping = %v/%v", m.Ambiguous, m.Flapping)
			}
			if tt.same != "" {
				found := false
				for _, k := range m.Keys {
					if k.Key == tt.same {
						found = k.SameRegistry && !k.Matched && k.Reason != ""
					}
				}
				if !found {
					t.Errorf("key %q not flagged as same registry: %+v", tt.same, m.Keys)
				}
			}
		})
	}
}

// fakeSource is a CredentialSource over maps.
type fakeSource struct {
	env     map[string]string
	secrets map[string]map[string][]byte
	scripts map[string]string
	err     error
}

func (f fakeSource) Env(name string) (string, bool) { v, ok := f.env[name]; return v, ok }
func (f fakeSource) Secret(_ context.Context, ns, name string) (map[string][]byte, error) {
	if f.err != nil {
		return nil, f.err
	}
	s, ok := f.secrets[ns+"/"+name]
	if !ok {
		return nil, fmt.Errorf("secrets %q not found", name)
	}
	return s, nil
}
func (f fakeSource) Exec(_ context.Context, path string) (string, error) {
	out, ok := f.scripts[path]
	if !ok {
		return "", fmt.Errorf("fork/exec %s: no such file or directory", path)
	}
	return out, nil
}

func mustRef(t *testing.T, s string) CredentialRef {
	t.Helper()
	r, err := ParseCredentialRef(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestResolveCredentials(t *testing.T) {
	src := fakeSource{
		env: map[string]string{"GOOD": "u:p", "EMPTY": "", "NOUSER": ":p", "NOPASS": "u:", "NOCOLON": "token"},
		secrets: map[string]map[string][]byte{
			"ns/creds":   {"good": []byte("u:p"), "newline": []byte("u:p\n"), "token": []byte("token"), "empty": []byte(":"), "cfg": dockerConfig(map[string]string{"ghcr.io": "x:y"})},
			"ns/pull":    {".dockerconfigjson": dockerConfig(map[string]string{"ghcr.io": "bot:tok"})},
			"ns/hubpull": {".dockerconfigjson": dockerConfig(map[string]string{"https://index.docker.io/v1/": "bot:tok"})},
			"ns/old":     {".dockercfg": []byte(`{}`)},
			"ns/opaque":  {"username": []byte("u"), "password": []byte("p")},
		},
		scripts: map[string]string{"/bin/good": "u:p\n", "/bin/two-lines": "u:p\nextra\n", "/bin/bad": "token\n"},
	}
	ghcr := Endpoint{APIURL: "https://ghcr.io"}
	tests := []struct {
		ref      string
		user     string
		pass     string
		note     string
		code     CredentialErrorCode
		upstream string // exact Error() when set
		fix      string
	}{
		{ref: "env:GOOD", user: "u", pass: "p"},
		{ref: "env:MISSING", code: CredErrEnvNotSet, upstream: "could not fetch credentials: env 'MISSING' is not set"},
		{ref: "env:EMPTY", code: CredErrEnvNotSet, upstream: "could not fetch credentials: env 'EMPTY' is not set"},
		{ref: "env:NOUSER", code: CredErrMalformed, upstream: "could not fetch credentials: value of NOUSER is malformed"},
		{ref: "env:NOPASS", code: CredErrMalformed, upstream: "could not fetch credentials: value of NOPASS is malformed"},
		{ref: "env:NOCOLON", code: CredErrMalformed},
		{ref: "secret:ns/creds#good", user: "u", pass: "p"},
		{ref: "secret:ns/creds#newline", user: "u", pass: "p\n", note: "ends in whitespace or a newline"},
		{ref: "secret:ns/creds#empty", user: "", pass: ""},
		{ref: "secret:ns/creds#token", code: CredErrMalformed, upstream: "invalid credentials in secret 'creds' from namespace 'ns' (field 'token')"},
		{ref: "secret:ns/creds#cfg", user: `{"auths"`, pass: `{"ghcr.io":{"auth":"eDp5"}}}`, note: "write pullsecret:ns/creds instead"},
		{ref: "secret:ns/creds#nope", code: CredErrFieldMissing, fix: "cfg, empty, good, newline, token",
			upstream: "could not fetch secret 'creds' from namespace 'ns' (field: 'nope'): secret 'ns/creds' does not have a field 'nope'"},
		{ref: "secret:ns/absent#f", code: CredErrSecretUnreadable,
			upstream: `could not fetch secret 'absent' from namespace 'ns' (field: 'f'): secrets "absent" not found`},
		{ref: "pullsecret:ns/pull", user: "bot", pass: "tok"},
		{ref: "pullsecret:ns/hubpull", code: CredErrNoAuthEntry, upstream: "no valid auth entry for registry https://ghcr.io found in image pull secret"},
		{ref: "pullsecret:ns/old", code: CredErrFieldMissing, fix: "kubernetes.io/dockercfg"},
		{ref: "pullsecret:ns/opaque", code: CredErrFieldMissing, fix: "secret:ns/opaque#<field>"},
		{ref: "ext:/bin/good", user: "u", pass: "p"},
		{ref: "ext:/bin/two-lines", user: "u", pass: "p\nextra", note: "line break"},
		{ref: "ext:/bin/bad", code: CredErrMalformed, upstream: "invalid script output, must be single line with syntax <username>:<password>"},
		{ref: "ext:/bin/missing", code: CredErrExecFailed, upstream: "error executing /bin/missing: fork/exec /bin/missing: no such file or directory"},
		{ref: "ext:bin/good", code: CredErrPathNotAbsolute, upstream: "path to script must be absolute, but is 'bin/good'"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			c, err := ResolveCredentials(context.Background(), mustRef(t, tt.ref), ghcr, src)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				if c.Username != tt.user || c.Password.Reveal() != tt.pass {
					t.Errorf("got %q/%q", c.Username, c.Password.Reveal())
				}
				if tt.note == "" && len(c.Notes) > 0 {
					t.Errorf("unexpected notes %q", c.Notes)
				}
				if tt.note != "" && !regAnyContains(c.Notes, tt.note) {
					t.Errorf("notes %q lack %q", c.Notes, tt.note)
				}
				return
			}
			var e *CredentialError
			if !errors.As(err, &e) {
				t.Fatalf("want *CredentialError, got %T %v", err, err)
			}
			if e.Code != tt.code {
				t.Errorf("code = %s, want %s (%v)", e.Code, tt.code, err)
			}
			if tt.upstream != "" && err.Error() != tt.upstream {
				t.Errorf("Error() = %q\nwant      %q", err.Error(), tt.upstream)
			}
			if tt.fix != "" && !strings.Contains(e.Fix, tt.fix) {
				t.Errorf("fix %q lacks %q", e.Fix, tt.fix)
			}
		})
	}

	t.Run("source error unwraps", func(t *testing.T) {
		sentinel := errors.New("forbidden")
		_, err := ResolveCredentials(context.Background(), mustRef(t, "pullsecret:ns/x"), ghcr, fakeSource{err: sentinel})
		if !errors.Is(err, sentinel) {
			t.Errorf("errors.Is(%v, sentinel) = false", err)
		}
	})
	t.Run("nil source", func(t *testing.T) {
		_, err := ResolveCredentials(context.Background(), mustRef(t, "env:X"), ghcr, nil)
		var e *CredentialError
		if !errors.As(err, &e) || e.Code != CredErrNoSource {
			t.Errorf("got %v", err)
		}
	})
	t.Run("zero ref", func(t *testing.T) {
		_, err := ResolveCredentials(context.Background(), CredentialRef{}, ghcr, src)
		var e *CredentialError
		if !errors.As(err, &e) || e.Code != CredErrUnknownKind {
			t.Errorf("got %v", err)
		}
	})
}

func TestParseUserPass(t *testing.T) {
	tests := []struct {
		in, user, pass string
		ok             bool
	}{
		{"u:p", "u", "p", true},
		{"u:p:q", "u", "p:q", true},
		{":", "", "", true},
		{"u:", "u", "", true},
		{"token", "", "", false},
		{"", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := ParseUserPass(tt.in)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v", err)
			}
			if c.Username != tt.user || c.Password.Reveal() != tt.pass {
				t.Errorf("got %q/%q", c.Username, c.Password.Reveal())
			}
			if err != nil && tt.in != "" && strings.Contains(err.Error(), tt.in) {
				t.Errorf("error leaks the value: %v", err)
			}
		})
	}
}

// TestSecretCanary proves that no renderer prints a password: every fmt
// verb, JSON, text marshalling, slog, and every error the package returns.
func TestSecretCanary(t *testing.T) {
	const pw = "canary-Pw-7f3a9"
	creds := Credentials{Username: "robot", Password: Secret(pw)}
	type wrapper struct {
		Creds  Credentials
		Ptr    *Credentials
		Secret Secret
		Map    map[string]Secret
		Slice  []Secret
		Match  *DockerAuthMatch
	}
	match := &DockerAuthMatch{Key: "ghcr.io", Credentials: creds}
	w := wrapper{Creds: creds, Ptr: &creds, Secret: Secret(pw), Map: map[string]Secret{"k": Secret(pw)}, Slice: []Secret{Secret(pw)}, Match: match}

	var outputs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3s", "%T %v"} {
		outputs = append(outputs,
			fmt.Sprintf(verb, creds), fmt.Sprintf(verb, &creds), fmt.Sprintf(verb, creds.Password),
			fmt.Sprintf(verb, w), fmt.Sprintf(verb, &w))
	}
	outputs = append(outputs, fmt.Sprint(creds, w), fmt.Sprintln(w), creds.Password.String(), creds.Password.GoString())
	for _, v := range []any{creds, &creds, w, creds.Password, []Credentials{creds}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		outputs = append(outputs, string(b))
		b, _ = json.MarshalIndent(v, "", " ")
		outputs = append(outputs, string(b))
	}
	txt, _ := creds.Password.MarshalText()
	outputs = append(outputs, string(txt))
	var buf bytes.Buffer
	lg := slog.New(slog.NewJSONHandler(&buf, nil))
	lg.Info("creds", "password", creds.Password, "creds", creds)
	lg2 := slog.New(slog.NewTextHandler(&buf, nil))
	lg2.Info("creds", "password", creds.Password, "w", w)
	outputs = append(outputs, buf.String())

	// Every error path with the canary in the value.
	src := fakeSource{
		env:     map[string]string{"NOCOLON": pw, "NOUSER": ":" + pw},
		secrets: map[string]map[string][]byte{"ns/s": {"f": []byte(pw), ".dockerconfigjson": []byte(`{"auths":{"ghcr.io":{"auth":"` + b64(pw) + `"}}}`)}},
		scripts: map[string]string{"/bin/x": pw + "\n"},
	}
	ep := Endpoint{APIURL: "https://ghcr.io"}
	var errs []error
	for _, r := range []string{"env:NOCOLON", "env:NOUSER", "secret:ns/s#f", "pullsecret:ns/s", "ext:/bin/x"} {
		_, err := ResolveCredentials(context.Background(), mustRef(t, r), ep, src)
		if err == nil {
			t.Fatalf("%s: expected an error", r)
		}
		errs = append(errs, err)
	}
	_, err := ParseUserPass(pw)
	errs = append(errs, err)
	_, err = ParseCredentialRef("robot:" + pw)
	errs = append(errs, err)
	_, err = MatchDockerConfig([]byte(`{"auths":{"ghcr.io":{"auth":"`+b64(pw)+`"}}}`), ep)
	errs = append(errs, err)
	m, err := MatchDockerConfig([]byte(`{"auths":{"ghcr.io":{"auth":"`+b64("robot:"+pw)+`"}}}`), ep)
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, fmt.Sprintf("%+v %#v", m, m))
	mj, _ := json.Marshal(m)
	outputs = append(outputs, string(mj))
	for _, e := range errs {
		outputs = append(outputs, e.Error(), fmt.Sprintf("%+v", e), fmt.Sprintf("%#v", e))
		var ce *CredentialError
		if errors.As(e, &ce) {
			outputs = append(outputs, ce.Reason, ce.Fix, ce.Upstream)
		}
	}

	for _, o := range outputs {
		if strings.Contains(o, pw) || strings.Contains(o, b64(pw)) {
			t.Errorf("password leaked: %s", o)
		}
	}
	if creds.Password.Reveal() != pw {
		t.Error("Reveal must return the value")
	}
}

func FuzzParseCredentialRef(f *testing.F) {
	for _, s := range []string{
		"pullsecret:ns/n", "secret:ns/n#f", "env:X", "ext:/a", "ext:a", "ghcr.io=pullsecret:ns/n",
		"argocd/hub", "=", ":", "a=b=c:d", "secret:a/b#c#d", "pullsecret:a/b/c", "PULLSECRET:A/B", "x:y:z", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ref, err := ParseCredentialRef(s)
		if err != nil {
			var e *CredentialRefError
			if !errors.As(err, &e) {
				t.Fatalf("error %T", err)
			}
			if e.Part == "" || e.Reason == "" || e.Upstream == "" {
				t.Fatalf("incomplete error %+v", e)
			}
			_ = e.Error()
			return
		}
		if ref.Kind == CredUnknown {
			t.Fatalf("accepted %q without a kind", s)
		}
		back, err := ParseCredentialRef(ref.String())
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", ref.String(), s, err)
		}
		back.Raw = ref.Raw
		if back != ref {
			t.Fatalf("round trip %q: %+v != %+v", s, back, ref)
		}
		_ = ref.Notes()
		_ = CheckSecretNamespace(s, "ns", CredLevelImage, V1_3)
	})
}

func FuzzMatchDockerConfig(f *testing.F) {
	f.Add(dockerConfig(map[string]string{"https://index.docker.io/v1/": "u:p"}), "https://registry-1.docker.io")
	f.Add(dockerConfig(map[string]string{"ghcr.io": "u:p", "https://ghcr.io": "v:q"}), "https://ghcr.io")
	f.Add([]byte(`{"auths":{"ghcr.io":{"auth":"!"}}}`), "https://ghcr.io")
	f.Add([]byte(`{"auths":{"ghcr.io":"x"}}`), "https://ghcr.io")
	f.Add([]byte(`{"auths":{"a":{"username":"u"}}}`), "")
	f.Add([]byte(`null`), "http://x/")
	f.Add([]byte(`[]`), "https://ghcr.io")
	f.Fuzz(func(t *testing.T, data []byte, api string) {
		m, err := MatchDockerConfig(data, Endpoint{APIURL: api})
		if err != nil {
			var e *CredentialError
			if !errors.As(err, &e) {
				t.Fatalf("error %T", err)
			}
			if m.Key != "" && !strings.Contains(strings.Join(m.Candidates, "\x00"), m.Key) {
				t.Fatalf("key %q not a candidate", m.Key)
			}
			// The decoded password of any entry must not appear in the error.
			var conf struct {
				Auths map[string]struct {
					Auth string `json:"auth"`
				} `json:"auths"`
			}
			if json.Unmarshal(data, &conf) == nil {
				for k, a := range conf.Auths {
					raw, derr := base64.StdEncoding.DecodeString(a.Auth)
					if derr != nil {
						continue
					}
					_, pw, _ := strings.Cut(string(raw), ":")
					if len(pw) >= 6 && !strings.Contains(k, pw) && !strings.Contains(api, pw) && strings.Contains(err.Error(), pw) {
						t.Fatalf("error leaks a password: %v", err)
					}
				}
			}
			return
		}
		if m.Key == "" || len(m.Candidates) == 0 || m.Candidates[0] != m.Key {
			t.Fatalf("success without a key: %+v", m)
		}
		if !strings.HasPrefix(m.Key, api) && !strings.HasPrefix(m.Key, m.Want[1]) {
			t.Fatalf("key %q matches neither %q nor %q", m.Key, api, m.Want[1])
		}
		if pw := m.Credentials.Password.Reveal(); len(pw) >= 6 && !strings.Contains(m.Key, pw) {
			if strings.Contains(fmt.Sprintf("%+v %#v", m, m), pw) {
				t.Fatal("match result prints the password")
			}
		}
	})
}

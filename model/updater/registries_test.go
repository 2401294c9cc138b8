package updater

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"
)

func TestParseRegistriesConfValid(t *testing.T) {
	in := `
registries:
- name: Docker Hub
  api_url: https://registry-1.docker.io/
  prefix: docker.io
  credentials: pullsecret:argocd/dockerhub
  credsexpire: 5h
  defaultns: library
  default: true
  limit: 5
- name: GHCR
  api_url: https://ghcr.io
  prefix: ghcr.io
  tagsortmode: LATEST-FIRST
  insecure: yes
  ping: no
- name: internal
  api_url: http://registry.local:5000
`
	conf, err := ParseRegistriesConf([]byte(in))
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if len(conf.Registries) != 3 {
		t.Fatalf("got %d entries", len(conf.Registries))
	}
	hub := conf.Registries[0]
	if hub.APIURL != "https://registry-1.docker.io" {
		t.Errorf("api_url not trimmed: %q", hub.APIURL)
	}
	if hub.CredsExpire != 5*time.Hour || !hub.Default || hub.Limit != 5 || hub.DefaultNS != "library" || hub.Credentials != "pullsecret:argocd/dockerhub" {
		t.Errorf("hub entry = %+v", hub)
	}
	ghcr := conf.Registries[1]
	if ghcr.TagSortMode != "latest-first" || !ghcr.Insecure || ghcr.Ping {
		t.Errorf("ghcr entry = %+v (yes must read as true, tagsortmode lower-cased)", ghcr)
	}
	if conf.Registries[2].Prefix != "" {
		t.Errorf("catch-all entry has prefix %q", conf.Registries[2].Prefix)
	}
	if !regAnyContains(conf.Warnings, "tagsortmode latest-first disables metadata") {
		t.Errorf("missing tagsortmode warning in %q", conf.Warnings)
	}
}

func TestParseRegistriesConfEmpty(t *testing.T) {
	for _, in := range []string{"", "registries:", "registries: []", "# nothing\n"} {
		t.Run(in, func(t *testing.T) {
			conf, err := ParseRegistriesConf([]byte(in))
			if err != nil || len(conf.Registries) != 0 {
				t.Fatalf("got %+v, %v", conf, err)
			}
		})
	}
}

func TestParseRegistriesConfErrors(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		v         Version
		entry     int
		field     string
		reason    string // substring
		upstream  string // substring, "" = not checked
		othersLen int
	}{
		{
			name:  "unknown key with suggestion",
			in:    "registries:\n- name: a\n  api_url: https://a\n  apiurl: x\n",
			entry: 0, field: "apiurl", reason: `did you mean "api_url"`, upstream: "field apiurl not found",
		},
		{
			name:  "unknown key url",
			in:    "registries:\n- name: a\n  url: https://a\n",
			entry: 0, field: "url", reason: "api_url",
		},
		{
			name:  "unknown top-level key",
			in:    "registry:\n- name: a\n  api_url: https://a\n",
			entry: -1, field: "registry", reason: "spelled registries",
		},
		{
			name:  "duplicate key",
			in:    "registries:\n- name: a\n  api_url: https://a\n  prefix: a\n  prefix: b\n",
			entry: 0, field: "prefix", reason: "twice", upstream: "already set",
		},
		{
			name:  "credsexpire without unit word",
			in:    "registries:\n- name: a\n  api_url: https://a\n  credsexpire: 5 hours\n",
			entry: 0, field: "credsexpire", reason: "not a Go duration",
		},
		{
			name:  "limit not a number",
			in:    "registries:\n- name: a\n  api_url: https://a\n  limit: fast\n",
			entry: 0, field: "limit", reason: "requests per second",
		},
		{
			name:  "insecure not a bool",
			in:    "registries:\n- name: a\n  api_url: https://a\n  insecure: maybe\n",
			entry: 0, field: "insecure", reason: "not a boolean",
		},
		{
			name:  "registries not a list",
			in:    "registries:\n  name: a\n",
			entry: -1, field: "registries", reason: "must be a list",
		},
		{
			name:  "entry not a map",
			in:    "registries:\n- ghcr.io\n",
			entry: 0, reason: "not a mapping",
		},
		{
			name:  "yaml syntax",
			in:    "registries:\n- name: [a\n",
			entry: -1, reason: "not a YAML mapping",
		},
		{
			name:  "missing name",
			in:    "registries:\n- api_url: https://a\n  prefix: a\n",
			entry: 0, field: "name", upstream: "registry name is missing for entry { https://a false  0s  a false    0 false}",
		},
		{
			name:  "missing api_url",
			in:    "registries:\n- name: a\n  prefix: a\n",
			entry: 0, field: "api_url", upstream: "API URL must be specified for registry a",
		},
		{
			name:  "two entries without prefix",
			in:    "registries:\n- name: one\n  api_url: https://a\n- name: two\n  api_url: https://b\n",
			entry: 1, field: "prefix", upstream: "there must be only one default registry (already is one), two needs a prefix",
		},
		{
			name:  "unknown tag sort mode",
			in:    "registries:\n- name: a\n  api_url: https://a\n  prefix: a\n  tagsortmode: unsorted\n",
			entry: 0, field: "tagsortmode", upstream: "unknown tag sort mode for registry a: unsorted",
		},
		{
			// Image Updater keeps overwriting one error variable: the last problem wins.
			name:  "last validation problem is reported",
			in:    "registries:\n- api_url: https://a\n  prefix: a\n- name: ok\n  api_url: https://b\n  prefix: b\n- name: c\n  prefix: c\n",
			entry: 2, field: "api_url", othersLen: 1,
		},
		{
			// ...and the tag sort mode is only checked while no error was seen.
			name:  "tag sort not checked after an earlier error",
			in:    "registries:\n- api_url: https://a\n  prefix: a\n- name: b\n  api_url: https://b\n  prefix: b\n  tagsortmode: bogus\n",
			entry: 0, field: "name",
		},
		{
			name:  "two defaults",
			in:    "registries:\n- name: a\n  api_url: https://a\n  prefix: a\n  default: true\n- name: b\n  api_url: https://b\n  prefix: b\n  default: true\n",
			entry: 1, field: "default", upstream: "cannot set registry b as default - only one default registry allowed, currently set to a",
		},
		{
			name:  "ca_data not PEM",
			in:    "registries:\n- name: a\n  api_url: https://a\n  prefix: a\n  ca_data: hello\n",
			entry: 0, field: "ca_data", upstream: "could not configure CA certificates for registry a: ca_data does not contain a valid PEM certificate",
		},
		{
			name:  "ca_file before v1.3",
			in:    "registries:\n- name: a\n  api_url: https://a\n  prefix: a\n  ca_file: /x\n",
			v:     V1_2,
			entry: 0, field: "ca_file", reason: "only understood from v1.3.0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.v
			if v == (Version{}) {
				v = Latest
			}
			_, err := ParseRegistriesConfFor([]byte(tt.in), v)
			var e *RegistriesConfError
			if !errors.As(err, &e) {
				t.Fatalf("want *RegistriesConfError, got %T %v", err, err)
			}
			if e.Entry != tt.entry || e.Field != tt.field {
				t.Errorf("entry/field = %d/%q, want %d/%q (%v)", e.Entry, e.Field, tt.entry, tt.field, e)
			}
			if tt.reason != "" && !strings.Contains(e.Reason, tt.reason) {
				t.Errorf("reason %q does not contain %q", e.Reason, tt.reason)
			}
			if tt.upstream != "" && !strings.Contains(e.Upstream, tt.upstream) {
				t.Errorf("upstream %q does not contain %q", e.Upstream, tt.upstream)
			}
			if len(e.Others) != tt.othersLen {
				t.Errorf("others = %v, want %d", e.Others, tt.othersLen)
			}
			if !strings.Contains(e.Error(), "registries.conf") {
				t.Errorf("Error() = %q", e.Error())
			}
		})
	}
}

func TestParseRegistriesConfYAMLv2Semantics(t *testing.T) {
	in := `registries:
- name: 123
  api_url: https://a
  prefix: a
  credsexpire: 3600
  limit: 2.5
`
	conf, err := ParseRegistriesConf([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	r := conf.Registries[0]
	if r.Name != "123" {
		t.Errorf("name = %q; yaml.v2 reads a number into a string field", r.Name)
	}
	if r.CredsExpire != 3600 {
		t.Errorf("credsexpire = %v; a bare number is nanoseconds", r.CredsExpire)
	}
	if r.Limit != 2 {
		t.Errorf("limit = %d; yaml.v2 truncates floats", r.Limit)
	}
	if !regAnyContains(conf.Warnings, "nanoseconds") {
		t.Errorf("missing nanoseconds warning: %q", conf.Warnings)
	}
}

func TestParseRegistriesConfCAAndWarnings(t *testing.T) {
	pemData := regTestCertPEM(t)
	in := "registries:\n- name: a\n  api_url: https://a\n  prefix: a\n  ca_data: |\n" + regIndent(pemData, "    ") +
		"- name: b\n  api_url: https://b\n  prefix: b\n  insecure: true\n  ca_data: not-pem\n" +
		"- name: c\n  api_url: https://index.docker.io/v1/\n  prefix: a\n  ping: true\n" +
		"- name: d\n  api_url: ghcr.io\n  prefix: d\n"
	conf, err := ParseRegistriesConf([]byte(in))
	if err != nil {
		t.Fatalf("valid PEM and insecure entries must load: %v", err)
	}
	for _, want := range []string{"ca_file/ca_data are ignored", "same prefix \"a\"", "without /v1 or /v2", "ping is parsed but ignored", "no http:// or https:// scheme"} {
		if !regAnyContains(conf.Warnings, want) {
			t.Errorf("missing warning %q in %q", want, conf.Warnings)
		}
	}
}

func FuzzParseRegistriesConf(f *testing.F) {
	for _, s := range []string{
		"", "registries:", "registries: []",
		"registries:\n- name: a\n  api_url: https://a/\n  prefix: a\n  credsexpire: 5h\n  limit: 3\n",
		"registries:\n- name: a\n  api_url: https://a\n- name: b\n  api_url: https://b\n",
		"registries:\n- name: a\n  api_url: https://a\n  tagsortmode: none\n  default: yes\n",
		"registries:\n- {name: a, api_url: x, bogus: 1}\n",
		"registries:\n- name: a\n  api_url: https://a\n  ca_data: x\n",
		"registries: {a: b}", "- a", "registries:\n- [1, 2]\n", "registries:\n- name: &a x\n  api_url: *a\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, v := range []Version{V1_2, V1_3} {
			conf, err := ParseRegistriesConfFor(data, v)
			if err != nil {
				var e *RegistriesConfError
				if !errors.As(err, &e) {
					t.Fatalf("error is %T, want *RegistriesConfError", err)
				}
				_ = e.Error()
				continue
			}
			prefixless, defaults := 0, 0
			for _, r := range conf.Registries {
				if r.Name == "" {
					t.Fatalf("accepted an entry without name: %q", data)
				}
				if r.Prefix == "" {
					prefixless++
				}
				if r.Default {
					defaults++
				}
				if !regTagSortKnown(r.TagSortMode) {
					t.Fatalf("accepted tagsortmode %q", r.TagSortMode)
				}
			}
			if prefixless > 1 || defaults > 1 {
				t.Fatalf("accepted %d prefix-less and %d default entries: %q", prefixless, defaults, data)
			}
			for _, r := range conf.Registries {
				ResolveEndpoint(ImageRef{Registry: r.Prefix, Name: "x"}, conf)
			}
		}
	})
}

func regAnyContains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func regIndent(s, pre string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(pre + l)
		}
	}
	return b.String()
}

func regTestCertPEM(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "test-ca"},
		NotBefore:    time.Unix(0, 0),
		NotAfter:     time.Unix(1<<31, 0),
		IsCA:         true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

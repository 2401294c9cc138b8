package updater

import (
	"strings"
	"testing"
)

func regMustConf(t *testing.T, y string) RegistriesConf {
	t.Helper()
	c, err := ParseRegistriesConf([]byte(y))
	if err != nil {
		t.Fatalf("conf: %v", err)
	}
	return c
}

func TestResolveEndpoint(t *testing.T) {
	hubCreds := `registries:
- name: My Hub
  api_url: https://registry-1.docker.io
  prefix: docker.io
  credentials: pullsecret:argocd/hub
  limit: 3
`
	hubDefault := hubCreds + "  default: true\n"
	ghcrBoth := `registries:
- name: ghcr
  api_url: https://ghcr.io
  prefix: ghcr.io
- name: myorg
  api_url: https://ghcr.io
  prefix: ghcr.io/myorg
  credentials: env:MYORG
`
	paths := `registries:
- name: org
  api_url: https://ghcr.io
  prefix: ghcr.io/org
- name: team
  api_url: https://ghcr.io
  prefix: ghcr.io/org/team
  limit: 7
`
	catchAll := `registries:
- name: mirror
  api_url: https://mirror.local/
  credentials: secret:ops/mirror#creds
`
	dup := `registries:
- name: first
  api_url: https://one.example
  prefix: quay.io
- name: second
  api_url: https://two.example
  prefix: quay.io
`
	hubNoNS := `registries:
- name: Hub without ns
  api_url: https://registry-1.docker.io
  prefix: docker.io
`
	tests := []struct {
		name      string
		conf      string
		image     string
		wantName  string
		wantAPI   string
		wantSrc   EndpointSource
		wantLimit float64
		wantCreds string
		wantRepo  string
		warn      string // substring of a warning, "" = no warning expected
	}{
		{"bare name uses built-in hub", "", "nginx", "Docker Hub", "https://registry-1.docker.io", EndpointBuiltinDockerHub, 10, "", "library/nginx", ""},
		{"hub org image", "", "bitnami/nginx:1", "Docker Hub", "https://registry-1.docker.io", EndpointBuiltinDockerHub, 10, "", "bitnami/nginx", ""},
		{"docker.io exact built-in", "", "docker.io/nginx", "Docker Hub", "https://registry-1.docker.io", EndpointBuiltinDockerHub, 10, "", "library/nginx", ""},
		{"docker.io entry not default for bare names", hubCreds, "nginx", "Docker Hub", "https://registry-1.docker.io", EndpointBuiltinDockerHub, 10, "", "library/nginx", "NOT used"},
		{"docker.io entry used for docker.io images", hubCreds, "docker.io/library/nginx:1", "My Hub", "https://registry-1.docker.io", EndpointConfiguredExact, 3, "pullsecret:argocd/hub", "nginx", "no defaultns"},
		{"default entry used for bare names", hubDefault, "nginx", "My Hub", "https://registry-1.docker.io", EndpointConfiguredDefault, 3, "pullsecret:argocd/hub", "nginx", "no defaultns"},
		{"exact host wins over longer path prefix", ghcrBoth, "ghcr.io/myorg/app", "ghcr", "https://ghcr.io", EndpointConfiguredExact, 0, "", "myorg/app", "never used"},
		{"longest path prefix", paths, "ghcr.io/org/team/app", "team", "https://ghcr.io", EndpointConfiguredPrefix, 7, "", "org/team/app", "remembers it"},
		{"shorter path prefix", paths, "ghcr.io/org/app", "org", "https://ghcr.io", EndpointConfiguredPrefix, 0, "", "org/app", "remembers it"},
		{"prefix without path boundary", paths, "ghcr.io/org2/app", "org", "https://ghcr.io", EndpointConfiguredPrefix, 0, "", "org2/app", "without a path boundary"},
		{"no prefix matches: inferred", paths, "quay.io/x/y", "quay.io", "https://quay.io", EndpointInferred, 20, "", "x/y", ""},
		{"inferred one-component name has no defaultns", "", "quay.io/app", "quay.io", "https://quay.io", EndpointInferred, 20, "", "app", ""},
		{"catch-all for unknown registry", catchAll, "quay.io/x/y", "mirror", "https://mirror.local", EndpointCatchAll, 0, "secret:ops/mirror#creds", "x/y", ""},
		{"catch-all is not the default", catchAll, "nginx", "Docker Hub", "https://registry-1.docker.io", EndpointBuiltinDockerHub, 10, "", "library/nginx", "not the default"},
		{"docker hub entry without defaultns", hubNoNS, "docker.io/nginx", "Hub without ns", "https://registry-1.docker.io", EndpointConfiguredExact, 0, "", "nginx", "no defaultns"},
		{"same prefix: last entry wins", dup, "quay.io/a/b", "second", "https://two.example", EndpointConfiguredExact, 0, "", "a/b", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var conf RegistriesConf
			if tt.conf != "" {
				conf = regMustConf(t, tt.conf)
			}
			img := ParseImageRef(tt.image, V1_3)
			ep, res := ResolveEndpoint(img, conf)
			if ep.Name != tt.wantName || ep.APIURL != tt.wantAPI || ep.Source != tt.wantSrc || res.Rule != tt.wantSrc {
				t.Errorf("got %s %s %s (rule %s), want %s %s %s\n%s", ep.Name, ep.APIURL, ep.Source, res.Rule, tt.wantName, tt.wantAPI, tt.wantSrc, res.Summary)
			}
			if ep.Limit != tt.wantLimit {
				t.Errorf("limit = %v, want %v", ep.Limit, tt.wantLimit)
			}
			if ep.Credentials != tt.wantCreds {
				t.Errorf("credentials = %q, want %q", ep.Credentials, tt.wantCreds)
			}
			if got := ep.RepositoryPath(img); got != tt.wantRepo {
				t.Errorf("RepositoryPath = %q, want %q", got, tt.wantRepo)
			}
			if res.Summary == "" || len(res.Steps) == 0 {
				t.Errorf("empty explanation: %+v", res)
			}
			if tt.warn == "" && len(res.Warnings) > 0 {
				t.Errorf("unexpected warnings %q", res.Warnings)
			}
			if tt.warn != "" && !regAnyContains(res.Warnings, tt.warn) {
				t.Errorf("warnings %q lack %q", res.Warnings, tt.warn)
			}
		})
	}
}

func TestResolveEndpointConsidered(t *testing.T) {
	conf := regMustConf(t, `registries:
- name: org
  api_url: https://ghcr.io
  prefix: ghcr.io/org
- name: other
  api_url: https://ghcr.io
  prefix: ghcr.io/other
`)
	_, res := ResolveEndpoint(ParseImageRef("ghcr.io/org/app", V1_3), conf)
	var chosen, notMatched int
	for _, c := range res.Considered {
		if c.Chosen {
			chosen++
			if c.Prefix != "ghcr.io/org" {
				t.Errorf("chosen %q", c.Prefix)
			}
		}
		if !c.Matched {
			notMatched++
		}
	}
	// docker.io (built-in) and ghcr.io/other do not match.
	if chosen != 1 || notMatched != 2 || len(res.Considered) != 3 {
		t.Errorf("considered = %+v", res.Considered)
	}
}

func TestEndpointHelpers(t *testing.T) {
	tests := []struct {
		name      string
		ep        Endpoint
		plain     bool
		host      string
		img       string
		repo      string
		tagsURL   string
		unlimited bool
	}{
		{"docker hub", DockerHubEndpoint(), false, "registry-1.docker.io", "nginx", "library/nginx", "https://registry-1.docker.io/v2/library/nginx/tags/list", false},
		{"plain http with port", Endpoint{APIURL: "http://registry.local:5000"}, true, "registry.local:5000", "registry.local:5000/team/app", "team/app", "http://registry.local:5000/v2/team/app/tags/list", true},
		{"custom defaultns", Endpoint{APIURL: "https://harbor.example", DefaultNS: "proj"}, false, "harbor.example", "harbor.example/app", "proj/app", "https://harbor.example/v2/proj/app/tags/list", true},
		{"defaultns only for one component", Endpoint{APIURL: "https://harbor.example", DefaultNS: "proj"}, false, "harbor.example", "harbor.example/a/b", "a/b", "https://harbor.example/v2/a/b/tags/list", true},
		{"no scheme", Endpoint{APIURL: "ghcr.io/v2"}, false, "ghcr.io", "ghcr.io/a/b", "a/b", "ghcr.io/v2/v2/a/b/tags/list", true},
		{"upper-case scheme", Endpoint{APIURL: "HTTP://x"}, true, "x", "x.io/a", "a", "HTTP://x/v2/a/tags/list", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img := ParseImageRef(tt.img, V1_3)
			if tt.ep.PlainHTTP() != tt.plain {
				t.Errorf("PlainHTTP = %v", tt.ep.PlainHTTP())
			}
			if tt.ep.Host() != tt.host {
				t.Errorf("Host = %q, want %q", tt.ep.Host(), tt.host)
			}
			if got := tt.ep.RepositoryPath(img); got != tt.repo {
				t.Errorf("RepositoryPath = %q, want %q", got, tt.repo)
			}
			if got := tt.ep.TagsURL(img); got != tt.tagsURL {
				t.Errorf("TagsURL = %q, want %q", got, tt.tagsURL)
			}
			if tt.ep.Unlimited() != tt.unlimited {
				t.Errorf("Unlimited = %v", tt.ep.Unlimited())
			}
		})
	}
}

func TestResolveEndpointDescribesEveryStep(t *testing.T) {
	_, res := ResolveEndpoint(ParseImageRef("quay.io/x/y", V1_3), RegistriesConf{})
	joined := strings.Join(res.Steps, "\n")
	for _, want := range []string{"1.", "2.", "3.", "4. inferred https://quay.io"} {
		if !strings.Contains(joined, want) {
			t.Errorf("steps lack %q:\n%s", want, joined)
		}
	}
	if !strings.Contains(res.Summary, "Inferred registry from prefix quay.io to use API https://quay.io") {
		t.Errorf("summary = %q", res.Summary)
	}
}

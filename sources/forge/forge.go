package forge

import (
	"fmt"
	"net/url"
	"strings"
)

// Forge is the kind of git forge, which decides the API dialect spoken.
type Forge int

const (
	// Unknown: not a forge this package knows.
	Unknown Forge = iota
	// GitHub: github.com or GitHub Enterprise Server (REST API v3).
	GitHub
	// GitLab: gitlab.com or self-managed GitLab (REST API v4).
	GitLab
	// Gitea: Gitea (REST API v1).
	Gitea
	// Forgejo: Forgejo, e.g. codeberg.org. It speaks Gitea's API v1 and is
	// queried exactly like Gitea; the kind is kept apart only so reports
	// name the forge the user knows.
	Forgejo
	// Bitbucket: Bitbucket Cloud (bitbucket.org, REST API 2.0). Bitbucket
	// Server / Data Center speaks another API and is not supported.
	Bitbucket
)

var forgeNames = [...]string{
	Unknown: "Unknown", GitHub: "GitHub", GitLab: "GitLab", Gitea: "Gitea", Forgejo: "Forgejo", Bitbucket: "Bitbucket",
}

// String is the forge's stable name, e.g. "GitLab".
func (f Forge) String() string {
	if f >= 0 && int(f) < len(forgeNames) {
		return forgeNames[f]
	}
	return fmt.Sprintf("Forge(%d)", int(f))
}

func (f Forge) known() bool { return f > Unknown && int(f) < len(forgeNames) }

// MarshalText writes the forge's name, so JSON carries "GitLab", not 2.
func (f Forge) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText parses a name as ParseForge does, so configuration files
// can say `kind: gitlab`.
func (f *Forge) UnmarshalText(b []byte) error {
	v, err := ParseForge(string(b))
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// ParseForge parses a forge name, case-insensitively: "github" (also
// "ghes", "github-enterprise"), "gitlab", "gitea", "forgejo", "bitbucket"
// (also "bitbucket-cloud"). Anything else is an error.
func ParseForge(s string) (Forge, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "github", "ghes", "github-enterprise":
		return GitHub, nil
	case "gitlab":
		return GitLab, nil
	case "gitea":
		return Gitea, nil
	case "forgejo":
		return Forgejo, nil
	case "bitbucket", "bitbucket-cloud", "bitbucketcloud":
		return Bitbucket, nil
	}
	return Unknown, fmt.Errorf("unknown forge kind %q (want github, gitlab, gitea, forgejo or bitbucket)", s)
}

// Endpoint tells where a forge's API is for one git host. Self-hosted
// forges (GitHub Enterprise Server, self-managed GitLab, Gitea, Forgejo)
// are known only through Endpoints from configuration.
type Endpoint struct {
	// Host is the git host as it appears in repository URLs, e.g.
	// "git.corp.example" or "git.corp.example:8443". Matching is
	// case-insensitive; an entry without a port also matches the host on
	// any port, an entry with a port only that port. SSH URLs match without
	// their port (it is the SSH port, not the API's).
	Host string `json:"host" yaml:"host"`
	// Kind is the forge's API dialect.
	Kind Forge `json:"kind" yaml:"kind"`
	// APIURL is the API base, e.g. "https://git.corp.example/api/v3"
	// (GHES), ".../api/v4" (GitLab), ".../api/v1" (Gitea, Forgejo). Empty
	// means https://<Host> plus that default path (see DefaultAPIURL).
	APIURL string `json:"apiURL,omitempty" yaml:"apiURL,omitempty"`
}

// DefaultAPIURL is the API base a self-hosted forge of kind f on host
// usually serves: https://<host>/api/v3 for GitHub Enterprise Server,
// /api/v4 for GitLab, /api/v1 for Gitea and Forgejo. Bitbucket Cloud has
// no self-hosted form, so there is none for it ("" and false).
func DefaultAPIURL(f Forge, host string) (string, bool) {
	var p string
	switch f {
	case GitHub:
		p = "/api/v3"
	case GitLab:
		p = "/api/v4"
	case Gitea, Forgejo:
		p = "/api/v1"
	default:
		return "", false
	}
	return "https://" + strings.ToLower(host) + p, true
}

// Validate reports whether the endpoint can be used: a host, a known kind,
// and an absolute http(s) API URL without credentials, query or fragment
// (or an empty one with a default for the kind). It returns the API base
// to use, without a trailing "/".
func (e Endpoint) Validate() (string, error) {
	host := strings.TrimSpace(e.Host)
	if host == "" || strings.ContainsAny(host, "/@ \t") {
		return "", fmt.Errorf("forge endpoint: host %q: want a host name, optionally with :port", e.Host)
	}
	if !e.Kind.known() {
		return "", fmt.Errorf("forge endpoint %s: kind missing or unknown", host)
	}
	if strings.TrimSpace(e.APIURL) == "" {
		api, ok := DefaultAPIURL(e.Kind, host)
		if !ok {
			return "", fmt.Errorf("forge endpoint %s: %s has no self-hosted API; set apiURL", host, e.Kind)
		}
		return api, nil
	}
	u, err := url.Parse(strings.TrimSpace(e.APIURL))
	if err != nil {
		return "", fmt.Errorf("forge endpoint %s: apiURL: %w", host, err)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("forge endpoint %s: apiURL %q: want an absolute http:// or https:// URL", host, u.Redacted())
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("forge endpoint %s: apiURL %q: no credentials, query or fragment allowed", host, u.Redacted())
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// builtin are the public forges recognised without configuration.
var builtin = map[string]Endpoint{
	"github.com":    {Host: "github.com", Kind: GitHub, APIURL: "https://api.github.com"},
	"gitlab.com":    {Host: "gitlab.com", Kind: GitLab, APIURL: "https://gitlab.com/api/v4"},
	"bitbucket.org": {Host: "bitbucket.org", Kind: Bitbucket, APIURL: "https://api.bitbucket.org/2.0"},
	"codeberg.org":  {Host: "codeberg.org", Kind: Forgejo, APIURL: "https://codeberg.org/api/v1"},
}

// BuiltinEndpoints returns the public forges recognised without
// configuration: github.com, gitlab.com, bitbucket.org and codeberg.org.
func BuiltinEndpoints() []Endpoint {
	out := make([]Endpoint, 0, len(builtin))
	for _, h := range []string{"github.com", "gitlab.com", "bitbucket.org", "codeberg.org"} {
		out = append(out, builtin[h])
	}
	return out
}

package updater

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"
)

// EndpointSource says which rule of Image Updater's registry lookup
// (GetRegistryEndpoint) produced an endpoint.
type EndpointSource string

const (
	// EndpointBuiltinDockerHub is the built-in Docker Hub endpoint: the
	// default registry for images without a registry part unless a
	// registries.conf entry has default: true, and the docker.io entry unless
	// registries.conf has a docker.io prefix.
	EndpointBuiltinDockerHub EndpointSource = "builtin-dockerhub"
	// EndpointConfiguredDefault is a registries.conf entry with default: true
	// used for an image without a registry part.
	EndpointConfiguredDefault EndpointSource = "configured-default"
	// EndpointConfiguredExact is a registries.conf entry whose prefix equals
	// the image's registry host.
	EndpointConfiguredExact EndpointSource = "configured-exact"
	// EndpointConfiguredPrefix is the registries.conf entry with the longest
	// prefix that is a string prefix of "<registry>/<name>".
	EndpointConfiguredPrefix EndpointSource = "configured-prefix"
	// EndpointCatchAll is the registries.conf entry without a prefix, which
	// matches every image as the shortest possible prefix.
	EndpointCatchAll EndpointSource = "catch-all"
	// EndpointInferred is an endpoint Image Updater invents for an unknown
	// registry: https://<registry>, 20 requests/s, no credentials.
	EndpointInferred EndpointSource = "inferred"
)

// Rate limits as Image Updater's code sets them (the docs say "default 20"
// for everything, which is only true for inferred registries).
const (
	// DockerHubRateLimit is the built-in Docker Hub endpoint's limit (RateLimitDefault).
	DockerHubRateLimit = 10
	// InferredRateLimit is the limit of inferred endpoints.
	InferredRateLimit = 20
)

// Endpoint is a registry endpoint as Image Updater would use it for one
// image: where to send requests, which credentials reference to resolve,
// how to treat TLS and how fast to go.
type Endpoint struct {
	Name   string `json:"name"`
	Prefix string `json:"prefix"`
	// APIURL is the base URL without a trailing "/"; requests go to
	// APIURL + "/v2/...".
	APIURL string `json:"apiURL"`
	// Credentials is the registry-level credential reference ("" = none).
	Credentials string `json:"credentials,omitempty"`
	// CredsExpire is how long registry-level credentials are cached; 0 = forever.
	CredsExpire time.Duration `json:"credsExpire,omitempty"`
	// DefaultNS is prepended to one-component image names (see RepositoryPath).
	DefaultNS string `json:"defaultNS,omitempty"`
	// Default is true when this endpoint serves images without a registry part.
	Default bool `json:"default,omitempty"`
	// Insecure skips TLS verification (CAData/CAFile are then ignored).
	Insecure bool `json:"insecure,omitempty"`
	// CAData and CAFile are the configured extra CAs (v1.3.0+). Without
	// ca_file, v1.3.0 also loads /app/config/tls/<api host> when that file
	// exists; that lookup is I/O and left to the caller.
	CAData string `json:"caData,omitempty"`
	CAFile string `json:"caFile,omitempty"`
	// TagSortMode is "" / "none", "latest-first" or "latest-last".
	TagSortMode string `json:"tagSortMode,omitempty"`
	// Limit is requests per second; 0 means unlimited.
	Limit  float64        `json:"limit"`
	Source EndpointSource `json:"source"`
}

// DockerHubEndpoint is Image Updater's built-in Docker Hub endpoint
// (registryTweaks): the default registry until registries.conf names another.
func DockerHubEndpoint() Endpoint {
	return Endpoint{
		Name:      "Docker Hub",
		Prefix:    "docker.io",
		APIURL:    "https://registry-1.docker.io",
		DefaultNS: "library",
		Default:   true,
		Limit:     DockerHubRateLimit,
		Source:    EndpointBuiltinDockerHub,
	}
}

// PlainHTTP reports whether requests go out without TLS (api_url starts
// with http://).
func (e Endpoint) PlainHTTP() bool {
	return strings.HasPrefix(strings.ToLower(e.APIURL), "http://")
}

// Host is the host[:port] of the API URL ("registry-1.docker.io"); for a
// URL without a scheme it is the part before the first "/".
func (e Endpoint) Host() string {
	if u, err := url.Parse(e.APIURL); err == nil && u.Host != "" {
		return u.Host
	}
	s := e.APIURL
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	host, _, _ := strings.Cut(s, "/")
	return host
}

// RepositoryPath is the repository Image Updater asks for tags
// (GET <api>/v2/<path>/tags/list): the image name, with DefaultNS and "/"
// prepended when the name has exactly one path component. On Docker Hub
// "nginx" becomes "library/nginx"; "bitnami/nginx" stays as it is.
func (e Endpoint) RepositoryPath(img ImageRef) string {
	if e.DefaultNS != "" && !strings.Contains(img.Name, "/") {
		return e.DefaultNS + "/" + img.Name
	}
	return img.Name
}

// TagsURL is the URL of the tag list request for img.
func (e Endpoint) TagsURL(img ImageRef) string {
	return e.APIURL + "/v2/" + e.RepositoryPath(img) + "/tags/list"
}

// Unlimited reports whether requests to this endpoint are not rate limited.
func (e Endpoint) Unlimited() bool { return e.Limit <= 0 }

func endpointFromConfig(r RegistryConfig, src EndpointSource) Endpoint {
	ep := Endpoint{
		Name:        r.Name,
		Prefix:      r.Prefix,
		APIURL:      strings.TrimSuffix(r.APIURL, "/"),
		Credentials: r.Credentials,
		CredsExpire: r.CredsExpire,
		DefaultNS:   r.DefaultNS,
		Default:     r.Default,
		Insecure:    r.Insecure,
		CAData:      r.CAData,
		CAFile:      r.CAFile,
		TagSortMode: strings.ToLower(r.TagSortMode),
		Source:      src,
	}
	if r.Limit > 0 {
		ep.Limit = float64(r.Limit)
	}
	return ep
}

// PrefixCandidate is one entry Image Updater's prefix map holds while it
// looks up an image, and what the lookup thought of it.
type PrefixCandidate struct {
	Name   string `json:"name"`
	Prefix string `json:"prefix"`
	// Entry is the registries.conf index, or -1 for the built-in Docker Hub entry.
	Entry   int    `json:"entry"`
	Matched bool   `json:"matched"`
	Chosen  bool   `json:"chosen"`
	Note    string `json:"note,omitempty"`
}

// Resolution explains how ResolveEndpoint reached its answer, in words a
// diagnosis can print.
type Resolution struct {
	Rule EndpointSource `json:"rule"`
	// Summary is one sentence: which rule matched and why.
	Summary string `json:"summary"`
	// Steps are the rules tried, in Image Updater's order, with what each found.
	Steps []string `json:"steps"`
	// Considered are the prefix-map entries, when the longest-prefix search ran.
	Considered []PrefixCandidate `json:"considered,omitempty"`
	// Warnings point at surprises: a docker.io entry that un-prefixed images
	// do not use, a host entry shadowing a path prefix, prefixes matched
	// without a path boundary, inference that sticks for the controller's
	// lifetime.
	Warnings []string `json:"warnings,omitempty"`
}

type regMapEntry struct {
	ep    Endpoint
	entry int
}

// ResolveEndpoint picks the endpoint Image Updater uses for img given
// registries.conf, following GetRegistryEndpoint in order:
//
//  1. An image without a registry part ("nginx", "bitnami/nginx") uses the
//     default registry: the built-in Docker Hub endpoint, unless an entry has
//     default: true. A "prefix: docker.io" entry replaces the docker.io map
//     entry but is not the default, so its credentials and defaultns are not
//     used for such images.
//  2. Otherwise an entry whose prefix equals the registry host wins.
//  3. Otherwise the entry with the longest prefix that is a plain string
//     prefix of "<registry>/<name>" (prefixes may carry a path; the
//     comparison ignores path boundaries). A prefix-less entry matches every
//     image and so acts as a catch-all.
//  4. Otherwise Image Updater infers https://<registry> at 20 requests/s
//     without credentials.
//
// Entries with the same prefix replace earlier ones (last wins). The model
// assumes a freshly started controller: Image Updater remembers inferred
// endpoints under their host, and Resolution warns where that changes the
// answer for later images.
func ResolveEndpoint(img ImageRef, conf RegistriesConf) (Endpoint, Resolution) {
	ep, res := resolveEndpoint(img, conf)
	if isDockerHubHost(strings.ToLower(ep.Host())) && ep.DefaultNS == "" && img.Name != "" && !strings.Contains(img.Name, "/") {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"%s points at Docker Hub but has no defaultns, so Image Updater asks for tags of %q instead of \"library/%s\" and Docker Hub refuses; add defaultns: library to the entry",
			ep.Name, img.Name, img.Name))
	}
	return ep, res
}

func resolveEndpoint(img ImageRef, conf RegistriesConf) (Endpoint, Resolution) {
	var res Resolution
	prefixes := map[string]regMapEntry{"docker.io": {ep: DockerHubEndpoint(), entry: -1}}
	def := regMapEntry{ep: DockerHubEndpoint(), entry: -1}
	defConfigured := false
	for i, r := range conf.Registries {
		src := EndpointConfiguredExact
		if r.Prefix == "" {
			src = EndpointCatchAll
		}
		ep := endpointFromConfig(r, src)
		prefixes[r.Prefix] = regMapEntry{ep: ep, entry: i}
		if r.Default {
			if defConfigured {
				res.Warnings = append(res.Warnings, fmt.Sprintf("entry %d (%s) is a second default registry; Image Updater refuses to start with this file", i, r.Name))
				continue
			}
			defConfigured = true
			d := ep
			d.Source = EndpointConfiguredDefault
			def = regMapEntry{ep: d, entry: i}
		}
	}
	if defConfigured {
		// The built-in Docker Hub endpoint stops being the default.
		if dh, ok := prefixes["docker.io"]; ok && dh.entry == -1 {
			dh.ep.Default = false
			prefixes["docker.io"] = dh
		}
	}

	full := img.Registry + "/" + img.Name

	// 1. No registry part: the default registry.
	if img.Registry == "" {
		ep := def.ep
		ep.Default = true
		res.Rule = ep.Source
		if def.entry < 0 {
			res.Summary = fmt.Sprintf("%q has no registry part, so it uses the default registry: the built-in Docker Hub endpoint (%s).", img.Name, ep.APIURL)
		} else {
			res.Summary = fmt.Sprintf("%q has no registry part, so it uses the default registry: registries.conf entry %d (%s, %s), which has default: true.", img.Name, def.entry, ep.Name, ep.APIURL)
		}
		res.Steps = append(res.Steps, "1. no registry part in the image → default registry: "+regDescribe(def))
		if dh, ok := prefixes["docker.io"]; ok && dh.entry >= 0 && dh.entry != def.entry {
			res.Warnings = append(res.Warnings, fmt.Sprintf(
				"registries.conf entry %d (%s) has prefix docker.io but no default: true, so its credentials, defaultns and limit are NOT used for %q; add default: true to it, or write the image as docker.io/%s",
				dh.entry, dh.ep.Name, img.Name, img.Name))
		}
		if ca, ok := prefixes[""]; ok && ca.entry != def.entry {
			res.Warnings = append(res.Warnings, fmt.Sprintf(
				"registries.conf entry %d (%s) has no prefix; it catches images of unknown registries but is not the default for images without a registry part unless it has default: true",
				ca.entry, ca.ep.Name))
		}
		return ep, res
	}
	res.Steps = append(res.Steps, fmt.Sprintf("1. the image names registry %q → not the default registry", img.Registry))

	// 2. Exact match of the registry host.
	if m, ok := prefixes[img.Registry]; ok {
		ep := m.ep
		if m.entry < 0 {
			ep.Source = EndpointBuiltinDockerHub
			res.Summary = fmt.Sprintf("registry %q is the built-in Docker Hub entry (%s).", img.Registry, ep.APIURL)
		} else {
			ep.Source = EndpointConfiguredExact
			res.Summary = fmt.Sprintf("registry %q matches the prefix of registries.conf entry %d (%s, %s) exactly.", img.Registry, m.entry, ep.Name, ep.APIURL)
		}
		res.Rule = ep.Source
		res.Steps = append(res.Steps, "2. exact prefix match for "+img.Registry+" → "+regDescribe(m))
		for _, p := range regSortedPrefixes(prefixes) {
			if p != img.Registry && len(p) > len(img.Registry) && strings.HasPrefix(full, p) {
				o := prefixes[p]
				res.Warnings = append(res.Warnings, fmt.Sprintf(
					"registries.conf entry %d (%s) with the longer prefix %q also matches %s but is never used for it: Image Updater checks the exact registry %q first",
					o.entry, o.ep.Name, p, full, img.Registry))
			}
		}
		return ep, res
	}
	res.Steps = append(res.Steps, fmt.Sprintf("2. no entry has prefix %q exactly", img.Registry))

	// 3. Longest prefix of "<registry>/<name>".
	var best *regMapEntry
	bestPrefix := ""
	for _, p := range regSortedPrefixes(prefixes) {
		m := prefixes[p]
		c := PrefixCandidate{Name: m.ep.Name, Prefix: p, Entry: m.entry, Matched: strings.HasPrefix(full, p)}
		if c.Matched {
			if p == "" {
				c.Note = "no prefix: matches every image"
			} else if !strings.HasSuffix(p, "/") && len(full) > len(p) && full[len(p)] != '/' {
				c.Note = fmt.Sprintf("matches without a path boundary (%q continues with %q)", full, full[len(p):])
			}
			if best == nil || len(p) > len(bestPrefix) {
				mm := m
				best, bestPrefix = &mm, p
			}
		} else {
			c.Note = fmt.Sprintf("%q does not start with %q", full, p)
		}
		res.Considered = append(res.Considered, c)
	}
	if best != nil {
		for i := range res.Considered {
			if res.Considered[i].Prefix == bestPrefix {
				res.Considered[i].Chosen = true
				if n := res.Considered[i].Note; n != "" && strings.HasPrefix(n, "matches without") {
					res.Warnings = append(res.Warnings, fmt.Sprintf("prefix %q %s; Image Updater compares plain strings, so it applies here anyway", bestPrefix, n))
				}
			}
		}
		ep := best.ep
		if bestPrefix == "" {
			ep.Source = EndpointCatchAll
			res.Summary = fmt.Sprintf("no entry matches %q by registry or prefix, so the prefix-less registries.conf entry %d (%s, %s) catches it.", full, best.entry, ep.Name, ep.APIURL)
		} else {
			ep.Source = EndpointConfiguredPrefix
			if best.entry < 0 {
				ep.Source = EndpointBuiltinDockerHub
			}
			res.Summary = fmt.Sprintf("%q starts with prefix %q, the longest matching prefix: %s.", full, bestPrefix, regDescribe(*best))
			if strings.Contains(bestPrefix, "/") {
				res.Warnings = append(res.Warnings, fmt.Sprintf(
					"if Image Updater has met an image of %s outside the configured prefixes since it started, it inferred an endpoint for %s and remembers it under that host; from then on the exact-host rule sends this image there too (no credentials), until the controller restarts",
					img.Registry, img.Registry))
			}
		}
		res.Rule = ep.Source
		res.Steps = append(res.Steps, fmt.Sprintf("3. longest prefix of %q → %q: %s", full, bestPrefix, regDescribe(*best)))
		return ep, res
	}
	res.Steps = append(res.Steps, fmt.Sprintf("3. no prefix matches %q", full))

	// 4. Inference.
	ep := Endpoint{
		Name:   img.Registry,
		Prefix: img.Registry,
		APIURL: "https://" + img.Registry,
		Limit:  InferredRateLimit,
		Source: EndpointInferred,
	}
	res.Rule = EndpointInferred
	res.Summary = fmt.Sprintf("no registries.conf entry covers %q, so Image Updater infers the API %s (20 requests/s, no registry credentials; log: \"Inferred registry from prefix %s to use API %s\").",
		img.Registry, ep.APIURL, img.Registry, ep.APIURL)
	res.Steps = append(res.Steps, "4. inferred "+ep.APIURL)
	return ep, res
}

func regDescribe(m regMapEntry) string {
	if m.entry < 0 {
		return fmt.Sprintf("built-in %s (%s)", m.ep.Name, m.ep.APIURL)
	}
	return fmt.Sprintf("registries.conf entry %d %q (%s)", m.entry, m.ep.Name, m.ep.APIURL)
}

// regSortedPrefixes gives map keys in a stable order (longest first, then
// alphabetical) so explanations do not change between runs; Image Updater's
// own map order is random, but its choice does not depend on it.
func regSortedPrefixes(m map[string]regMapEntry) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) > len(keys[j])
		}
		return keys[i] < keys[j]
	})
	return keys
}

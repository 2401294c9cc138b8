package updater

import (
	"crypto/x509"
	"fmt"
	"strings"
	"time"

	yamlv2 "go.yaml.in/yaml/v2"
)

// RegistriesConf is a parsed registries.conf: the registries key of the
// argocd-image-updater-config ConfigMap, mounted at
// /app/config/registries.conf. A missing file is valid and means "built-in
// defaults only" (the zero value).
type RegistriesConf struct {
	// Registries are the entries in file order. Order matters: a later entry
	// with the same prefix replaces an earlier one, exactly as Image Updater
	// overwrites its prefix map while loading.
	Registries []RegistryConfig `json:"registries"`
	// Warnings are things Image Updater accepts but that are probably not what
	// the author meant (tagsortmode disabling metadata, ping being ignored,
	// duplicate prefixes, an api_url that is not a v2 base URL...).
	Warnings []string `json:"warnings,omitempty"`
}

// RegistryConfig is one entry of registries.conf, with the values Image
// Updater would use. Field names follow the YAML keys.
type RegistryConfig struct {
	// Name is the symbolic name (required; Image Updater does not check that
	// names are unique).
	Name string `json:"name"`
	// APIURL is api_url with one trailing "/" removed, as NewRegistryEndpoint
	// trims it.
	APIURL string `json:"api_url"`
	// Prefix is the lookup key matched against image references; "" makes the
	// entry a catch-all for registries no other entry matches.
	Prefix string `json:"prefix,omitempty"`
	// Credentials is the raw credential reference (see ParseCredentialRef).
	Credentials string `json:"credentials,omitempty"`
	// CredsExpire is how long fetched credentials are cached; 0 = forever.
	CredsExpire time.Duration `json:"credsexpire,omitempty"`
	// DefaultNS is prepended to one-component image names ("library").
	DefaultNS string `json:"defaultns,omitempty"`
	// Default makes the entry the registry for images without a registry part.
	Default bool `json:"default,omitempty"`
	// Insecure skips TLS verification; the CA settings are then ignored.
	Insecure bool `json:"insecure,omitempty"`
	// CAFile and CAData are extra CA certificates (v1.3.0+).
	CAFile string `json:"ca_file,omitempty"`
	CAData string `json:"ca_data,omitempty"`
	// TagSortMode is tagsortmode lower-cased: "", "none", "latest-first" or
	// "latest-last".
	TagSortMode string `json:"tagsortmode,omitempty"`
	// Limit is requests per second; 0 or negative means unlimited.
	Limit int `json:"limit,omitempty"`
	// Ping is parsed but not used by Image Updater v1.x.
	Ping bool `json:"ping,omitempty"`
}

// RegistriesConfError says why Image Updater would refuse a registries.conf
// and stop with "could not load registry configuration". Entry is the
// zero-based index of the offending entry (-1 for the document as a whole)
// and Field the YAML key ("" when the problem is not one key).
type RegistriesConfError struct {
	Entry  int
	Field  string
	Reason string
	// Upstream is the error text Image Updater itself reports, when known.
	Upstream string
	// Others are further problems in the same file that Image Updater does
	// not report because it stops at one (fix them too).
	Others []*RegistriesConfError
}

func (e *RegistriesConfError) Error() string {
	var b strings.Builder
	b.WriteString("registries.conf")
	if e.Entry >= 0 {
		fmt.Fprintf(&b, ": entry %d", e.Entry)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": %s", e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

// regConfYAML mirrors Image Updater's RegistryConfiguration for v1.3.0 so
// that yaml.v2's strict decoder accepts and rejects exactly what it does
// (durations from strings, integers as nanoseconds, YAML 1.1 booleans such as
// "yes", scalars into strings, floats truncated into limit).
type regConfYAML struct {
	Name        string        `yaml:"name"`
	ApiURL      string        `yaml:"api_url"`
	Ping        bool          `yaml:"ping,omitempty"`
	Credentials string        `yaml:"credentials,omitempty"`
	CredsExpire time.Duration `yaml:"credsexpire,omitempty"`
	TagSortMode string        `yaml:"tagsortmode,omitempty"`
	Prefix      string        `yaml:"prefix,omitempty"`
	Insecure    bool          `yaml:"insecure,omitempty"`
	CAFile      string        `yaml:"ca_file,omitempty"`
	CAData      string        `yaml:"ca_data,omitempty"`
	DefaultNS   string        `yaml:"defaultns,omitempty"`
	Limit       int           `yaml:"limit,omitempty"`
	IsDefault   bool          `yaml:"default,omitempty"`
}

// regConfYAMLPre13 is the same entry before v1.3.0, which had no CA keys:
// strict decoding rejects ca_file and ca_data there.
type regConfYAMLPre13 struct {
	Name        string        `yaml:"name"`
	ApiURL      string        `yaml:"api_url"`
	Ping        bool          `yaml:"ping,omitempty"`
	Credentials string        `yaml:"credentials,omitempty"`
	CredsExpire time.Duration `yaml:"credsexpire,omitempty"`
	TagSortMode string        `yaml:"tagsortmode,omitempty"`
	Prefix      string        `yaml:"prefix,omitempty"`
	Insecure    bool          `yaml:"insecure,omitempty"`
	DefaultNS   string        `yaml:"defaultns,omitempty"`
	Limit       int           `yaml:"limit,omitempty"`
	IsDefault   bool          `yaml:"default,omitempty"`
}

// SupportsRegistryCA: registries.conf accepts ca_file and ca_data from
// v1.3.0 (PR #1743); older releases reject them as unknown keys.
func (v Version) SupportsRegistryCA() bool { return v.AtLeast(1, 3, 0) }

// registryConfKeys lists the keys an entry may carry for version v.
func registryConfKeys(v Version) []string {
	keys := []string{"name", "api_url", "ping", "credentials", "credsexpire", "tagsortmode",
		"prefix", "insecure", "defaultns", "limit", "default"}
	if v.SupportsRegistryCA() {
		keys = append(keys, "ca_file", "ca_data")
	}
	return keys
}

// ParseRegistriesConf reads registries.conf as the newest release the model
// knows (Latest) would. See ParseRegistriesConfFor.
func ParseRegistriesConf(data []byte) (RegistriesConf, error) {
	return ParseRegistriesConfFor(data, Latest)
}

// ParseRegistriesConfFor reads registries.conf exactly as Image Updater
// version v loads it at start-up, and fails where it would refuse to start:
//
//   - the YAML is decoded strictly (yaml.v2 UnmarshalStrict): unknown keys,
//     duplicate keys and values of the wrong type are errors;
//   - every entry needs name and api_url, at most one entry may omit prefix,
//     and tagsortmode must be "", "none", "latest-first" or "latest-last"
//     (case-insensitive). Image Updater checks entries in order and keeps
//     the LAST such problem it saw; the returned error is that one, with the
//     others in Others;
//   - while loading, an entry whose ca_data is not PEM fails (unless
//     insecure), and a second "default: true" fails; the first of these in
//     file order is reported.
//
// A ca_file that cannot be read also stops v1.3.0, but reading it is I/O:
// the caller must check RegistryConfig.CAFile. The returned error is a
// *RegistriesConfError. The result holds the entries even when err != nil,
// as far as they could be read.
func ParseRegistriesConfFor(data []byte, v Version) (RegistriesConf, error) {
	var conf RegistriesConf
	type docNew struct {
		Items []regConfYAML `yaml:"registries"`
	}
	type docOld struct {
		Items []regConfYAMLPre13 `yaml:"registries"`
	}
	var strictErr error
	var raw []regConfYAML
	if v.SupportsRegistryCA() {
		var d docNew
		strictErr = yamlv2.UnmarshalStrict(data, &d)
		raw = d.Items
	} else {
		var d docOld
		strictErr = yamlv2.UnmarshalStrict(data, &d)
		for _, it := range d.Items {
			raw = append(raw, regConfYAML{
				Name: it.Name, ApiURL: it.ApiURL, Ping: it.Ping, Credentials: it.Credentials,
				CredsExpire: it.CredsExpire, TagSortMode: it.TagSortMode, Prefix: it.Prefix,
				Insecure: it.Insecure, DefaultNS: it.DefaultNS, Limit: it.Limit, IsDefault: it.IsDefault,
			})
		}
	}
	if strictErr != nil {
		return RegistriesConf{}, regLocateYAMLError(data, v, strictErr)
	}
	for _, it := range raw {
		conf.Registries = append(conf.Registries, regFromYAML(it))
	}
	conf.Warnings = append(conf.Warnings, regDecodeWarnings(data)...)

	// Validation as ParseRegistryConfiguration does it: one error variable
	// across the loop, overwritten by each later problem, and the tag sort
	// check only while no problem has been seen yet.
	var problems []*RegistriesConfError
	var last *RegistriesConfError
	prefixless := ""
	for i, r := range raw {
		var p *RegistriesConfError
		switch {
		case r.Name == "":
			p = &RegistriesConfError{Entry: i, Field: "name", Reason: "name is required",
				Upstream: fmt.Sprintf("registry name is missing for entry %s", regUpstreamEntry(r, v))}
		case r.ApiURL == "":
			p = &RegistriesConfError{Entry: i, Field: "api_url", Reason: "api_url is required (the registry's base URL, e.g. https://ghcr.io)",
				Upstream: fmt.Sprintf("API URL must be specified for registry %s", r.Name)}
		case r.Prefix == "":
			if prefixless != "" {
				p = &RegistriesConfError{Entry: i, Field: "prefix",
					Reason:   fmt.Sprintf("only one entry may omit prefix and %q already does; give %q a prefix", prefixless, r.Name),
					Upstream: fmt.Sprintf("there must be only one default registry (already is %s), %s needs a prefix", prefixless, r.Name)}
			} else {
				prefixless = r.Name
			}
		}
		if p == nil && last == nil && !regTagSortKnown(r.TagSortMode) {
			p = &RegistriesConfError{Entry: i, Field: "tagsortmode",
				Reason:   fmt.Sprintf("unknown tag sort mode %q; use none, latest-first or latest-last", r.TagSortMode),
				Upstream: fmt.Sprintf("unknown tag sort mode for registry %s: %s", r.Name, r.TagSortMode)}
		}
		if p != nil {
			problems = append(problems, p)
			last = p
		}
	}
	if last != nil {
		for _, p := range problems {
			if p != last {
				last.Others = append(last.Others, p)
			}
		}
		return conf, last
	}

	// Loading (LoadRegistryConfiguration): entries in order, first error stops.
	defaultIdx := -1
	for i, r := range conf.Registries {
		if v.SupportsRegistryCA() && !r.Insecure && r.CAData != "" {
			if !x509.NewCertPool().AppendCertsFromPEM([]byte(r.CAData)) {
				return conf, &RegistriesConfError{Entry: i, Field: "ca_data",
					Reason:   "ca_data does not contain a PEM certificate (paste the -----BEGIN CERTIFICATE----- block)",
					Upstream: fmt.Sprintf("could not configure CA certificates for registry %s: ca_data does not contain a valid PEM certificate", r.Name)}
			}
		}
		if r.Default {
			if defaultIdx >= 0 {
				return conf, &RegistriesConfError{Entry: i, Field: "default",
					Reason: fmt.Sprintf("only one entry may be the default and %q already is", conf.Registries[defaultIdx].Name),
					Upstream: fmt.Sprintf("cannot set registry %s as default - only one default registry allowed, currently set to %s",
						r.Prefix, conf.Registries[defaultIdx].Prefix)}
			}
			defaultIdx = i
		}
	}
	conf.Warnings = append(conf.Warnings, regWarnings(conf, v)...)
	return conf, nil
}

func regFromYAML(it regConfYAML) RegistryConfig {
	return RegistryConfig{
		Name:        it.Name,
		APIURL:      strings.TrimSuffix(it.ApiURL, "/"),
		Prefix:      it.Prefix,
		Credentials: it.Credentials,
		CredsExpire: it.CredsExpire,
		DefaultNS:   it.DefaultNS,
		Default:     it.IsDefault,
		Insecure:    it.Insecure,
		CAFile:      it.CAFile,
		CAData:      it.CAData,
		TagSortMode: strings.ToLower(it.TagSortMode),
		Limit:       it.Limit,
		Ping:        it.Ping,
	}
}

// regUpstreamEntry renders an entry the way fmt's %v renders Image Updater's
// RegistryConfiguration struct in "registry name is missing for entry %v".
// Validation runs on the raw values, before api_url is trimmed.
func regUpstreamEntry(r regConfYAML, v Version) string {
	if !v.SupportsRegistryCA() {
		return fmt.Sprintf("{%s %s %t %s %v %s %s %t %s %d %t}",
			r.Name, r.ApiURL, r.Ping, r.Credentials, r.CredsExpire, r.TagSortMode, r.Prefix,
			r.Insecure, r.DefaultNS, r.Limit, r.IsDefault)
	}
	return fmt.Sprintf("{%s %s %t %s %v %s %s %t %s %s %s %d %t}",
		r.Name, r.ApiURL, r.Ping, r.Credentials, r.CredsExpire, r.TagSortMode, r.Prefix,
		r.Insecure, r.CAFile, r.CAData, r.DefaultNS, r.Limit, r.IsDefault)
}

func regTagSortKnown(s string) bool {
	switch strings.ToLower(s) {
	case "", "none", "latest-first", "latest-last":
		return true
	}
	return false
}

// regLocateYAMLError turns a strict-decoding failure into an error that names
// the entry and key. It re-reads the document loosely and checks each key on
// its own; when it cannot pin the problem down it reports the decoder's text.
func regLocateYAMLError(data []byte, v Version, strictErr error) *RegistriesConfError {
	fallback := &RegistriesConfError{Entry: -1, Reason: strictErr.Error(), Upstream: strictErr.Error()}
	var top yamlv2.MapSlice
	if err := yamlv2.Unmarshal(data, &top); err != nil {
		fallback.Reason = "not a YAML mapping with a registries list: " + err.Error()
		return fallback
	}
	var found []*RegistriesConfError
	seenTop := map[string]bool{}
	for _, item := range top {
		key := fmt.Sprint(item.Key)
		if seenTop[key] {
			found = append(found, &RegistriesConfError{Entry: -1, Field: key, Reason: "key appears twice", Upstream: strictErr.Error()})
			continue
		}
		seenTop[key] = true
		if key != "registries" {
			reason := "unknown top-level key; the file must contain only a registries: list"
			if strings.EqualFold(key, "registries") || strings.HasPrefix(strings.ToLower(key), "registr") {
				reason = fmt.Sprintf("unknown top-level key %q; the key is spelled registries", key)
			}
			found = append(found, &RegistriesConfError{Entry: -1, Field: key, Reason: reason, Upstream: strictErr.Error()})
			continue
		}
		if item.Value == nil {
			continue
		}
		list, ok := item.Value.([]interface{})
		if !ok {
			found = append(found, &RegistriesConfError{Entry: -1, Field: "registries",
				Reason: "registries must be a list of entries (each starting with \"- name: ...\")", Upstream: strictErr.Error()})
			continue
		}
		for i, el := range list {
			found = append(found, regLocateEntry(i, el, v, strictErr)...)
		}
	}
	if len(found) == 0 {
		return fallback
	}
	first := found[0]
	first.Others = found[1:]
	return first
}

func regLocateEntry(i int, el interface{}, v Version, strictErr error) []*RegistriesConfError {
	entry, ok := el.(yamlv2.MapSlice)
	if !ok {
		return []*RegistriesConfError{{Entry: i, Reason: "entry is not a mapping of keys (name, api_url, prefix, ...)", Upstream: strictErr.Error()}}
	}
	known := registryConfKeys(v)
	var out []*RegistriesConfError
	seen := map[string]bool{}
	for _, kv := range entry {
		key := fmt.Sprint(kv.Key)
		if seen[key] {
			out = append(out, &RegistriesConfError{Entry: i, Field: key, Reason: "key appears twice in this entry", Upstream: strictErr.Error()})
			continue
		}
		seen[key] = true
		if !regContains(known, key) {
			out = append(out, &RegistriesConfError{Entry: i, Field: key, Reason: regUnknownKeyReason(key, known, v), Upstream: strictErr.Error()})
			continue
		}
		one, err := yamlv2.Marshal(yamlv2.MapSlice{kv})
		if err != nil {
			continue
		}
		var probe regConfYAML
		if err := yamlv2.UnmarshalStrict(one, &probe); err != nil {
			out = append(out, &RegistriesConfError{Entry: i, Field: key, Reason: regTypeReason(key, kv.Value), Upstream: strictErr.Error()})
		}
	}
	return out
}

func regContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func regUnknownKeyReason(key string, known []string, v Version) string {
	if (key == "ca_file" || key == "ca_data") && !v.SupportsRegistryCA() {
		return fmt.Sprintf("%s is only understood from v1.3.0; %s rejects the whole file", key, v)
	}
	norm := strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(key))
	for _, k := range known {
		if strings.ReplaceAll(k, "_", "") == norm {
			return fmt.Sprintf("unknown key %q; did you mean %q?", key, k)
		}
	}
	if best, d := closest(key, known); best != "" && d <= 2 {
		return fmt.Sprintf("unknown key %q; did you mean %q?", key, best)
	}
	switch norm {
	case "url", "api", "apiurl", "endpoint", "server":
		return fmt.Sprintf("unknown key %q; the registry URL key is api_url", key)
	case "ratelimit", "rps":
		return fmt.Sprintf("unknown key %q; the rate limit key is limit", key)
	case "isdefault":
		return fmt.Sprintf("unknown key %q; the key is default", key)
	case "namespace", "defaultnamespace":
		return fmt.Sprintf("unknown key %q; the key is defaultns", key)
	}
	return fmt.Sprintf("unknown key %q; allowed keys are %s", key, strings.Join(known, ", "))
}

func regTypeReason(key string, val interface{}) string {
	switch key {
	case "credsexpire":
		return fmt.Sprintf("credsexpire %v is not a Go duration; write e.g. 5h, 30m or 1h30m", val)
	case "limit":
		return fmt.Sprintf("limit %v is not a number of requests per second", val)
	case "ping", "insecure", "default":
		return fmt.Sprintf("%s %v is not a boolean; write true or false", key, val)
	}
	return fmt.Sprintf("%s has a value of the wrong type (%T); it must be a string", key, val)
}

// regDecodeWarnings notes values yaml.v2 accepts silently but differently
// from what the author likely meant: a bare number as credsexpire is read as
// nanoseconds.
func regDecodeWarnings(data []byte) []string {
	var top struct {
		Registries []yamlv2.MapSlice `yaml:"registries"`
	}
	if yamlv2.Unmarshal(data, &top) != nil {
		return nil
	}
	var out []string
	for i, e := range top.Registries {
		for _, kv := range e {
			if fmt.Sprint(kv.Key) != "credsexpire" {
				continue
			}
			switch n := kv.Value.(type) {
			case int, int64, uint64, float64:
				out = append(out, fmt.Sprintf("entry %d: credsexpire %v has no unit and is read as %v nanoseconds, so credentials are re-read on every use; write e.g. %vs or 5h", i, n, n, n))
			}
		}
	}
	return out
}

// regWarnings collects accepted-but-suspicious settings.
func regWarnings(conf RegistriesConf, v Version) []string {
	var out []string
	seenPrefix := map[string]int{}
	for i, r := range conf.Registries {
		if j, ok := seenPrefix[r.Prefix]; ok {
			out = append(out, fmt.Sprintf("entry %d (%s) has the same prefix %q as entry %d (%s) and replaces it; entry %d is never used",
				i, r.Name, r.Prefix, j, conf.Registries[j].Name, j))
		}
		seenPrefix[r.Prefix] = i
		if r.TagSortMode == "latest-first" || r.TagSortMode == "latest-last" {
			out = append(out, fmt.Sprintf("entry %d (%s): tagsortmode %s disables metadata retrieval for this registry; newest-build and digest use the list order instead of build dates",
				i, r.Name, r.TagSortMode))
		}
		if r.Ping && v.UsesCRs() {
			out = append(out, fmt.Sprintf("entry %d (%s): ping is parsed but ignored by %s; the /v2/ ping is always sent", i, r.Name, v))
		}
		low := strings.ToLower(r.APIURL)
		switch {
		case !strings.HasPrefix(low, "https://") && !strings.HasPrefix(low, "http://"):
			out = append(out, fmt.Sprintf("entry %d (%s): api_url %q has no http:// or https:// scheme; requests to it fail", i, r.Name, r.APIURL))
		case strings.HasSuffix(low, "/v2") || strings.Contains(low, "/v1"):
			out = append(out, fmt.Sprintf("entry %d (%s): api_url %q should be the registry base URL without /v1 or /v2; Image Updater appends /v2/ itself (Docker Hub: https://registry-1.docker.io)", i, r.Name, r.APIURL))
		}
		if r.Insecure && (r.CAFile != "" || r.CAData != "") {
			out = append(out, fmt.Sprintf("entry %d (%s): insecure is set, so ca_file/ca_data are ignored", i, r.Name))
		}
		if r.Limit < 0 {
			out = append(out, fmt.Sprintf("entry %d (%s): a negative limit means unlimited", i, r.Name))
		}
	}
	return out
}

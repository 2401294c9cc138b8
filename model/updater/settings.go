package updater

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Strategy is an update strategy.
type Strategy int

const (
	StrategySemver Strategy = iota
	StrategyNewestBuild
	StrategyAlphabetical
	StrategyDigest
)

func (s Strategy) String() string {
	switch s {
	case StrategySemver:
		return "semver"
	case StrategyNewestBuild:
		return "newest-build"
	case StrategyAlphabetical:
		return "alphabetical"
	case StrategyDigest:
		return "digest"
	}
	return "unknown"
}

// NeedsMetadata: the strategies for which Image Updater fetches a manifest and
// config per tag (and so filters by platform).
func (s Strategy) NeedsMetadata() bool { return s == StrategyNewestBuild || s == StrategyDigest }

// UsesConstraint: semver checks the constraint, digest tracks the tag named by
// it; newest-build and alphabetical ignore it.
func (s Strategy) UsesConstraint() bool { return s == StrategySemver || s == StrategyDigest }

// ParseStrategy reads an update strategy as Image Updater does: case
// insensitive; "latest" and "name" are deprecated names; anything else
// (including "") falls back to semver. The note is the warning Image Updater
// logs, or "".
func ParseStrategy(s string) (Strategy, string) {
	switch strings.ToLower(s) {
	case "semver":
		return StrategySemver, ""
	case "latest":
		return StrategyNewestBuild, `"latest" strategy has been renamed to "newest-build". Please switch to the new convention as support for the old naming convention will be removed in future versions.`
	case "newest-build":
		return StrategyNewestBuild, ""
	case "name":
		return StrategyAlphabetical, `"name" strategy has been renamed to "alphabetical". Please switch to the new convention as support for the old naming convention will be removed in future versions.`
	case "alphabetical":
		return StrategyAlphabetical, ""
	case "digest":
		return StrategyDigest, ""
	case "":
		return StrategySemver, ""
	}
	return StrategySemver, fmt.Sprintf("Unknown sort option %s -- using semver", s)
}

// AllowTagsKind is how an allow-tags value matches.
type AllowTagsKind int

const (
	AllowAll     AllowTagsKind = iota // "" or "any"
	AllowRegexp                       // "regexp:<re>", unanchored
	AllowNothing                      // invalid: matches no tag at all
)

// AllowTags is a parsed allow-tags value. Invalid values do not fail: like
// Image Updater they match nothing, and Problem says why.
type AllowTags struct {
	Raw     string
	Kind    AllowTagsKind
	re      *regexp.Regexp
	Problem string // the warning Image Updater logs for an invalid value
}

// ParseAllowTags reads an allow-tags value (ParseMatch).
func ParseAllowTags(s string) AllowTags {
	a := AllowTags{Raw: s}
	if s == "" || strings.EqualFold(s, "any") {
		return a
	}
	fn, arg, ok := strings.Cut(s, ":")
	if !ok {
		a.Kind = AllowNothing
		a.Problem = fmt.Sprintf("Invalid match option syntax '%s', ignoring", s)
		return a
	}
	if !strings.EqualFold(fn, "regexp") {
		a.Kind = AllowNothing
		a.Problem = fmt.Sprintf("Unknown match function: %s", fn)
		return a
	}
	re, err := regexp.Compile(arg)
	if err != nil {
		a.Kind = AllowNothing
		a.Problem = fmt.Sprintf("Could not compile regexp '%s'", arg)
		return a
	}
	a.Kind, a.re = AllowRegexp, re
	return a
}

// Allows reports whether tag passes the filter (substring regexp match).
func (a AllowTags) Allows(tag string) bool {
	switch a.Kind {
	case AllowAll:
		return true
	case AllowRegexp:
		return a.re.MatchString(tag)
	}
	return false
}

// IgnoredBy returns the first ignore-tags glob that matches tag, or "".
// Patterns filepath.Match rejects are skipped, as in Image Updater.
func IgnoredBy(patterns []string, tag string) string {
	for _, p := range patterns {
		if ok, err := filepath.Match(p, tag); err == nil && ok {
			return p
		}
	}
	return ""
}

// Platform is os/arch[/variant].
type Platform struct {
	OS, Arch, Variant string
}

func (p Platform) String() string {
	s := p.OS + "/" + p.Arch
	if p.Variant != "" {
		s += "/" + p.Variant
	}
	return s
}

// PlatformError says which part of a platform string is wrong.
type PlatformError struct {
	Input string
}

func (e *PlatformError) Error() string {
	return fmt.Sprintf("could not parse platform constraint '%s': want os/arch[/variant], e.g. linux/amd64", e.Input)
}

// ParsePlatform reads "os/arch[/variant]".
func ParsePlatform(s string) (Platform, error) {
	p := strings.SplitN(s, "/", 3)
	if len(p) < 2 {
		return Platform{}, &PlatformError{Input: s}
	}
	pl := Platform{OS: p[0], Arch: p[1]}
	if len(p) == 3 {
		pl.Variant = p[2]
	}
	return pl, nil
}

// DefaultControllerPlatform is the platform of the released Image Updater
// images' common deployment; the model's fallback when none is configured.
var DefaultControllerPlatform = Platform{OS: "linux", Arch: "amd64"}

// PlatformSet is the platform filter for metadata strategies. A string that
// does not parse becomes a constraint on an OS of that raw value, which
// matches nothing (as in Image Updater); Problems records it.
type PlatformSet struct {
	Platforms []Platform
	// FromController is true when nothing was configured and the controller's
	// own platform was used.
	FromController bool
	Problems       []string
}

// NewPlatformSet builds the filter from configured strings, or from the
// controller's platform when none are configured.
func NewPlatformSet(configured []string, controller Platform) PlatformSet {
	if len(configured) == 0 {
		return PlatformSet{Platforms: []Platform{controller}, FromController: true}
	}
	var ps PlatformSet
	for _, raw := range configured {
		t := strings.TrimSpace(raw)
		p, err := ParsePlatform(t)
		if err != nil {
			p = Platform{OS: raw}
			ps.Problems = append(ps.Problems, fmt.Sprintf("could not parse platform identifier '%v': invalid format", t))
		}
		ps.Platforms = append(ps.Platforms, p)
	}
	return ps
}

// Wants is WantsPlatform: an exact os/arch/variant match, or a manifest with a
// variant matching a wanted os/arch without one. The reverse does not hold:
// wanting linux/arm64/v8 does not accept a manifest of linux/arm64.
func (ps PlatformSet) Wants(p Platform) bool {
	if len(ps.Platforms) == 0 {
		return true
	}
	for _, w := range ps.Platforms {
		if w == p {
			return true
		}
	}
	if p.Variant != "" {
		bare := Platform{OS: p.OS, Arch: p.Arch}
		for _, w := range ps.Platforms {
			if w == bare {
				return true
			}
		}
	}
	return false
}

func (ps PlatformSet) String() string {
	s := make([]string, len(ps.Platforms))
	for i, p := range ps.Platforms {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}

// UpdateSettings are the effective settings of one image after every merge
// (CR → applicationRef → image, or annotations), parsed.
type UpdateSettings struct {
	Strategy Strategy `json:"-"`
	// StrategyRaw is the value as configured ("" when defaulted).
	StrategyRaw string `json:"updateStrategy,omitempty"`
	ForceUpdate bool   `json:"forceUpdate,omitempty"`
	// AllowTags is parsed; AllowTags.Raw is the configured string.
	AllowTags  AllowTags `json:"-"`
	IgnoreTags []string  `json:"ignoreTags,omitempty"`
	// PullSecret is the raw credential reference ("" = registry-level
	// credentials); see ParseCredentialRef.
	PullSecret string `json:"pullSecret,omitempty"`
	// Platforms are the raw configured platform strings (none = the
	// controller's platform).
	Platforms []string `json:"platforms,omitempty"`
	// Notes are warnings Image Updater would log while reading these
	// settings (deprecated strategy names, invalid allow-tags...).
	Notes []string `json:"notes,omitempty"`
}

// DefaultUpdateSettings are Image Updater's defaults when nothing is set.
func DefaultUpdateSettings() UpdateSettings {
	return UpdateSettings{Strategy: StrategySemver}
}

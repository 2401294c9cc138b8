package updater

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// pubRepo is the repository of shared/reference/tag-selection-cases.md, whose
// picks were made by the real Image Updater v1.3.0 `test` command.
type fixtureTag struct {
	name      string
	created   string
	platforms []string
	sameAs    string
}

var pubRepo = []fixtureTag{
	{name: "0.1.0", created: "2026-01-01T00:00:00Z"},
	{name: "0.2.0", created: "2026-01-02T00:00:00Z"},
	{name: "0.10.0", created: "2026-01-03T00:00:00Z"},
	{name: "1.0.0-alpha", created: "2026-01-04T00:00:00Z"},
	{name: "1.0.0-beta.2", created: "2026-01-05T00:00:00Z"},
	{name: "1.0.0", created: "2026-01-06T00:00:00Z"},
	{name: "1.0.1", created: "2026-01-07T00:00:00Z"},
	{name: "1.1", created: "2026-01-08T00:00:00Z"},
	{name: "v1.1.5", created: "2026-01-09T00:00:00Z"},
	{name: "2020.01.01", created: "2025-06-01T00:00:00Z"},
	{name: "1.0.1-hotfix", created: "2026-01-10T00:00:00Z"},
	{name: "nightly", created: "2026-01-11T00:00:00Z"},
	{name: "dev-123", created: "2026-01-12T00:00:00Z", platforms: []string{"linux/arm64"}},
	{name: "stable", sameAs: "1.0.1"},
}

func buildFixture(t *testing.T, repo []fixtureTag) ([]string, map[string]TagMeta) {
	t.Helper()
	var tags []string
	meta := map[string]TagMeta{}
	byName := map[string]fixtureTag{}
	for _, ft := range repo {
		byName[ft.name] = ft
	}
	for _, ft := range repo {
		tags = append(tags, ft.name)
		src := ft
		if ft.sameAs != "" {
			src = byName[ft.sameAs]
		}
		created, err := time.Parse(time.RFC3339, src.created)
		if err != nil {
			t.Fatal(err)
		}
		plats := src.platforms
		if len(plats) == 0 {
			plats = []string{"linux/amd64"}
		}
		m := TagMeta{Digest: "sha256:" + strings.Repeat("0", 56) + digestSuffix(src.name), Index: len(plats) > 1}
		for _, p := range plats {
			pl, err := ParsePlatform(p)
			if err != nil {
				t.Fatal(err)
			}
			m.Manifests = append(m.Manifests, ManifestMeta{Platform: pl, Created: created, HasCreated: true})
		}
		meta[ft.name] = m
	}
	return tags, meta
}

// digestSuffix makes a distinct 8-hex-digit suffix per source tag.
func digestSuffix(name string) string {
	var h uint32 = 2166136261
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	const hex = "0123456789abcdef"
	b := make([]byte, 8)
	for i := range b {
		b[7-i] = hex[h&0xf]
		h >>= 4
	}
	return string(b)
}

func settings(strategy, allow string, ignore []string, platforms []string) UpdateSettings {
	s, note := ParseStrategy(strategy)
	us := UpdateSettings{Strategy: s, StrategyRaw: strategy, AllowTags: ParseAllowTags(allow), IgnoreTags: ignore, Platforms: platforms}
	if note != "" {
		us.Notes = append(us.Notes, note)
	}
	return us
}

// TestCalibrationV13 replays every pick of tag-selection-cases.md.
func TestCalibrationV13(t *testing.T) {
	tags, meta := buildFixture(t, pubRepo)
	cases := []struct {
		name       string
		strategy   string
		constraint string
		allow      string
		ignore     []string
		platforms  []string
		want       string // tag, or "error:" + message fragment
	}{
		{name: "semver, no constraint", strategy: "semver", want: "2020.01.01"},
		{name: "semver ~0.2", strategy: "semver", constraint: "~0.2", want: "0.2.0"},
		{name: "semver ^0.1", strategy: "semver", constraint: "^0.1", want: "0.1.0"},
		{name: "semver >=1.0.0-0 <1.0.1", strategy: "semver", constraint: ">=1.0.0-0,<1.0.1", want: "1.0.1-hotfix"},
		{name: "semver 1.0", strategy: "semver", constraint: "1.0", want: "1.0.1"},
		{name: "semver 1.0.x-0", strategy: "semver", constraint: "1.0.x-0", want: "1.0.1"},
		{name: "semver allow-tags anchored", strategy: "semver", allow: `regexp:^[0-9]+\.[0-9]+\.[0-9]+$`, want: "2020.01.01"},
		{name: "semver ignore 2020*", strategy: "semver", ignore: []string{"2020*"}, want: "v1.1.5"},
		{name: "alphabetical", strategy: "alphabetical", want: "v1.1.5"},
		{name: "alphabetical ignore [a-z]*", strategy: "alphabetical", ignore: []string{"[a-z]*"}, want: "2020.01.01"},
		{name: "newest-build amd64", strategy: "newest-build", platforms: []string{"linux/amd64"}, want: "nightly"},
		{name: "newest-build ignore nightly", strategy: "newest-build", platforms: []string{"linux/amd64"}, ignore: []string{"nightly"}, want: "1.0.1-hotfix"},
		{name: "newest-build arm64", strategy: "newest-build", platforms: []string{"linux/arm64"}, want: "dev-123"},
		{name: "digest on stable", strategy: "digest", constraint: "stable", want: "stable@" + meta["1.0.1"].Digest},
		{name: "semver constraint stable", strategy: "semver", constraint: "stable", want: "error:improper constraint: stable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			img := ParseImageRef("acme/pub", V1_3)
			img.Tag = tc.constraint
			d := Select(SelectInput{Version: V1_3, Image: img, Settings: settings(tc.strategy, tc.allow, tc.ignore, tc.platforms), Tags: tags, Meta: meta})
			if strings.HasPrefix(tc.want, "error:") {
				if d.Err == nil || !strings.Contains(d.Err.Error(), strings.TrimPrefix(tc.want, "error:")) {
					t.Fatalf("want error %q, got err=%v selected=%v", tc.want, d.Err, d.Selected)
				}
				if d.Outcome != OutcomeError {
					t.Errorf("outcome = %s, want error", d.Outcome)
				}
				return
			}
			if d.Selected == nil {
				t.Fatalf("no pick; reason: %s", d.Reason)
			}
			if got := d.Selected.String(); got != tc.want {
				t.Fatalf("pick = %s, want %s\n%s", got, tc.want, dump(d))
			}
			if d.Tags[0].Tag != strings.Split(tc.want, "@")[0] || d.Tags[0].Rank != 1 || d.Tags[0].Fate != FateSelected {
				t.Errorf("first row should be the pick with rank 1: %+v", d.Tags[0])
			}
			if len(d.Tags) != len(tags) {
				t.Errorf("every tag must have a fate: %d of %d", len(d.Tags), len(tags))
			}
		})
	}
}

func dump(d Decision) string {
	var b strings.Builder
	for _, f := range d.Tags {
		b.WriteString(f.Tag + "  " + string(f.Fate) + "  " + f.Why + "\n")
	}
	return b.String()
}

func fateOf(d Decision, tag string) TagFate {
	for _, f := range d.Tags {
		if f.Tag == tag {
			return f
		}
	}
	return TagFate{}
}

func live(tag string) *ImageRef { r := ParseImageRef("acme/app:"+tag, V1_3); return &r }

func TestSelectRules(t *testing.T) {
	type tc struct {
		name      string
		version   Version
		image     string
		strategy  string
		allow     string
		ignore    []string
		platforms []string
		tags      []string
		meta      map[string]TagMeta
		live      *ImageRef
		inSpec    *ImageRef
		kustomize string
		sortMode  string
		// expectations
		pick    string // "" = no pick
		outcome Outcome
		errKind SelectErrorKind
		fates   map[string]Fate
		reason  string // fragment
		log     string // fragment of some log line
	}
	amd := func(created string, plats ...string) TagMeta {
		ts, _ := time.Parse(time.RFC3339, created)
		if len(plats) == 0 {
			plats = []string{"linux/amd64"}
		}
		m := TagMeta{Digest: "sha256:" + digestSuffix(created+strings.Join(plats, ","))}
		for _, p := range plats {
			pl, _ := ParsePlatform(p)
			m.Manifests = append(m.Manifests, ManifestMeta{Platform: pl, Created: ts, HasCreated: true})
		}
		m.Index = len(plats) > 1
		return m
	}
	cases := []tc{
		// Pre-releases without a constraint: the v1.3.0 change (PR #1758).
		{name: "prerelease wins without constraint before v1.3", version: V1_2, image: "acme/app", strategy: "semver",
			tags: []string{"1.9.0", "2.0.0-rc1"}, pick: "2.0.0-rc1", outcome: OutcomePicked},
		{name: "prerelease excluded without constraint on v1.3", version: V1_3, image: "acme/app", strategy: "semver",
			tags: []string{"1.9.0", "2.0.0-rc1"}, pick: "1.9.0", fates: map[string]Fate{"2.0.0-rc1": FateConstraint}},
		{name: "only prereleases on v1.3: no candidate", version: V1_3, image: "acme/app", strategy: "semver",
			tags: []string{"2.0.0-rc1", "2.0.0-rc2"}, live: live("1.0.0"), outcome: OutcomeNoCandidate, reason: "pre-release"},
		{name: "prerelease with prerelease constraint", version: V1_3, image: "app=acme/app:>=2.0.0-0", strategy: "semver",
			tags: []string{"1.9.0", "2.0.0-rc1"}, pick: "2.0.0-rc1"},
		// Without an alias, the "=" of ">=" is taken as the alias separator
		// (NewFromIdentifier splits on the first "="): the constraint is lost.
		{name: "constraint with = and no alias loses the constraint", version: V1_3, image: "acme/app:>=2.0.0-0", strategy: "semver",
			tags: []string{"1.9.0", "2.0.0-rc1"}, pick: "1.9.0"},
		// "1.20" is a tilde range, and a running tag outside it is moved down.
		{name: "1.20 means ~1.20", version: V1_3, image: "acme/app:1.20", strategy: "semver",
			tags: []string{"1.19.9", "1.20.0", "1.20.3", "1.21.0"}, live: live("1.20.0"), pick: "1.20.3", outcome: OutcomeUpdate,
			fates: map[string]Fate{"1.21.0": FateConstraint, "1.19.9": FateConstraint, "1.20.0": FateCandidate}},
		{name: "running outside constraint is downgraded", version: V1_3, image: "acme/app:1.20", strategy: "semver",
			tags: []string{"1.20.3", "1.21.0"}, live: live("1.21.0"), pick: "1.20.3", outcome: OutcomeUpdate, reason: "downgrade"},
		{name: "full version pins", version: V1_3, image: "acme/app:1.2.3", strategy: "semver",
			tags: []string{"1.2.3", "1.2.4"}, pick: "1.2.3"},
		{name: "latest as constraint is an error", version: V1_3, image: "acme/app:latest", strategy: "semver",
			tags: []string{"1.0.0", "latest"}, live: live("latest"), outcome: OutcomeError, errKind: ErrImproperConstraint, log: "invalid constraint 'latest'"},
		{name: "duplicate tags in a sorted listing count once", version: V1_3, image: "acme/app", strategy: "semver",
			tags: []string{"1.0.0", "1.0.0", "1.1.0"}, pick: "1.1.0"},
		{name: "semver ties: lexically greatest original", version: V1_3, image: "acme/app", strategy: "semver",
			tags: []string{"1.2.0", "v1.2.0", "1.2"}, pick: "v1.2.0"},
		{name: "lenient semver: v prefix, missing parts, date-like", version: V1_3, image: "acme/app", strategy: "semver",
			tags: []string{"v1.2", "1", "20240101"}, pick: "20240101"},
		{name: "non-version tags are dropped by semver", version: V1_3, image: "acme/app", strategy: "semver",
			tags: []string{"1.0.0", "latest", "main-abc123"}, pick: "1.0.0", fates: map[string]Fate{"latest": FateNotVersion, "main-abc123": FateNotVersion}},
		// Non-semver running tag (PR #1473: v1.1.1 and v1.2.0).
		{name: "non-semver running tag fails v1.0", version: V1_0, image: "acme/app", strategy: "semver",
			tags: []string{"1.0.0"}, live: live("main-abc123"), outcome: OutcomeError, errKind: ErrRunningTagNotSemver},
		{name: "non-semver running tag fails v0.18", version: V0_18, image: "acme/app", strategy: "semver",
			tags: []string{"1.0.0"}, live: live("latest"), outcome: OutcomeError, errKind: ErrRunningTagNotSemver},
		{name: "non-semver running tag fails v1.1.0", version: Version{Major: 1, Minor: 1}, image: "acme/app", strategy: "semver",
			tags: []string{"1.0.0"}, live: live("latest"), outcome: OutcomeError, errKind: ErrRunningTagNotSemver},
		{name: "non-semver running tag ok v1.1.1", version: Version{Major: 1, Minor: 1, Patch: 1}, image: "acme/app", strategy: "semver",
			tags: []string{"1.0.0"}, live: live("latest"), pick: "1.0.0", outcome: OutcomeUpdate},
		{name: "non-semver running tag ok v1.2", version: V1_2, image: "acme/app", strategy: "semver",
			tags: []string{"1.0.0"}, live: live("20211001T060636"), pick: "1.0.0", outcome: OutcomeUpdate},
		// No tags left: v1.1 and older keep the running tag silently.
		{name: "no tags left v1.1 keeps running tag", version: V1_1, image: "acme/app", strategy: "semver", allow: `regexp:^v\d+`,
			tags: []string{"1.0.0", "1.1.0"}, live: live("1.0.0"), pick: "1.0.0", outcome: OutcomeUpToDate, reason: "looks up to date"},
		{name: "no tags left v1.2 warns", version: V1_2, image: "acme/app", strategy: "semver", allow: `regexp:^v\d+`,
			tags: []string{"1.0.0", "1.1.0"}, live: live("1.0.0"), outcome: OutcomeNoCandidate, log: "no tags found for image acme/app in registry"},
		{name: "no semver tags v1.2", version: V1_2, image: "acme/app", strategy: "semver",
			tags: []string{"latest", "main"}, live: live("1.0.0"), outcome: OutcomeNoCandidate, log: "matched by the semver strategy"},
		{name: "no semver tags v0.18 keeps running tag", version: V0_18, image: "acme/app", strategy: "semver",
			tags: []string{"latest", "main"}, live: live("1.0.0"), pick: "1.0.0", outcome: OutcomeUpToDate},
		{name: "constraint matches nothing: all versions skip", version: V1_1, image: "acme/app:~3.0", strategy: "semver",
			tags: []string{"1.0.0", "2.0.0"}, live: live("1.0.0"), outcome: OutcomeNoCandidate},
		// allow-tags and ignore-tags.
		{name: "allow-tags regexp is unanchored", version: V1_3, image: "acme/app", strategy: "alphabetical", allow: `regexp:1\.2`,
			tags: []string{"11.2x", "1.3"}, pick: "11.2x", fates: map[string]Fate{"1.3": FateAllowTags}},
		{name: "allow-tags any", version: V1_3, image: "acme/app", strategy: "alphabetical", allow: "ANY",
			tags: []string{"a", "b"}, pick: "b"},
		{name: "invalid allow-tags regexp matches nothing", version: V1_3, image: "acme/app", strategy: "semver", allow: "regexp:[",
			tags: []string{"1.0.0"}, live: live("1.0.0"), outcome: OutcomeNoCandidate, log: "Could not compile regexp '['"},
		{name: "allow-tags without function matches nothing", version: V1_3, image: "acme/app", strategy: "semver", allow: `^v\d+$`,
			tags: []string{"v1"}, outcome: OutcomeNoCandidate, log: "Invalid match option syntax"},
		{name: "allow-tags unknown function", version: V1_3, image: "acme/app", strategy: "semver", allow: `glob:v*`,
			tags: []string{"v1"}, outcome: OutcomeNoCandidate, log: "Unknown match function: glob"},
		{name: "ignore-tags star disables updates", version: V1_3, image: "acme/app", strategy: "semver", ignore: []string{"*"},
			tags: []string{"1.0.0"}, outcome: OutcomeNoCandidate},
		{name: "ignore-tags bad pattern is skipped", version: V1_3, image: "acme/app", strategy: "semver", ignore: []string{"[", "1.1*"},
			tags: []string{"1.0.0", "1.1.0"}, pick: "1.0.0", fates: map[string]Fate{"1.1.0": FateIgnoreTags}},
		// alphabetical is byte order.
		{name: "alphabetical 9 beats 10", version: V1_3, image: "acme/app", strategy: "alphabetical",
			tags: []string{"10", "9", "v10", "v2"}, pick: "v2"},
		{name: "alphabetical ignores constraint", version: V1_3, image: "acme/app:~1.0", strategy: "alphabetical",
			tags: []string{"1.0.0", "9.9.9"}, pick: "9.9.9"},
		{name: "deprecated name strategy", version: V1_3, image: "acme/app", strategy: "name",
			tags: []string{"a", "b"}, pick: "b", log: `"name" strategy has been renamed`},
		{name: "unknown strategy falls back to semver", version: V1_3, image: "acme/app", strategy: "newest",
			tags: []string{"1.0.0", "zzz"}, pick: "1.0.0", log: "Unknown sort option newest -- using semver"},
		// newest-build: dates, ties, platforms.
		{name: "newest-build tie goes to greater name (latest)", version: V1_3, image: "acme/app", strategy: "newest-build",
			tags: []string{"1.2.3", "latest"}, meta: map[string]TagMeta{"1.2.3": amd("2026-03-01T00:00:00Z"), "latest": amd("2026-03-01T00:00:00Z")},
			pick: "latest", reason: `If you meant 1.2.3, add ignore-tags "latest"`},
		{name: "newest-build ignores constraint", version: V1_3, image: "acme/app:~1.0", strategy: "newest-build",
			tags: []string{"1.0.0", "5.0.0"}, meta: map[string]TagMeta{"1.0.0": amd("2026-03-01T00:00:00Z"), "5.0.0": amd("2026-03-02T00:00:00Z")},
			pick: "5.0.0"},
		{name: "newest-build default platform is the controller's", version: V1_3, image: "acme/app", strategy: "newest-build",
			tags: []string{"old", "arm"}, meta: map[string]TagMeta{"old": amd("2026-01-01T00:00:00Z"), "arm": amd("2026-02-01T00:00:00Z", "linux/arm64")},
			pick: "old", fates: map[string]Fate{"arm": FatePlatform}},
		{name: "wanted linux/arm64 accepts manifest linux/arm64/v8", version: V1_3, image: "acme/app", strategy: "newest-build", platforms: []string{"linux/arm64"},
			tags: []string{"a"}, meta: map[string]TagMeta{"a": amd("2026-01-01T00:00:00Z", "linux/arm64/v8")}, pick: "a"},
		{name: "wanted linux/arm64/v8 rejects manifest linux/arm64", version: V1_3, image: "acme/app", strategy: "newest-build", platforms: []string{"linux/arm64/v8"},
			tags: []string{"a"}, meta: map[string]TagMeta{"a": amd("2026-01-01T00:00:00Z", "linux/arm64")}, outcome: OutcomeNoCandidate,
			fates: map[string]Fate{"a": FatePlatform}},
		{name: "index: newest matching child date counts", version: V1_3, image: "acme/app", strategy: "newest-build", platforms: []string{"linux/amd64"},
			tags: []string{"multi", "single"},
			meta: map[string]TagMeta{
				"multi": {Index: true, Manifests: []ManifestMeta{
					{Platform: Platform{"linux", "amd64", ""}, Created: mustTime("2026-01-01T00:00:00Z"), HasCreated: true},
					{Platform: Platform{"linux", "arm64", ""}, Created: mustTime("2026-06-01T00:00:00Z"), HasCreated: true}}},
				"single": amd("2026-02-01T00:00:00Z")},
			pick: "single"},
		{name: "unparsable platform matches nothing", version: V1_3, image: "acme/app", strategy: "newest-build", platforms: []string{"amd64"},
			tags: []string{"a"}, meta: map[string]TagMeta{"a": amd("2026-01-01T00:00:00Z")}, outcome: OutcomeNoCandidate, log: "could not parse platform identifier 'amd64'"},
		{name: "metadata failure drops the tag", version: V1_3, image: "acme/app", strategy: "newest-build",
			tags: []string{"a", "b"}, meta: map[string]TagMeta{"a": amd("2026-01-01T00:00:00Z"), "b": {Err: "toomanyrequests"}},
			pick: "a", fates: map[string]Fate{"b": FateMetadata}},
		{name: "semver ignores platforms", version: V1_3, image: "acme/app", strategy: "semver", platforms: []string{"linux/s390x"},
			tags: []string{"1.0.0"}, pick: "1.0.0"},
		{name: "tagsortmode latest-first replaces dates", version: V1_3, image: "acme/app", strategy: "newest-build", sortMode: "latest-first",
			tags: []string{"newest", "older", "oldest"}, pick: "newest", log: "taglistsort is set to 'latest-first'"},
		// digest.
		{name: "digest without constraint fails", version: V1_3, image: "acme/app", strategy: "digest",
			tags: []string{"latest"}, outcome: OutcomeError, errKind: ErrDigestWithoutConstraint},
		{name: "digest: same digest is up to date", version: V1_3, image: "acme/app:latest", strategy: "digest",
			tags: []string{"latest", "1.0"}, meta: map[string]TagMeta{"latest": {Digest: "sha256:aaa", Manifests: []ManifestMeta{{Platform: Platform{"linux", "amd64", ""}}}}},
			live: &ImageRef{Name: "acme/app", Tag: "latest", Digest: "sha256:aaa"}, pick: "latest", outcome: OutcomeUpToDate,
			fates: map[string]Fate{"1.0": FateNotConstraintTag}},
		{name: "digest: moved tag updates", version: V1_3, image: "acme/app:latest", strategy: "digest",
			tags: []string{"latest"}, meta: map[string]TagMeta{"latest": {Digest: "sha256:bbb", Manifests: []ManifestMeta{{Platform: Platform{"linux", "amd64", ""}}}}},
			live: &ImageRef{Name: "acme/app", Tag: "latest", Digest: "sha256:aaa"}, pick: "latest", outcome: OutcomeUpdate},
		{name: "digest: running without digest updates", version: V1_3, image: "acme/app:latest", strategy: "digest",
			tags: []string{"latest"}, meta: map[string]TagMeta{"latest": {Digest: "sha256:bbb", Manifests: []ManifestMeta{{Platform: Platform{"linux", "amd64", ""}}}}},
			live: live("latest"), pick: "latest", outcome: OutcomeUpdate},
		// needsUpdate and the spec.
		{name: "equal tag is up to date", version: V1_3, image: "acme/app", strategy: "semver",
			tags: []string{"1.0.0", "1.1.0"}, live: live("1.1.0"), pick: "1.1.0", outcome: OutcomeUpToDate},
		{name: "empty running tag always updates", version: V1_3, image: "acme/app", strategy: "semver",
			tags: []string{"1.1.0"}, live: &ImageRef{Name: "acme/app"}, pick: "1.1.0", outcome: OutcomeUpdate, reason: "no tag"},
		{name: "running digest makes semver update", version: V1_3, image: "acme/app", strategy: "semver",
			tags: []string{"1.1.0"}, live: &ImageRef{Name: "acme/app", Tag: "1.1.0", Digest: "sha256:abc"}, pick: "1.1.0", outcome: OutcomeUpdate},
		{name: "already set in spec", version: V1_3, image: "acme/app", strategy: "semver",
			tags: []string{"1.0.0", "1.1.0"}, live: live("1.0.0"), inSpec: &ImageRef{Name: "acme/app", Tag: "1.1.0"}, pick: "1.1.0",
			outcome: OutcomeAlreadyInSpec, log: "New image acme/app:1.1.0 already set in spec"},
		{name: "kustomize override with other live name updates", version: V1_3, image: "ghcr.io/acme/app", strategy: "semver", kustomize: "acme/app",
			tags: []string{"1.1.0"}, live: &ImageRef{Name: "acme/app", Tag: "1.1.0"}, pick: "1.1.0", outcome: OutcomeUpdate},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			img := ParseImageRef(c.image, c.version)
			d := Select(SelectInput{
				Version: c.version, Image: img, Settings: settings(c.strategy, c.allow, c.ignore, c.platforms),
				Tags: c.tags, Meta: c.meta, Live: c.live, InSpec: c.inSpec, KustomizeName: c.kustomize, TagSortMode: c.sortMode,
			})
			got := ""
			if d.Selected != nil {
				got = d.Selected.Tag
			}
			if got != c.pick {
				t.Fatalf("pick = %q, want %q (outcome %s: %s)\n%s", got, c.pick, d.Outcome, d.Reason, dump(d))
			}
			if c.outcome != "" && d.Outcome != c.outcome {
				t.Errorf("outcome = %s, want %s (%s)", d.Outcome, c.outcome, d.Reason)
			}
			if c.errKind != "" && (d.Err == nil || d.Err.Kind != c.errKind) {
				t.Errorf("err = %v, want kind %s", d.Err, c.errKind)
			}
			for tag, f := range c.fates {
				if got := fateOf(d, tag); got.Fate != f {
					t.Errorf("fate of %s = %q (%s), want %q", tag, got.Fate, got.Why, f)
				}
			}
			if c.reason != "" && !strings.Contains(strings.ToLower(d.Reason), strings.ToLower(c.reason)) {
				t.Errorf("reason %q lacks %q", d.Reason, c.reason)
			}
			if c.log != "" && !strings.Contains(strings.Join(d.Logs, "\n"), c.log) {
				t.Errorf("logs lack %q:\n%s", c.log, strings.Join(d.Logs, "\n"))
			}
			if len(d.Tags) != len(dedupe(c.tags)) {
				t.Errorf("%d fates for %d tags", len(d.Tags), len(c.tags))
			}
			for _, f := range d.Tags {
				if f.Fate == "" || f.Why == "" {
					t.Errorf("tag %s has no explained fate: %+v", f.Tag, f)
				}
				if f.Kept != (f.Rank > 0) {
					t.Errorf("tag %s: kept=%v rank=%d", f.Tag, f.Kept, f.Rank)
				}
			}
		})
	}
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestExplainConstraint(t *testing.T) {
	cases := map[string]string{
		"1.20":             ">=1.20.0 and <1.21.0",
		"1":                ">=1.0.0 and <2.0.0",
		"1.2.3":            "exactly 1.2.3",
		"~1.2":             ">=1.2.0 and <1.3.0",
		"~1.2.3":           ">=1.2.3 and <1.3.0",
		"^1.2":             ">=1.2.0 and <2.0.0",
		"^0.1":             ">=0.1.0 and <0.2.0",
		"^0.0.3":           ">=0.0.3 and <0.0.4",
		">1.2":             ">=1.3.0",
		"<=1.2":            "<1.3.0",
		">=1.0.0-0,<1.0.1": ">=1.0.0-0 and <1.0.1",
		"1.x || 3.x":       ", or ",
		"latest":           "not a semver constraint",
	}
	for c, want := range cases {
		if got := ExplainConstraint(c, StrategySemver, V1_3); !strings.Contains(got, want) {
			t.Errorf("ExplainConstraint(%q) = %q, want it to contain %q", c, got, want)
		}
	}
	if got := ExplainConstraint("", StrategySemver, V1_2); !strings.Contains(got, "pre-releases included") {
		t.Errorf("empty constraint on v1.2: %q", got)
	}
}

// TestRankWhyShared: semver and alphabetical ranks read as before and are
// kept once per rank, whoever asks.
func TestRankWhyShared(t *testing.T) {
	for _, tc := range []struct {
		s    Strategy
		rank int
		want string
	}{
		{StrategySemver, 1, "the pick by semantic version"},
		{StrategySemver, 17, "#17 by semantic version"},
		{StrategySemver, maxSharedRank + 3, fmt.Sprintf("#%d by semantic version", maxSharedRank+3)},
		{StrategyAlphabetical, 1, "the pick in byte order (the last name wins)"},
		{StrategyAlphabetical, 2000, "#2000 in byte order (the last name wins)"},
	} {
		a, b := rankWhy(tc.s, tc.rank, nil), rankWhy(tc.s, tc.rank, nil)
		if a != tc.want {
			t.Errorf("%s #%d: %q, want %q", tc.s, tc.rank, a, tc.want)
		}
		if tc.rank <= maxSharedRank && unsafe.StringData(a) != unsafe.StringData(b) {
			t.Errorf("%s #%d: not shared", tc.s, tc.rank)
		}
	}
}

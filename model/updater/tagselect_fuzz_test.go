package updater

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// FuzzParseAllowTags: any value parses without panicking, an invalid value
// matches nothing and says why, and a valid regexp matches like Go's
// unanchored regexp.MatchString.
func FuzzParseAllowTags(f *testing.F) {
	for _, s := range []string{"", "any", "ANY", "regexp:^v[0-9]+$", `regexp:1\.2`, "regexp:[", "^v1", "glob:*", "regexp:", "Regexp:a|b"} {
		f.Add(s, "v1.2.3")
	}
	f.Fuzz(func(t *testing.T, allow, tag string) {
		a := ParseAllowTags(allow)
		got := a.Allows(tag)
		switch a.Kind {
		case AllowAll:
			if !got {
				t.Fatalf("%q should allow everything", allow)
			}
		case AllowNothing:
			if got || a.Problem == "" {
				t.Fatalf("invalid %q: allows=%v problem=%q", allow, got, a.Problem)
			}
		case AllowRegexp:
			_, expr, _ := strings.Cut(allow, ":")
			if want := regexp.MustCompile(expr).MatchString(tag); got != want {
				t.Fatalf("%q on %q = %v, want %v", allow, tag, got, want)
			}
		}
	})
}

// FuzzSelect: no input makes tag selection panic, every listed tag gets an
// explained fate, and a pick is always one of the listed tags.
func FuzzSelect(f *testing.F) {
	f.Add("acme/app:~1.2", "semver", "", "1.2.0,1.2.3,1.3.0,latest", "1.2.0", "linux/amd64", uint8(3))
	f.Add("app=acme/app:>=1.0.0-0", "semver", "regexp:^1", "1.0.0-rc1,1.0.0", "", "", uint8(1))
	f.Add("acme/app:latest", "digest", "", "latest,1.0", "latest", "", uint8(0))
	f.Add("acme/app", "newest-build", "", "a,b,c", "", "linux/arm64/v8", uint8(2))
	f.Add("acme/app:stable", "semver", "any", "1,2", "x", "", uint8(4))
	f.Fuzz(func(t *testing.T, image, strategy, allow, tagList, running, platform string, ver uint8) {
		versions := KnownVersions()
		v := versions[int(ver)%len(versions)]
		tags := strings.Split(tagList, ",")
		meta := map[string]TagMeta{}
		for i, tg := range tags {
			p, err := ParsePlatform(platform)
			if err != nil {
				p = DefaultControllerPlatform
			}
			meta[tg] = TagMeta{Digest: "sha256:" + tg, Manifests: []ManifestMeta{{Platform: p, Created: time.Unix(int64(i%3), 0), HasCreated: true}}}
		}
		s, _ := ParseStrategy(strategy)
		in := SelectInput{Version: v, Image: ParseImageRef(image, v), Tags: tags, Meta: meta,
			Settings: UpdateSettings{Strategy: s, AllowTags: ParseAllowTags(allow), IgnoreTags: []string{"[", "z*"}, Platforms: []string{platform}}}
		if running != "" {
			live := in.Image
			live.Tag = running
			in.Live = &live
		}
		_ = MetadataTags(in)
		_ = ExplainConstraint(in.Image.Constraint(), s, v)
		d := Select(in)
		if len(d.Tags) != len(dedupe(tags)) {
			t.Fatalf("%d fates for %d distinct tags", len(d.Tags), len(dedupe(tags)))
		}
		for _, f := range d.Tags {
			if f.Fate == "" || f.Why == "" {
				t.Fatalf("unexplained fate: %+v", f)
			}
		}
		if d.Selected != nil && !d.Selected.FromRunningTag && !contains(tags, d.Selected.Tag) {
			t.Fatalf("picked %q, not a listed tag", d.Selected.Tag)
		}
		if d.Outcome == "" || d.Reason == "" {
			t.Fatalf("no outcome or reason: %+v", d)
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

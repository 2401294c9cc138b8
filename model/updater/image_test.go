package updater

import (
	"strings"
	"testing"
)

const testDigest = "sha256:0123456789012345678901234567890123456789012345678901234567890123"

var headV13 = Version{Major: 1, Minor: 3, Head: true}

func TestParseImageRef(t *testing.T) {
	type want struct {
		Alias, Registry, Name, Tag, Digest string
		Legacy                             bool
	}
	tests := []struct {
		name string
		in   string
		v    Version
		want want
	}{
		// Docker Hub spellings (§4.4): three groups that do not match each other.
		{"bare name", "nginx", V1_3, want{Name: "nginx"}},
		{"docker.io kept when written", "docker.io/nginx", V1_3, want{Registry: "docker.io", Name: "nginx"}},
		{"docker.io/library stripped", "docker.io/library/nginx", V1_3, want{Registry: "docker.io", Name: "nginx"}},
		{"library/ kept when written first", "library/nginx", V1_3, want{Name: "library/nginx"}},
		{"index.docker.io normalised away", "index.docker.io/x", V1_3, want{Name: "x"}},
		{"hub org image", "bitnami/nginx:1.25", V1_3, want{Name: "bitnami/nginx", Tag: "1.25"}},
		{"v0.18 same as v1.3", "docker.io/library/nginx", V0_18, want{Registry: "docker.io", Name: "nginx"}},

		// Other registries.
		{"ghcr with tag", "ghcr.io/org/app:1.2", V1_3, want{Registry: "ghcr.io", Name: "org/app", Tag: "1.2"}},
		{"ghcr library stripped in v1.3", "ghcr.io/library/x", V1_3, want{Registry: "ghcr.io", Name: "x"}},
		{"ghcr library kept on head", "ghcr.io/library/x", headV13, want{Registry: "ghcr.io", Name: "library/x"}},
		{"docker.io library stripped on head too", "docker.io/library/nginx", headV13, want{Registry: "docker.io", Name: "nginx"}},
		{"registry with port", "registry:5000/x:tag", V1_3, want{Registry: "registry:5000", Name: "x", Tag: "tag"}},
		{"localhost", "localhost/x", V1_3, want{Registry: "localhost", Name: "x"}},

		// Digests.
		{"digest only", "nginx@" + testDigest, V1_3, want{Name: "nginx", Digest: testDigest}},
		{"tag and digest", "ghcr.io/a/b:1.0@" + testDigest, V1_3, want{Registry: "ghcr.io", Name: "a/b", Tag: "1.0", Digest: testDigest}},

		// Aliases.
		{"alias with tag-shaped constraint", "alias=ghcr.io/a/b:1.x", V1_3, want{Alias: "alias", Registry: "ghcr.io", Name: "a/b", Tag: "1.x"}},
		{"CR form with empty alias", "=nginx:1.2", V1_3, want{Name: "nginx", Tag: "1.2"}},

		// Constraints the reference grammar rejects: the legacy splitter.
		{"tilde constraint", "nginx:~1.26", V1_3, want{Name: "nginx", Tag: "~1.26", Legacy: true}},
		{"caret constraint with registry", "ghcr.io/a/b:^1", V1_3, want{Registry: "ghcr.io", Name: "a/b", Tag: "^1", Legacy: true}},
		{"caret constraint hub org", "bitnami/nginx:^1", V1_3, want{Name: "bitnami/nginx", Tag: "^1", Legacy: true}},
		{"legacy keeps docker.io/library", "docker.io/library/nginx:~1.26", V1_3, want{Registry: "docker.io", Name: "library/nginx", Tag: "~1.26", Legacy: true}},
		{"legacy keeps index.docker.io", "index.docker.io/nginx:~1", V1_3, want{Registry: "index.docker.io", Name: "nginx", Tag: "~1", Legacy: true}},
		{"legacy ghcr library kept", "ghcr.io/library/x:~1", V1_3, want{Registry: "ghcr.io", Name: "library/x", Tag: "~1", Legacy: true}},
		{"legacy constraint and digest", "ghcr.io/a/b:~1@" + testDigest, V1_3, want{Registry: "ghcr.io", Name: "a/b", Tag: "~1", Digest: testDigest, Legacy: true}},
		{"legacy port registry without dot is no registry", "registry:5000/x:~1", V1_3, want{Name: "registry", Tag: "5000/x:~1", Legacy: true}},
		{"upper case forces legacy", "ghcr.io/Org/App:1.0", V1_3, want{Registry: "ghcr.io", Name: "Org/App", Tag: "1.0", Legacy: true}},
		// ">=" contains "=", so without an alias the text before it becomes
		// the alias (upstream NewFromIdentifier does the same).
		{"range constraint without alias", "repo:>=1.0,<2", V1_3, want{Alias: "repo:>", Name: "1.0,<2", Legacy: true}},
		{"range constraint with alias", "a=repo:>=1.0,<2", V1_3, want{Alias: "a", Name: "repo", Tag: ">=1.0,<2", Legacy: true}},
		{"range constraint CR form", "=ghcr.io/a/b:>=1.0", V1_3, want{Registry: "ghcr.io", Name: "a/b", Tag: ">=1.0", Legacy: true}},
		{"two equals", "a=b=c", V1_3, want{Alias: "a", Name: "b=c", Legacy: true}},
		{"empty", "", V1_3, want{Legacy: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ParseImageRef(tt.in, tt.v)
			got := want{r.Alias, r.Registry, r.Name, r.Tag, r.Digest, r.Legacy}
			if got != tt.want {
				t.Errorf("ParseImageRef(%q, %s)\n got %+v\nwant %+v", tt.in, tt.v.Short(), got, tt.want)
			}
			if r.Original != tt.in {
				t.Errorf("Original = %q, want %q", r.Original, tt.in)
			}
		})
	}
}

func TestImageRefSameImageGroups(t *testing.T) {
	// §4.4: nginx ≡ ("", nginx); docker.io/nginx ≡ docker.io/library/nginx;
	// library/nginx alone. The groups do not match each other.
	groups := [][]string{
		{"nginx", "nginx:1.27", "index.docker.io/nginx", "nginx:~1.26"},
		{"docker.io/nginx", "docker.io/library/nginx:1.27", "docker.io/nginx:~1.26"},
		{"library/nginx", "library/nginx:1.2"},
	}
	for gi, g := range groups {
		for _, a := range g {
			for gj, h := range groups {
				for _, b := range h {
					same := ParseImageRef(a, V1_3).SameImage(ParseImageRef(b, V1_3))
					if same != (gi == gj) {
						t.Errorf("SameImage(%q, %q) = %v, want %v", a, b, same, gi == gj)
					}
				}
			}
		}
	}
}

func TestImageRefStringAndTagWithDigest(t *testing.T) {
	tests := []struct {
		in, str, tagWithDigest string
	}{
		{"nginx:1.2", "nginx:1.2", "1.2"},
		{"docker.io/library/nginx:1.2", "docker.io/nginx:1.2", "1.2"},
		{"ghcr.io/a/b@" + testDigest, "ghcr.io/a/b@" + testDigest, "latest@" + testDigest},
		{"ghcr.io/a/b:1@" + testDigest, "ghcr.io/a/b:1@" + testDigest, "1@" + testDigest},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r := ParseImageRef(tt.in, V1_3)
			if r.String() != tt.str {
				t.Errorf("String() = %q, want %q", r.String(), tt.str)
			}
			if r.TagWithDigest() != tt.tagWithDigest {
				t.Errorf("TagWithDigest() = %q, want %q", r.TagWithDigest(), tt.tagWithDigest)
			}
		})
	}
}

// roundTrips says whether String() of a strictly parsed reference should
// parse back to the same registry and name. It does not where Image Updater
// itself loses information: a name starting with "library/" under a
// registry (one library/ is stripped per parse), a name that repeats the
// registry (GetFullNameWithoutTag drops the prefix), or a Docker Hub name
// whose first component looks like a host once the registry is gone.
func roundTrips(r ImageRef) bool {
	if r.Legacy || r.Name == "" {
		return false
	}
	if r.Registry != "" && (strings.HasPrefix(r.Name, "library/") || strings.HasPrefix(r.Name, r.Registry+"/")) {
		return false
	}
	if r.Registry == "" {
		first, _, found := strings.Cut(r.Name, "/")
		if found && (strings.ContainsAny(first, ".:") || first == "localhost") {
			return false
		}
	}
	return true
}

func FuzzParseImageRef(f *testing.F) {
	for _, s := range []string{
		"nginx", "docker.io/nginx", "docker.io/library/nginx", "library/nginx", "index.docker.io/x",
		"ghcr.io/org/app:1.2", "ghcr.io/library/x", "nginx:~1.26", "ghcr.io/a/b:^1", "repo:>=1.0,<2",
		"alias=ghcr.io/a/b:1.x", "nginx@" + testDigest, "ghcr.io/a/b:1@" + testDigest, "registry:5000/x:tag",
		"=", "a=b=c", "@", ":", "/", "a/b/c/d:e@f", "x:y:z", "docker.io/library/library/x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range []Version{V0_18, V1_3, headV13} {
			r := ParseImageRef(s, v)
			_ = r.String()
			_ = r.FullName()
			_ = r.TagWithDigest()
			if !roundTrips(r) {
				continue
			}
			back := ParseImageRef(r.String(), v)
			if !back.SameImage(r) || back.Tag != r.Tag || back.Digest != r.Digest {
				t.Fatalf("%s: %q -> %+v -> %q -> %+v", v.Short(), s, r, r.String(), back)
			}
		}
	})
}

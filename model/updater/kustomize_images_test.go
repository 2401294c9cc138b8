package updater

import (
	"reflect"
	"strings"
	"testing"
)

// TestKustomizeImageMatch holds Argo CD's own cases for KustomizeImage.Match
// (v3.5.1 pkg/apis/application/v1alpha1/types_test.go) and the registry-port
// case they do not cover.
func TestKustomizeImageMatch(t *testing.T) {
	cases := []struct {
		existing, added string
		want            bool
	}{
		{"foo=1", "bar=1", false},
		{"foo=1", "bar:1", false},
		{"foo:1", "bar=1", false},
		{"foobar:2", "foo:2", false},
		{"foobar@2", "foo@2", false},
		{"foo=1", "foo=2", true},
		{"foo:1", "foo:2", true},
		{"foo@1", "foo@2", true},
		{"nginx", "nginx", true},
		{"ghcr.io/team/a:1.0.0", "ghcr.io/team/b:1.0.1", false},
		// A registry port: both read "host" before their first ":".
		{"host:5000/team/a:1.0.1", "host:5000/team/b:1.0.1", true},
		// A Kustomize name: compared before "=".
		{"host:5000/team/a=host:5000/team/a:1.0.1", "host:5000/team/b=host:5000/team/b:1.0.1", false},
		// An added override without a name still matches a named entry on the host.
		{"host:5000/team/a=host:5000/team/a:1.0.1", "host:5000/team/b:1.0.1", true},
	}
	for _, c := range cases {
		if got := KustomizeImageMatch(c.existing, c.added); got != c.want {
			t.Errorf("KustomizeImage(%q).Match(%q) = %v, want %v", c.existing, c.added, got, c.want)
		}
	}
	if got := KustomizeMatchText("127.0.0.1:5000/team/a:1.0.1", "127.0.0.1:5000/team/b:1.0.1"); got != "127.0.0.1" {
		t.Errorf("compared text %q, want 127.0.0.1", got)
	}
}

func kw(alias, name, image string, due bool) KustomizeWrite {
	return KustomizeWrite{Alias: alias, Name: name, Image: ParseImageRef(image, V1_3), Due: due}
}

func TestMergeKustomizeWrites(t *testing.T) {
	const a, b = "127.0.0.1:5000/team/a", "127.0.0.1:5000/team/b"
	cases := []struct {
		name    string
		spec    []string
		writes  []KustomizeWrite
		after   []string
		written bool
		lost    []string // alias<-byAlias
		dropped []string // entry<-byAlias
	}{
		{name: "port, one image: it replaces an override set by hand for another image on the host",
			spec:   []string{"127.0.0.1:5000/team/sidecar:2.0.0"},
			writes: []KustomizeWrite{kw("a", "", a+":1.0.1", true)},
			after:  []string{a + ":1.0.1"}, written: true, dropped: []string{"127.0.0.1:5000/team/sidecar:2.0.0<-a"}},
		{name: "no port: an override set by hand stays",
			spec:   []string{"ghcr.io/team/sidecar:2.0.0"},
			writes: []KustomizeWrite{kw("a", "", "ghcr.io/team/a:1.0.1", true)},
			after:  []string{"ghcr.io/team/sidecar:2.0.0", "ghcr.io/team/a:1.0.1"}, written: true},
		{name: "port, both due, empty spec: the second replaces the first",
			writes: []KustomizeWrite{kw("a", "", a+":1.0.1", true), kw("b", "", b+":1.0.1", true)},
			after:  []string{b + ":1.0.1"}, written: true, lost: []string{"a<-b"}},
		{name: "port, both overrides in the spec already: the first entry takes b, a's is gone",
			spec:   []string{a + ":1.0.0", b + ":1.0.0"},
			writes: []KustomizeWrite{kw("a", "", a+":1.0.1", true), kw("b", "", b+":1.0.1", true)},
			after:  []string{b + ":1.0.1", b + ":1.0.1"}, written: true, lost: []string{"a<-b"}},
		{name: "port, after the write, not synced: b already in spec, a due again",
			spec:   []string{b + ":1.0.1"},
			writes: []KustomizeWrite{kw("a", "", a+":1.0.1", true), kw("b", "", b+":1.0.1", true)},
			after:  []string{b + ":1.0.1"}, written: true, lost: []string{"a<-b"}},
		{name: "port, after the sync: b up to date is set again and takes a's entry",
			spec:   []string{b + ":1.0.1"},
			writes: []KustomizeWrite{kw("a", "", a+":1.0.1", true), kw("b", "", b+":1.0.1", false)},
			after:  []string{b + ":1.0.1"}, written: true, lost: []string{"a<-b"}},
		{name: "port, Kustomize names on both: compared before '=', both kept",
			writes: []KustomizeWrite{kw("a", a, a+":1.0.1", true), kw("b", b, b+":1.0.1", true)},
			after:  []string{a + "=" + a + ":1.0.1", b + "=" + b + ":1.0.1"}, written: true},
		{name: "no port: both kept",
			writes: []KustomizeWrite{kw("a", "", "ghcr.io/team/a:1.0.1", true), kw("b", "", "ghcr.io/team/b:1.0.1", true)},
			after:  []string{"ghcr.io/team/a:1.0.1", "ghcr.io/team/b:1.0.1"}, written: true},
		{name: "port, one image: nothing to collide with",
			writes: []KustomizeWrite{kw("a", a, a+":1.0.1", true)},
			after:  []string{a + "=" + a + ":1.0.1"}, written: true},
		{name: "the same image twice in the CR: replaced by Kustomize's own rule, no collision named",
			writes: []KustomizeWrite{kw("a", a, a+":1.0.0", false), kw("a2", "", a+":1.0.1", true)},
			after:  []string{a + ":1.0.1"}, written: true, lost: []string{"a<-"}},
		{name: "port, nothing due: the list is computed but not written",
			writes: []KustomizeWrite{kw("a", "", a+":1.0.0", false), kw("b", "", b+":1.0.0", false)},
			after:  []string{b + ":1.0.0"}, written: false, lost: []string{"a<-b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := MergeKustomizeWrites(c.spec, c.writes, V1_3)
			if !reflect.DeepEqual(m.After, c.after) {
				t.Errorf("after = %q, want %q", m.After, c.after)
			}
			if m.Written != c.written {
				t.Errorf("written = %v, want %v", m.Written, c.written)
			}
			var lost []string
			for _, l := range m.Lost {
				lost = append(lost, l.Alias+"<-"+l.ByAlias)
				if l.ByAlias != "" && l.Compared == "" {
					t.Errorf("loss %+v names no compared text", l)
				}
			}
			if strings.Join(lost, ",") != strings.Join(c.lost, ",") {
				t.Errorf("lost = %v, want %v", lost, c.lost)
			}
			var dropped []string
			for _, d := range m.Dropped {
				dropped = append(dropped, d.Entry+"<-"+d.ByAlias)
			}
			if strings.Join(dropped, ",") != strings.Join(c.dropped, ",") {
				t.Errorf("dropped = %v, want %v", dropped, c.dropped)
			}
			if !reflect.DeepEqual(m.Before, c.spec) && len(c.spec) > 0 {
				t.Errorf("before = %q, want the spec %q unchanged", m.Before, c.spec)
			}
		})
	}
}

// FuzzKustomizeImageMatch: Match is reflexive, and merging an override
// leaves it in the list.
func FuzzKustomizeImageMatch(f *testing.F) {
	for _, s := range []string{"nginx", "foo=1", "host:5000/team/a:1.0.1", "a@sha256:00", "x=y:z@w", ""} {
		f.Add(s, "host:5000/team/b:1.0.1")
	}
	f.Fuzz(func(t *testing.T, x, y string) {
		if !KustomizeImageMatch(x, x) {
			t.Fatalf("%q does not match itself", x)
		}
		out, _ := MergeKustomizeImage([]string{x}, y)
		found := false
		for _, e := range out {
			found = found || e == y
		}
		if !found {
			t.Fatalf("merging %q into [%q] gave %q", y, x, out)
		}
		_ = MergeKustomizeWrites([]string{x}, []KustomizeWrite{kw("a", "", y, true), kw("b", x, y, false)}, V1_3)
	})
}

// BenchmarkMergeKustomizeWrites: three images set in one cycle, as the
// engine's three-image benchmark runs it.
func BenchmarkMergeKustomizeWrites(b *testing.B) {
	const r = "127.0.0.1:5000/team/"
	writes := []KustomizeWrite{kw("web", r+"web", r+"web:1.0.1", true), kw("api", r+"api", r+"api:2.3.0", false), kw("worker", r+"worker", r+"worker:build-101", true)}
	for i := 0; i < b.N; i++ {
		MergeKustomizeWrites(nil, writes, V1_3)
	}
}

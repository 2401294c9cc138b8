package depcheck

import (
	"slices"
	"strings"
	"testing"
)

// fake builds a graph from "importer: import import …" lines; packages under
// example.com/m are the module's own, the rest third-party or (no dot) standard.
func fake(edges map[string][]string) Graph {
	g := Graph{}
	add := func(path string) *Package {
		if p, ok := g[path]; ok {
			return p
		}
		p := &Package{ImportPath: path}
		switch {
		case Pattern("example.com/m/...").Match(path):
			p.Module = &struct{ Main bool }{Main: true}
		case !strings.Contains(path, "."):
			p.Standard = true
		default:
			p.Module = &struct{ Main bool }{}
		}
		g[path] = p
		return p
	}
	for from, imps := range edges {
		p := add(from)
		p.Imports = append(p.Imports, imps...)
		for _, imp := range imps {
			add(imp)
		}
	}
	return g
}

func paths(vs []Violation) [][]string {
	out := make([][]string, len(vs))
	for i, v := range vs {
		out[i] = v.Path
	}
	return out
}

func TestPattern(t *testing.T) {
	for _, tc := range []struct {
		p    Pattern
		path string
		want bool
	}{
		{"a/b", "a/b", true},
		{"a/b", "a/b/c", false},
		{"a/b/...", "a/b", true},
		{"a/b/...", "a/b/c/d", true},
		{"a/b/...", "a/bc", false},
		{"net", "net/url", false},
	} {
		if got := tc.p.Match(tc.path); got != tc.want {
			t.Errorf("%q.Match(%q) = %v, want %v", tc.p, tc.path, got, tc.want)
		}
	}
}

func TestNoDependency(t *testing.T) {
	g := fake(map[string][]string{
		"example.com/m/model":     {"fmt", "example.com/m/helper"},
		"example.com/m/helper":    {"example.org/kube/client"},
		"example.org/kube/client": {"example.org/kube/rest"}, // inside banned code: the entry is reported, not this
		"example.com/m/clean":     {"fmt"},
	})
	rule := NoDependency{From: Patterns{"example.com/m/model", "example.com/m/clean"}, Banned: Patterns{"example.org/kube/..."}}
	got := paths(rule.Check(g))
	want := [][]string{{"example.com/m/model", "example.com/m/helper", "example.org/kube/client"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("violations = %q, want %q", got, want)
	}
	// Banning the importer itself is not a violation: a rule is about what a package reaches.
	if vs := (NoDependency{From: Patterns{"example.com/m/clean"}, Banned: Patterns{"example.com/m/..."}}).Check(g); len(vs) != 0 {
		t.Errorf("a package reaching only itself: %v", vs)
	}
}

func TestNoOwnImport(t *testing.T) {
	g := fake(map[string][]string{
		"example.com/m/model":   {"net/url", "example.com/m/helper", "example.org/kube/meta"},
		"example.com/m/helper":  {"os"},
		"example.org/kube/meta": {"net/http"}, // third-party: not held to the rule
	})
	rule := NoOwnImport{From: Patterns{"example.com/m/model"}, Banned: Patterns{"os", "net/http/..."}}
	got := paths(rule.Check(g))
	want := [][]string{{"example.com/m/model", "example.com/m/helper", "os"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("violations = %q, want %q", got, want)
	}
}

func TestOnlyImportedBy(t *testing.T) {
	g := fake(map[string][]string{
		"example.com/m/cmd":     {"example.com/m/lab"},
		"example.com/m/lab/git": {"example.com/m/lab"},
		"example.com/m/bot":     {"example.com/m/lab/git"},
		"example.org/other":     {"example.com/m/lab"}, // not the module's: not held to the rule
	})
	rule := OnlyImportedBy{Of: Patterns{"example.com/m/lab/..."}, Allowed: Patterns{"example.com/m/cmd", "example.com/m/lab/..."}}
	got := paths(rule.Check(g))
	want := [][]string{{"example.com/m/bot", "example.com/m/lab/git"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("violations = %q, want %q", got, want)
	}
}

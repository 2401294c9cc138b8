// Package depcheck turns "this package must not import that" into a test, in
// the style of go-containerregistry's depcheck: the import graph comes from
// `go list -deps` (the build the compiler sees, not a grep of the sources) and
// each rule names the packages it is about, what they must not reach, and why.
//
// The rules of this module are in rules_test.go; docs/architecture.md says what
// they check. This package holds the graph and the three kinds of rule.
package depcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Package is one package of the import graph, as `go list -json` reports it.
type Package struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	// TestGoFiles and XTestGoFiles are watched for a cached result (Load's "-test").
	TestGoFiles, XTestGoFiles []string
	Imports                   []string // production imports only, but with Load's "-test"
	Standard                  bool
	Module                    *struct{ Main bool }
}

// own reports whether the package belongs to the module under test.
func (p *Package) own() bool { return p.Module != nil && p.Module.Main && !p.Standard }

// Graph is the import graph of a build, by import path.
type Graph map[string]*Package

// Load runs `go list -json -deps` over patterns in dir and returns the graph of
// the production build (test files are not followed), or, with "-test" among
// the patterns, of the build with every package's tests (their variants named
// as go list names them, "p [p.test]").
//
// go test caches a passing result by the test binary and the files the test
// opened, not by the sources go list read: Load therefore stats every source
// file and lists every directory of the module's packages, so that an import
// added anywhere in the module runs the rules again.
func Load(ctx context.Context, dir string, patterns ...string) (Graph, error) {
	args := append([]string{"list", "-e", "-json=ImportPath,Dir,GoFiles,TestGoFiles,XTestGoFiles,Imports,Standard,Module,Error", "-deps"}, patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps %s: %w: %s", strings.Join(patterns, " "), err, strings.TrimSpace(stderr.String()))
	}
	g := Graph{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			Package
			Error *struct{ Err string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decoding go list output: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list: package %s: %s", p.ImportPath, p.Error.Err)
		}
		pkg := p.Package
		g[pkg.ImportPath] = &pkg
		if pkg.own() {
			touch(pkg.Dir, pkg.GoFiles)
			touch(pkg.Dir, pkg.TestGoFiles)
			touch(pkg.Dir, pkg.XTestGoFiles)
		}
	}
	return g, nil
}

// touch opens what go test must watch to know that a cached result is stale:
// the directory (a file added or removed) and each Go file (an import changed).
// Errors are of no interest: go list has just read the same files.
func touch(dir string, files []string) {
	_, _ = os.ReadDir(dir)
	for _, f := range files {
		_, _ = os.Stat(filepath.Join(dir, f))
	}
}

// Pattern names packages by import path: "a/b" is that package alone, "a/b/..."
// is a/b and every package below it.
type Pattern string

// Match reports whether the import path is one the pattern names.
func (p Pattern) Match(path string) bool {
	if base, ok := strings.CutSuffix(string(p), "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == string(p)
}

// Patterns is a list of patterns; a path matches it when it matches one of them.
type Patterns []Pattern

// Match reports whether any pattern names the path.
func (ps Patterns) Match(path string) bool {
	return slices.ContainsFunc(ps, func(p Pattern) bool { return p.Match(path) })
}

// Violation is one way the graph breaks a rule: the chain of imports from a
// package the rule is about to what it must not reach.
type Violation struct {
	Path []string // importer first, the banned package last
}

func (v Violation) String() string { return strings.Join(v.Path, "\n\t→ ") }

// A Rule checks one line of the architecture's "must not" column against a graph.
type Rule interface {
	Check(g Graph) []Violation
}

// NoDependency: no package that From names reaches (transitively, through any
// code, third-party included) a package that Banned names.
type NoDependency struct {
	From   Patterns
	Banned Patterns
}

// Check returns one violation per place where the import chain from a package
// enters banned code, with the shortest chain.
func (r NoDependency) Check(g Graph) []Violation {
	var vs []Violation
	for _, from := range g.sorted(r.From) {
		parent := g.reach(from)
		for _, dep := range sortedKeys(parent) {
			if dep == from || !r.Banned.Match(dep) {
				continue
			}
			// Report where the chain enters banned code, not everything
			// that banned code imports in turn.
			c := chain(parent, dep)
			if !slices.ContainsFunc(c[1:len(c)-1], r.Banned.Match) {
				vs = append(vs, Violation{Path: c})
			}
		}
	}
	return vs
}

// NoOwnImport: no package of this module that From names, nor any package of
// this module it reaches, imports a package that Banned names. Third-party code
// is not held to the rule (k8s.io/apimachinery, for one, imports net/http for
// its helpers); the module's own code is, so the ban cannot be dodged through a
// helper package.
type NoOwnImport struct {
	From   Patterns
	Banned Patterns
}

// Check returns one violation per banned import, with the chain to the importer.
func (r NoOwnImport) Check(g Graph) []Violation {
	var vs []Violation
	for _, from := range g.sorted(r.From) {
		parent := g.reach(from)
		for _, pkg := range sortedKeys(parent) {
			p := g[pkg]
			if p == nil || !p.own() {
				continue
			}
			for _, imp := range p.Imports {
				if r.Banned.Match(imp) {
					vs = append(vs, Violation{Path: append(chain(parent, pkg), imp)})
				}
			}
		}
	}
	return vs
}

// OnlyImportedBy: among this module's packages, only those Allowed names import
// a package that Of names, in production code (tests may import anything).
type OnlyImportedBy struct {
	Of      Patterns
	Allowed Patterns
}

// Check returns one violation per forbidden import.
func (r OnlyImportedBy) Check(g Graph) []Violation {
	var vs []Violation
	for _, pkg := range sortedKeys(g) {
		p := g[pkg]
		if !p.own() || r.Allowed.Match(pkg) {
			continue
		}
		for _, imp := range p.Imports {
			if r.Of.Match(imp) {
				vs = append(vs, Violation{Path: []string{pkg, imp}})
			}
		}
	}
	return vs
}

// sorted returns the graph's packages that the patterns name, sorted.
func (g Graph) sorted(ps Patterns) []string {
	var out []string
	for path := range g {
		if ps.Match(path) {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	return out
}

// reach walks the graph breadth first from one package and returns every
// package reached (itself included) with the package it was first reached
// from, so that chain gives a shortest import path.
func (g Graph) reach(from string) map[string]string {
	parent := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		p := g[cur]
		if p == nil {
			continue
		}
		imports := slices.Clone(p.Imports)
		slices.Sort(imports)
		for _, imp := range imports {
			if _, seen := parent[imp]; !seen {
				parent[imp] = cur
				queue = append(queue, imp)
			}
		}
	}
	return parent
}

// chain is the import path from the walk's start to pkg.
func chain(parent map[string]string, pkg string) []string {
	var out []string
	for p := pkg; p != ""; p = parent[p] {
		out = append(out, p)
	}
	slices.Reverse(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

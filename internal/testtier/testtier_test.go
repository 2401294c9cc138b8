package testtier_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMakefileNamesEveryContentOnlyTest: the tests that call ContentOnly are skipped under
// -race, so the unit tier must run them without it: the Makefile's RACE_CONTENT must name
// exactly them, and RACE_CONTENT_PKGS their packages, else a content check would run nowhere.
func TestMakefileNamesEveryContentOnlyTest(t *testing.T) {
	root := filepath.Join("..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	variable := func(name string) string {
		m := regexp.MustCompile(`(?m)^` + name + ` := (.*)$`).FindSubmatch(mk)
		if m == nil {
			t.Fatalf("the Makefile has no %s", name)
		}
		return strings.TrimSpace(string(m[1]))
	}
	named := strings.Split(variable("RACE_CONTENT"), "|")
	pkgs := strings.Fields(variable("RACE_CONTENT_PKGS"))

	var found []string
	foundPkgs := map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "e2e" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == "." {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "ContentOnly" {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "testtier" {
						found = append(found, fn.Name.Name)
						rel, _ := filepath.Rel(root, filepath.Dir(path))
						foundPkgs["./"+filepath.ToSlash(rel)] = true
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(found)
	slices.Sort(named)
	if len(found) == 0 {
		t.Fatal("no test calls testtier.ContentOnly: the walk found nothing")
	}
	if !slices.Equal(found, named) {
		t.Errorf("the Makefile's RACE_CONTENT names %v; the tests that call testtier.ContentOnly are %v", named, found)
	}
	for p := range foundPkgs {
		if !slices.Contains(pkgs, p) {
			t.Errorf("RACE_CONTENT_PKGS (%v) lacks %s, which has a ContentOnly test", pkgs, p)
		}
	}
	for _, p := range pkgs {
		if !foundPkgs[p] {
			t.Errorf("RACE_CONTENT_PKGS names %s, which has no ContentOnly test", p)
		}
	}
}

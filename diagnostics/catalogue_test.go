package diagnostics

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/registry"
)

// TestCatalogueCoversModel: every Problem code the updater model declares
// maps to a catalogued finding code, and so does every registry error kind.
func TestCatalogueCoversModel(t *testing.T) {
	fset := token.NewFileSet()
	dir := filepath.Join("..", "model", "updater")
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if !strings.HasPrefix(name.Name, "Problem") || i >= len(vs.Values) {
							continue
						}
						lit, ok := vs.Values[i].(*ast.BasicLit)
						if !ok {
							continue
						}
						code, _ := strconv.Unquote(lit.Value)
						n++
						d, ok := problemsByCode()[code]
						if !ok {
							t.Errorf("updater.%s (%q) has no entry in problemDocs", name.Name, code)
							continue
						}
						if _, ok := catalogue()[d.code]; !ok {
							t.Errorf("updater.%s maps to %s, which is not catalogued", name.Name, d.code)
						}
					}
				}
			}
		}
	}
	if n < 30 {
		t.Fatalf("found only %d Problem codes; the parser walk is broken", n)
	}
	for _, k := range registry.Kinds() {
		c, ok := registryCodes[k]
		if k == registry.Other {
			c, ok = report.CodeRegistryError, true
		}
		if _, cat := catalogue()[c]; !ok || !cat {
			t.Errorf("registry kind %s has no catalogued finding code", k)
		}
	}
}

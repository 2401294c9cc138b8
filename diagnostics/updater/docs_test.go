package updater

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFindingsCatalogue keeps docs/findings.md complete: every Problem code,
// every Outcome and every SelectErrorKind declared in this package has an
// entry there.
func TestFindingsCatalogue(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "findings.md"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
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
						if !strings.HasPrefix(name.Name, "Problem") && !strings.HasPrefix(name.Name, "Outcome") && !(strings.HasPrefix(name.Name, "Err") && vs.Type != nil) {
							continue
						}
						if i >= len(vs.Values) {
							continue
						}
						lit, ok := vs.Values[i].(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING {
							continue
						}
						code, _ := strconv.Unquote(lit.Value)
						n++
						if !strings.Contains(string(doc), "| `"+code+"` |") {
							t.Errorf("%s = %q is not in docs/findings.md", name.Name, code)
						}
					}
				}
			}
		}
	}
	if n < 40 {
		t.Errorf("found only %d codes; the parser walk is broken", n)
	}
}

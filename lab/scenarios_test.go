package lab

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/bot/blockkit"

	"github.com/imgupd/imgupd/diagnostics/render"
)

// TestBuiltinScenarios: every scenario shipped in the binary gives the code
// it expects.
func TestBuiltinScenarios(t *testing.T) {
	all, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no built-in scenarios")
	}
	for _, sc := range all {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			r, err := Run(context.Background(), sc)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			render.Text(&b, r, render.TextOptions{Verbose: true})
			if !sc.Matches(r) {
				t.Fatalf("got %s, want %s\n%s", Primary(r), sc.Expect, b.String())
			}
			render.Markdown(&b, r)
			j, _ := json.Marshal(r)
			b.Write(j)
			bk, _ := json.Marshal(blockkit.Report(r, blockkit.Options{Buttons: true}))
			b.Write(bk)
			for _, secret := range sc.Secrets() {
				if strings.Contains(b.String(), secret) {
					t.Fatalf("secret value %q leaked into the report", secret)
				}
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		"unknown field": "name: x\nexpect: healthy\napp: {name: web}\nobjects: a\nregistyr: {}\n",
		"no app":        "expect: healthy\nobjects: a\n",
		"no expect":     "app: {name: web}\nobjects: a\n",
		"bad auth type": "expect: healthy\napp: {name: web}\nobjects: a\nregistry: {auth: {type: oauth, username: u, password: p}}\n",
		"no objects":    "expect: healthy\napp: {name: web}\n",
	}
	for name, doc := range cases {
		if _, err := Parse([]byte(doc), name+".yaml"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	sc, err := Parse([]byte("expect: healthy\napp: {name: web}\nobjects: a\n"), "dir/my-case.yaml")
	if err != nil || sc.Name != "my-case" || sc.App.Namespace != "argocd" {
		t.Fatalf("%+v %v", sc, err)
	}
}

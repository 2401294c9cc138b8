package report

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	"github.com/imgupd/imgupd/internal/shell"
)

// TestStepVars: a value only the reader knows is a variable set in a step of
// its own, which the command uses and refuses to run without.
func TestStepVars(t *testing.T) {
	set := SetVars(Var{Name: "REGISTRY_USER", About: "a user"}, Var{Name: "REGISTRY_TOKEN", About: "its token"})
	if set.Text != "REGISTRY_USER=''\nREGISTRY_TOKEN=''" || set.Lang != LangShell || len(set.Set) != 2 {
		t.Errorf("set step %+v", set)
	}
	run := RunWords("create it", shell.Lit("kubectl"), shell.Concat(shell.Lit("--docker-username="), shell.Var("REGISTRY_USER")))
	if want := `kubectl --docker-username="${REGISTRY_USER:?set REGISTRY_USER first}"`; run.Text != want {
		t.Errorf("run %s, want %s", run.Text, want)
	}
	if v := run.Vars(); len(v) != 1 || v[0] != "REGISTRY_USER" {
		t.Errorf("vars %v", v)
	}
	if bad := SetVars(Var{Name: "lower case"}); bad.Refused == "" {
		t.Errorf("a variable that is no shell name was set: %+v", bad)
	}
}

// TestCommandRefused: a value bash cannot carry gives a step that says so,
// not a command.
func TestCommandRefused(t *testing.T) {
	s := Command("label it", "kubectl", "label", "x\x00y")
	if s.Refused == "" || s.Lang != LangText || len(s.Run) != 0 || strings.Contains(s.Text, "kubectl") {
		t.Errorf("%+v", s)
	}
}

// TestFixScript: the steps as one text that pastes into a shell as it is:
// each after its Say as a comment (an alternative's with "or:"), a pasted
// step's object, edit command and YAML commented out, a blank line between.
func TestFixScript(t *testing.T) {
	f := Fix{Steps: []Step{
		Command("create the pull secret", "kubectl", "-n", "argocd", "create", "secret", "docker-registry", "r"),
		Paste("let the image use it", "ImageUpdater argocd/web", []string{"kubectl", "-n", "argocd", "edit", "imageupdater", "web"}, "spec:\n  a: b"),
		Otherwise(Command("set the annotation", "kubectl", "annotate", "application", "web", "x=y")),
		Value("write the image name", "the image's imageName", "ghcr.io/acme/web"),
	}}
	want := `# create the pull secret
kubectl -n argocd create secret docker-registry r

# let the image use it
# in ImageUpdater argocd/web
# kubectl -n argocd edit imageupdater web
# spec:
#   a: b

# or: set the annotation
kubectl annotate application web x=y

# write the image name
# in the image's imageName
# ghcr.io/acme/web`
	if got := f.Script(); got != want {
		t.Errorf("Script:\n%s\nwant:\n%s", got, want)
	}
	if got := f.ScriptLang(); got != string(LangShell) {
		t.Errorf("ScriptLang = %q, want sh", got)
	}
	if (Fix{}).Script() != "" || (Fix{}).ScriptLang() != "" {
		t.Error("a fix without steps has a script")
	}
	// A line break or an escape in a Say ends no comment.
	hostile := Fix{Steps: []Step{Command("copy x\ntouch /tmp/pwned\n\x1b[2J", "true")}}
	if got := hostile.Script(); got != "# copy x\\ntouch /tmp/pwned\\n\\x1b[2J\ntrue" {
		t.Errorf("hostile Say: %q", got)
	}
}

// TestWithFix: the finding carries the fix's steps and no snippet of its
// own (the engine writes it from the steps).
func TestWithFix(t *testing.T) {
	f := Finding{Code: CodeSyncManual}.WithFix("Enable automated sync.", "Application argocd/web", Command("enable it", "kubectl", "patch"))
	if f.Fix == nil || f.Fix.Summary != "Enable automated sync." || f.Fix.Where != "Application argocd/web" || len(f.Fix.Steps) != 1 || f.Fix.Snippet != "" {
		t.Fatalf("%+v", f.Fix)
	}
	if g := (Finding{}).WithFix("Advice only.", ""); g.Fix == nil || len(g.Fix.Steps) != 0 {
		t.Fatalf("%+v", g.Fix)
	}
}

func TestFixNumbered(t *testing.T) {
	f := Fix{Steps: []Step{
		Command("create the secret", "kubectl", "create", "secret"),
		Paste("use it", "ImageUpdater argocd/web", []string{"kubectl", "-n", "argocd", "edit", "imageupdater", "web"}, "spec: {}"),
		Otherwise(Paste("or open pull requests", "ImageUpdater argocd/web", nil, "spec: {}")),
		Paste("set the branch", "ImageUpdater argocd/other", nil, "spec: {}"),
		Otherwise(SetVars(Var{Name: "TOKEN", About: "a token"})),
		AndThen(Command("use the token", "true")),
	}}
	got := f.Numbered()
	want := []struct {
		n          int
		same, then bool
		lead       string
	}{{1, false, false, "1. "}, {2, false, false, "2. "}, {0, true, false, "or: "}, {3, false, false, "3. "}, {0, false, false, "or: "}, {0, false, true, "then: "}}
	for i, w := range want {
		if got[i].N != w.n || got[i].SameObject != w.same || got[i].Then != w.then || got[i].Lead() != w.lead {
			t.Errorf("step %d: N %d, same object %v, then %v, lead %q; want %+v", i, got[i].N, got[i].SameObject, got[i].Then, got[i].Lead(), w)
		}
	}
	if one := (Fix{Steps: []Step{Command("x", "true")}}).Numbered(); one[0].N != 0 {
		t.Errorf("the only step is not numbered: %d", one[0].N)
	}
}

// TestSetAt: the operations set the path in the object as read, guards
// first, and applying them (RFC 6902, evanphx/json-patch, what the API server
// runs) gives the object with the value set and nothing else changed.
func TestSetAt(t *testing.T) {
	orig := `{"spec":{"applicationRefs":[{"namePattern":"web","images":[{"alias":"web","imageName":"x"}]}]}}`
	var doc any
	if err := json.Unmarshal([]byte(orig), &doc); err != nil {
		t.Fatal(err)
	}
	guard := PatchOp{Op: "test", Path: Pointer("spec", "applicationRefs", "0", "namePattern"), Value: "web"}
	var ops []PatchOp
	for _, set := range []struct {
		path  []string
		value any
	}{
		{[]string{"spec", "applicationRefs", "0", "images", "0", "commonUpdateSettings", "allowTags"}, "regexp:^1\\."},
		{[]string{"spec", "applicationRefs", "0", "images", "0", "commonUpdateSettings", "ignoreTags"}, []any{"a'b", "$(x)"}},
		{[]string{"spec", "applicationRefs", "0", "images", "0", "imageName"}, "y"},
		{[]string{"spec", "applicationRefs", "0", "images", "-"}, map[string]any{"alias": "new", "imageName": "z"}},
	} {
		more, err := SetAt(doc, set.path, set.value, guard)
		if err != nil {
			t.Fatal(err)
		}
		ops = append(ops, more...)
	}
	body, _ := json.Marshal(ops)
	p, err := jsonpatch.DecodePatch(body)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Apply([]byte(orig))
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	want := `{"spec":{"applicationRefs":[{"namePattern":"web","images":[{"alias":"web","imageName":"y","commonUpdateSettings":{"allowTags":"regexp:^1\\.","ignoreTags":["a'b","$(x)"]}},{"alias":"new","imageName":"z"}]}]}}`
	var g, w any
	_ = json.Unmarshal(got, &g)
	_ = json.Unmarshal([]byte(want), &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("patched:\n%s\nwant\n%s\nops %s", got, want, body)
	}
	if _, err := SetAt(doc, []string{"spec", "applicationRefs", "7", "namePattern"}, "x"); err == nil {
		t.Error("a list index past the end was patched")
	}
}

// TestPatchStep: the patch is one word of JSON; a reader's value stands in
// it as a variable; a cluster value holding imgupd's marker is refused.
func TestPatchStep(t *testing.T) {
	p := Patch{Kind: "Secret", Resource: "secret", Namespace: "argocd", Name: "repo", Type: PatchMerge,
		Merge: map[string]any{"stringData": map[string]any{"password": VarValue("GIT_TOKEN"), "note": "it's $(x)"}}}
	s := PatchStep("set the token", p)
	if !strings.HasPrefix(s.Text, "kubectl -n argocd patch secret --type merge -p ") || !strings.HasSuffix(s.Text, " -- repo") || !strings.Contains(s.Text, `"${GIT_TOKEN:?set GIT_TOKEN first}"`) || s.Patch == nil || s.Object != "Secret argocd/repo" {
		t.Errorf("got %s", s.Text)
	}
	env := shell.Sentinels("GIT_TOKEN")
	st, err := shell.Check(s.Text, env)
	if err != nil {
		t.Fatal(err)
	}
	if got := st[0].Run[0][len(st[0].Run[0])-3]; got != `{"stringData":{"note":"it's $(x)","password":"<GIT_TOKEN>"}}` || st[0].Run[0][len(st[0].Run[0])-1] != "repo" {
		t.Errorf("the patch bash passes: %s", got)
	}
	forged := p
	forged.Merge = map[string]any{"x": "\x00imgupd-var\x00GIT_TOKEN\x00imgupd-var\x00"}
	if s := PatchStep("forged", forged); s.Refused == "" {
		t.Errorf("a value with the variable marker made a command: %s", s.Text)
	}
}

// TestApply: a document is fed on standard input, pretty printed, as one
// word bash passes as written.
func TestApply(t *testing.T) {
	doc := map[string]any{"kind": "List", "items": []any{map[string]any{"name": "x'\n$(y)"}}}
	s := Apply("create it", doc)
	if s.Refused != "" {
		t.Fatal(s.Refused)
	}
	st, err := shell.Check(s.Text, nil)
	if err != nil {
		t.Fatal(err)
	}
	var back any
	if err := json.Unmarshal([]byte(st[0].Run[0][2]), &back); err != nil || !reflect.DeepEqual(back, map[string]any{"kind": "List", "items": []any{map[string]any{"name": "x'\n$(y)"}}}) {
		t.Errorf("stdin %q: %v", st[0].Run[0][2], err)
	}
	if !reflect.DeepEqual(st[0].Run[1], []string{"kubectl", "apply", "-f", "-"}) {
		t.Errorf("runs %q", st[0].Run[1])
	}
}

package report

import (
	"slices"
	"testing"
)

// TestStepPlaceholders: the <values> the reader replaces, each once in
// order; here-documents, redirections and comparisons are not ones.
func TestStepPlaceholders(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"kubectl create secret docker-registry r --docker-username=<user> --docker-password=<token>", []string{"<user>", "<token>"}},
		{"HTTP_PROXY=http://<proxy>:<port> NO_PROXY=<proxy>", []string{"<proxy>", "<port>"}},
		{"credentials: pullsecret:argocd/<secret with an account for this registry>", []string{"<secret with an account for this registry>"}},
		{"arn:aws:iam::<account>:role/<image-updater-ecr-read>", []string{"<account>", "<image-updater-ecr-read>"}},
		{"imageName: <registry>/<repository>:<constraint>", []string{"<registry>", "<repository>", "<constraint>"}},
		{"kubectl apply -f - <<'EOF'\nkind: Role\nEOF", nil},
		{"cosign public-key --key cosign.key > cosign.pub", nil},
		{"a < b and c > d", nil},
		{"<the CA's certificate>", nil},
		{"no placeholder", nil},
		{"unclosed <user", nil},
	}
	for _, c := range cases {
		if got := Run("", c.text).Placeholders(); !slices.Equal(got, c.want) {
			t.Errorf("Placeholders(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// TestFixScript: the steps as one text, each after its Say (an
// alternative's with "or:"), a pasted step's object and edit command as
// comments, a blank line between steps.
func TestFixScript(t *testing.T) {
	f := Fix{Steps: []Step{
		Run("create the pull secret", "kubectl -n argocd create secret docker-registry r\n"),
		Paste("let the image use it", "ImageUpdater argocd/web", "kubectl -n argocd edit imageupdater web", "spec:\n  a: b"),
		Otherwise(Run("set the annotation", "kubectl annotate application web x=y")),
		Value("write the image name", "the image's imageName", "ghcr.io/acme/web"),
	}}
	want := `# create the pull secret
kubectl -n argocd create secret docker-registry r

# let the image use it
# in ImageUpdater argocd/web
# kubectl -n argocd edit imageupdater web
spec:
  a: b

# or: set the annotation
kubectl annotate application web x=y

# write the image name
# in the image's imageName
ghcr.io/acme/web`
	if got := f.Script(); got != want {
		t.Errorf("Script:\n%s\nwant:\n%s", got, want)
	}
	if got := f.ScriptLang(); got != string(LangText) {
		t.Errorf("ScriptLang of mixed steps = %q, want text", got)
	}
	sh := Fix{Steps: f.Steps[:1]}
	if sh.Script() != "# create the pull secret\nkubectl -n argocd create secret docker-registry r" || sh.ScriptLang() != "sh" {
		t.Errorf("one shell step: %q (%s)", sh.Script(), sh.ScriptLang())
	}
	if (Fix{}).Script() != "" || (Fix{}).ScriptLang() != "" {
		t.Error("a fix without steps has a script")
	}
}

// TestWithFix: the finding carries the fix's steps and no snippet of its
// own (the engine writes it from the steps).
func TestWithFix(t *testing.T) {
	f := Finding{Code: CodeSyncManual}.WithFix("Enable automated sync.", "Application argocd/web", Run("enable it", "kubectl patch"))
	if f.Fix == nil || f.Fix.Summary != "Enable automated sync." || f.Fix.Where != "Application argocd/web" || len(f.Fix.Steps) != 1 || f.Fix.Snippet != "" {
		t.Fatalf("%+v", f.Fix)
	}
	if g := (Finding{}).WithFix("Advice only.", ""); g.Fix == nil || len(g.Fix.Steps) != 0 {
		t.Fatalf("%+v", g.Fix)
	}
}

func TestFixNumbered(t *testing.T) {
	f := Fix{Steps: []Step{
		Run("create the secret", "kubectl create secret …"),
		Paste("use it", "ImageUpdater argocd/web", "kubectl -n argocd edit imageupdater web", "spec: {}"),
		Otherwise(Paste("or open pull requests", "ImageUpdater argocd/web", "", "spec: {}")),
		Paste("set the branch", "ImageUpdater argocd/other", "", "spec: {}"),
	}}
	got := f.Numbered()
	want := []struct {
		n    int
		same bool
	}{{1, false}, {2, false}, {0, true}, {3, false}}
	for i, w := range want {
		if got[i].N != w.n || got[i].SameObject != w.same {
			t.Errorf("step %d: N %d, same object %v; want %d, %v", i, got[i].N, got[i].SameObject, w.n, w.same)
		}
	}
	if one := (Fix{Steps: []Step{Run("x", "true")}}).Numbered(); one[0].N != 0 {
		t.Errorf("the only step is not numbered: %d", one[0].N)
	}
}

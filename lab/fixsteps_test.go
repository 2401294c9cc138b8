package lab

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/diagnostics/report"
)

// placeholdersBefore are the values the reader supplies in the fixes of the
// built-in scenarios, by finding code, as the fixes wrote them when they
// were one snippet: the steps must still ask for every one.
var placeholdersBefore = map[report.Code][]string{
	report.CodeRegistryUnauthorized:     {"<user>", "<token>"},
	report.CodeRegistryDNS:              {"<proxy>", "<port>"},
	report.CodeRegistryECRNoCredentials: {"<account>", "<image-updater-ecr-read>"},
	report.CodeRegistryTLS:              {"<the CA that signs the registry certificate>"},
	report.CodeRegistryPullSecretKey:    {"<user>", "<token>"},
	report.CodeRegistryRateLimited:      {"<secret with an account for this registry>"},
	report.CodeWriteBackCredsMissing:    {"<user>", "<token>"},
	report.CodeRegistryProxy:            {"<proxy>", "<port>"},
}

// anglesRE finds what reads as a value to supply: <words>, not a
// here-document (<<'EOF') or a redirection.
var anglesRE = regexp.MustCompile(`<([A-Za-z][^<>\n]*)>`)

// checkFixSteps: every fix of the report is steps (the Snippet is theirs,
// written by the engine), each one thing: a shell step runs as it is (no
// comment line, no trailing comment outside a here-document), a YAML step
// names the object it goes into, and every value to supply is a
// placeholder the step lists, none of those the fix had as one snippet
// lost.
func checkFixSteps(t *testing.T, r *report.Report) {
	t.Helper()
	for _, f := range r.Findings() {
		if f.Fix == nil {
			continue
		}
		fix := f.Fix
		if fix.Snippet != "" && len(fix.Steps) == 0 {
			t.Errorf("%s: the fix has a snippet but no steps:\n%s", f.Code, fix.Snippet)
		}
		if len(fix.Steps) == 0 {
			continue
		}
		if fix.Script() == "" || fix.Snippet != fix.Script() {
			t.Errorf("%s: the snippet is not the steps' script:\n%s", f.Code, fix.Snippet)
		}
		var have []string
		for i, s := range fix.Steps {
			if s.Say == "" || strings.TrimSpace(s.Text) == "" {
				t.Errorf("%s step %d: says %q, text %q", f.Code, i, s.Say, s.Text)
			}
			if i == 0 && s.Or {
				t.Errorf("%s: the first step is an alternative to nothing", f.Code)
			}
			switch s.Lang {
			case report.LangShell:
				if c := shellComment(s.Text); c != "" {
					t.Errorf("%s step %d (%s): a shell step with a comment, %q:\n%s", f.Code, i, s.Say, c, s.Text)
				}
			case report.LangYAML:
				if s.Object == "" {
					t.Errorf("%s step %d (%s): YAML without the object it goes into:\n%s", f.Code, i, s.Say, s.Text)
				}
				if strings.HasPrefix(strings.TrimSpace(s.Text), "#") {
					t.Errorf("%s step %d (%s): YAML that starts with a comment:\n%s", f.Code, i, s.Say, s.Text)
				}
			case report.LangText:
			default:
				t.Errorf("%s step %d: language %q", f.Code, i, s.Lang)
			}
			ph := s.Placeholders()
			for _, m := range anglesRE.FindAllString(s.Text, -1) {
				if !slices.Contains(ph, m) {
					t.Errorf("%s step %d (%s): %s reads as a value to supply, but is not a placeholder", f.Code, i, s.Say, m)
				}
			}
			have = append(have, ph...)
		}
		for _, p := range placeholdersBefore[f.Code] {
			if !slices.Contains(have, p) {
				t.Errorf("%s: the steps lost the placeholder %s:\n%s", f.Code, p, fix.Script())
			}
		}
	}
}

// shellComment is the first comment in a shell step's text outside
// here-documents and quotes, or "".
func shellComment(text string) string {
	inDoc := ""
	for _, line := range strings.Split(text, "\n") {
		if inDoc != "" {
			if line == inDoc {
				inDoc = ""
			}
			continue
		}
		var quote rune
		prev := ' '
		for i, c := range line {
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '\'' || c == '"':
				quote = c
			case c == '#' && (prev == ' ' || prev == '\t'):
				return strings.TrimSpace(line[i:])
			}
			prev = c
		}
		if i := strings.Index(line, "<<"); i >= 0 {
			inDoc = strings.Trim(strings.TrimPrefix(strings.TrimSpace(line[i+2:]), "-"), `'"`)
		}
	}
	return ""
}

// TestShellComment: comments are found outside quotes and here-documents
// only.
func TestShellComment(t *testing.T) {
	cases := map[string]string{
		"kubectl get pods":                                                    "",
		"# check\nkubectl get pods":                                           "# check",
		"kubectl edit cm x   # key registries.conf":                           "# key registries.conf",
		`kubectl patch x -p '{"a":"b # c"}'`:                                  "",
		"argocd app set a --helm-set-string 'x=y#z'":                          "",
		"x=git:secret:ns/name#field cmd":                                      "",
		"kubectl apply -f - <<'EOF'\nspec:\n  a: b   # kept in the YAML\nEOF": "",
		"kubectl apply -f - <<'EOF'\nspec: {}\nEOF\nkubectl get x # after":    "# after",
	}
	for text, want := range cases {
		if got := shellComment(text); got != want {
			t.Errorf("shellComment(%q) = %q, want %q", text, got, want)
		}
	}
}

package blockkit

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/diagnostics/report"
)

// checkSnippetsReadBack: every fix snippet the report shows (the root
// cause's in the message, the other findings' in the thread) reads back,
// as Slack shows it, exactly as written — bar the documented changes: a
// snippet longer than its budget is cut and ends with "…", and a ``` in a
// snippet is written ”' (it would end the code block). Nothing in the
// payload is live. It returns how many snippets it checked.
func checkSnippetsReadBack(t *testing.T, r *report.Report, p Payload) int {
	t.Helper()
	var shown []string
	for _, m := range append([]Message{p.Message}, p.Thread...) {
		s := show(t, m)
		for _, l := range s.Live {
			t.Errorf("live sequence in the report: %s", l)
		}
		for _, x := range s.Texts {
			shown = append(shown, x.Code...)
		}
	}
	n := 0
	for _, f := range r.Findings() {
		rendered := r.RootCause != nil && f.Code == r.RootCause.Code || f.Severity != report.Pass && f.Severity != report.Info
		if f.Fix == nil || f.Fix.Snippet == "" || f.Fix.Summary == "" || !rendered {
			continue
		}
		want := noFence(f.Fix.Snippet)
		found := slices.ContainsFunc(shown, func(c string) bool {
			if c == want {
				return true
			}
			cut, ok := strings.CutSuffix(c, "…")
			return ok && len(cut) > 100 && strings.HasPrefix(want, cut)
		})
		if !found {
			t.Errorf("the fix snippet of %s does not read back as written:\n%s\nshown code blocks: %q", f.Code, f.Fix.Snippet, shown)
		}
		n++
	}
	return n
}

// show reads a message back as Slack shows it.
func show(t *testing.T, m Message) slacklab.Shown {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := slacklab.ShowMessage(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestExplainFixesReadBack: every catalogue entry's Fix, through the
// explain answer, reads back as written (running text: no placeholder
// lost, no emoji), and nothing in the answer is live.
func TestExplainFixesReadBack(t *testing.T) {
	for _, e := range report.Catalogue() {
		m := Explain(e)
		for _, err := range Validate(Payload{Message: m}) {
			t.Error(err)
		}
		s := show(t, m)
		if len(s.Live) > 0 || len(s.Emoji) > 0 {
			t.Errorf("%s: live %v, emoji %v", e.Code, s.Live, s.Emoji)
		}
		var texts []string
		for _, x := range s.Texts {
			texts = append(texts, x.Shown)
		}
		if want := "*Fix:* " + e.Fix; e.Fix != "" && !slices.Contains(texts, want) {
			t.Errorf("%s: the fix reads back as %q, want %q", e.Code, texts, want)
		}
		if want := "*" + e.Title + "*"; !strings.Contains(strings.Join(texts, "\n"), want) || !strings.Contains(s.Text, e.Title) {
			t.Errorf("%s: the title does not read back as written: %q, text %q", e.Code, texts, s.Text)
		}
	}
}

package blockkit

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/report"
)

// checkSnippetsReadBack: every fix step the report shows (the root
// cause's in the message or the thread, the other findings' in the
// thread; a fix with only a snippet is one step) reads back, as Slack
// shows it, exactly as written and never cut — bar the documented
// changes: trailing line ends are dropped, a YAML step longer than a
// section is split at line ends over several code blocks, a command
// longer than a section is not shown (its head says so: a command cut in
// two would run as two), and a ``` in a YAML step is written as three
// single quotes (a command holds none: internal/shell writes a backtick of
// such a word as \x60). Nothing in the payload is
// live. It returns how many steps it checked.
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
		if f.Fix == nil || f.Fix.Summary == "" || !rendered {
			continue
		}
		for _, st := range f.Fix.AllSteps() {
			want := noFence(strings.TrimRight(st.Text, "\n"))
			if st.Lang == report.LangShell && withheld(p, st.Text) {
				// A command longer than a section is not cut: its head says
				// so, and no part of it is shown as code.
				if readsBackPart(shown, want) {
					t.Errorf("the fix step of %s is withheld, yet a part of it is shown as code", f.Code)
				}
				n++
				continue
			}
			if !readsBack(shown, want) {
				t.Errorf("the fix step of %s does not read back as written:\n%s\nshown code blocks: %q", f.Code, st.Text, shown)
			}
			n++
		}
	}
	return n
}

// withheld: the payload says a command of text's length is too long to
// show in one piece.
func withheld(p Payload, text string) bool {
	mark := "_(this command is " + strconv.Itoa(utf8.RuneCountInString(text)) + " characters"
	b, _ := json.Marshal(p)
	return strings.Contains(string(b), mark)
}

// readsBackPart: a shown code block is a line of want.
func readsBackPart(shown []string, want string) bool {
	for _, s := range shown {
		if s != "" && strings.Contains(want, s) && len(s) > 40 {
			return true
		}
	}
	return false
}

// readsBack: want is one shown code block, or a run of them (a step too
// long for one section, split at line ends).
func readsBack(shown []string, want string) bool {
	for i := range shown {
		joined := ""
		for j := i; j < len(shown) && len(joined) < len(want); j++ {
			if j > i {
				joined += "\n"
			}
			joined += shown[j]
			if joined == want {
				return true
			}
		}
	}
	return false
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

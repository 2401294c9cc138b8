package render_test

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/report"
)

// sgrRE is a colour sequence (SGR).
var sgrRE = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestColourPaintsOnlyTheRenderersWords: over every built-in report
// (hostile ones included), colour adds only the renderer's own SGR
// sequences (render.StyleAt knows each) around its marks, states and
// headings: without them the text is the uncoloured text, byte for byte,
// and every ESC left is a value the cluster wrote, shown as "\x1b". The
// mark opens painted in the state's colour.
func TestColourPaintsOnlyTheRenderersWords(t *testing.T) {
	reps, err := builtinReports()
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range reps {
		var plain, painted strings.Builder
		render.Text(&plain, r, render.TextOptions{Width: 100})
		render.Text(&painted, r, render.TextOptions{Width: 100, Color: true})
		out := painted.String()
		for _, m := range sgrRE.FindAllStringIndex(out, -1) {
			if n := render.StyleAt([]byte(out[m[0]:])); n != m[1]-m[0] {
				t.Errorf("%s: %q is not a sequence of the renderer's", name, out[m[0]:m[1]])
			}
		}
		stripped := sgrRE.ReplaceAllString(out, "")
		if strings.Contains(stripped, "\x1b") {
			t.Errorf("%s: a raw ESC that is no colour of the renderer's:\n%q", name, stripped)
		}
		if stripped != plain.String() {
			t.Errorf("%s: colour changed the text:\n%s\nwant\n%s", name, stripped, plain.String())
		}
		if !strings.HasPrefix(out, "\x1b[") || strings.HasPrefix(plain.String(), "\x1b") {
			t.Errorf("%s: the mark is not painted: %q", name, out[:min(len(out), 40)])
		}
	}
}

// TestColourNeverWrapsClusterText: a value the cluster wrote that holds a
// colour sequence is shown as text, painted or not.
func TestColourNeverWrapsClusterText(t *testing.T) {
	r := &report.Report{State: report.StateBlocked, Answer: "argocd/web\x1b[32m is fine\x1b[0m",
		RootCause: &report.Finding{Code: "REGISTRY_UNAUTHORIZED", Title: "\x1b[31mred\x1b[0m title", Severity: report.Fail}}
	var b strings.Builder
	render.Text(&b, r, render.TextOptions{Color: true})
	out := b.String()
	for _, want := range []string{`argocd/web\x1b[32m is fine\x1b[0m`, `\x1b[31mred\x1b[0m title`} {
		if !strings.Contains(out, want) {
			t.Errorf("the cluster's %q is not shown as text:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[32m is fine") || strings.Contains(out, "\x1b[31mred") {
		t.Errorf("the cluster's colour reached the terminal:\n%q", out)
	}
}

// TestPassingChecksAndTagTablesOnlyWithVerbose: without -v a report
// counts its passing checks and gives each image's candidates one line;
// -v lists the checks and the tables.
func TestPassingChecksAndTagTablesOnlyWithVerbose(t *testing.T) {
	reps, err := builtinReports()
	if err != nil {
		t.Fatal(err)
	}
	r := reps["healthy-git-writeback"]
	if r == nil || len(r.Candidates) == 0 || len(r.Candidates[0].Decision.Tags) == 0 {
		t.Fatal("healthy-git-writeback: no candidate table to show")
	}
	tag := r.Candidates[0].Decision.Tags[0]
	row := regexp.MustCompile(`(?m)^ +1 ` + regexp.QuoteMeta(tag.Tag) + ` +selected `)
	var short, long strings.Builder
	render.Text(&short, r, render.TextOptions{})
	render.Text(&long, r, render.TextOptions{Verbose: true})
	for _, c := range []struct {
		out       string
		want, not []string
		row       bool
	}{
		{short.String(), []string{"checks passed (-v shows them)\n", "tags: -v lists them)\n"}, []string{"✔ [HEALTH_UPDATER_RUNNING]"}, false},
		{long.String(), []string{"✔ [HEALTH_UPDATER_RUNNING]"}, []string{"-v shows them", "-v lists them"}, true},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.out, w) {
				t.Errorf("no %q in\n%s", w, c.out)
			}
		}
		for _, w := range c.not {
			if strings.Contains(c.out, w) {
				t.Errorf("%q in\n%s", w, c.out)
			}
		}
		if row.MatchString(c.out) != c.row {
			t.Errorf("the pick's row shown: %v, want %v:\n%s", !c.row, c.row, c.out)
		}
	}
}

// TestSummaryTextFitsTheWidth: at 80 columns every line of the summary
// fits, the columns keep their words whole (the same words as unwrapped,
// but for the "·" that puts the ages after a wrapped cause), the app and
// code columns are as wide as their widest cell, and a cause with too
// little room goes under its row.
func TestSummaryTextFitsTheWidth(t *testing.T) {
	s := handSummary()
	var wide, narrow strings.Builder
	render.SummaryText(&wide, s, render.SummaryOptions{TitleWidth: 60})
	render.SummaryText(&narrow, s, render.SummaryOptions{TitleWidth: 60, Width: 80})
	for _, l := range strings.Split(narrow.String(), "\n") {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("%d columns: %q", utf8.RuneCountInString(l), l)
		}
	}
	drop := func(s string) string { return strings.Join(strings.Fields(strings.ReplaceAll(s, " · ", " ")), " ") }
	if drop(narrow.String()) != drop(wide.String()) {
		t.Errorf("wrapping changed the words:\n%s\nwant\n%s", narrow.String(), wide.String())
	}
	if !strings.Contains(narrow.String(), "\n   payments-a/api     REGISTRY_UNAUTHORIZED\n      the registry wants credentials (401) · since 3d 4h, newer tag waiting 12d\n") {
		t.Errorf("the columns are not as wide as their widest cell:\n%s", narrow.String())
	}
}

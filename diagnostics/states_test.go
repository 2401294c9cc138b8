package diagnostics

import (
	"bytes"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/report"
)

// TestRootCauseMarked: finish marks exactly the finding it chose as the root
// cause, and the text report points at that one alone, also when another
// finding of the same code and title fails for another image.
func TestRootCauseMarked(t *testing.T) {
	twin := func(alias string) report.Finding {
		return find(report.CodeRegistryUnauthorized, report.Fail, "the registry refuses the credentials").WithImage(alias).
			WithFix("fix for "+alias, "")
	}
	r := &report.Report{Stages: []report.StageResult{
		{StageInfo: report.StageInfo{ID: report.StageHealth, Title: "Image Updater health"}, Findings: []report.Finding{find(report.CodeUpdaterRunning, report.Pass, "running")}},
		{StageInfo: report.StageInfo{ID: report.StageRegistry, Title: "Registry and network"}, Findings: []report.Finding{twin("web"), twin("worker")}},
	}}
	finish(r)
	var marked []string
	for _, s := range r.Stages {
		for _, f := range s.Findings {
			if f.RootCause {
				marked = append(marked, f.Image)
			}
		}
	}
	if len(marked) != 1 || marked[0] != "web" || r.RootCause == nil || r.RootCause.Image != "web" {
		t.Fatalf("root cause marks on images %q, Report.RootCause %+v; want the first failing finding (web) alone", marked, r.RootCause)
	}
	var out bytes.Buffer
	render.Text(&out, r, render.TextOptions{})
	if n := strings.Count(out.String(), "(root cause, above)"); n != 1 {
		t.Errorf("the text report points at the root cause %d times, want once:\n%s", n, out.String())
	}
	if !strings.Contains(out.String(), "fix for worker") {
		t.Errorf("the other image's fix is not shown:\n%s", out.String())
	}
}

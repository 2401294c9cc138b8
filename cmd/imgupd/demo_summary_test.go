package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// TestDemoSummary: demo --summary is every built-in scenario as one fleet,
// an app lab/NAME each with the scenario's answer.
func TestDemoSummary(t *testing.T) {
	t.Parallel()
	all, err := lab.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runDemo(t, "demo", "--summary", "-o", "json", "--parallel", "8")
	if !strings.HasPrefix(out, schemaHead) {
		t.Errorf("the summary's JSON does not open with %q: %.80q", schemaHead, out)
	}
	var s report.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != 0 {
		t.Fatalf("exit %d, %v: %s\n%s", code, err, errOut, out)
	}
	if s.Total != len(all) || s.Cluster != "lab" || s.Worst != report.StateBlocked {
		t.Errorf("total %d (want %d), cluster %q, worst %s", s.Total, len(all), s.Cluster, s.Worst)
	}
	byName := map[string]report.SummaryLine{}
	for _, g := range s.Attention {
		for _, l := range g.Apps {
			byName[l.App.String()] = l
		}
	}
	for _, l := range s.Fine {
		byName[l.App.String()] = l
	}
	for _, sc := range all {
		l, ok := byName["lab/"+sc.Name]
		if !ok {
			t.Errorf("scenario %s is not in the summary", sc.Name)
			continue
		}
		if sc.ExpectState != "" && string(l.State) != sc.ExpectState {
			t.Errorf("%s: %s, expected %s", sc.Name, l.State, sc.ExpectState)
		}
		if sc.Expect != lab.Healthy && string(l.Code) != sc.Expect && l.State != report.StateUpToDate && l.State != report.StateOnItsWay {
			t.Errorf("%s: code %s, expected %s", sc.Name, l.Code, sc.Expect)
		}
	}

	code, out, _ = runDemo(t, "demo", "--summary", "--parallel", "8")
	for _, want := range []string{"Image Updater fleet on lab · every Application · ", "✗ blocked · Live image (1)\n   lab/report-1-image-not-live",
		"LIVE_IMAGE_NOT_LIVE", "Next: imgupd demo --scenario NAME shows an app's full report and its fix, e.g. imgupd demo --scenario "} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, text lacks %q:\n%s", code, want, out)
		}
	}

	code, _, errOut = runDemo(t, "demo", "--summary", "--scenario", "report-1-image-not-live")
	if code != exitUsage || !strings.Contains(errOut, "drop --scenario") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

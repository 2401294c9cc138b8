package diagnostics_test

import (
	"context"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// TestOtherCRsAreOneFinding (issue 28): on a fleet with one CR per app, a
// diagnosis of one app says once how many other CRs do not select it, their
// names bounded in the evidence, instead of a finding per CR.
func TestOtherCRsAreOneFinding(t *testing.T) {
	t.Parallel()
	sc := lab.FleetScenario(lab.FleetSpec{Apps: 30, Repos: 3, MinTags: 5, MaxTags: 10, CRs: lab.FleetCRPerApp})
	sc.App.Name = "app-0004-r001"
	r, err := lab.Run(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	if r.State != report.StateUpToDate {
		t.Fatalf("state %s, want up-to-date", r.State)
	}
	var got []report.Finding
	for _, f := range r.Findings() {
		if f.Code == "TARGET_NO_MATCHING_REF" {
			got = append(got, f)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d TARGET_NO_MATCHING_REF findings, want one for the 29 other CRs", len(got))
	}
	f := got[0]
	if f.Severity != report.Info || !strings.HasPrefix(f.Title, "29 other ImageUpdater CRs do not select argocd/app-0004-r001") {
		t.Fatalf("%s %q", f.Severity, f.Title)
	}
	if len(f.Evidence) != 1 || !strings.HasPrefix(f.Evidence[0].Value, "argocd/app-0000-r000, argocd/app-0001-r001, argocd/app-0002-r002, argocd/app-0003-r000, argocd/app-0005-r002") ||
		!strings.HasSuffix(f.Evidence[0].Value, " and 9 more") || strings.Count(f.Evidence[0].Value, ", ") != 19 {
		t.Fatalf("evidence %+v", f.Evidence)
	}
}

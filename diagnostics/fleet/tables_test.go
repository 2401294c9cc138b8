package fleet_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/diagnostics/fleet"
	"github.com/imgupd/imgupd/diagnostics/updater"
	"github.com/imgupd/imgupd/lab"
)

// TestScanSharesCandidateTables: apps of one repository keep one
// candidate table between them, equal to the table each gets alone.
func TestScanSharesCandidateTables(t *testing.T) {
	env := startFleet(t, lab.FleetSpec{Apps: 12, Repos: 3, MinTags: 40, MaxTags: 120, Due: 4})
	s := &fleet.Scanner{Engine: env.Engine()}
	res, err := s.Scan(context.Background(), fleet.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	backing := map[*updater.TagFate]bool{}
	for _, a := range res.Apps {
		if a.Report == nil || len(a.Report.Candidates) != 1 {
			t.Fatalf("%s: no candidate table", a.App)
		}
		tags := a.Report.Candidates[0].Decision.Tags
		backing[&tags[0]] = true
		alone := env.Engine().Diagnose(context.Background(), diagnostics.Request{App: a.App.Name, Namespace: a.App.Namespace})
		if len(alone.Candidates) != 1 || !reflect.DeepEqual(alone.Candidates[0].Decision.Tags, tags) {
			t.Errorf("%s: the shared table differs from the app's own", a.App)
		}
		if alone.State != a.State {
			t.Errorf("%s: %s in the scan, %s alone", a.App, a.State, alone.State)
		}
	}
	if len(backing) != 3 {
		t.Errorf("%d candidate tables kept for 3 repositories", len(backing))
	}
}

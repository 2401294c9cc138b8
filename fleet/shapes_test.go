package fleet_test

import (
	"context"
	"testing"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// TestScanCRShapes: every CR shape of the benchmark's fleets (one CR with
// a ref per repository, one CR per app, a few CRs of glob patterns) selects
// every app by one ref, so the answers are the same in every shape; and
// each app's answer in the scan is its own diagnosis's, made alone (the
// scan hands the diagnosis the selection it made).
func TestScanCRShapes(t *testing.T) {
	var first map[report.AppRef]report.AppResult
	for _, shape := range lab.FleetCRShapes() {
		t.Run(string(shape), func(t *testing.T) {
			env := startFleet(t, lab.FleetSpec{Apps: 14, Repos: 5, MinTags: 3, MaxTags: 30, Due: 4, Broken: 6, CRs: shape})
			s := &fleet.Scanner{Engine: env.Engine()}
			res, err := s.Scan(context.Background(), fleet.Query{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Apps) != 14 || res.Partial || res.Unmanaged != 0 {
				t.Fatalf("%d apps, %d unmanaged, partial %v", len(res.Apps), res.Unmanaged, res.Partial)
			}
			got := map[report.AppRef]report.AppResult{}
			for _, a := range res.Apps {
				got[a.App] = a
				alone := fleet.ResultOf(env.Engine().Diagnose(context.Background(), diagnostics.Request{App: a.App.Name, Namespace: a.App.Namespace}), a.Project)
				alone.Waiting, a.Waiting = nil, nil
				if alone != a {
					t.Errorf("%s: in the scan %+v, alone %+v", a.App, a, alone)
				}
			}
			c := res.Counts()
			if c[report.StateBlocked] != 14/6 || c[report.StateOnItsWay] == 0 || c[report.StateUpToDate] == 0 {
				t.Errorf("counts %v", c)
			}
			if first == nil {
				first = got
				return
			}
			for k, a := range got {
				if b := first[k]; a.State != b.State || a.Code != b.Code {
					t.Errorf("%s: %s %s in %s, %s %s with one CR", k, a.State, a.Code, shape, b.State, b.Code)
				}
			}
		})
	}
}

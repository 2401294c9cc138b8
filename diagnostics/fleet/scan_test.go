package fleet_test

import (
	"context"
	"testing"
	"time"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/diagnostics/fleet"
	"github.com/imgupd/imgupd/lab"
)

func startFleet(t *testing.T, spec lab.FleetSpec) *lab.Env {
	t.Helper()
	env, err := lab.Start(context.Background(), lab.FleetScenario(spec))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	return env
}

// TestScanSharesWork: a fleet of 40 apps over 5 repositories is one tag
// list per repository and a fixed number of Kubernetes reads, whatever the
// number of apps; every app gets its own answer.
func TestScanSharesWork(t *testing.T) {
	counts := map[int]fleet.Stats{}
	for _, apps := range []int{10, 40} {
		env := startFleet(t, lab.FleetSpec{Apps: apps, Repos: 5, MinTags: 3, MaxTags: 30, Due: 4, Broken: 10})
		s := &fleet.Scanner{Engine: env.Engine()}
		res, err := s.Scan(context.Background(), fleet.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Apps) != apps || res.Partial {
			t.Fatalf("%d apps, partial %v, want %d", len(res.Apps), res.Partial, apps)
		}
		if res.Stats.TagLists != 5 {
			t.Errorf("%d apps: %d tag lists, want one per repository (5)", apps, res.Stats.TagLists)
		}
		c := res.Counts()
		if c[diagnostics.StateBlocked] != apps/10 || c[diagnostics.StateOnItsWay] == 0 || c[diagnostics.StateUpToDate] == 0 {
			t.Errorf("%d apps: counts %v", apps, c)
		}
		for _, a := range res.Apps {
			if a.State == diagnostics.StateBlocked && a.Code != diagnostics.CodeLiveNotLive {
				t.Errorf("%s: %s %s", a.App, a.State, a.Code)
			}
		}
		counts[apps] = res.Stats
	}
	if counts[10].KubernetesReads != counts[40].KubernetesReads {
		t.Errorf("Kubernetes reads grow with the apps: %d for 10, %d for 40", counts[10].KubernetesReads, counts[40].KubernetesReads)
	}
}

// TestScanScope: the scope selects apps by name and project; apps Image
// Updater does not manage are counted apart.
func TestScanScope(t *testing.T) {
	env := startFleet(t, lab.FleetSpec{Apps: 12, Repos: 3})
	s := &fleet.Scanner{Engine: env.Engine()}
	res, err := s.Scan(context.Background(), fleet.Scope{Names: []string{"app-000*"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Apps) != 10 {
		t.Errorf("names app-000*: %d apps", len(res.Apps))
	}
	res, err = s.Scan(context.Background(), fleet.Scope{Projects: []string{"payments"}})
	if err != nil || len(res.Apps) != 0 {
		t.Errorf("project payments: %v %v", res, err)
	}
	if _, err := s.Scan(context.Background(), fleet.Scope{Selector: "a in (("}); err == nil {
		t.Error("a bad selector is an error")
	}
}

// TestScanDeadline: a scan that runs out of time returns every app, the
// unfinished ones unknown.
func TestScanDeadline(t *testing.T) {
	sc := lab.FleetScenario(lab.FleetSpec{Apps: 6, Repos: 2})
	sc.Registry.Behaviours = []lab.Behaviour{{Repo: "team/svc-001", Delay: "3s", Only: "tags"}}
	env, err := lab.Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	s := &fleet.Scanner{Engine: env.Engine(), Deadline: time.Second, Concurrency: 2}
	res, err := s.Scan(context.Background(), fleet.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Apps) != 6 || !res.Partial {
		t.Fatalf("%d apps, partial %v", len(res.Apps), res.Partial)
	}
	unknown := 0
	for _, a := range res.Apps {
		if a.State == diagnostics.StateUnknown {
			unknown++
		}
	}
	if unknown == 0 {
		t.Error("the apps of the slow repository should be unknown")
	}
}

// TestScanGivesEachAppItsLog: a scan reads Image Updater's log once and gives
// each app the lines about it: on a setup where only the log shows the
// refused push, the scan's answer is the log's, as a diagnosis's is.
func TestScanGivesEachAppItsLog(t *testing.T) {
	sc, ok := lab.Builtin("article-4-protected-branch")
	if !ok {
		t.Fatal("no scenario article-4-protected-branch")
	}
	env, err := lab.Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	eng := env.Engine()
	single := eng.Diagnose(context.Background(), diagnostics.Request{App: sc.App.Name, Namespace: sc.App.Namespace})
	res, err := (&fleet.Scanner{Engine: eng}).Scan(context.Background(), fleet.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Apps) != 1 {
		t.Fatalf("%d apps, want 1", len(res.Apps))
	}
	got := res.Apps[0]
	if single.RootCause == nil || got.Code != single.RootCause.Code || got.State != single.State {
		t.Fatalf("scan: %s %s; diagnosis: %s %v", got.State, got.Code, single.State, single.RootCause)
	}
	if got.Code != diagnostics.CodeWriteBackCommitFailed {
		t.Errorf("root cause %s, want the log's %s", got.Code, diagnostics.CodeWriteBackCommitFailed)
	}
}

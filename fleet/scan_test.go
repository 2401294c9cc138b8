package fleet_test

import (
	"context"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
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
	counts := map[int]report.ScanStats{}
	for _, apps := range []int{10, 40} {
		env := startFleet(t, lab.FleetSpec{Apps: apps, Repos: 5, MinTags: 3, MaxTags: 30, Due: 4, Broken: 10})
		s := &fleet.Scanner{Engine: env.Engine()}
		res, err := s.Scan(context.Background(), fleet.Query{})
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
		if c[report.StateBlocked] != apps/10 || c[report.StateOnItsWay] == 0 || c[report.StateUpToDate] == 0 {
			t.Errorf("%d apps: counts %v", apps, c)
		}
		for _, a := range res.Apps {
			if a.State == report.StateBlocked && a.Code != report.CodeLiveNotLive {
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
	res, err := s.Scan(context.Background(), fleet.Everyone(report.Scope{Names: []string{"app-000*"}}))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Apps) != 10 {
		t.Errorf("names app-000*: %d apps", len(res.Apps))
	}
	res, err = s.Scan(context.Background(), fleet.Everyone(report.Scope{Projects: []string{"payments"}}))
	if err != nil || len(res.Apps) != 0 {
		t.Errorf("project payments: %v %v", res, err)
	}
	if _, err := s.Scan(context.Background(), fleet.Everyone(report.Scope{Selector: "a in (("})); err == nil {
		t.Error("a bad selector is an error")
	}
}

// TestScanDeadline: a scan that runs out of time returns every app, the
// unfinished ones unknown. The registry holds the slow repository's tags
// until the client gives up, so its apps end only by the deadline; the
// deadline is long enough for the first app, of the other repository, to be
// diagnosed on a loaded machine.
func TestScanDeadline(t *testing.T) {
	t.Parallel() // it waits out its deadline
	sc := lab.FleetScenario(lab.FleetSpec{Apps: 6, Repos: 2})
	sc.Registry.Behaviours = []lab.Behaviour{{Repo: "team/svc-001", Delay: "10m", Only: "tags"}}
	env, err := lab.Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	s := &fleet.Scanner{Engine: env.Engine(), Deadline: 20 * time.Second, Concurrency: 2}
	res, err := s.Scan(context.Background(), fleet.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Apps) != 6 || !res.Partial {
		t.Fatalf("%d apps, partial %v", len(res.Apps), res.Partial)
	}
	notReached := 0
	for _, a := range res.Apps {
		if a.NotReached {
			notReached++
			if a.State != report.StateUnknown || a.Code != report.CodeCheckTimeout {
				t.Errorf("%s: not reached, yet %s %s", a.App, a.State, a.Code)
			}
		}
	}
	if notReached == 0 || notReached == len(res.Apps) {
		t.Errorf("%d of %d apps not reached: the apps of the slow repository are, the others are not", notReached, len(res.Apps))
	}
	// The memory between scans keeps no state for an app the scan did
	// not reach: a slow registry does not make every app flap.
	var mem fleet.Memory
	mem.Observe(res, time.Now())
	if len(mem.Apps) != len(res.Apps)-notReached {
		t.Errorf("the memory holds %d apps, want the %d the scan reached", len(mem.Apps), len(res.Apps)-notReached)
	}
}

// TestScanKeepsOnlyAnswers: what a scan holds per app is its answer (a few
// hundred bytes), not its report, whatever the size of the app's candidate
// tables: a 5,000-app fleet must fit in the pod (issue 14).
func TestScanKeepsOnlyAnswers(t *testing.T) {
	env := startFleet(t, lab.FleetSpec{Apps: 24, Repos: 3, MinTags: 400, MaxTags: 800, Due: 4, Broken: 6})
	eng := env.Engine()
	res, err := (&fleet.Scanner{Engine: eng}).Scan(context.Background(), fleet.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Apps) != 24 || res.Partial {
		t.Fatalf("%d apps, partial %v", len(res.Apps), res.Partial)
	}
	held := reachableBytes(reflect.ValueOf(res.Apps), map[uintptr]bool{})
	repBytes := reachableBytes(reflect.ValueOf(eng.Diagnose(context.Background(), diagnostics.Request{App: res.Apps[0].App.Name, Namespace: res.Apps[0].App.Namespace})), map[uintptr]bool{})
	t.Logf("the scan holds %d bytes for %d apps; one app's report is %d bytes", held, len(res.Apps), repBytes)
	if per := held / len(res.Apps); per > 1024 {
		t.Errorf("the scan holds %d bytes per app, want its answer alone (at most 1 KiB; a report is %d bytes)", per, repBytes)
	}
	c := res.Counts()
	if c[report.StateBlocked] != 4 || c[report.StateOnItsWay] == 0 || c[report.StateUpToDate] == 0 {
		t.Errorf("counts %v", c)
	}
	for _, a := range res.Apps {
		if a.Headline == "" || a.NotReached || a.State == report.StateBlocked && (a.Code != report.CodeLiveNotLive || a.Title == "" || a.Stage == "") {
			t.Errorf("%s: %+v", a.App, a)
		}
	}
}

// reachableBytes is the memory reachable from v, each pointer, slice
// array and string counted once: the heap the value keeps alive, roughly.
func reachableBytes(v reflect.Value, seen map[uintptr]bool) int {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return 0
		}
		seen[v.Pointer()] = true
		return int(v.Type().Elem().Size()) + reachableBytes(v.Elem(), seen)
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		if e.Kind() == reflect.Pointer {
			return reachableBytes(e, seen)
		}
		return int(e.Type().Size()) + reachableBytes(e, seen)
	case reflect.String:
		s := v.String()
		if len(s) == 0 || seen[uintptr(unsafe.Pointer(unsafe.StringData(s)))] {
			return 0
		}
		seen[uintptr(unsafe.Pointer(unsafe.StringData(s)))] = true
		return len(s)
	case reflect.Slice:
		if v.IsNil() || seen[v.Pointer()] {
			return 0
		}
		seen[v.Pointer()] = true
		n := v.Cap() * int(v.Type().Elem().Size())
		for i := range v.Len() {
			n += reachableBytes(v.Index(i), seen)
		}
		return n
	case reflect.Array:
		n := 0
		for i := range v.Len() {
			n += reachableBytes(v.Index(i), seen)
		}
		return n
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			n += reachableBytes(v.Field(i), seen)
		}
		return n
	case reflect.Map:
		if v.IsNil() || seen[v.Pointer()] {
			return 0
		}
		seen[v.Pointer()] = true
		n := v.Len() * int(v.Type().Key().Size()+v.Type().Elem().Size())
		for it := v.MapRange(); it.Next(); {
			n += reachableBytes(it.Key(), seen) + reachableBytes(it.Value(), seen)
		}
		return n
	}
	return 0
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
	res, err := (&fleet.Scanner{Engine: eng}).Scan(context.Background(), fleet.Query{})
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
	if got.Code != report.CodeWriteBackCommitFailed {
		t.Errorf("root cause %s, want the log's %s", got.Code, report.CodeWriteBackCommitFailed)
	}
}

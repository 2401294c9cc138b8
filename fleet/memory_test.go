package fleet

import (
	"testing"
	"time"

	"github.com/imgupd/imgupd/report"
)

func TestMemoryTransitions(t *testing.T) {
	web := report.AppRef{Namespace: "argocd", Name: "web"}
	api := report.AppRef{Namespace: "argocd", Name: "api"}
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	scan := func(ws, as report.State, partial bool) *Result {
		return &Result{Partial: partial, Apps: []report.AppResult{{App: web, State: ws}, {App: api, State: as}}}
	}
	var m Memory
	if tr := m.Observe(scan(report.StateUpToDate, report.StateOnItsWay, false), t0); len(tr) != 2 || !tr[0].New {
		t.Fatalf("first scan: %+v", tr)
	}
	tr := m.Observe(scan(report.StateBlocked, report.StateOnItsWay, false), t0.Add(time.Hour))
	if len(tr) != 1 || tr[0].App != web || tr[0].From != report.StateUpToDate {
		t.Fatalf("web broke: %+v", tr)
	}
	if a, r := tr[0].Alerting(); !a || r {
		t.Errorf("up to date → blocked is an alert: %v %v", a, r)
	}
	if since, ok := m.Since(web, report.StateBlocked); !ok || !since.Equal(t0.Add(time.Hour)) {
		t.Errorf("since %v %v", since, ok)
	}
	if tr := m.Observe(scan(report.StateBlocked, report.StateOnItsWay, false), t0.Add(2*time.Hour)); len(tr) != 0 {
		t.Errorf("no change, no transition: %+v", tr)
	}
	if since, _ := m.Since(web, report.StateBlocked); !since.Equal(t0.Add(time.Hour)) {
		t.Errorf("since moved: %v", since)
	}
	// A scan that did not reach web keeps its state.
	res := &Result{Partial: true, Apps: []report.AppResult{{App: web, State: report.StateUnknown, Code: report.CodeCheckTimeout, NotReached: true}}}
	if tr := m.Observe(res, t0.Add(3*time.Hour)); len(tr) != 0 || m.Apps[api.String()].State != report.StateOnItsWay {
		t.Errorf("partial scan: %+v %+v", tr, m.Apps)
	}
	tr = m.Observe(&Result{Apps: []report.AppResult{{App: web, State: report.StateUpToDate}}}, t0.Add(4*time.Hour))
	if a, r := tr[0].Alerting(); len(tr) != 1 || a || !r {
		t.Errorf("recovery: %+v", tr)
	}
	if _, ok := m.Apps[api.String()]; ok {
		t.Error("an app gone from a complete scan is forgotten")
	}
}

func TestSummarize(t *testing.T) {
	apps := []report.AppResult{
		{App: report.AppRef{Namespace: "a", Name: "x"}, State: report.StateHeldBack, Stage: report.StageCandidates, Code: "CANDIDATES_NEWER_TAGS_DROPPED"},
		{App: report.AppRef{Namespace: "a", Name: "y"}, State: report.StateBlocked, Stage: report.StageRegistry, Code: "REGISTRY_UNAUTHORIZED"},
		{App: report.AppRef{Namespace: "a", Name: "z"}, State: report.StateBlocked, Stage: report.StageTarget, Code: "TARGET_NO_MATCHING_REF"},
		{App: report.AppRef{Namespace: "a", Name: "w"}, State: report.StateUpToDate},
	}
	s := Summarize(&Result{Apps: apps}, nil)
	if s.Total != 4 || s.NeedAttention() != 3 || len(s.Fine) != 1 || s.Worst != report.StateBlocked {
		t.Fatalf("%+v", s)
	}
	if g := s.Attention[0]; g.State != report.StateBlocked || g.Stage != report.StageTarget || s.Attention[1].Stage != report.StageRegistry || s.Attention[2].State != report.StateHeldBack {
		t.Errorf("order: %+v", s.Attention)
	}
	apps[3].Title = "other words"
	if Summarize(&Result{Apps: apps}, nil).Hash != s.Hash {
		t.Error("the hash is of the states, not of the text")
	}
	apps[3].State = report.StateOnItsWay
	if Summarize(&Result{Apps: apps}, nil).Hash == s.Hash {
		t.Error("a state change changes the hash")
	}
}

package fleet

import (
	"testing"
	"time"

	"github.com/imgupd/imgupd/diagnostics"
)

func TestMemoryTransitions(t *testing.T) {
	web := diagnostics.AppRef{Namespace: "argocd", Name: "web"}
	api := diagnostics.AppRef{Namespace: "argocd", Name: "api"}
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	scan := func(ws, as diagnostics.State, partial bool) *Result {
		return &Result{Partial: partial, Apps: []AppResult{{App: web, State: ws}, {App: api, State: as}}}
	}
	var m Memory
	if tr := m.Observe(scan(diagnostics.StateUpToDate, diagnostics.StateOnItsWay, false), t0); len(tr) != 2 || !tr[0].New {
		t.Fatalf("first scan: %+v", tr)
	}
	tr := m.Observe(scan(diagnostics.StateBlocked, diagnostics.StateOnItsWay, false), t0.Add(time.Hour))
	if len(tr) != 1 || tr[0].App != web || tr[0].From != diagnostics.StateUpToDate {
		t.Fatalf("web broke: %+v", tr)
	}
	if a, r := tr[0].Alerting(); !a || r {
		t.Errorf("up to date → blocked is an alert: %v %v", a, r)
	}
	if since, ok := m.Since(web, diagnostics.StateBlocked); !ok || !since.Equal(t0.Add(time.Hour)) {
		t.Errorf("since %v %v", since, ok)
	}
	if tr := m.Observe(scan(diagnostics.StateBlocked, diagnostics.StateOnItsWay, false), t0.Add(2*time.Hour)); len(tr) != 0 {
		t.Errorf("no change, no transition: %+v", tr)
	}
	if since, _ := m.Since(web, diagnostics.StateBlocked); !since.Equal(t0.Add(time.Hour)) {
		t.Errorf("since moved: %v", since)
	}
	// A scan that did not reach web keeps its state.
	res := &Result{Partial: true, Apps: []AppResult{{App: web, State: diagnostics.StateUnknown, Code: diagnostics.CodeCheckTimeout, NotReached: true}}}
	if tr := m.Observe(res, t0.Add(3*time.Hour)); len(tr) != 0 || m.Apps[api.String()].State != diagnostics.StateOnItsWay {
		t.Errorf("partial scan: %+v %+v", tr, m.Apps)
	}
	tr = m.Observe(&Result{Apps: []AppResult{{App: web, State: diagnostics.StateUpToDate}}}, t0.Add(4*time.Hour))
	if a, r := tr[0].Alerting(); len(tr) != 1 || a || !r {
		t.Errorf("recovery: %+v", tr)
	}
	if _, ok := m.Apps[api.String()]; ok {
		t.Error("an app gone from a complete scan is forgotten")
	}
}

func TestSummarize(t *testing.T) {
	apps := []AppResult{
		{App: diagnostics.AppRef{Namespace: "a", Name: "x"}, State: diagnostics.StateHeldBack, Stage: diagnostics.StageCandidates, Code: "CANDIDATES_NEWER_TAGS_DROPPED"},
		{App: diagnostics.AppRef{Namespace: "a", Name: "y"}, State: diagnostics.StateBlocked, Stage: diagnostics.StageRegistry, Code: "REGISTRY_UNAUTHORIZED"},
		{App: diagnostics.AppRef{Namespace: "a", Name: "z"}, State: diagnostics.StateBlocked, Stage: diagnostics.StageTarget, Code: "TARGET_NO_MATCHING_REF"},
		{App: diagnostics.AppRef{Namespace: "a", Name: "w"}, State: diagnostics.StateUpToDate},
	}
	s := Summarize(&Result{Apps: apps}, nil)
	if s.Total != 4 || s.NeedAttention() != 3 || len(s.Fine) != 1 || s.Worst != diagnostics.StateBlocked {
		t.Fatalf("%+v", s)
	}
	if g := s.Attention[0]; g.State != diagnostics.StateBlocked || g.Stage != diagnostics.StageTarget || s.Attention[1].Stage != diagnostics.StageRegistry || s.Attention[2].State != diagnostics.StateHeldBack {
		t.Errorf("order: %+v", s.Attention)
	}
	apps[3].Title = "other words"
	if Summarize(&Result{Apps: apps}, nil).Hash != s.Hash {
		t.Error("the hash is of the states, not of the text")
	}
	apps[3].State = diagnostics.StateOnItsWay
	if Summarize(&Result{Apps: apps}, nil).Hash == s.Hash {
		t.Error("a state change changes the hash")
	}
}

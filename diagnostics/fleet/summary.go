package fleet

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"time"

	"github.com/imgupd/imgupd/diagnostics"
)

// Summary is a scan as people read it: how many apps are in each state,
// then the apps that need someone, most urgent state first and, within a
// state, grouped by the stage that stops them.
type Summary struct {
	Scope     Scope         `json:"scope"`
	Cluster   string        `json:"cluster,omitempty"`
	At        time.Time     `json:"at"`
	Duration  time.Duration `json:"durationNs"`
	Partial   bool          `json:"partial,omitempty"`
	Total     int           `json:"total"`
	Unmanaged int           `json:"unmanaged"`
	// Counts has every state, zero counts included, in States() order.
	Counts []StateCount `json:"counts"`
	// Attention are the apps not up to date nor on their way.
	Attention []Group `json:"attention"`
	// Fine are the apps up to date or on their way.
	Fine []Line `json:"fine,omitempty"`
	// Hash identifies the set of states (which app is in which state,
	// with which root cause), not the text: a summary whose hash did not
	// change needs no new message.
	Hash  string `json:"hash"`
	Stats Stats  `json:"stats"`
	// Worst is the most urgent state present.
	Worst diagnostics.State `json:"worst"`
}

// StateCount is the number of apps in a state.
type StateCount struct {
	State diagnostics.State `json:"state"`
	Count int               `json:"count"`
}

// Group is the apps of one state stopped at one stage.
type Group struct {
	State diagnostics.State   `json:"state"`
	Stage diagnostics.StageID `json:"stage,omitempty"`
	Apps  []Line              `json:"apps"`
}

// Line is one app in a summary.
type Line struct {
	App   diagnostics.AppRef  `json:"app"`
	State diagnostics.State   `json:"state"`
	Code  diagnostics.Code    `json:"code,omitempty"`
	Stage diagnostics.StageID `json:"stage,omitempty"`
	Title string              `json:"title,omitempty"`
	// Since is when the app entered its state, as far as imgupd has seen
	// (kept between scans; the scan's time for a new one).
	Since *time.Time `json:"since,omitempty"`
	// Waiting is since when the tag that should be picked has been in the
	// registry, when its build time is known.
	Waiting *time.Time `json:"waiting,omitempty"`
}

// attentionOrder are the states that need someone, most urgent first.
var attentionOrder = []diagnostics.State{diagnostics.StateBlocked, diagnostics.StateWrongUpdate, diagnostics.StateNotDeployed,
	diagnostics.StateHeldBack, diagnostics.StateUnknown}

// Summarize turns a scan into a summary; mem (may be nil) gives each app
// the time it entered its state.
func Summarize(res *Result, mem *Memory) Summary {
	s := Summary{Scope: res.Scope, Cluster: res.Cluster, At: res.StartedAt, Duration: res.Duration, Partial: res.Partial,
		Total: len(res.Apps), Unmanaged: res.Unmanaged, Stats: res.Stats, Worst: res.Worst()}
	c := res.Counts()
	for _, st := range diagnostics.States() {
		s.Counts = append(s.Counts, StateCount{State: st, Count: c[st]})
	}
	groups := map[diagnostics.State]map[diagnostics.StageID][]Line{}
	for _, a := range res.Apps {
		l := Line{App: a.App, State: a.State, Code: a.Code, Stage: a.Stage, Title: a.Title, Waiting: a.Waiting}
		if mem != nil {
			if since, ok := mem.Since(a.App, a.State); ok {
				t := since
				l.Since = &t
			}
		}
		switch a.State {
		case diagnostics.StateUpToDate, diagnostics.StateOnItsWay:
			s.Fine = append(s.Fine, l)
			continue
		}
		if groups[a.State] == nil {
			groups[a.State] = map[diagnostics.StageID][]Line{}
		}
		groups[a.State][a.Stage] = append(groups[a.State][a.Stage], l)
	}
	stageOrder := map[diagnostics.StageID]int{}
	for i, st := range diagnostics.Stages() {
		stageOrder[st.ID] = i + 1
	}
	for _, st := range attentionOrder {
		var stages []diagnostics.StageID
		for id := range groups[st] {
			stages = append(stages, id)
		}
		sort.Slice(stages, func(i, j int) bool { return stageOrder[stages[i]] < stageOrder[stages[j]] })
		for _, id := range stages {
			s.Attention = append(s.Attention, Group{State: st, Stage: id, Apps: groups[st][id]})
		}
	}
	s.Hash = stateHash(res.Apps)
	return s
}

// NeedAttention counts the apps that need someone.
func (s Summary) NeedAttention() int {
	n := 0
	for _, g := range s.Attention {
		n += len(g.Apps)
	}
	return n
}

// stateHash is over which app is in which state for which reason, sorted.
func stateHash(apps []AppResult) string {
	keys := make([]string, 0, len(apps))
	for _, a := range apps {
		keys = append(keys, fmt.Sprintf("%s\x00%s\x00%s", a.App, a.State, a.Code))
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s\n", k)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

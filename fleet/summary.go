package fleet

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	"github.com/imgupd/imgupd/report"
)

// attentionOrder are the states that need someone, most urgent first.
var attentionOrder = []report.State{report.StateBlocked, report.StateWrongUpdate, report.StateNotDeployed,
	report.StateWaitingForMerge, report.StateHeldBack, report.StateUnknown}

// Summarize turns a scan into a summary; mem (may be nil) gives each app
// the time it entered its state.
func Summarize(res *Result, mem *Memory) report.Summary {
	s := report.Summary{Scope: res.Scope, Cluster: res.Cluster, At: res.StartedAt, Duration: res.Duration, Partial: res.Partial,
		Total: len(res.Apps), Unmanaged: res.Unmanaged, Stats: res.Stats, Worst: res.Worst()}
	c := res.Counts()
	for _, st := range report.States() {
		s.Counts = append(s.Counts, report.StateCount{State: st, Count: c[st]})
	}
	groups := map[report.State]map[report.StageID][]report.SummaryLine{}
	for _, a := range res.Apps {
		l := report.SummaryLine{Cluster: a.Cluster, App: a.App, State: a.State, Code: a.Code, Stage: a.Stage, Title: a.Title, Answer: a.Answer, Waiting: a.Waiting, NotReached: a.NotReached}
		if mem != nil {
			if since, ok := mem.SinceOf(a); ok {
				t := since
				l.Since = &t
			}
		}
		switch a.State {
		case report.StateUpToDate, report.StateOnItsWay:
			s.Fine = append(s.Fine, l)
			continue
		}
		if groups[a.State] == nil {
			groups[a.State] = map[report.StageID][]report.SummaryLine{}
		}
		groups[a.State][a.Stage] = append(groups[a.State][a.Stage], l)
	}
	stageOrder := map[report.StageID]int{}
	for i, st := range report.Stages() {
		stageOrder[st.ID] = i + 1
	}
	for _, st := range attentionOrder {
		var stages []report.StageID
		for id := range groups[st] {
			stages = append(stages, id)
		}
		sort.Slice(stages, func(i, j int) bool { return stageOrder[stages[i]] < stageOrder[stages[j]] })
		for _, id := range stages {
			s.Attention = append(s.Attention, report.SummaryGroup{State: st, Stage: id, Apps: groups[st][id]})
		}
	}
	s.Hash = stateHash(res.Apps)
	return s
}

// stateHash is over which app is in which state for which reason, sorted.
func stateHash(apps []report.AppResult) string {
	keys := make([]string, 0, len(apps))
	for _, a := range apps {
		keys = append(keys, fmt.Sprintf("%s\x00%s\x00%s", a.Key(), a.State, a.Code))
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s\n", k)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

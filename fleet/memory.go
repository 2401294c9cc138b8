package fleet

import (
	"sort"
	"time"

	"github.com/imgupd/imgupd/report"
)

// Memory is what imgupd remembers between scans: each app's state and
// since when. The bot keeps it in a ConfigMap (it must survive restarts
// and leader changes); it is plain data, safe to marshal as JSON.
type Memory struct {
	Apps map[string]Seen `json:"apps"`
}

// Seen is one app's last state.
type Seen struct {
	State report.State `json:"state"`
	Code  report.Code  `json:"code,omitempty"`
	Since time.Time    `json:"since"`
	// Last is the last scan that saw it.
	Last time.Time `json:"last"`
}

// Since is when the app entered state, if the memory holds it in that state.
func (m *Memory) Since(app report.AppRef, state report.State) (time.Time, bool) {
	if m == nil || m.Apps == nil {
		return time.Time{}, false
	}
	s, ok := m.Apps[app.String()]
	if !ok || s.State != state {
		return time.Time{}, false
	}
	return s.Since, true
}

// SinceOf is when the app of a scan entered its state (Since, the app told apart by its cluster
// when it has one: AppResult.Key).
func (m *Memory) SinceOf(a report.AppResult) (time.Time, bool) {
	if m == nil || m.Apps == nil {
		return time.Time{}, false
	}
	s, ok := m.Apps[a.Key()]
	if !ok || s.State != a.State {
		return time.Time{}, false
	}
	return s.Since, true
}

// Observe records a scan at now and returns the apps whose state changed,
// by app. An app the scan did not reach (unknown for the scan's deadline)
// keeps its state: a slow registry does not make every app flap. Apps no
// longer in the scan's results are forgotten only when the scan was
// complete.
func (m *Memory) Observe(res *Result, now time.Time) []report.Transition {
	if m.Apps == nil {
		m.Apps = map[string]Seen{}
	}
	var out []report.Transition
	seen := map[string]bool{}
	for _, a := range res.Apps {
		key := a.Key()
		seen[key] = true
		if a.NotReached {
			continue // not scanned this time
		}
		old, had := m.Apps[key]
		switch {
		case !had:
			m.Apps[key] = Seen{State: a.State, Code: a.Code, Since: now, Last: now}
			out = append(out, report.Transition{Cluster: a.Cluster, App: a.App, To: a.State, Code: a.Code, New: true})
		case old.State != a.State:
			m.Apps[key] = Seen{State: a.State, Code: a.Code, Since: now, Last: now}
			out = append(out, report.Transition{Cluster: a.Cluster, App: a.App, From: old.State, To: a.State, Code: a.Code})
		default:
			old.Code, old.Last = a.Code, now
			m.Apps[key] = old
		}
	}
	if !res.Partial {
		for key := range m.Apps {
			if !seen[key] {
				delete(m.Apps, key)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].App.String() < out[j].App.String() })
	return out
}

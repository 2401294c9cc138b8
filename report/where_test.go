package report

import "testing"

// TestFirstStopped: where leads with the most urgent app's fix, not with
// the first app in the answer's order (a held-back app, often pinned on
// purpose, comes before a blocked one there).
func TestFirstStopped(t *testing.T) {
	fix := &Fix{Summary: "do it"}
	w := Where{Apps: []WhereLine{
		{App: AppRef{Namespace: "a", Name: "running"}, Answer: WhereRunning, Fix: fix},
		{App: AppRef{Namespace: "a", Name: "pinned"}, Answer: WhereHeldBack, Fix: fix},
		{App: AppRef{Namespace: "a", Name: "blocked"}, Answer: WhereBlocked, Fix: fix},
		{App: AppRef{Namespace: "a", Name: "blocked-too"}, Answer: WhereBlocked, Fix: fix},
		{App: AppRef{Namespace: "a", Name: "unknown"}, Answer: WhereUnknown, Fix: fix},
	}}
	if got := w.FirstStopped(); got == nil || got.App.Name != "blocked" {
		t.Fatalf("first stopped: %+v", got)
	}
	w.Apps = append(w.Apps, WhereLine{App: AppRef{Namespace: "a", Name: "wrong"}, Answer: WhereWrongUpdate, Fix: fix})
	if got := w.FirstStopped(); got == nil || got.App.Name != "wrong" {
		t.Fatalf("first stopped: %+v", got)
	}
	if got := (&Where{Apps: []WhereLine{{Answer: WhereRunning, Fix: fix}, {Answer: WhereBlocked}}}).FirstStopped(); got != nil {
		t.Fatalf("a line without a fix, or running, was chosen: %+v", got)
	}
}

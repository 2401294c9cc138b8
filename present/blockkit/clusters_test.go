package blockkit

import (
	"testing"

	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
)

// With a cluster, every button's command names it; without one, the values are as they were.
func TestButtonsNameTheirCluster(t *testing.T) {
	r := stepsReport()
	r.Candidates = []report.CandidateTable{{Alias: "web", Decision: updater.Decision{Tags: []updater.TagFate{{Tag: "1.0.0"}}}}}
	r.UpdaterLog = []report.LogLine{{Message: "x"}}
	for cluster, want := range map[string]string{"": "argocd/web", "prod-us": "argocd/web --cluster prod-us"} {
		p := Report(r, Options{Buttons: true, Cluster: cluster})
		for _, id := range []string{ActionRerun, ActionTags, ActionLogs} {
			if b := button(t, p.Message, id); b.Value != want {
				t.Errorf("cluster %q: %s's value %q, want %q", cluster, id, b.Value, want)
			}
		}
		if b := button(t, p.Message, ActionExplain); b.Value != string(report.CodeRegistryUnauthorized) {
			t.Errorf("cluster %q: Explain's value %q", cluster, b.Value)
		}
	}
	sc := report.Scope{Namespaces: []string{"payments"}}
	for cluster, want := range map[string]string{"": `{"namespaces":["payments"]}`, "prod-us": `{"namespaces":["payments"],"cluster":"prod-us"}`} {
		m := Summary(report.Summary{Scope: sc}, SummaryOptions{Buttons: true, Cluster: cluster}).Message
		if b := button(t, m, ActionSummaryRerun); b.Value != want {
			t.Errorf("summary, cluster %q: %q, want %q", cluster, b.Value, want)
		}
	}
	a := report.AppResult{App: report.AppRef{Namespace: "payments", Name: "api"}, State: report.StateBlocked, Cluster: "prod-us"}
	m := Alert(report.Transition{App: a.App, From: report.StateUpToDate, To: a.State}, a)
	if b := button(t, m, ActionRerun); b.Value != "payments/api --cluster prod-us" {
		t.Errorf("alert's Re-run %q", b.Value)
	}
}

package render_test

import (
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/report"
)

// An answer over several clusters names each app with its cluster and says, in one line each,
// which clusters could not be read; over one it names none.
func TestSummaryAcrossClusters(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	line := func(cluster string) report.SummaryLine {
		return report.SummaryLine{Cluster: cluster, App: report.AppRef{Namespace: "argocd", Name: "web"}, State: report.StateBlocked, Code: "REGISTRY_DNS", Stage: "registry", Title: "the registry host does not resolve"}
	}
	s := report.Summary{At: at, Total: 2, Worst: report.StateUnknown,
		Counts:          []report.StateCount{{State: report.StateBlocked, Count: 2}},
		Attention:       []report.SummaryGroup{{State: report.StateBlocked, Stage: "registry", Apps: []report.SummaryLine{line("eu"), line("us")}}},
		Clusters:        []string{"eu", "us", "ap"},
		ClusterFailures: []report.ClusterFailure{{Cluster: "ap", Reason: "cannot read its Applications: connection refused"}}}
	for name, write := range map[string]func(*strings.Builder, report.Summary){
		"text":     func(b *strings.Builder, s report.Summary) { render.SummaryText(b, s, render.SummaryOptions{}) },
		"markdown": func(b *strings.Builder, s report.Summary) { render.SummaryMarkdown(b, s) },
	} {
		var b strings.Builder
		write(&b, s)
		out := b.String()
		for _, want := range []string{"eu:argocd/web", "us:argocd/web", "cluster ap: every Application unknown: cannot read its Applications: connection refused"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", name, want, out)
			}
		}
		if name == "text" && !strings.Contains(out, "on clusters eu, us, ap") {
			t.Errorf("text: header without the clusters:\n%s", out)
		}
		one := s
		one.Clusters, one.ClusterFailures = nil, nil
		one.Attention = []report.SummaryGroup{{State: report.StateBlocked, Stage: "registry", Apps: []report.SummaryLine{line("eu")}}}
		b.Reset()
		write(&b, one)
		if strings.Contains(b.String(), "eu:") {
			t.Errorf("%s: one cluster named:\n%s", name, b.String())
		}
	}
}

func TestWhereAcrossClusters(t *testing.T) {
	w := &report.Where{Asked: "ghcr.io/acme/web:1.2", Repository: "ghcr.io/acme/web", Tag: "1.2",
		Apps: []report.WhereLine{
			{Cluster: "eu", App: report.AppRef{Namespace: "argocd", Name: "web"}, Image: "ghcr.io/acme/web", Answer: report.WhereRunning, State: report.StateUpToDate},
			{Cluster: "us", App: report.AppRef{Namespace: "argocd", Name: "web"}, Image: "ghcr.io/acme/web", Answer: report.WhereRunning, State: report.StateUpToDate},
		},
		Clusters:        []string{"eu", "us", "ap"},
		ClusterFailures: []report.ClusterFailure{{Cluster: "ap", Reason: "Secret imgupd/ap: not found"}}}
	var b strings.Builder
	render.WhereText(&b, w, render.SummaryOptions{})
	out := b.String()
	for _, want := range []string{"eu:argocd/web", "us:argocd/web", "runs in 2 of the 2 apps", "cluster ap: every Application unknown: Secret imgupd/ap: not found"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if w.Worst() != report.StateUnknown {
		t.Errorf("worst %s with a cluster unread", w.Worst())
	}
}

package commands

import (
	"context"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// projectFleet is a generated fleet whose every n-th app (app-0000, app-000n, …) is in Argo CD
// project payments instead of default.
func projectFleet(t *testing.T, spec lab.FleetSpec, n int) *lab.Env {
	t.Helper()
	sc := lab.FleetScenario(spec)
	re := regexp.MustCompile(`(metadata: \{name: app-(\d{4})-r\d{3}, namespace: argocd\}\nspec:\n  project: )default`)
	sc.Objects = re.ReplaceAllStringFunc(sc.Objects, func(m string) string {
		i, _ := strconv.Atoi(re.FindStringSubmatch(m)[2])
		if i%n == 0 {
			return re.ReplaceAllString(m, "${1}payments")
		}
		return m
	})
	sc.Objects += "---\napiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: payments, namespace: argocd}\nspec:\n  sourceRepos: [\"*\"]\n  destinations: [{server: \"*\", namespace: \"*\"}]\n"
	env, err := lab.Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	return env
}

// TestSummaryShowsOnlyWhatTheAskerMaySee: a summary asked in a channel whose rule grants
// project payments lists only the payments apps, with no trace of the others (no count of
// them); the platform rule sees them all; a scope of its own narrows further; a name probe
// for a hidden app answers as for a name that matches nothing; what only a user or group rule
// grants is for the asker alone.
func TestSummaryShowsOnlyWhatTheAskerMaySee(t *testing.T) {
	env := projectFleet(t, lab.FleetSpec{Apps: 12, Repos: 3, Broken: 4}, 3)
	eng := env.Engine()
	p := &Policy{Rules: []Rule{
		{Name: "payments", Channels: []string{"#payments-deploys"}, Projects: []string{"payments"}},
		{Name: "platform", Channels: []string{"#platform"}},
		{Name: "carol", Users: []string{"U0CAROL001"}, Channels: []string{"*"}},
	}}
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	s := &Service{Apps: eng.Cluster, Engine: eng, Policy: p, Fleet: &fleet.Scanner{Engine: eng, Now: func() time.Time { return at }}}
	ctx := context.Background()
	payments := Principal{User: "U0ALICE001", Channel: "C0PAYMENT1", ChannelName: "payments-deploys"}
	res := s.Handle(ctx, payments, Summary{})
	if res.Kind != KindSummary || res.Summary == nil {
		t.Fatalf("summary: %+v", res)
	}
	if res.Summary.Total != 4 || res.Rule != "payments" || res.Outcome() != "summary" || res.Private != "" {
		t.Errorf("payments sees %d apps (rule %q, private %q), want 4, public", res.Summary.Total, res.Rule, res.Private)
	}
	for _, l := range append(lines(res.Summary), res.Summary.Fine...) {
		if n, _ := strconv.Atoi(l.App.Name[4:8]); n%3 != 0 {
			t.Errorf("payments sees %s, of project default", l.App)
		}
	}

	platform := Principal{User: "U0BOB00001", Channel: "C0PLATFRM1", ChannelName: "platform"}
	all := s.Handle(ctx, platform, Summary{})
	if all.Kind != KindSummary || all.Summary.Total != 12 || all.Private != "" {
		t.Fatalf("platform: %+v", all)
	}
	if c := countOf(all.Summary, report.StateBlocked); c != 3 {
		t.Errorf("platform sees %d blocked apps, want 3", c)
	}
	if all.Summary.Hash == res.Summary.Hash {
		t.Error("the hash of a filtered summary is the hash of the whole fleet")
	}
	named := s.Handle(ctx, platform, Summary{Scope: report.Scope{Names: []string{"app-000*"}, Projects: []string{"payments"}}})
	if named.Kind != KindSummary || named.Summary.Total != 4 || named.Summary.Scope.Projects[0] != "payments" { // app-0000, -0003, -0006, -0009
		t.Errorf("names app-000*, project payments: %+v", named.Summary)
	}

	// app-0001-r001 exists, in project default: probing for it from #payments-deploys answers
	// exactly as probing for a name nothing has.
	probe := s.Handle(ctx, payments, Summary{Scope: report.Scope{Names: []string{"app-0001*"}}})
	nothing := s.Handle(ctx, payments, Summary{Scope: report.Scope{Names: []string{"zzz*"}}})
	if probe.Summary == nil || nothing.Summary == nil {
		t.Fatalf("probes: %+v %+v", probe, nothing)
	}
	got, want := *probe.Summary, *nothing.Summary
	want.Scope = got.Scope // the scopes differ only by the name asked
	if !reflect.DeepEqual(got, want) || probe.Private != nothing.Private {
		t.Errorf("a probe for a hidden app differs from a probe for nothing:\n%+v\n%+v", got, want)
	}
	if probe.Summary.Total != 0 || probe.Summary.Unmanaged != 0 {
		t.Errorf("the probe sees %d apps, %d unmanaged", probe.Summary.Total, probe.Summary.Unmanaged)
	}

	// carol's own rule grants her every app in any channel; #payments-deploys may see only
	// payments: her summary there is hers alone, and says why.
	carol := Principal{User: "U0CAROL001", Channel: "C0PAYMENT1", ChannelName: "payments-deploys"}
	mine := s.Handle(ctx, carol, Summary{})
	if mine.Kind != KindSummary || mine.Summary.Total != 12 || !strings.Contains(mine.Private, "the access rule `carol` grants you Applications in this summary, not this channel") {
		t.Errorf("carol in #payments-deploys: %d apps, private %q", mine.Summary.Total, mine.Private)
	}
	// Within what the channel may see, it is for the channel.
	if pay := s.Handle(ctx, carol, Summary{Scope: report.Scope{Projects: []string{"payments"}}}); pay.Private != "" || pay.Summary.Total != 4 {
		t.Errorf("carol, project payments: %d apps, private %q", pay.Summary.Total, pay.Private)
	}

	stranger := Principal{User: "U0EVE00001", Channel: "C0RANDOM01", ChannelName: "random"}
	if res := s.Handle(ctx, stranger, Summary{}); res.Kind != KindDenied || res.Summary != nil {
		t.Errorf("a stranger: %+v", res)
	}
	s.Fleet = nil
	if res := s.Handle(ctx, platform, Summary{}); res.Kind != KindNotBuilt {
		t.Errorf("without a scanner: %+v", res)
	}
}

func lines(s *report.Summary) []report.SummaryLine {
	var out []report.SummaryLine
	for _, g := range s.Attention {
		out = append(out, g.Apps...)
	}
	return out
}

func countOf(s *report.Summary, st report.State) int {
	for _, c := range s.Counts {
		if c.State == st {
			return c.Count
		}
	}
	return 0
}

func TestChannelRulesAndScopes(t *testing.T) {
	p := &Policy{Rules: []Rule{
		{Name: "payments", Channels: []string{"#payments-deploys", "C0PAYMENT1"}, Namespaces: []string{"payments", "payments-*"}, Projects: []string{"payments"}},
		{Name: "platform-group", Groups: []string{"S0PLATFORM"}, Channels: []string{"*"}},
		{Name: "ops", Channels: []string{"ops"}},
	}}
	cases := []struct {
		channel           string
		namespaces, projs []string
		wantErr           string
	}{
		{"#payments-deploys", []string{"payments-*"}, []string{"payments"}, ""},
		{"payments-deploys", []string{"payments", "payments-eu-*"}, []string{"payments"}, ""},
		{"C0PAYMENT1", []string{"payments-eu"}, []string{"payments"}, ""},
		{"#payments-deploys", nil, nil, "scope namespaces (any), projects (any) goes beyond what the access rules grant everyone in #payments-deploys"},
		{"#payments-deploys", []string{"payments-*"}, nil, "namespace payments-* in project * not granted"},
		{"#payments-deploys", []string{"pay*"}, []string{"payments"}, "rule payments grants namespaces [payments, payments-*] and projects [payments]"},
		{"#ops", nil, nil, ""},
		{"#random", []string{"a"}, nil, "no access rule admits everyone in #random"},
		// Only the group may see everything, anywhere: the channel as a whole may not.
		{"C0OTHER001", []string{"a"}, nil, "rules that list users or groups do not count"},
		// An ID and a name never match.
		{"C0OPS00001", nil, nil, "no access rule admits everyone in C0OPS00001"},
	}
	for _, c := range cases {
		err := p.CheckChannelScope(c.channel, c.namespaces, c.projs)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s %v %v: %v", c.channel, c.namespaces, c.projs, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s %v %v: got %v, want an error containing %q", c.channel, c.namespaces, c.projs, err, c.wantErr)
		}
	}
	vis := p.ChannelVisible("#payments-deploys")
	if !vis(Scope{"payments-eu", "payments", ""}) || vis(Scope{"payments", "default", ""}) || vis(Scope{"web", "payments", ""}) {
		t.Error("ChannelVisible(#payments-deploys) grants the wrong apps")
	}
	for _, c := range []string{"C0PAYMENT1", "G0PRIVATE1", "#deploys", "deploys"} {
		if !ValidChannel(c) {
			t.Errorf("%s is a channel", c)
		}
	}
	for _, c := range []string{"*", "dm", "D0ALICEDM1", "Deploys", "#", ""} {
		if ValidChannel(c) {
			t.Errorf("%q is not one channel", c)
		}
	}
}

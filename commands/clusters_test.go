package commands

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/lab/loopback"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

// usApps are Applications only the second cluster has.
const usApps = `
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: payments-us, namespace: team-us}
spec:
  project: default
  source: {repoURL: "https://git.invalid/x.git", path: ., targetRevision: main}
  destination: {server: "https://kubernetes.default.svc", namespace: shop}
`

// registries are the lab registries' hosts of the clusters labCluster made, by name.
var registries = map[string]string{}

// labCluster is a cluster of the service over a lab scenario with objects added.
func labCluster(t *testing.T, name, scenario, objects string) Cluster {
	t.Helper()
	sc, ok := lab.Builtin(scenario)
	if !ok {
		t.Fatalf("builtin scenario %s missing", scenario)
	}
	cp := *sc
	cp.Objects += objects
	env, err := lab.Start(context.Background(), &cp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	eng := env.Engine()
	eng.Options.ClusterName = name
	registries[name] = env.Vars["REGISTRY"]
	return Cluster{Name: name, Apps: eng.Cluster, Engine: eng, Fleet: &fleet.Scanner{Engine: eng}}
}

// closedCluster is a cluster whose API server refuses connections: a real client over a closed
// loopback port, with the lab's registries and git behind it (never reached).
func closedCluster(t *testing.T, name string, like Cluster) Cluster {
	t.Helper()
	addr, err := loopback.ClosedAddr()
	if err != nil {
		t.Skip(err)
	}
	reader, err := cluster.NewReader(&rest.Config{Host: "https://" + addr, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	eng := *like.Engine.(*diagnostics.Engine)
	eng.Cluster = reader
	eng.Options.ClusterName = name
	return Cluster{Name: name, Apps: reader, Engine: &eng, Fleet: &fleet.Scanner{Engine: &eng}}
}

var (
	euOnly           = Principal{User: "U0EUROPE01", Channel: "C0EUDEPLOY", ChannelName: "eu-deploys"}
	both             = Principal{User: "U0BOTH0001", Channel: "C0ALLDEPLO", ChannelName: "all-deploys"}
	twoClusterPolicy = &Policy{Rules: []Rule{
		{Name: "eu", Channels: []string{"#eu-deploys"}, Clusters: []string{"eu"}},
		{Name: "all", Channels: []string{"#all-deploys"}},
	}}
)

func twoClusters(t *testing.T) (eu, us Cluster) {
	t.Helper()
	return labCluster(t, "eu", "healthy-kustomize-argocd", extraApps), labCluster(t, "us", "article-2-allow-tags-match-nothing", usApps)
}

func TestClustersDiagnoseOnlyGranted(t *testing.T) {
	eu, us := twoClusters(t)
	ctx := context.Background()
	s := &Service{Policy: twoClusterPolicy, Clusters: []Cluster{eu, us}}
	euAlone := &Service{Policy: twoClusterPolicy, Clusters: []Cluster{eu}}

	// An app only us has, asked by someone granted eu only: answered exactly as an app that
	// does not exist (the service of eu alone gives the same answer), suggestions from eu only.
	for _, name := range []string{"payments-us", "payments-u", "no-such-app"} {
		got := s.Handle(ctx, euOnly, Diagnose{App: name})
		want := euAlone.Handle(ctx, euOnly, Diagnose{App: name})
		if got.Kind != KindNotFound || got.Text != want.Text || !slices.Equal(got.Suggestions, want.Suggestions) {
			t.Errorf("%s for eu only:\n got %s %q %v\nwant %s %q %v", name, got.Kind, got.Text, got.Suggestions, want.Kind, want.Text, want.Suggestions)
		}
		if strings.Contains(got.Text, "us") && !strings.Contains(want.Text, "us") {
			t.Errorf("%s: the answer names cluster us: %q", name, got.Text)
		}
	}
	// --cluster us, for eu only: the same answer as a cluster that is not configured.
	asked := s.Handle(ctx, euOnly, Diagnose{App: "payments-us", Cluster: "us"})
	missing := s.Handle(ctx, euOnly, Diagnose{App: "payments-us", Cluster: "uk"})
	if asked.Kind != KindNotFound || asked.Text != strings.ReplaceAll(missing.Text, "uk", "us") {
		t.Errorf("--cluster us for eu only: %q (a cluster not configured: %q)", asked.Text, missing.Text)
	}
	// Someone granted both finds it in us, the report says so.
	res := s.Handle(ctx, both, Diagnose{App: "payments-us"})
	if res.Kind != KindReport || res.App.String() != "team-us/payments-us" || res.Report.Cluster != "us" {
		t.Errorf("payments-us for both: %s %s %q %q", res.Kind, res.App, res.Text, clusterOf(res))
	}
	// web is in both clusters: which one?
	amb := s.Handle(ctx, both, Diagnose{App: "web"})
	if amb.Kind != KindNotFound || amb.Text != "there are Applications named `web` in clusters `eu`, `us`: add `--cluster NAME`" {
		t.Errorf("web in both: %s %q", amb.Kind, amb.Text)
	}
	for _, c := range []string{"eu", "us"} {
		if r := s.Handle(ctx, both, Diagnose{App: "web", Cluster: c}); r.Kind != KindReport || r.Report.Cluster != c {
			t.Errorf("web --cluster %s: %s %q %q", c, r.Kind, r.Text, clusterOf(r))
		}
	}
	// For eu only, web is eu's.
	if r := s.Handle(ctx, euOnly, Diagnose{App: "web"}); r.Kind != KindReport || r.Report.Cluster != "eu" {
		t.Errorf("web for eu only: %s %q %q", r.Kind, r.Text, clusterOf(r))
	}
	// A default cluster: the rule's defaultCluster answers without --cluster.
	withDefault := &Service{Policy: &Policy{Rules: []Rule{{Name: "all", Channels: []string{"*"}, DefaultCluster: "us"}}}, Clusters: []Cluster{eu, us}}
	if r := withDefault.Handle(ctx, both, Diagnose{App: "web"}); r.Kind != KindReport || r.Report.Cluster != "us" {
		t.Errorf("web with defaultCluster us: %s %q %q", r.Kind, r.Text, clusterOf(r))
	}
	if r := withDefault.Handle(ctx, both, Tags{App: "web", Cluster: "eu"}); r.Kind != KindTags || r.Report.Cluster != "eu" {
		t.Errorf("tags web --cluster eu: %s %q %q", r.Kind, r.Text, clusterOf(r))
	}
	if r := withDefault.Handle(ctx, both, Logs{App: "web", Cluster: "nope"}); r.Kind != KindNotFound || !strings.Contains(r.Text, "no cluster `nope` here; you may read clusters `eu`, `us`") {
		t.Errorf("logs web --cluster nope: %s %q", r.Kind, r.Text)
	}
}

func clusterOf(r Result) string {
	if r.Report == nil {
		return "(no report)"
	}
	return r.Report.Cluster
}

func TestClustersSummaryAndWhere(t *testing.T) {
	eu, us := twoClusters(t)
	ctx := context.Background()
	s := &Service{Policy: twoClusterPolicy, Clusters: []Cluster{eu, us}}

	all := s.Handle(ctx, both, Summary{})
	if all.Kind != KindSummary || !slices.Equal(all.Summary.Clusters, []string{"eu", "us"}) || len(all.Summary.ClusterFailures) > 0 {
		t.Fatalf("summary for both: %s %q %+v", all.Kind, all.Text, all.Summary)
	}
	if got := summaryApps(*all.Summary); !slices.Equal(got, []string{"eu:argocd/web", "us:argocd/web"}) {
		t.Errorf("summary for both: apps %v", got)
	}
	euSum := s.Handle(ctx, euOnly, Summary{})
	if euSum.Kind != KindSummary || euSum.Summary.Clusters != nil || euSum.Summary.Spans() {
		t.Fatalf("summary for eu only: %s %q %+v", euSum.Kind, euSum.Text, euSum.Summary)
	}
	if got := summaryApps(*euSum.Summary); !slices.Equal(got, []string{"eu:argocd/web"}) {
		t.Errorf("summary for eu only: apps %v", got)
	}
	if r := s.Handle(ctx, euOnly, Summary{Cluster: "us"}); r.Kind != KindNotFound || !strings.HasPrefix(r.Text, "no cluster `us` here") {
		t.Errorf("summary --cluster us for eu only: %s %q", r.Kind, r.Text)
	}
	if r := s.Handle(ctx, both, Summary{Cluster: "us"}); r.Kind != KindSummary || !slices.Equal(summaryApps(*r.Summary), []string{"us:argocd/web"}) {
		t.Errorf("summary --cluster us: %s %q", r.Kind, r.Text)
	}

	img := whereImage(t, ctx, eu)
	w := s.Handle(ctx, both, Where{Image: img})
	if w.Kind != KindWhere || !w.Where.Spans() || len(w.Where.Apps) == 0 {
		t.Fatalf("where %s for both: %s %q %+v", img, w.Kind, w.Text, w.Where)
	}
	for _, l := range w.Where.Apps {
		if l.Cluster != "eu" { // us's registry is another
			t.Errorf("where %s for both shows %s", img, l.Shown(true))
		}
	}
	usImg := whereImage(t, ctx, us)
	if wUS := s.Handle(ctx, euOnly, Where{Image: usImg}); wUS.Kind != KindWhere || len(wUS.Where.Apps) != 0 {
		t.Errorf("where %s (us's) for eu only: %s %q %+v", usImg, wUS.Kind, wUS.Text, wUS.Where)
	}
	if wUS := s.Handle(ctx, both, Where{Image: usImg}); wUS.Kind != KindWhere || len(wUS.Where.Apps) == 0 || wUS.Where.Apps[0].Cluster != "us" {
		t.Errorf("where %s (us's) for both: %s %q %+v", usImg, wUS.Kind, wUS.Text, wUS.Where)
	}
	wEU := s.Handle(ctx, euOnly, Where{Image: img})
	if wEU.Kind != KindWhere || wEU.Where.Spans() || len(wEU.Where.Apps) == 0 {
		t.Fatalf("where %s for eu only: %s %q", img, wEU.Kind, wEU.Text)
	}
	for _, l := range wEU.Where.Apps {
		if l.Cluster != "eu" {
			t.Errorf("where for eu only shows %s", l.Shown(true))
		}
	}
}

// whereImage is the image of the cluster's web app (each lab has its own registry).
func whereImage(t *testing.T, _ context.Context, c Cluster) string {
	t.Helper()
	return registries[c.Name] + "/team/web"
}

func summaryApps(s report.Summary) []string {
	var out []string
	for _, g := range s.Attention {
		for _, l := range g.Apps {
			out = append(out, l.Cluster+":"+l.App.String())
		}
	}
	for _, l := range s.Fine {
		out = append(out, l.Cluster+":"+l.App.String())
	}
	slices.Sort(out)
	return out
}

func TestClustersOneUnreachable(t *testing.T) {
	eu, us := twoClusters(t)
	ctx := context.Background()
	down := closedCluster(t, "us", us)
	s := &Service{Policy: twoClusterPolicy, Clusters: []Cluster{eu, down}}

	sum := s.Handle(ctx, both, Summary{})
	if sum.Kind != KindSummary {
		t.Fatalf("summary with us unreachable: %s %q", sum.Kind, sum.Text)
	}
	if got := summaryApps(*sum.Summary); !slices.Equal(got, []string{"eu:argocd/web"}) {
		t.Errorf("eu's apps: %v", got)
	}
	f := sum.Summary.ClusterFailures
	if len(f) != 1 || f[0].Cluster != "us" || !strings.Contains(f[0].Reason, "its Applications") || sum.Summary.Worst != report.StateUnknown {
		t.Errorf("us unreachable: failures %+v worst %s", f, sum.Summary.Worst)
	}
	// eu's diagnosis is whole; us's says why it cannot.
	if r := s.Handle(ctx, both, Diagnose{App: "web", Cluster: "eu"}); r.Kind != KindReport {
		t.Errorf("web in eu: %s %q", r.Kind, r.Text)
	}
	if r := s.Handle(ctx, both, Diagnose{App: "web", Cluster: "us"}); r.Kind != KindError {
		t.Errorf("web in us: %s %q", r.Kind, r.Text)
	}
	// Without --cluster: web is eu's (us answers nothing).
	if r := s.Handle(ctx, both, Diagnose{App: "webshop"}); r.Kind == KindReport && r.Report.Cluster != "eu" {
		t.Errorf("webshop: %s %q", r.Kind, r.Text)
	}

	// A cluster whose Secret is missing: Down, one line, no read.
	missing := Cluster{Name: "us", Down: errors.New("cluster us: Secret imgupd/imgupd-cluster-us: not found")}
	s = &Service{Policy: twoClusterPolicy, Clusters: []Cluster{eu, missing}}
	sum = s.Handle(ctx, both, Summary{})
	if sum.Kind != KindSummary || len(sum.Summary.ClusterFailures) != 1 || !strings.Contains(sum.Summary.ClusterFailures[0].Reason, "Secret imgupd/imgupd-cluster-us") {
		t.Errorf("us's Secret missing: %s %q %+v", sum.Kind, sum.Text, sum.Summary)
	}
	if r := s.Handle(ctx, both, Diagnose{App: "web", Cluster: "us"}); r.Kind != KindError || !strings.Contains(r.Text, "Secret imgupd/imgupd-cluster-us") {
		t.Errorf("web --cluster us, Secret missing: %s %q", r.Kind, r.Text)
	}
	// Every cluster down: the answer is an error.
	s = &Service{Policy: twoClusterPolicy, Clusters: []Cluster{missing}}
	if r := s.Handle(ctx, both, Summary{}); r.Kind != KindError {
		t.Errorf("every cluster down: %s %q", r.Kind, r.Text)
	}
}

func TestPolicyClusters(t *testing.T) {
	p := &Policy{Rules: []Rule{
		{Name: "payments", Channels: []string{"#payments"}, Clusters: []string{"prod-eu", "staging*"}, DefaultCluster: "prod-eu", Namespaces: []string{"payments"}},
		{Name: "ops", Channels: []string{"#ops"}},
	}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := p.CheckClusters([]string{"prod-eu", "prod-us", "staging-1"}); err != nil {
		t.Errorf("clusters configured: %v", err)
	}
	if err := p.CheckClusters([]string{"prod-us"}); err == nil || !strings.Contains(err.Error(), `cluster "prod-eu" matches none`) || !strings.Contains(err.Error(), `defaultCluster "prod-eu" is not a cluster configured`) {
		t.Errorf("prod-eu not configured: %v", err)
	}
	if err := p.CheckClusters(nil); err == nil || !strings.Contains(err.Error(), "no clusters: section") {
		t.Errorf("no clusters section: %v", err)
	}
	bad := &Policy{Rules: []Rule{{Name: "x", Channels: []string{"*"}, Clusters: []string{"a", "[b"}, DefaultCluster: "c"}}}
	err := bad.Validate()
	if err == nil || !strings.Contains(err.Error(), `pattern "[b" is not a valid glob`) || !strings.Contains(err.Error(), `defaultCluster "c" is not one of the rule's clusters`) {
		t.Errorf("bad rule: %v", err)
	}

	pay := Principal{User: "U0PAY00001", Channel: "C0PAYMENTS", ChannelName: "payments"}
	for _, c := range []struct {
		cluster string
		want    bool
	}{{"prod-eu", true}, {"staging-2", true}, {"prod-us", false}} {
		if got := p.ClusterVisible(pay, c.cluster); got != c.want {
			t.Errorf("ClusterVisible(%s) = %v", c.cluster, got)
		}
		if got := p.Decide(pay, Scope{Namespace: "payments", Project: "default", Cluster: c.cluster}).Allowed; got != c.want {
			t.Errorf("Decide(payments in %s) = %v", c.cluster, got)
		}
	}
	if d := p.Decide(pay, Scope{Namespace: "payments", Project: "default", Cluster: "prod-us"}); !strings.Contains(d.Reason, "in clusters `prod-eu`, `staging*`, namespaces `payments`") {
		t.Errorf("refusal: %q", d.Reason)
	}
	if got := p.DefaultCluster(pay); got != "prod-eu" {
		t.Errorf("default cluster %q", got)
	}
	if got := p.VisibleNamespacesIn(pay, "prod-us"); len(got) != 0 || got == nil {
		t.Errorf("namespaces in prod-us: %#v, want none", got)
	}

	// A schedule's clusters stay within what the channel's rules grant.
	if err := p.CheckChannelScopeIn("#payments", []string{"prod-eu"}, []string{"payments"}, nil); err != nil {
		t.Errorf("payments in prod-eu: %v", err)
	}
	if err := p.CheckChannelScopeIn("#payments", []string{"staging-3"}, []string{"payments"}, nil); err != nil {
		t.Errorf("payments in staging-3: %v", err)
	}
	err = p.CheckChannelScopeIn("#payments", []string{"prod-eu", "prod-us"}, []string{"payments"}, nil)
	if err == nil || !strings.Contains(err.Error(), "namespace payments in project * of cluster prod-us") {
		t.Errorf("payments in prod-us: %v", err)
	}
	if err := p.CheckChannelScopeIn("#payments", nil, []string{"payments"}, nil); err == nil || !strings.Contains(err.Error(), "of cluster *") {
		t.Errorf("every cluster: %v", err)
	}
	if err := p.CheckChannelScopeIn("#ops", nil, nil, nil); err != nil {
		t.Errorf("ops, every cluster: %v", err)
	}
}

// A cluster whose API server answers nothing holds the others' answer back no longer than the
// scan's deadline: the answer comes with the other cluster's apps whole and the slow one a line.
func TestClustersSlowOneWaitsOnlyTheDeadline(t *testing.T) {
	eu, _ := twoClusters(t)
	release := make(chan struct{})
	hang := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // blocks until the test ends (or the client gives up)
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); hang.Close() })
	reader, err := cluster.NewReader(&rest.Config{Host: hang.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
	if err != nil {
		t.Fatal(err)
	}
	eng := *eu.Engine.(*diagnostics.Engine)
	eng.Cluster, eng.Options.ClusterName = reader, "us"
	slow := Cluster{Name: "us", Apps: reader, Engine: &eng, Fleet: &fleet.Scanner{Engine: &eng}}
	// A generous deadline: the lab cluster's scan takes well under a second; the verdict does
	// not depend on how long within it.
	const deadline = 15 * time.Second
	s := &Service{Policy: twoClusterPolicy, Clusters: []Cluster{eu, slow}, SummaryTimeout: deadline}
	started := time.Now()
	res := s.Handle(context.Background(), both, Summary{})
	took := time.Since(started)
	if res.Kind != KindSummary {
		t.Fatalf("summary with us hanging: %s %q", res.Kind, res.Text)
	}
	if got := summaryApps(*res.Summary); !slices.Equal(got, []string{"eu:argocd/web"}) {
		t.Errorf("eu's apps: %v", got)
	}
	if f := res.Summary.ClusterFailures; len(f) != 1 || f[0].Cluster != "us" || !strings.Contains(f[0].Reason, "timed out") {
		t.Errorf("us hanging: %+v", f)
	}
	if took > deadline+10*time.Second {
		t.Errorf("the answer took %s, the deadline is %s", took, deadline)
	}
}

// The cluster an answer is for, which its buttons name: the diagnosed app's, a summary's of one
// cluster; none for a summary across clusters, nor for a service of one cluster.
func TestResultNamesItsCluster(t *testing.T) {
	eu, us := twoClusters(t)
	ctx := context.Background()
	s := &Service{Policy: twoClusterPolicy, Clusters: []Cluster{eu, us}}
	for _, tc := range []struct {
		cmd  Command
		want string
	}{
		{Diagnose{App: "web", Cluster: "us"}, "us"},
		{Tags{App: "web", Cluster: "eu"}, "eu"},
		{Diagnose{App: "payments-us"}, "us"},
		{Summary{Cluster: "us"}, "us"},
		{Summary{}, ""},
	} {
		if r := s.Handle(ctx, both, tc.cmd); r.Cluster != tc.want {
			t.Errorf("%s: %s %q, cluster %q, want %q", tc.cmd, r.Kind, r.Text, r.Cluster, tc.want)
		}
	}
	one := &Service{Policy: twoClusterPolicy, Apps: us.Apps, Engine: us.Engine, Fleet: us.Fleet, Cluster: "us"}
	if r := one.Handle(ctx, both, Diagnose{App: "web"}); r.Kind != KindReport || r.Cluster != "" {
		t.Errorf("one cluster: %s %q, cluster %q", r.Kind, r.Text, r.Cluster)
	}
}

// TestDownClusterReopens: a cluster whose Secret was missing at start is tried again when a
// command comes, at most once every ReopenEvery (a fake clock); once its Secret is there, it
// answers like any other, with no restart; a try that fails keeps its newest reason.
func TestDownClusterReopens(t *testing.T) {
	eu, us := twoClusters(t)
	ctx := context.Background()
	now := time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)
	var tries []string
	secretThere := false
	s := &Service{Policy: twoClusterPolicy, ReopenEvery: time.Minute, Now: func() time.Time { return now },
		Clusters: []Cluster{eu, {Name: "us", Down: errors.New("cluster us: Secret imgupd/imgupd-cluster-us: not found")}},
		Reopen: func(_ context.Context, name string) (Cluster, error) {
			tries = append(tries, name)
			if !secretThere {
				return Cluster{Name: name, Down: fmt.Errorf("cluster us: Secret imgupd/imgupd-cluster-us: not found (try %d)", len(tries))}, nil
			}
			return us, nil
		}}
	web := func() Result { return s.Handle(ctx, both, Diagnose{App: "web", Cluster: "us"}) }

	// The first command tries us (still missing): its answer gives the newest reason.
	if r := web(); r.Kind != KindError || !strings.Contains(r.Text, "(try 1)") || !slices.Equal(tries, []string{"us"}) {
		t.Fatalf("first try: %s %q, tries %v", r.Kind, r.Text, tries)
	}
	// Within the minute nothing is tried, even though the Secret is there now.
	secretThere = true
	now = now.Add(59 * time.Second)
	if r := web(); r.Kind != KindError || len(tries) != 1 {
		t.Errorf("within the minute: %s %q, tries %v", r.Kind, r.Text, tries)
	}
	// A minute after the last try: us connects and answers; eu was never tried (not down).
	now = now.Add(time.Second)
	if r := web(); r.Kind != KindReport || r.Report.Cluster != "us" || !slices.Equal(tries, []string{"us", "us"}) {
		t.Fatalf("after the minute: %s %q, tries %v", r.Kind, r.Text, tries)
	}
	// Connected: no more tries, and the summary has no failed cluster.
	now = now.Add(time.Hour)
	if sum := s.Handle(ctx, both, Summary{}); sum.Kind != KindSummary || len(sum.Summary.ClusterFailures) != 0 || len(tries) != 2 {
		t.Errorf("summary once us connects: %s %q, tries %v", sum.Kind, sum.Text, tries)
	}
}

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"

	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/commands/command"
	diagnosecmd "github.com/imgupd/imgupd/commands/diagnose"
	summarycmd "github.com/imgupd/imgupd/commands/summary"
	wherecmd "github.com/imgupd/imgupd/commands/where"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/lab/loopback"
	"github.com/imgupd/imgupd/report"
)

// --cluster on the terminal without a clusters: section: 64, saying what to do instead.
func TestClusterFlagWithoutClusters(t *testing.T) {
	for _, args := range [][]string{
		{"diagnose", "web", "--cluster", "prod"},
		{"summary", "--cluster", "prod"},
		{"where", "nginx", "--cluster", "prod"},
	} {
		code, _, errOut := runCLI(t, nil, args...)
		if code != exitUsage || !strings.Contains(errOut, "--cluster prod: the configuration has no clusters: section") || !strings.Contains(errOut, "--context") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// A clusters: section with a mistake stops the terminal's --cluster with 78, naming the key.
func TestClusterFlagBadSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "imgupd.yaml")
	if err := os.WriteFile(path, []byte("clusters:\n- name: prod\n  inclustr: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, nil, "diagnose", "web", "--cluster", "prod", "--config", path)
	if code != exitConfig || !strings.Contains(errOut, "clusters[0].inclustr: not a key of a cluster; did you mean inCluster?") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	code, out, _ := runCLI(t, nil, "config", "check", "--config", path, "-o", "json")
	if code == 0 || !strings.Contains(out, "clusters[0].inclustr") {
		t.Errorf("config check: exit %d, %s", code, out)
	}
}

// testClusters is a clusters: section over a lab fleet (reachable) and a cluster whose API
// server refuses connections (a real client over a closed loopback port).
type testClusters struct {
	lab    *diagnostics.Engine
	closed string
	order  []string
}

func (c testClusters) Names() []string { return c.order }

func (c testClusters) Cluster(_ context.Context, name string) (command.Cluster, command.ClusterNamespaces, error) {
	ns := command.ClusterNamespaces{Argo: "argocd", Updater: "argocd"}
	switch name {
	case "eu":
		return labCluster{engine: func(context.Context) (*diagnostics.Engine, error) { return c.lab, nil }}, ns, nil
	case "us", "ap":
		return restCluster{cfg: &rest.Config{Host: "https://" + c.closed, Timeout: 5 * time.Second}, name: name}, ns, nil
	}
	return nil, ns, command.Exit(exitUsage, fmt.Errorf("no cluster %s", name))
}

func TestTerminalAcrossClusters(t *testing.T) {
	env, err := lab.Start(context.Background(), thirtyApps())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	addr, err := loopback.ClosedAddr()
	if err != nil {
		t.Skip(err)
	}
	set := testClusters{lab: env.Engine(), closed: addr, order: []string{"eu", "us"}}
	io := command.IO{In: strings.NewReader(""), Err: &bytes.Buffer{}, Clusters: set, Name: "imgupd"}
	opts := command.ScanOptions{Concurrency: 4, Deadline: time.Minute, UpdaterNamespace: "argocd"}

	// Every cluster: eu's apps, us unknown in one line; the exit status is the worst state's
	// (eu's blocked apps, or us's unknown), not 69.
	a, err := summarycmd.Run(context.Background(), opts, io)
	if err != nil {
		t.Fatalf("summary over eu and us: %v", err)
	}
	sum := a.(summarycmd.Answer).Summary
	if sum.Total != 30 || !slices.Equal(sum.Clusters, []string{"eu", "us"}) || len(sum.ClusterFailures) != 1 || sum.ClusterFailures[0].Cluster != "us" {
		t.Errorf("summary: %d apps, clusters %v, failures %+v", sum.Total, sum.Clusters, sum.ClusterFailures)
	}
	var ee *command.ExitError
	if err := a.(summarycmd.Answer).Exit(); !errors.As(err, &ee) || ee.Code != sum.Worst.ExitCode() || ee.Code == exitUnreachable || ee.Code == 0 {
		t.Errorf("exit: %v (worst %s)", err, sum.Worst)
	}
	// The reason names the cluster once, with its API server, and asks about its entry in the
	// configuration, not about a kubeconfig's context.
	if r := sum.ClusterFailures[0].Reason; !strings.Contains(r, "cannot reach the Kubernetes API server of cluster us (https://"+addr+")") ||
		!strings.Contains(r, "Is its entry under clusters: in imgupd's configuration right") || strings.Contains(r, "kubeconfig's context") ||
		strings.Count(r, "cluster us") != 1 {
		t.Errorf("us's reason: %q", r)
	}

	// --cluster eu: eu alone, no cluster named on its lines.
	one := opts
	one.Cluster = "eu"
	a, err = summarycmd.Run(context.Background(), one, io)
	if err != nil || a.(summarycmd.Answer).Summary.Spans() || a.(summarycmd.Answer).Summary.Total != 30 {
		t.Errorf("summary --cluster eu: %v %+v", err, a)
	}
	// --cluster us alone: unreachable is 69, as for the kubeconfig's cluster.
	one.Cluster = "us"
	if _, err := summarycmd.Run(context.Background(), one, io); !errors.As(err, &ee) || ee.Code != exitUnreachable {
		t.Errorf("summary --cluster us: %v", err)
	}
	// Every cluster unreachable: 69.
	down := io
	down.Clusters = testClusters{closed: addr, order: []string{"us", "ap"}}
	if _, err := summarycmd.Run(context.Background(), opts, down); !errors.As(err, &ee) || ee.Code != exitUnreachable {
		t.Errorf("summary, every cluster down: %v", err)
	}
	// A cluster not configured: 64.
	one.Cluster = "mars"
	if _, err := summarycmd.Run(context.Background(), one, io); !errors.As(err, &ee) || ee.Code != exitUsage {
		t.Errorf("summary --cluster mars: %v", err)
	}

	// diagnose --cluster: the configured cluster's engine, its namespace the default of -n; an
	// unreachable one is 69 as for the kubeconfig's.
	da, err := diagnosecmd.Run(context.Background(), diagnosecmd.Options{App: "app-0000-r000", Cluster: "eu", UpdaterNamespace: "argocd", Timeout: time.Minute}, io)
	if err != nil || da.(diagnosecmd.Answer).Report.App.String() != "argocd/app-0000-r000" {
		t.Errorf("diagnose --cluster eu: %v", err)
	}
	if _, err := diagnosecmd.Run(context.Background(), diagnosecmd.Options{App: "web", Cluster: "us", Timeout: time.Minute}, io); !errors.As(err, &ee) || ee.Code != exitUnreachable {
		t.Errorf("diagnose --cluster us: %v", err)
	}

	// where across both: eu's apps named with their cluster, us one line.
	img := env.Vars["REGISTRY"] + "/fleet/repo-000"
	wa, err := wherecmd.Run(context.Background(), wherecmd.Options{Image: img, ScanOptions: opts}, io)
	if err != nil {
		t.Fatalf("where %s: %v", img, err)
	}
	w := wa.(wherecmd.Answer).Where
	if !w.Spans() || len(w.ClusterFailures) != 1 {
		t.Errorf("where: clusters %v failures %+v", w.Clusters, w.ClusterFailures)
	}
	for _, l := range w.Apps {
		if l.Cluster != "eu" {
			t.Errorf("where: %s", l.Shown(true))
		}
	}
}

// config check lists each cluster and tries it: one that cannot be reached is said, not a
// problem; a schedule's or a rule's clusters that match none configured are.
func TestConfigCheckClusters(t *testing.T) {
	addr, err := loopback.ClosedAddr()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	kc := filepath.Join(dir, "dev.kubeconfig")
	if err := os.WriteFile(kc, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: dev
clusters: [{name: c, cluster: {server: "https://%s"}}]
contexts: [{name: dev, context: {cluster: c, user: u}}]
users: [{name: u, user: {token: t}}]
`, addr)), 0o600); err != nil {
		t.Fatal(err)
	}
	write := func(body string) string {
		p := filepath.Join(dir, fmt.Sprintf("c%d.yaml", time.Now().UnixNano()))
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write(fmt.Sprintf(`clusters:
- name: dev
  kubeconfig: %s
- name: prod-us
  kubeconfigSecret: {name: imgupd-cluster-prod-us}
access:
  rules:
  - name: all
    channels: ["*"]
    clusters: [dev]
    defaultCluster: dev
schedules:
- name: daily
  cron: "0 9 * * *"
  channel: "#deploys"
  clusters: [dev]
`, kc))
	env := map[string]string{"KUBECONFIG": filepath.Join(dir, "none")}
	code, out, errOut := runCLI(t, env, "config", "check", "--config", good)
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	for _, want := range []string{"clusters: 2", "dev", "kubeconfig", "NOT reachable: cannot reach the Kubernetes API server", "prod-us", "kubeconfigSecret", "Secret imgupd/imgupd-cluster-prod-us", "clusters dev (default dev)"} {
		if !strings.Contains(out, want) {
			t.Errorf("config check lacks %q:\n%s", want, out)
		}
	}
	bad := write(`clusters:
- name: dev
  inCluster: true
access:
  rules:
  - name: all
    channels: ["*"]
    clusters: [prod]
schedules:
- name: daily
  cron: "0 9 * * *"
  channel: "#deploys"
  clusters: [staging]
`)
	code, out, errOut = runCLI(t, env, "config", "check", "--config", bad)
	if code == 0 || !strings.Contains(errOut, `access: rule all: cluster "prod" matches none of the clusters configured (dev)`) || !strings.Contains(errOut, "of cluster staging not granted") {
		t.Errorf("exit %d:\n%s\n%s", code, out, errOut)
	}
}

// serve with a clusters: section whose one cluster cannot be read (its Secret cannot be read:
// imgupd's own cluster is unreachable too) starts, and answers that cluster's commands with
// the reason instead of failing.
func TestServeWithAClusterDown(t *testing.T) {
	const bt, at = "xoxb-serve-clusters", "xapp-serve-clusters"
	srv := slacklab.Start(slacklab.Config{BotToken: bt, AppToken: at,
		Channels: []slacklab.Channel{{ID: "C0DEPLOYS1", Name: "deploys", IsMember: true}}})
	defer srv.Close()
	addr, err := loopback.ClosedAddr()
	if err != nil {
		t.Skip(err)
	}
	own := filepath.Join(t.TempDir(), "own.kubeconfig")
	if err := os.WriteFile(own, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: own
clusters: [{name: c, cluster: {server: "https://%s"}}]
contexts: [{name: own, context: {cluster: c, user: u}}]
users: [{name: u, user: {token: t}}]
`, addr)), 0o600); err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, `clusters:
- name: prod-us
  kubeconfigSecret: {name: imgupd-cluster-prod-us}
access:
  rules:
  - name: deploys
    channels: ["#deploys"]
`)
	env := map[string]string{"IMGUPD_SLACK_BOT_TOKEN": bt, "IMGUPD_SLACK_APP_TOKEN": at, "IMGUPD_SLACK_API_URL": srv.APIURL(), "POD_NAMESPACE": "imgupd"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	var out, errb lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--config", config, "--kubeconfig", own, "--listen", "127.0.0.1:0", "--log-format", "json"},
			streams{In: strings.NewReader(""), Out: &out, Err: &errb}, lookup)
	}()
	wctx, wcancel := context.WithTimeout(ctx, 60*time.Second)
	defer wcancel()
	if err := srv.WaitConnections(wctx, 1); err != nil {
		t.Fatalf("serve did not connect: %v\n%s", err, errb.String())
	}
	if !strings.Contains(errb.String(), `"cluster":"prod-us"`) || !strings.Contains(errb.String(), "imgupd-cluster-prod-us") {
		t.Errorf("no warning about prod-us: %s", errb.String())
	}
	if err := srv.Send(wctx, slacklab.SlashCommand("env-1", slacklab.Slash{User: "U0ALICE001", Channel: "C0DEPLOYS1", ChannelName: "deploys",
		Text: "diagnose web --cluster prod-us", ResponseURL: srv.ResponseURL("r")})); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(out.String(), `"result":"error"`) {
		select {
		case <-wctx.Done():
			t.Fatalf("no audit line of the error on stdout: %q\n%s", out.String(), errb.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exited %d: %s", code, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}

// labClusters is a clusters: section over lab environments (by name, reachable) and a cluster
// whose API server refuses connections (any other name in order).
type labClusters struct {
	labs   map[string]*diagnostics.Engine
	closed string
	order  []string
}

func (c labClusters) Names() []string { return c.order }

func (c labClusters) Cluster(_ context.Context, name string) (command.Cluster, command.ClusterNamespaces, error) {
	ns := command.ClusterNamespaces{Argo: "argocd", Updater: "argocd"}
	if eng, ok := c.labs[name]; ok {
		return labCluster{engine: func(context.Context) (*diagnostics.Engine, error) { return eng, nil }}, ns, nil
	}
	return restCluster{cfg: &rest.Config{Host: "https://" + c.closed, Timeout: 5 * time.Second}, name: name}, ns, nil
}

// labEngine is a lab environment's engine, named as a cluster of the configuration.
func labEngine(t *testing.T, sc *lab.Scenario, name string) *diagnostics.Engine {
	t.Helper()
	env, err := lab.Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	eng := env.Engine()
	eng.Options.ClusterName = name
	return eng
}

// diagnose without --cluster, with a clusters: section: the app is looked for in every cluster;
// one has it: its report; several: 64 naming them; none: the missing-app report of the first
// cluster; none of those read, one not read: its exit status, saying so. --kubeconfig still
// means the kubeconfig.
func TestTerminalDiagnoseAcrossClusters(t *testing.T) {
	builtin := func(name string) *lab.Scenario {
		sc, ok := lab.Builtin(name)
		if !ok {
			t.Fatalf("no scenario %s", name)
		}
		return sc
	}
	addr, err := loopback.ClosedAddr()
	if err != nil {
		t.Skip(err)
	}
	set := labClusters{closed: addr, order: []string{"eu", "us", "ap"}, labs: map[string]*diagnostics.Engine{
		"eu": labEngine(t, lab.FleetScenario(lab.FleetSpec{Apps: 3, Repos: 1, MinTags: 3, MaxTags: 5}), "eu"),
		"us": labEngine(t, builtin("healthy-kustomize-argocd"), "us"),
		"ap": labEngine(t, builtin("article-2-allow-tags-match-nothing"), "ap"),
	}}
	io := command.IO{In: strings.NewReader(""), Err: &bytes.Buffer{}, Clusters: set, Name: "imgupd"}
	opts := diagnosecmd.Options{UpdaterNamespace: "argocd", Timeout: time.Minute}
	run := func(app string, io command.IO, kube ...string) (*diagnosecmd.Answer, error) {
		o := opts
		o.App = app
		if len(kube) > 0 {
			o.Kube.Kubeconfig = kube[0]
		}
		a, err := diagnosecmd.Run(context.Background(), o, io)
		if err != nil {
			return nil, err
		}
		ans := a.(diagnosecmd.Answer)
		return &ans, nil
	}
	var ee *command.ExitError

	// One cluster has it: its report, which names it.
	if a, err := run("app-0000-r000", io); err != nil || a.Report.Cluster != "eu" || a.Report.App.String() != "argocd/app-0000-r000" ||
		a.Heading != "cluster eu, the one of the clusters: section that has app-0000-r000" {
		t.Errorf("app-0000-r000: %v %+v", err, a)
	}
	// Two have it: 64 naming them and what to add.
	if _, err := run("web", io); !errors.As(err, &ee) || ee.Code != exitUsage || err.Error() != "there are Applications named web in clusters us, ap: add --cluster NAME" {
		t.Errorf("web in us and ap: %v", err)
	}
	// None has it: the missing-app report, as without clusters (the first cluster's).
	a, err := run("no-such-app", io)
	if err != nil || a.Report.RootCause == nil || a.Report.RootCause.Code != report.CodeAppNotFound || a.Report.Cluster != "eu" {
		t.Fatalf("no-such-app: %v %+v", err, a)
	}
	if err := a.Exit(); !errors.As(err, &ee) || ee.Code != a.Report.State.ExitCode() {
		t.Errorf("no-such-app's exit: %v", err)
	}
	if a.Heading != "no cluster of the clusters: section has no-such-app (eu, us, ap); cluster eu's answer:" {
		t.Errorf("no-such-app's heading: %q", a.Heading)
	}

	// us down: web is ap's alone among those read; an app none read has may be in us: 69.
	down := io
	down.Clusters = labClusters{closed: addr, order: set.order, labs: map[string]*diagnostics.Engine{"eu": set.labs["eu"], "ap": set.labs["ap"]}}
	if a, err := run("web", down); err != nil || a.Report.Cluster != "ap" {
		t.Errorf("web with us down: %v %+v", err, a)
	}
	if _, err := run("no-such-app", down); !errors.As(err, &ee) || ee.Code != exitUnreachable ||
		!strings.Contains(err.Error(), "no Application no-such-app in clusters eu or ap, but it may be in a cluster that could not be read: cannot reach the Kubernetes API server of cluster us (") {
		t.Errorf("no-such-app with us down: %v", err)
	}
	// Every cluster down: each named, and the first one's error.
	down.Clusters = labClusters{closed: addr, order: []string{"us", "uk"}}
	if _, err := run("web", down); !errors.As(err, &ee) || ee.Code != exitUnreachable ||
		!strings.HasPrefix(err.Error(), "no cluster of the clusters: section could be read (us, uk); the first: cannot reach the Kubernetes API server of cluster us (") {
		t.Errorf("web, every cluster down: %v", err)
	}

	// --kubeconfig given: that kubeconfig's cluster (here the test's), not the clusters: section.
	kube := io
	kube.Cluster = labCluster{engine: func(context.Context) (*diagnostics.Engine, error) { return set.labs["us"], nil }}
	if a, err := run("web", kube, "/the/kubeconfig"); err != nil || a.Report.Cluster != "us" || a.Heading != "" {
		t.Errorf("web --kubeconfig: %v %+v", err, a)
	}
}

// --updater-namespace given on the terminal overrides the clusters: section's updaterNamespace;
// its default does not.
func TestUpdaterNamespaceFlagOverridesClusters(t *testing.T) {
	var got diagnosecmd.Options
	term := diagnosecmd.Term(func(_ context.Context, o diagnosecmd.Options, _ command.IO) (command.Answer, error) {
		got = o
		return nil, nil
	})
	for _, tc := range []struct {
		args []string
		set  bool
	}{{nil, false}, {[]string{"--updater-namespace", "argocd"}, true}, {[]string{"--updater-namespace=image-updater"}, true}} {
		fs := pflag.NewFlagSet("diagnose", pflag.ContinueOnError)
		run := term.Bind(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if _, err := run(context.Background(), []string{"web"}, command.IO{}); err != nil {
			t.Fatal(err)
		}
		if got.UpdaterNamespaceSet != tc.set {
			t.Errorf("diagnose %v: UpdaterNamespaceSet %v", tc.args, got.UpdaterNamespaceSet)
		}
	}

	eng := labEngine(t, lab.FleetScenario(lab.FleetSpec{Apps: 1, Repos: 1, MinTags: 3, MaxTags: 3}), "eu")
	io := command.IO{Clusters: labClusters{order: []string{"eu"}, labs: map[string]*diagnostics.Engine{"eu": eng}}}
	opts := command.ScanOptions{Concurrency: 1, Deadline: time.Minute, UpdaterNamespace: "argocd"}
	for _, tc := range []struct {
		ns   string
		set  bool
		want string
	}{{"argocd", false, "argocd"}, {"image-updater", true, "image-updater"}, {"elsewhere", false, "argocd"}} {
		o := opts
		o.UpdaterNamespace, o.UpdaterNamespaceSet = tc.ns, tc.set
		ts, _, err := command.Scanners(context.Background(), o, io)
		if err != nil || len(ts) != 1 || ts[0].Scanner.UpdaterNamespace != tc.want {
			t.Errorf("--updater-namespace %s (given %v): %v %+v", tc.ns, tc.set, err, ts)
		}
	}
}

// The binary's diagnose with a clusters: section and no --cluster reads the section's clusters
// (here one whose API server refuses connections: 69, naming it); with --kubeconfig, that file.
func TestDiagnoseReadsTheClustersSection(t *testing.T) {
	addr, err := loopback.ClosedAddr()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	kc := filepath.Join(dir, "dev.kubeconfig")
	if err := os.WriteFile(kc, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: dev
clusters: [{name: c, cluster: {server: "https://%s"}}]
contexts: [{name: dev, context: {cluster: c, user: u}}]
users: [{name: u, user: {token: t}}]
`, addr)), 0o600); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "imgupd.yaml")
	if err := os.WriteFile(config, []byte("clusters:\n- name: dev\n  kubeconfig: "+kc+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"KUBECONFIG": filepath.Join(dir, "none")}
	code, _, errOut := runCLI(t, env, "diagnose", "web", "--config", config)
	if code != exitUnreachable || !strings.Contains(errOut, "API server of cluster dev (https://"+addr+"): ") || strings.Contains(errOut, "kubeconfig's context") {
		t.Errorf("diagnose web with clusters: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCLI(t, env, "diagnose", "web", "--config", config, "--kubeconfig", kc)
	if code != exitUnreachable || strings.Contains(errOut, "server dev: ") || !strings.Contains(errOut, "https://"+addr) {
		t.Errorf("diagnose web --kubeconfig: exit %d, stderr %q", code, errOut)
	}
}

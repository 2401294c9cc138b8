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

	"k8s.io/client-go/rest"

	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/commands/command"
	diagnosecmd "github.com/imgupd/imgupd/commands/diagnose"
	summarycmd "github.com/imgupd/imgupd/commands/summary"
	wherecmd "github.com/imgupd/imgupd/commands/where"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/lab/loopback"
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
	if r := sum.ClusterFailures[0].Reason; !strings.Contains(r, "cannot reach the Kubernetes API server") {
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

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/bot/slacklab"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

const serveConfig = `
access:
  allowDMs: false
  rules:
  - name: deploys
    channels: ["#deploys"]
    namespaces: [argocd]
`

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "imgupd.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestServeAnswersFromTheLab runs `imgupd serve --lab` against the fake
// Slack: the binary's wiring (config, tokens from the environment, access
// rules, audit on stdout) end to end.
func TestServeAnswersFromTheLab(t *testing.T) {
	const bt, at = "xoxb-serve-canary", "xapp-serve-canary"
	srv := slacklab.Start(slacklab.Config{BotToken: bt, AppToken: at,
		Channels: []slacklab.Channel{{ID: "C0DEPLOYS1", Name: "deploys", IsMember: true}}})
	defer srv.Close()
	env := map[string]string{"IMGUPD_SLACK_BOT_TOKEN": bt, "IMGUPD_SLACK_APP_TOKEN": at, "IMGUPD_SLACK_API_URL": srv.APIURL()}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	var out, errb lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--config", writeConfig(t, serveConfig), "--lab", "report-1-image-not-live", "--listen", "127.0.0.1:0", "--log-format", "json"},
			streams{In: strings.NewReader(""), Out: &out, Err: &errb}, lookup)
	}()
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	defer wcancel()
	if err := srv.WaitConnections(wctx, 1); err != nil {
		t.Fatalf("serve did not connect: %v\n%s", err, errb.String())
	}
	// client-go's own lines (leader election, throttling) come out as our JSON.
	klog.InfoS("client-go line", "lease", "imgupd")
	if !strings.Contains(errb.String(), `"msg":"client-go line"`) || !strings.Contains(errb.String(), `"source":"client-go"`) {
		t.Errorf("klog output is not routed into serve's JSON log: %s", errb.String())
	}
	if err := srv.Send(wctx, slacklab.SlashCommand("env-1", slacklab.Slash{User: "U0ALICE001", Channel: "C0DEPLOYS1", ChannelName: "deploys",
		Text: "diagnose web", ResponseURL: srv.ResponseURL("r")})); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.WaitCalls(wctx, "chat.postMessage", 1); err != nil {
		t.Fatalf("no report: %v\n%s", err, errb.String())
	}
	for !strings.Contains(out.String(), `"result":"broken"`) {
		select {
		case <-wctx.Done():
			t.Fatalf("no audit line on stdout: %q", out.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exited %d after SIGTERM-like cancel: %s", code, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	rep := srv.CallsTo("chat.postMessage")[0].Form.Get("text")
	if !strings.Contains(rep, "cluster lab") && !strings.Contains(srv.CallsTo("chat.postMessage")[0].Form.Get("blocks"), "cluster lab") {
		t.Errorf("the report should name the cluster: %s", rep)
	}
	if strings.Contains(out.String()+errb.String(), "canary") {
		t.Error("a token leaked into the output")
	}
}

func TestServeRefusesBadSetup(t *testing.T) {
	tokens := map[string]string{"IMGUPD_SLACK_BOT_TOKEN": "xoxb-1", "IMGUPD_SLACK_APP_TOKEN": "xapp-1", "IMGUPD_SLACK_API_URL": "http://127.0.0.1:1/"}
	cases := []struct {
		name, config string
		env          map[string]string
		want         string
	}{
		{"no rules", "access: {}\n", tokens, "access.rules is empty"},
		{"typo in a rule", "access:\n  rules:\n  - name: x\n    channels: ['*']\n    namespace: [team-a]\n", tokens, "namespace"},
		{"bad user", "access:\n  rules:\n  - name: x\n    users: [alice]\n", tokens, `user "alice" is not a Slack user ID`},
		{"no bot token", serveConfig, map[string]string{"IMGUPD_SLACK_APP_TOKEN": "xapp-1"}, "IMGUPD_SLACK_BOT_TOKEN is not set"},
		{"slack unreachable", serveConfig, tokens, "cannot reach Slack"},
		{"leader election without a cluster", serveConfig, tokens, "--leader-elect needs a cluster"},
		{"typo in serve", serveConfig + "serve:\n  listne: ':1'\n", tokens, "serve.listne is not a setting of \"serve\"; did you mean serve.listen?"},
		{"typo in slack", serveConfig + "slack:\n  bot_token: x\n", tokens, "slack.bot_token: unknown key"},
		{"schedule beyond its channel's rules", serveConfig + "schedules:\n- name: nightly\n  cron: '@daily'\n  channel: '#deploys'\n  scope: {namespaces: [argocd, team-a]}\n", tokens,
			"config schedules[0]: schedule nightly: scope namespaces [argocd, team-a], projects (any) goes beyond what the access rules grant everyone in #deploys (namespace team-a in project * not granted): rule deploys grants namespaces [argocd]"},
		{"typo in a schedule", serveConfig + "schedules:\n- name: nightly\n  cron: '@daily'\n  channel: '#deploys'\n  digests: daily\n", tokens,
			"config schedules[0].digests: not a key of a schedule; did you mean digest?"},
		{"typo in a cluster", serveConfig + "clusters:\n- name: eu\n  inclustr: true\n", tokens,
			"config clusters[0].inclustr: not a key of a cluster; did you mean inCluster?"},
		{"clusters with --lab", serveConfig + "clusters:\n- name: eu\n  inCluster: true\n", tokens,
			"--lab answers from one lab scenario"},
		{"a rule's cluster not configured", "clusters:\n- name: eu\n  inCluster: true\naccess:\n  rules:\n  - name: x\n    channels: ['*']\n    clusters: [us]\n", tokens,
			`access rule x: cluster "us" matches none of the clusters configured (eu)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"serve", "--config", writeConfig(t, c.config), "--lab", "healthy-kustomize-argocd", "--listen", "127.0.0.1:0"}
			if strings.HasPrefix(c.name, "leader") {
				args = append(args, "--leader-elect")
			}
			code, _, stderr := runCLI(t, c.env, args...)
			want := exitNoDecide
			if strings.HasPrefix(c.name, "typo in serve") {
				want = exitConfig // the config file's keys are read before serve starts
			}
			if code != want || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, want, c.want)
			}
		})
	}
}

// TestShippedConfigsAreAccepted: config.example.yaml and the ConfigMap in
// deploy/imgupd.yaml get through configuration and access-rule parsing;
// serve stops only because Slack cannot be reached.
func TestShippedConfigsAreAccepted(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/imgupd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cm struct {
		Kind string            `json:"kind"`
		Data map[string]string `json:"data"`
	}
	var embedded string
	for _, doc := range strings.Split(string(raw), "\n---") {
		if err := yaml.Unmarshal([]byte(doc), &cm); err == nil && cm.Kind == "ConfigMap" {
			embedded = cm.Data["imgupd.yaml"]
		}
	}
	if embedded == "" {
		t.Fatal("deploy/imgupd.yaml has no ConfigMap with imgupd.yaml")
	}
	env := map[string]string{"IMGUPD_SLACK_BOT_TOKEN": "xoxb-1", "IMGUPD_SLACK_APP_TOKEN": "xapp-1", "IMGUPD_SLACK_API_URL": "http://127.0.0.1:1/"}
	for name, path := range map[string]string{"config.example.yaml": "../../config.example.yaml", "deploy/imgupd.yaml": writeConfig(t, embedded)} {
		code, _, stderr := runCLI(t, env, "serve", "--config", path, "--lab", "healthy-kustomize-argocd", "--listen", "127.0.0.1:0")
		if code != exitNoDecide || !strings.Contains(stderr, "cannot reach Slack") {
			t.Errorf("%s: exit %d, %q; want only \"cannot reach Slack\"", name, code, stderr)
		}
	}
}

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	osexec "os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	testingclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

// The scheduled summaries on the real API server: a generated fleet stored there and read as
// imgupd's ServiceAccount with the shipped RBAC (deploy/rbac.yaml), the schedules' state in the
// ConfigMap imgupd-summaries written as that ServiceAccount, Slack faked by bot/slacklab, the
// schedule driven by a fake clock.

const (
	summaryCM      = "imgupd-summaries"
	summaryChannel = "C0FLEET001"
	summaryBot     = "xoxb-e2e-summary"
	summaryApp     = "xapp-e2e-summary"
)

var (
	summaryT0  = time.Date(2026, 11, 30, 8, 59, 30, 0, time.UTC)
	appsGVR    = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}
	fleetRules = &commands.Policy{Rules: []commands.Rule{{Name: "fleet", Channels: []string{summaryChannel}, Namespaces: []string{"argocd"}}}}
)

// summaryFleet stores a fleet in the API server; its reader reads as imgupd's ServiceAccount.
func summaryFleet(t *testing.T, spec lab.FleetSpec) (*lab.Env, *diagnostics.Engine) {
	t.Helper()
	env, cleanup := loadScenario(t, lab.FleetScenario(spec), nil)
	t.Cleanup(cleanup)
	reader, err := cluster.NewReader(asServiceAccount("imgupd", "imgupd"))
	if err != nil {
		t.Fatal(err)
	}
	reader.Logs = env.LogSource()
	env.UseCluster(reader)
	return env, env.Engine()
}

// freshStateConfigMap makes the schedules' ConfigMap empty again (as the admin), as the chart and
// deploy/rbac.yaml create it: each test starts without state. imgupd creates none.
func freshStateConfigMap(t *testing.T) *kubernetes.Clientset {
	t.Helper()
	admin, err := kubernetes.NewForConfig(srv.config)
	if err != nil {
		t.Fatal(err)
	}
	empty := func() error {
		cms := admin.CoreV1().ConfigMaps("imgupd")
		if err := cms.Delete(context.Background(), summaryCM, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		_, err := cms.Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: summaryCM, Namespace: "imgupd"}}, metav1.CreateOptions{})
		return err
	}
	if err := empty(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = empty() })
	return admin
}

// breakApp makes an Application's image not live (another repository runs), as the admin.
func breakApp(t *testing.T, name string) {
	t.Helper()
	dyn, err := dynamic.NewForConfig(srv.config)
	if err != nil {
		t.Fatal(err)
	}
	ri := dyn.Resource(appsGVR).Namespace("argocd")
	u, err := ri.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	status := u.Object["status"].(map[string]any)
	summary := status["summary"].(map[string]any)
	img := fmt.Sprint(summary["images"].([]any)[0])
	host, path, _ := strings.Cut(img, "/")
	summary["images"] = []any{host + "/other/" + path}
	updated, err := ri.Update(context.Background(), u, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	admin, err := newClient(srv.config)
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.settle(context.Background(), []*unstructured.Unstructured{updated}, false); err != nil {
		t.Fatal(err)
	}
}

type summaryBotRun struct {
	b      *bot.Bot
	cancel context.CancelFunc
	done   chan error
}

// runSummaryBot runs a bot with one schedule ("*/10 * * * *" in the fleet channel) whose state is
// kept as the ServiceAccount sa (in namespace imgupd); leader runs it under the Lease.
func runSummaryBot(t *testing.T, srv *slacklab.Server, eng *diagnostics.Engine, clock *testingclock.FakeClock, sa, leader string) *summaryBotRun {
	t.Helper()
	kc, err := cluster.NewClients(asServiceAccount("imgupd", sa))
	if err != nil {
		t.Fatal(err)
	}
	r := &summaryBotRun{done: make(chan error, 1)}
	r.b = bot.New(bot.Config{BotToken: summaryBot, AppToken: summaryApp, APIURL: srv.APIURL(), Log: slog.New(slog.DiscardHandler),
		Service:   &commands.Service{Apps: eng.Cluster, Engine: eng, Policy: fleetRules, Fleet: &fleet.Scanner{Engine: eng}},
		Schedules: []bot.Schedule{{Name: "fleet", Cron: "*/10 * * * *", Channel: summaryChannel, Scope: report.Scope{Namespaces: []string{"argocd"}}}},
		State:     &bot.ConfigMapStore{Client: kc.CoreV1(), Namespace: "imgupd", Name: summaryCM}, Clock: clock,
		ChannelRate: 100, ChannelBurst: 100})
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() {
		if leader == "" {
			r.done <- r.b.Run(ctx)
			return
		}
		// The Lease deploy/rbac.yaml creates and names: imgupd may create no other.
		r.done <- r.b.RunAsLeader(ctx, bot.LeaderConfig{Client: kc.CoordinationV1(), Namespace: "imgupd", Name: "imgupd", Identity: leader,
			LeaseDuration: 30 * time.Second, RenewDeadline: 20 * time.Second, RetryPeriod: 200 * time.Millisecond}) // a leader releases the Lease when it stops; a loaded API server renews in time
	}()
	return r
}

func (r *summaryBotRun) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	if err := <-r.done; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("the bot: %v", err)
	}
}

// summaryRuns is how many scheduled runs of "fleet" the bot made, by result ("" = all).
func summaryRuns(b *bot.Bot, result string) int {
	mfs, err := b.Metrics().Registry().Gather()
	if err != nil {
		return -1
	}
	n := 0
	for _, mf := range mfs {
		if mf.GetName() != "imgupd_summary_runs_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["schedule"] == "fleet" && (result == "" || labels["result"] == result) {
				n += int(m.GetCounter().GetValue())
			}
		}
	}
	return n
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute) // a net for what never happens, not a timing
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func storedState(t *testing.T, admin *kubernetes.Clientset) bot.ScheduleState {
	t.Helper()
	cm, err := admin.CoreV1().ConfigMaps("imgupd").Get(context.Background(), summaryCM, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var st bot.ScheduleState
	if err := json.Unmarshal([]byte(cm.Data["fleet.json"]), &st); err != nil {
		t.Fatalf("fleet.json: %v (%v)", err, cm.Data)
	}
	return st
}

// TestScheduledSummaryStateOnRealAPIServer: with the shipped Role, the first run creates the
// ConfigMap and posts; a run without change writes nothing to Slack; after a restart (a new
// process) a broken app updates the same message, posts one alert and keeps every other app's
// since; the ServiceAccount may change no other ConfigMap of its namespace.
func TestScheduledSummaryStateOnRealAPIServer(t *testing.T) {
	admin := freshStateConfigMap(t)
	_, eng := summaryFleet(t, lab.FleetSpec{Apps: 6, Repos: 2, Broken: 6})
	slack := slacklab.Start(slacklab.Config{BotToken: summaryBot, AppToken: summaryApp,
		Channels: []slacklab.Channel{{ID: summaryChannel, Name: "fleet", IsMember: true}}})
	defer slack.Close()
	clock := testingclock.NewFakeClock(summaryT0)
	tick := func(b *bot.Bot, d time.Duration) {
		t.Helper()
		before := summaryRuns(b, "")
		waitUntil(t, "the scheduler waits", clock.HasWaiters)
		clock.Step(d)
		waitUntil(t, "the run is over", func() bool { return summaryRuns(b, "") > before && clock.HasWaiters() })
	}

	a := runSummaryBot(t, slack, eng, clock, "imgupd", "")
	tick(a.b, 30*time.Second) // 09:00
	if summaryRuns(a.b, "posted") != 1 {
		t.Fatalf("the first run did not post (runs: %d errors)", summaryRuns(a.b, "error"))
	}
	first := storedState(t, admin)
	if first.MessageTS == "" || first.Channel != summaryChannel || len(first.Memory.Apps) != 6 || len(first.Thread) != 1 {
		t.Fatalf("state after the first run: %+v", first)
	}
	writes := len(slack.Calls())
	tick(a.b, 10*time.Minute) // 09:10
	if summaryRuns(a.b, "unchanged") != 1 {
		t.Fatalf("the second run: %d unchanged", summaryRuns(a.b, "unchanged"))
	}
	for _, c := range slack.Calls()[writes:] {
		if strings.HasPrefix(c.Method, "chat.") {
			t.Errorf("a run without change called %s", c.Method)
		}
	}
	a.stop(t)

	breakApp(t, "app-0001-r001")
	clock.Step(5 * time.Minute) // 09:15, restarted
	b := runSummaryBot(t, slack, eng, clock, "imgupd", "")
	defer b.stop(t)
	tick(b.b, 5*time.Minute) // 09:20
	if summaryRuns(b.b, "updated") != 1 {
		t.Fatalf("after the restart the change did not update the summary: %d posted, %d errors", summaryRuns(b.b, "posted"), summaryRuns(b.b, "error"))
	}
	after := storedState(t, admin)
	if after.MessageTS != first.MessageTS || after.Thread[0].TS != first.Thread[0].TS {
		t.Errorf("the restart moved the message: %+v, was %+v", after, first)
	}
	if u := slack.CallsTo("chat.update"); len(u) == 0 || u[0].Form.Get("ts") != first.MessageTS {
		t.Errorf("want chat.update of the first message: %+v", u)
	}
	posts := slack.CallsTo("chat.postMessage")
	if len(posts) != 3 || !strings.Contains(posts[2].Form.Get("text"), "app-0001-r001") {
		t.Errorf("want the summary, its page and one alert posted: %d posts", len(posts))
	}
	for app, seen := range after.Memory.Apps {
		switch {
		case app == "argocd/app-0001-r001":
			if seen.State != report.StateBlocked || !seen.Since.Equal(summaryT0.Add(20*time.Minute+30*time.Second)) {
				t.Errorf("%s: %+v", app, seen)
			}
		case !seen.Since.Equal(first.Memory.Apps[app].Since) || !seen.Since.Equal(summaryT0.Add(30*time.Second)):
			t.Errorf("%s's since changed over the restart: %v, was %v", app, seen.Since, first.Memory.Apps[app].Since)
		}
	}

	// The Role names the ConfigMap: no other may be changed.
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "imgupd-e2e-other", Namespace: "imgupd"}, Data: map[string]string{"k": "v"}}
	if _, err := admin.CoreV1().ConfigMaps("imgupd").Create(context.Background(), other, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	defer admin.CoreV1().ConfigMaps("imgupd").Delete(context.Background(), other.Name, metav1.DeleteOptions{})
	sa, err := kubernetes.NewForConfig(asServiceAccount("imgupd", "imgupd"))
	if err != nil {
		t.Fatal(err)
	}
	other.Data["k"] = "changed"
	if _, err := sa.CoreV1().ConfigMaps("imgupd").Update(context.Background(), other, metav1.UpdateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("imgupd may update another ConfigMap of its namespace: %v", err)
	}
	if _, err := sa.CoreV1().ConfigMaps("imgupd").Get(context.Background(), other.Name, metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("imgupd may read another ConfigMap of its namespace: %v", err)
	}
	mine := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "imgupd-e2e-created", Namespace: "imgupd"}}
	if _, err := sa.CoreV1().ConfigMaps("imgupd").Create(context.Background(), mine, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("imgupd may create ConfigMaps: %v", err)
		_ = admin.CoreV1().ConfigMaps("imgupd").Delete(context.Background(), mine.Name, metav1.DeleteOptions{})
	}
}

// TestOnlyTheLeaderRunsSchedulesOnRealAPIServer: two replicas, as imgupd's ServiceAccount,
// share the Lease and the ConfigMap; only the holder runs the schedule; the other takes over
// with the same message.
func TestOnlyTheLeaderRunsSchedulesOnRealAPIServer(t *testing.T) {
	freshStateConfigMap(t)
	_, eng := summaryFleet(t, lab.FleetSpec{Apps: 4, Repos: 2})
	slack := slacklab.Start(slacklab.Config{BotToken: summaryBot, AppToken: summaryApp,
		Channels: []slacklab.Channel{{ID: summaryChannel, Name: "fleet", IsMember: true}}})
	defer slack.Close()
	clock := testingclock.NewFakeClock(summaryT0)
	a := runSummaryBot(t, slack, eng, clock, "imgupd", "a")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a net for what never happens, not a timing
	defer cancel()
	if err := slack.WaitConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}
	b := runSummaryBot(t, slack, eng, clock, "imgupd", "b")
	waitUntil(t, "b is a standby", func() bool { ok, why := b.b.Health().Ready(); return ok && strings.Contains(why, "replica a holds") })
	waitUntil(t, "a's scheduler waits", clock.HasWaiters)
	if w := clock.Waiters(); w != 1 {
		t.Fatalf("%d schedulers wait, want the leader's only", w)
	}
	clock.Step(30 * time.Second)
	waitUntil(t, "a ran", func() bool { return summaryRuns(a.b, "") == 1 })
	if summaryRuns(b.b, "") != 0 || len(slack.CallsTo("chat.postMessage")) != 1 {
		t.Fatalf("the standby ran %d times; %d posts", summaryRuns(b.b, ""), len(slack.CallsTo("chat.postMessage")))
	}
	a.stop(t)
	if err := slack.WaitConnections(ctx, 2); err != nil {
		t.Fatalf("b did not take over: %v", err)
	}
	waitUntil(t, "b's scheduler waits", func() bool { return clock.Waiters() >= 1 })
	clock.Step(10 * time.Minute)
	waitUntil(t, "b ran", func() bool { return summaryRuns(b.b, "") == 1 })
	if summaryRuns(b.b, "unchanged") != 1 || len(slack.CallsTo("chat.postMessage")) != 1 || summaryRuns(a.b, "") != 1 {
		t.Errorf("after the failover: b %d unchanged, %d posts in all, a ran %d", summaryRuns(b.b, "unchanged"), len(slack.CallsTo("chat.postMessage")), summaryRuns(a.b, ""))
	}
	b.stop(t)
}

// TestSchedulesWithoutTheRoleFailClearly: a ServiceAccount without the summaries' Role stops
// at start with what to grant.
func TestSchedulesWithoutTheRoleFailClearly(t *testing.T) {
	kc, err := cluster.NewClients(asServiceAccount("imgupd", "no-such-account"))
	if err != nil {
		t.Fatal(err)
	}
	slack := slacklab.Start(slacklab.Config{BotToken: summaryBot, AppToken: summaryApp})
	defer slack.Close()
	b := bot.New(bot.Config{BotToken: summaryBot, AppToken: summaryApp, APIURL: slack.APIURL(), Log: slog.New(slog.DiscardHandler),
		Service:   &commands.Service{Policy: fleetRules, Fleet: &fleet.Scanner{}},
		Schedules: []bot.Schedule{{Name: "fleet", Cron: "@daily", Channel: summaryChannel, Scope: report.Scope{Namespaces: []string{"argocd"}}}},
		State:     &bot.ConfigMapStore{Client: kc.CoreV1(), Namespace: "imgupd", Name: summaryCM}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a net, not a timing
	defer cancel()
	// The leader, once it holds the Lease and has verified its tokens, reads the state first.
	err = b.Run(ctx)
	var se *bot.SetupError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "may not read its ConfigMap imgupd/imgupd-summaries") ||
		!strings.Contains(err.Error(), "grant get and update on configmaps named imgupd-summaries in imgupd") {
		t.Fatalf("want a clear RBAC error, got %v", err)
	}
	if n := slack.Connections(); n != 0 {
		t.Errorf("the bot connected to Slack without its state: %d connections", n)
	}
}

// TestChartRendersSchedules: config.schedules goes into imgupd's configuration file as written;
// the values schema refuses a misspelt key.
func TestChartRendersSchedules(t *testing.T) {
	helm := installTool(t, "helm")
	sched := `[{"name":"daily","cron":"0 9 * * 1-5","timezone":"Europe/Paris","channel":"#imgupd","scope":{"namespaces":["payments-*"]},"digest":"daily","alerts":false}]`
	out := runTool(t, ".", helm, "template", "imgupd", chartDir, "--namespace", "imgupd", "--set-json", "config.schedules="+sched, "-s", "templates/configmap.yaml")
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal(out, &cm); err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Schedules []bot.Schedule `json:"schedules"`
	}
	if err := yaml.Unmarshal([]byte(cm.Data["imgupd.yaml"]), &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Schedules) != 1 || cfg.Schedules[0].Cron != "0 9 * * 1-5" || cfg.Schedules[0].AlertsOn() || cfg.Schedules[0].Scope.Namespaces[0] != "payments-*" {
		t.Errorf("rendered schedules: %+v\n%s", cfg.Schedules, cm.Data["imgupd.yaml"])
	}
	bad := runFails(helm, "template", "imgupd", chartDir, "--set-json", `config.schedules=[{"name":"daily","cron":"@daily","chanel":"#imgupd"}]`)
	if bad == nil || !strings.Contains(bad.Error(), "chanel") {
		t.Errorf("the schema should refuse schedules[0].chanel: %v", bad)
	}
}

// runFails runs a command that should fail and returns its error with its output.
func runFails(bin string, args ...string) error {
	out, err := osexec.Command(bin, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	return nil
}

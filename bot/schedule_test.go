package bot_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/lab/kubefake"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

const alertsCh = "C0ALERTS01" // rule "alerts": anyone there, any Application

// t0 is just before the first run of the test schedules ("*/10 * * * *").
var t0 = time.Date(2026, 11, 30, 8, 59, 30, 0, time.UTC)

// fleetScenario is a generated fleet; annotate adds annotations to apps by index.
func fleetScenario(spec lab.FleetSpec, annotate map[int]map[string]string) *lab.Scenario {
	sc := lab.FleetScenario(spec)
	for i, ann := range annotate {
		re := regexp.MustCompile(fmt.Sprintf(`metadata: \{name: (app-%04d-r\d{3}), namespace: argocd\}`, i))
		b, _ := json.Marshal(ann)
		sc.Objects = re.ReplaceAllString(sc.Objects, "metadata: {name: $1, namespace: argocd, annotations: "+string(b)+"}")
	}
	return sc
}

var appsGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}

// setLive breaks (image not live: another repository runs) or repairs an app of the fleet in
// the lab's cluster.
func setLive(t testing.TB, env *lab.Env, name string, broken bool) {
	t.Helper()
	r := env.Engine().Cluster.(*cluster.Reader)
	ri := r.Dynamic.Resource(appsGVR).Namespace("argocd")
	u, err := ri.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	images, _, _ := unstructuredStrings(u.Object, "status", "summary", "images")
	if len(images) != 1 {
		t.Fatalf("%s images %v", name, images)
	}
	host, path, _ := strings.Cut(images[0], "/")
	path = strings.TrimPrefix(path, "other/")
	if broken {
		path = "other/" + path
	}
	status := u.Object["status"].(map[string]any)
	status["summary"].(map[string]any)["images"] = []any{host + "/" + path}
	if _, err := ri.Update(context.Background(), u, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func unstructuredStrings(obj map[string]any, fields ...string) ([]string, bool, error) {
	var cur any = obj
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false, nil
		}
		cur = m[f]
	}
	list, _ := cur.([]any)
	var out []string
	for _, v := range list {
		out = append(out, fmt.Sprint(v))
	}
	return out, len(out) > 0, nil
}

// schedules runs the bot with one schedule over the fleet, in #deploys, every ten minutes, on
// a fake clock, its state in a ConfigMap of kube.
func schedules(clock *testingclock.FakeClock, kube *kubefake.Clientset, s ...bot.Schedule) option {
	return func(c *bot.Config, sc *slacklab.Config) {
		if len(s) == 0 {
			s = []bot.Schedule{{Name: "fleet", Cron: "*/10 * * * *", Channel: deploys}}
		}
		c.Schedules = s
		c.Clock = clock
		c.State = &bot.ConfigMapStore{Client: kube.CoreV1(), Namespace: "imgupd", Name: bot.DefaultStateConfigMap}
		c.Service.Fleet = &fleet.Scanner{Engine: c.Service.Engine.(*diagnostics.Engine)}
		c.Service.Policy.Rules = append(c.Service.Policy.Rules, commands.Rule{Name: "alerts", Channels: []string{alertsCh}})
		sc.Channels = append(sc.Channels, slacklab.Channel{ID: alertsCh, Name: "alerts", IsMember: true})
		c.ChannelRate, c.ChannelBurst = 100, 100 // the tests count writes, not their pace
	}
}

// writes are the bot's calls that change something in Slack.
func writes(srv *slacklab.Server) int {
	n := 0
	for _, c := range srv.Calls() {
		switch c.Method {
		case "chat.postMessage", "chat.update", "chat.postEphemeral", "chat.delete", "reactions.add", "reactions.remove", "response_url":
			n++
		}
	}
	return n
}

// runs is how many scheduled runs ended with result.
func runs(t testing.TB, b *bot.Bot, schedule, result string) int {
	n, _ := strconv.Atoi(metric(t, b, fmt.Sprintf(`imgupd_summary_runs_total{result=%q,schedule=%q}`, result, schedule)))
	return n
}

func allRuns(t testing.TB, b *bot.Bot) int {
	n := 0
	for _, r := range []string{"posted", "digest", "updated", "unchanged", "error"} {
		n += runs(t, b, "fleet", r)
	}
	return n
}

// tick steps the fake clock to the next run once the scheduler waits, and waits until the
// run is over and the scheduler waits again.
func (h *harness) tick(clock *testingclock.FakeClock, d time.Duration) {
	h.t.Helper()
	before := allRuns(h.t, h.bot)
	h.waitFor("the scheduler waits", clock.HasWaiters)
	clock.Step(d)
	h.waitFor("the run is over", func() bool { return allRuns(h.t, h.bot) > before && clock.HasWaiters() })
}

func summaries(h *harness) []slacklab.Message {
	return h.messages(func(m slacklab.Message) bool {
		return m.Via == "chat.postMessage" && m.ThreadTS == "" && strings.Contains(m.Text, "Image Updater · fleet")
	})
}

func alerts(h *harness) []slacklab.Message {
	return h.messages(func(m slacklab.Message) bool {
		return m.Via == "chat.postMessage" && m.ThreadTS == "" && strings.Contains(string(m.Blocks), "imgupd_rerun") && !strings.Contains(m.Text, "Image Updater ·")
	})
}

func stateOf(t testing.TB, kube *kubefake.Clientset, schedule string) bot.ScheduleState {
	t.Helper()
	cm, err := kube.CoreV1().ConfigMaps("imgupd").Get(context.Background(), bot.DefaultStateConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var st bot.ScheduleState
	if err := json.Unmarshal([]byte(cm.Data[schedule+".json"]), &st); err != nil {
		t.Fatalf("%s.json: %v (%v)", schedule, err, cm.Data)
	}
	return st
}

// TestScheduledSummary: the first run posts the summary and its thread; a run with no change
// writes nothing to Slack; an app that breaks updates the message in place and posts one alert
// (in the channel its annotation names, which the rules grant it), and nothing more while it
// stays broken; its recovery updates the message and posts one recovery. An annotation naming
// a channel the rules do not grant the app is not followed.
func TestScheduledSummary(t *testing.T) {
	clock := testingclock.NewFakeClock(t0)
	kube := kubefake.NewClientset(stateConfigMap())
	sc := fleetScenario(lab.FleetSpec{Apps: 8, Repos: 2, Broken: 8}, map[int]map[string]string{
		1: {bot.AlertChannelAnnotation: alertsCh}, 2: {bot.AlertChannelAnnotation: "#random"}})
	h := startScenario(t, sc, schedules(clock, kube))

	h.tick(clock, 30*time.Second) // 09:00
	if runs(t, h.bot, "fleet", "posted") != 1 {
		t.Fatalf("the first run did not post: %s", h.dump())
	}
	msgs := summaries(h)
	if len(msgs) != 1 || msgs[0].Channel != deploys {
		t.Fatalf("want one summary in #deploys: %s", h.dump())
	}
	sum := msgs[0]
	for _, want := range []string{"1 of 8 app(s) need someone", "imgupd_summary_rerun", "app-0007-r001"} {
		if !strings.Contains(sum.Text+string(sum.Blocks), want) {
			t.Errorf("the summary lacks %q: %s", want, sum.Blocks)
		}
	}
	thread := h.messages(func(m slacklab.Message) bool { return m.ThreadTS == sum.TS })
	if len(thread) != 1 || !strings.Contains(string(thread[0].Blocks), "LIVE_IMAGE_NOT_LIVE") {
		t.Errorf("want one thread page with the blocked app: %s", h.dump())
	}
	st := stateOf(t, kube, "fleet")
	if st.MessageTS != sum.TS || st.Channel != deploys || len(st.Thread) != 1 || st.Thread[0].TS != thread[0].TS || st.Hash == "" {
		t.Errorf("state after the first run: %+v", st)
	}
	if len(alerts(h)) != 0 {
		t.Errorf("the first run alerts: %s", h.dump())
	}

	n := writes(h.srv)
	h.tick(clock, 10*time.Minute) // 09:10, nothing changed
	if runs(t, h.bot, "fleet", "unchanged") != 1 || writes(h.srv) != n {
		t.Fatalf("a run without change wrote to Slack: %d writes, %d before\n%s", writes(h.srv), n, h.dump())
	}

	setLive(t, h.env, "app-0001-r001", true)
	setLive(t, h.env, "app-0002-r000", true)
	h.tick(clock, 10*time.Minute) // 09:20
	if runs(t, h.bot, "fleet", "updated") != 1 {
		t.Fatalf("the change did not update the summary: %s", h.dump())
	}
	if posted := summaries(h); len(posted) != 1 {
		t.Errorf("the change posted a new summary instead of updating: %s", h.dump())
	}
	updates := h.srv.CallsTo("chat.update")
	if len(updates) != 2 || updates[0].Form.Get("ts") != sum.TS || updates[1].Form.Get("ts") != thread[0].TS {
		t.Errorf("want chat.update of the message and of its page: %+v", updates)
	}
	if m := h.srv.Messages(); !strings.Contains(findTS(m, sum.TS).Text, "3 blocked, 5 up to date") {
		t.Errorf("the updated summary: %q", findTS(m, sum.TS).Text)
	}
	al := alerts(h)
	if len(al) != 2 {
		t.Fatalf("want one alert per broken app: %s", h.dump())
	}
	byApp := map[string]slacklab.Message{}
	for _, m := range al {
		for _, app := range []string{"app-0001-r001", "app-0002-r000"} {
			if strings.Contains(m.Text, app) {
				byApp[app] = m
			}
		}
	}
	if m := byApp["app-0001-r001"]; m.Channel != alertsCh || !strings.Contains(m.Text, "argocd/app-0001-r001 is now blocked (LIVE_IMAGE_NOT_LIVE)") {
		t.Errorf("app-0001's alert should go to its annotated channel: %+v", m)
	}
	if m := byApp["app-0002-r000"]; m.Channel != deploys {
		t.Errorf("app-0002 names #random, which no rule grants it: its alert belongs in #deploys, got %+v", m)
	}
	if !strings.Contains(h.log.String(), "alert channel is not granted") {
		t.Error("the refused annotation is not logged")
	}
	if v := metric(t, h.bot, `imgupd_summary_alerts_total{kind="alert",schedule="fleet"}`); v != "2" {
		t.Errorf("alerts metric %q", v)
	}
	if v := metric(t, h.bot, `imgupd_summary_apps{schedule="fleet",state="blocked"}`); v != "3" {
		t.Errorf("blocked apps gauge %q", v)
	}
	broke := stateOf(t, kube, "fleet").Memory.Apps["argocd/app-0001-r001"]
	if broke.State != report.StateBlocked || !broke.Since.Equal(t0.Add(20*time.Minute+30*time.Second)) {
		t.Errorf("app-0001 in memory: %+v", broke)
	}

	n = writes(h.srv)
	h.tick(clock, 10*time.Minute) // 09:30: still broken, no new alert, nothing written
	if writes(h.srv) != n || len(alerts(h)) != 2 {
		t.Errorf("an app that stays broken was alerted again, or the summary rewritten: %s", h.dump())
	}

	setLive(t, h.env, "app-0001-r001", false)
	h.tick(clock, 10*time.Minute) // 09:40
	if runs(t, h.bot, "fleet", "updated") != 2 {
		t.Fatalf("the recovery did not update the summary: %s", h.dump())
	}
	recovered := h.messages(func(m slacklab.Message) bool {
		return m.Via == "chat.postMessage" && strings.Contains(m.Text, "argocd/app-0001-r001 recovered: up to date")
	})
	if len(recovered) != 1 || recovered[0].Channel != alertsCh || len(alerts(h)) != 3 {
		t.Errorf("want one recovery, in #alerts: %s", h.dump())
	}
}

func findTS(msgs []slacklab.Message, ts string) slacklab.Message {
	for _, m := range msgs {
		if m.TS == ts {
			return m
		}
	}
	return slacklab.Message{}
}

// TestScheduledSummarySurvivesRestart: a new process (same ConfigMap) keeps the message, its
// thread and every app's since; a run missed while it was down is made at start; a change
// then updates the same message.
func TestScheduledSummarySurvivesRestart(t *testing.T) {
	clock := testingclock.NewFakeClock(t0)
	kube := kubefake.NewClientset(stateConfigMap())
	sc := fleetScenario(lab.FleetSpec{Apps: 6, Repos: 2, Broken: 6}, nil)
	h := startScenario(t, sc, schedules(clock, kube))
	h.tick(clock, 30*time.Second) // 09:00: posted
	first := stateOf(t, kube, "fleet")
	h.stop()
	if err := <-h.done; err != nil {
		t.Fatal(err)
	}
	h.done <- nil

	// Down for 25 minutes (the 09:10 and 09:20 runs missed), one app broke meanwhile.
	clock.Step(25 * time.Minute)
	setLive(t, h.env, "app-0001-r001", true)
	eng := h.env.Engine()
	b := bot.New(bot.Config{BotToken: botToken, AppToken: appToken, APIURL: h.srv.APIURL(), Log: slog.New(slog.DiscardHandler),
		Service: &commands.Service{Apps: eng.Cluster, Engine: eng, Fleet: &fleet.Scanner{Engine: eng},
			Policy: &commands.Policy{Rules: []commands.Rule{{Name: "deploys", Channels: []string{deploys}}}}},
		Schedules: []bot.Schedule{{Name: "fleet", Cron: "*/10 * * * *", Channel: deploys}},
		State:     &bot.ConfigMapStore{Client: kube.CoreV1(), Namespace: "imgupd", Name: bot.DefaultStateConfigMap}, Clock: clock})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	defer func() { cancel(); <-done }()
	h.waitFor("the missed run is made at start", func() bool { return runs(t, b, "fleet", "updated") == 1 })

	after := stateOf(t, kube, "fleet")
	if after.MessageTS != first.MessageTS || after.Thread[0].TS != first.Thread[0].TS {
		t.Errorf("the message moved: %+v, was %+v", after, first)
	}
	if n := len(h.srv.CallsTo("chat.postMessage")); n != 2+1 { // summary, its page, one alert
		t.Errorf("%d chat.postMessage calls, want 3 (the restart posts only the alert)\n%s", n, h.dump())
	}
	if u := h.srv.CallsTo("chat.update"); len(u) == 0 || u[0].Form.Get("ts") != first.MessageTS {
		t.Errorf("the restart should update the first message: %+v", u)
	}
	for app, seen := range after.Memory.Apps {
		was := first.Memory.Apps[app]
		switch app {
		case "argocd/app-0001-r001":
			if seen.State != report.StateBlocked || !seen.Since.Equal(t0.Add(25*time.Minute+30*time.Second)) {
				t.Errorf("%s: %+v", app, seen)
			}
		default:
			if !seen.Since.Equal(was.Since) || !seen.Since.Equal(t0.Add(30*time.Second)) {
				t.Errorf("%s's since changed over the restart: %v, was %v", app, seen.Since, was.Since)
			}
		}
	}
}

// TestOnlyTheLeaderRunsSchedules: two replicas share the Lease and the ConfigMap; only the
// holder runs the schedule; after a failover the new leader carries on with the same message
// (a run with no change writes nothing).
func TestOnlyTheLeaderRunsSchedules(t *testing.T) {
	env, err := lab.Start(context.Background(), lab.FleetScenario(lab.FleetSpec{Apps: 4, Repos: 2}))
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	eng := env.Engine()
	srv := slacklab.Start(slacklab.Config{BotToken: botToken, AppToken: appToken,
		Channels: []slacklab.Channel{{ID: deploys, Name: "deploys", IsMember: true}}})
	defer srv.Close()
	kube := kubefake.NewClientset(stateConfigMap())
	clock := testingclock.NewFakeClock(t0)
	startReplica := func(id string) *replica {
		return startLeaderReplica(kube, id, bot.Config{BotToken: botToken, AppToken: appToken, APIURL: srv.APIURL(), Log: slog.New(slog.DiscardHandler),
			Service: &commands.Service{Apps: eng.Cluster, Engine: eng, Fleet: &fleet.Scanner{Engine: eng},
				Policy: &commands.Policy{Rules: []commands.Rule{{Name: "all", Channels: []string{"*"}}}}},
			Schedules: []bot.Schedule{{Name: "fleet", Cron: "*/10 * * * *", Channel: deploys}},
			State:     &bot.ConfigMapStore{Client: kube.CoreV1(), Namespace: "imgupd", Name: bot.DefaultStateConfigMap}, Clock: clock})
	}
	wait := func(what string, cond func() bool) { t.Helper(); waitUntil(t, what, cond) }
	total := func(r *replica) int {
		n := 0
		for _, res := range []string{"posted", "updated", "unchanged", "digest", "error"} {
			n += runs(t, r.b, "fleet", res)
		}
		return n
	}
	a := startReplica("replica-a")
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if err := srv.WaitConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}
	b := startReplica("replica-b")
	wait("b is a standby", func() bool {
		ok, why := b.b.Health().Ready()
		return ok && strings.Contains(why, "replica replica-a holds")
	})
	wait("a's scheduler waits", clock.HasWaiters)
	if w := clock.Waiters(); w != 1 {
		t.Fatalf("%d schedulers wait on the clock, want the leader's only", w)
	}
	clock.Step(30 * time.Second)
	wait("a ran the schedule", func() bool { return total(a) == 1 && clock.HasWaiters() })
	if total(b) != 0 || len(srv.CallsTo("chat.postMessage")) != 1 {
		t.Fatalf("b ran %d times; %d posts", total(b), len(srv.CallsTo("chat.postMessage")))
	}
	// The apps' states are the leader's to expose, and their since is the ConfigMap's: the
	// replica that stops leading drops them, the new leader's first scan shows the same since.
	sinceA := samples(scrape(a.b), "imgupd_app_state_since_timestamp_seconds")
	if len(sinceA) != 4 || len(samples(scrape(b.b), "imgupd_app_state")) != 0 {
		t.Errorf("a (leader) exposes %v; b (standby) %v", sinceA, samples(scrape(b.b), "imgupd_app_state"))
	}
	a.cancel()
	if err := <-a.done; err != nil {
		t.Fatalf("a: %v", err)
	}
	if got := samples(scrape(a.b), "imgupd_app_state"); len(got) != 0 {
		t.Errorf("a stopped leading and still exposes %v", got)
	}
	if err := srv.WaitConnections(ctx, 2); err != nil {
		t.Fatalf("b did not take over: %v", err)
	}
	before := len(srv.Calls())
	wait("b's scheduler waits", func() bool { return clock.Waiters() >= 1 })
	clock.Step(10 * time.Minute)
	wait("b ran the schedule", func() bool { return total(b) == 1 })
	if runs(t, b.b, "fleet", "unchanged") != 1 {
		t.Errorf("b's first run should find the summary unchanged (the state carried over): %d posted, %d updated", runs(t, b.b, "fleet", "posted"), runs(t, b.b, "fleet", "updated"))
	}
	for _, c := range srv.Calls()[before:] {
		if strings.HasPrefix(c.Method, "chat.") {
			t.Errorf("after the failover, a run with no change called %s", c.Method)
		}
	}
	if total(a) != 1 {
		t.Errorf("a ran after it stopped leading: %d", total(a))
	}
	if sinceB := samples(scrape(b.b), "imgupd_app_state_since_timestamp_seconds"); strings.Join(sinceB, "\n") != strings.Join(sinceA, "\n") {
		t.Errorf("after the failover the apps' since changed:\n a: %v\n b: %v", sinceA, sinceB)
	}
	b.cancel()
	if err := <-b.done; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("b: %v", err)
	}
}

// TestSchedulesWithoutTheRoleFailAtStart: a ServiceAccount that may not read or write the
// state's ConfigMap, or a ConfigMap that is not there (imgupd creates none), gets a start-up
// error naming what to grant or create, before it waits for the Lease.
func TestSchedulesWithoutTheRoleFailAtStart(t *testing.T) {
	for _, c := range []struct{ verb, want string }{
		{"get", "may not read its ConfigMap imgupd/imgupd-summaries, where the schedules keep their messages and states: grant get and update on configmaps named imgupd-summaries in imgupd"},
		{"update", "may not update its ConfigMap imgupd/imgupd-summaries, where the schedules keep their messages and states: grant get and update on configmaps named imgupd-summaries in imgupd"},
		{"missing", "the ConfigMap imgupd/imgupd-summaries, where the schedules keep their messages and states, does not exist: the Helm chart and deploy/rbac.yaml create it (imgupd creates none); without them: kubectl -n imgupd create configmap imgupd-summaries"},
	} {
		t.Run(c.verb, func(t *testing.T) {
			kube := kubefake.NewClientset(stateConfigMap())
			if c.verb == "missing" {
				kube = kubefake.NewClientset()
			} else {
				kube.PrependReactor(c.verb, "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, bot.DefaultStateConfigMap, errors.New("RBAC"))
				})
			}
			b := bot.New(bot.Config{BotToken: "xoxb-x", AppToken: "xapp-x", APIURL: "http://127.0.0.1:1/",
				Service:   &commands.Service{Policy: &commands.Policy{}, Fleet: &fleet.Scanner{}},
				Schedules: []bot.Schedule{{Name: "fleet", Cron: "@daily", Channel: deploys}},
				State:     &bot.ConfigMapStore{Client: kube.CoreV1(), Namespace: "imgupd", Name: bot.DefaultStateConfigMap}})
			ctx, cancel := context.WithTimeout(context.Background(), patience)
			defer cancel()
			err := b.RunAsLeader(ctx, bot.LeaderConfig{Client: kube.CoordinationV1(), Namespace: "imgupd", Name: "imgupd", Identity: "x"})
			var se *bot.SetupError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want a setup error: %s\ngot %v", c.want, err)
			}
			if _, err := kube.CoordinationV1().Leases("imgupd").Get(context.Background(), "imgupd", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("the replica took the Lease before failing: %v", err)
			}
			for _, a := range kube.Actions() {
				if a.GetVerb() == "create" {
					t.Errorf("imgupd created %s: it creates nothing", a.GetResource().Resource)
				}
			}
		})
	}
}

// stateConfigMap is the summaries' ConfigMap as the chart creates it: empty.
func stateConfigMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: bot.DefaultStateConfigMap, Namespace: "imgupd"}}
}

func TestConfigMapStoreRetriesConflicts(t *testing.T) {
	kube := kubefake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: bot.DefaultStateConfigMap, Namespace: "imgupd"},
		Data: map[string]string{"gone.json": "{}", "other": "kept"}})
	conflicts := 2
	kube.PrependReactor("update", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if conflicts > 0 {
			conflicts--
			return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, bot.DefaultStateConfigMap, errors.New("changed"))
		}
		return false, nil, nil
	})
	s := &bot.ConfigMapStore{Client: kube.CoreV1(), Namespace: "imgupd", Name: bot.DefaultStateConfigMap}
	ctx := context.Background()
	if err := s.Save(ctx, "fleet", bot.ScheduleState{MessageTS: "1.2", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Prune(ctx, []string{"fleet"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx)
	if err != nil || len(got) != 1 || got["fleet"].MessageTS != "1.2" {
		t.Fatalf("Load = %+v, %v", got, err)
	}
	cm, _ := kube.CoreV1().ConfigMaps("imgupd").Get(ctx, bot.DefaultStateConfigMap, metav1.GetOptions{})
	if cm.Data["other"] != "kept" || cm.Data["gone.json"] != "" {
		t.Errorf("data after Prune: %v", cm.Data)
	}
}

func TestValidateSchedules(t *testing.T) {
	p := &commands.Policy{Rules: []commands.Rule{
		{Name: "payments", Channels: []string{"#payments-deploys"}, Namespaces: []string{"payments", "payments-*"}, Projects: []string{"payments"}},
	}}
	ok := bot.Schedule{Name: "payments-daily", Cron: "0 9 * * 1-5", Timezone: "Europe/Paris", Channel: "#payments-deploys",
		Scope: report.Scope{Namespaces: []string{"payments-*"}, Projects: []string{"payments"}}, Digest: "daily"}
	if err := bot.ValidateSchedules([]bot.Schedule{ok}, p); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		mod  func(*bot.Schedule)
		want string
	}{
		{func(s *bot.Schedule) { s.Scope = report.Scope{} }, "schedule payments-daily: scope namespaces (any), projects (any) goes beyond what the access rules grant everyone in #payments-deploys"},
		{func(s *bot.Schedule) { s.Scope.Projects = nil }, "rule payments grants namespaces [payments, payments-*] and projects [payments]"},
		{func(s *bot.Schedule) { s.Name = "Payments" }, `name "Payments"`},
		{func(s *bot.Schedule) { s.Cron = "0 9 * *" }, "4 fields: give five"},
		{func(s *bot.Schedule) { s.Cron = "0 0 9 * * *" }, "6 fields"},
		{func(s *bot.Schedule) { s.Cron = "61 9 * * *" }, `cron "61 9 * * *"`},
		{func(s *bot.Schedule) { s.Cron = "@every 10s" }, "at most one run a minute"},
		{func(s *bot.Schedule) { s.Cron = "CRON_TZ=UTC 0 9 * * *" }, "timezone key"},
		{func(s *bot.Schedule) { s.Timezone = "Mars/Olympus" }, "not an IANA time zone"},
		{func(s *bot.Schedule) { s.Channel = "*" }, `channel "*" is neither`},
		{func(s *bot.Schedule) { s.Channel = "#random" }, "no access rule admits everyone in #random"},
		{func(s *bot.Schedule) { s.Digest = "weekly" }, `digest "weekly"`},
		{func(s *bot.Schedule) { s.Scope.Selector = "a in ((" }, "selector"},
	}
	for _, c := range cases {
		s := ok
		s.Scope.Namespaces = append([]string{}, ok.Scope.Namespaces...)
		c.mod(&s)
		err := bot.ValidateSchedules([]bot.Schedule{s}, p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", s, err, c.want)
		}
	}
	if err := bot.ValidateSchedules([]bot.Schedule{ok, ok}, p); err == nil || !strings.Contains(err.Error(), "used by another schedule") {
		t.Errorf("duplicate names: %v", err)
	}
	for _, cron := range []string{"@daily", "@hourly", "@every 6h", "*/15 8-18 * * mon-fri"} {
		s := ok
		s.Cron = cron
		if err := bot.ValidateSchedules([]bot.Schedule{s}, p); err != nil {
			t.Errorf("%s: %v", cron, err)
		}
	}
}

// TestScheduledDigestAndPages: digest daily posts a new message on a new day even when nothing
// changed (and not twice a day); when the summary needs fewer thread pages, the surplus pages
// are emptied in place; a message deleted in Slack is posted again.
func TestScheduledDigestAndPages(t *testing.T) {
	clock := testingclock.NewFakeClock(t0)
	kube := kubefake.NewClientset(stateConfigMap())
	h := startScenario(t, fleetScenario(lab.FleetSpec{Apps: 300, Repos: 4, Broken: 2}, nil),
		schedules(clock, kube, bot.Schedule{Name: "fleet", Cron: "*/10 * * * *", Channel: deploys, Digest: bot.DigestDaily}))
	h.tick(clock, 30*time.Second) // day 1, 09:00
	first := stateOf(t, kube, "fleet")
	if runs(t, h.bot, "fleet", "posted") != 1 || len(first.Thread) < 2 {
		t.Fatalf("want the summary posted with several pages: %d pages\n%s", len(first.Thread), h.dump())
	}
	h.tick(clock, 10*time.Minute) // 09:10, same day, nothing changed
	if runs(t, h.bot, "fleet", "unchanged") != 1 {
		t.Errorf("a second run the same day should write nothing")
	}

	// Most apps recover: the summary needs one page; the others are emptied, not deleted.
	recovered := 0
	for i := 11; i < 300; i += 2 {
		setLive(t, h.env, fmt.Sprintf("app-%04d-r%03d", i, i%4), false)
		recovered++
	}
	h.tick(clock, 10*time.Minute) // 09:20
	st := stateOf(t, kube, "fleet")
	if runs(t, h.bot, "fleet", "updated") != 1 || len(st.Thread) != len(first.Thread) {
		t.Fatalf("after the recoveries: %d updated, %d pages (were %d)", runs(t, h.bot, "fleet", "updated"), len(st.Thread), len(first.Thread))
	}
	msgs := h.srv.Messages()
	if last := findTS(msgs, st.Thread[len(st.Thread)-1].TS); !strings.Contains(last.Text, "Nothing more here") {
		t.Errorf("the surplus page should be emptied: %q", last.Text)
	}
	if v := metric(t, h.bot, `imgupd_summary_alerts_total{kind="recovery",schedule="fleet"}`); v != strconv.Itoa(recovered) {
		t.Errorf("recoveries %q, want %d", v, recovered)
	}
	storm := h.messages(func(m slacklab.Message) bool {
		return strings.Contains(m.Text, fmt.Sprintf("%d more apps changed in this run of fleet", recovered-10))
	})
	if len(alerts(h)) != 10 || len(storm) != 1 {
		t.Errorf("an alert storm: want 10 alerts and one message for the other %d, got %d alerts, %d grouped", recovered-10, len(alerts(h)), len(storm))
	}

	clock.Step(24 * time.Hour) // day 2, 09:20: the waiter fires at 09:30 of day 1, a run at once
	h.waitFor("the digest", func() bool { return runs(t, h.bot, "fleet", "digest") == 1 && clock.HasWaiters() })
	digest := stateOf(t, kube, "fleet")
	if digest.MessageTS == first.MessageTS || digest.DigestDay != "2026-12-01" || len(summaries(h)) != 2 {
		t.Errorf("the next day's digest should be a new message: %+v", digest)
	}

	// Someone deleted the message: the next change posts a new one.
	h.srv.FailNext("chat.update", 1, "message_not_found")
	setLive(t, h.env, "app-0003-r003", false)
	h.tick(clock, 10*time.Minute)
	if runs(t, h.bot, "fleet", "posted") != 2 || len(summaries(h)) != 3 {
		t.Errorf("a lost message should be posted again: %d posted, %d summaries", runs(t, h.bot, "fleet", "posted"), len(summaries(h)))
	}
}

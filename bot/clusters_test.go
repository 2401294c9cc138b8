package bot_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/lab/kubefake"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
)

// A schedule over several clusters: each app named with its cluster, the one cluster that
// cannot be read one unknown line, and the metrics' cluster label each app's own.
func TestScheduledSummaryAcrossClusters(t *testing.T) {
	clock := testingclock.NewFakeClock(t0)
	kube := kubefake.NewClientset(stateConfigMap())
	sc := fleetScenario(lab.FleetSpec{Apps: 4, Repos: 2, Broken: 4}, nil)
	acrossClusters := func(c *bot.Config, _ *slacklab.Config) {
		eng := c.Service.Engine.(*diagnostics.Engine)
		c.Service.Clusters = []commands.Cluster{
			{Name: "eu", Apps: eng.Cluster, Engine: eng, Fleet: &fleet.Scanner{Engine: eng}},
			{Name: "us", Down: errors.New("cluster us: Secret imgupd/imgupd-cluster-us: not found")},
		}
		c.Service.Fleet = nil
		c.MaxAppSeries = 2
	}
	h := startScenario(t, sc, schedules(clock, kube, bot.Schedule{Name: "fleet", Cron: "*/10 * * * *", Channel: deploys, Clusters: []string{"eu", "us"}}), acrossClusters)

	h.tick(clock, 30*time.Second)
	if runs(t, h.bot, "fleet", "posted") != 1 {
		t.Fatalf("the first run did not post: %s", h.dump())
	}
	msgs := summaries(h)
	if len(msgs) != 1 {
		t.Fatalf("want one summary: %s", h.dump())
	}
	body := msgs[0].Text + string(msgs[0].Blocks)
	for _, want := range []string{"eu:argocd/app-0003-r001", "cluster us: every Application unknown", "Secret imgupd/imgupd-cluster-us", "clusters eu, us"} {
		if !strings.Contains(body, want) {
			t.Errorf("the summary lacks %q: %s", want, body)
		}
	}
	text := scrape(h.bot)
	if !strings.Contains(text, `imgupd_app_state{app="app-0000-r000",cluster="eu"`) {
		t.Errorf("/metrics: no app of cluster eu:\n%s", strings.Join(samples(text, "imgupd_app_state"), "\n"))
	}
	// The scan's duration: one series per cluster, its own scan's; no "default" cluster.
	got := samples(text, "imgupd_scan_duration_seconds_count")
	// Over the cap of 2 series, eu's other two apps are counted as dropped in eu.
	got = append(got, samples(text, "imgupd_app_state_dropped_total")...)
	for _, want := range []string{`imgupd_scan_duration_seconds_count{cluster="eu",result="ok"} 1`, `imgupd_scan_duration_seconds_count{cluster="us",result="error"} 1`,
		`imgupd_app_state_dropped_total{cluster="eu"} 2`} {
		if !slices.Contains(got, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, strings.Join(got, "\n"))
		}
	}
	if strings.Contains(text, `cluster="default"`) {
		t.Errorf("/metrics has a cluster \"default\":\n%s", text)
	}
}

// Buttons over several clusters: a report of cluster us names it in every button, so that its
// Re-run answers for us though eu has an Application of the same name; a button's value is
// read as a typed command, so a forged one naming a cluster the clicker is not granted gets the
// answer a typed command naming it gets, the one for a cluster that does not exist.
func TestButtonsKeepTheirCluster(t *testing.T) {
	t.Parallel() // its own labs, fake Slack and bot
	usScenario, ok := lab.Builtin("article-2-allow-tags-match-nothing")
	if !ok {
		t.Fatal("no scenario article-2-allow-tags-match-nothing")
	}
	usEnv, err := lab.Start(context.Background(), usScenario)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(usEnv.Close)
	us := usEnv.Engine()
	us.Options.ClusterName = "us"
	h := start(t, "healthy-kustomize-argocd", func(c *bot.Config, _ *slacklab.Config) {
		eu := c.Service.Engine.(*diagnostics.Engine)
		eu.Options.ClusterName = "eu"
		c.Service.Clusters = []commands.Cluster{
			{Name: "eu", Apps: eu.Cluster, Engine: eu, Fleet: &fleet.Scanner{Engine: eu}},
			{Name: "us", Apps: us.Cluster, Engine: us, Fleet: &fleet.Scanner{Engine: us}},
		}
		c.Service.Policy = &commands.Policy{Rules: []commands.Rule{
			{Name: "deploys", Channels: []string{deploys}},
			{Name: "eu-only", Channels: []string{random}, Clusters: []string{"eu"}},
		}}
	})
	h.send(slacklab.SlashCommand("env-c-1", slash(alice, deploys, "diagnose web --cluster us", h.srv.ResponseURL("c1"))))
	h.waitFor("us's report is posted", func() bool { return len(h.messages(isReport("argocd/web"))) == 1 })
	rep := h.messages(isReport("argocd/web"))[0]
	for _, want := range []string{`"value":"argocd/web --cluster us"`, "cluster us"} {
		if !strings.Contains(string(rep.Blocks), want) {
			t.Errorf("us's report lacks %s: %s", want, rep.Blocks)
		}
	}
	click := func(env, user, channel, channelName, action, value string) {
		h.send(slacklab.BlockAction(env, slacklab.Action{User: user, UserName: strings.ToLower(user), Channel: channel, ChannelName: channelName,
			MessageTS: rep.TS, ActionID: action, BlockID: "imgupd_actions", Value: value, ResponseURL: h.srv.ResponseURL("b-" + env)}))
	}
	// Re-run: us's report again, in the thread, though web is in eu too (without --cluster the
	// answer would ask which).
	click("env-c-2", alice, deploys, "deploys", "imgupd_rerun", "argocd/web --cluster us")
	h.waitFor("Re-run posts us's report in the thread", func() bool {
		return len(h.messages(func(m slacklab.Message) bool { return isReport("argocd/web")(m) && m.ThreadTS == rep.TS })) == 1
	})
	again := h.messages(func(m slacklab.Message) bool { return isReport("argocd/web")(m) && m.ThreadTS == rep.TS })[0]
	if !strings.Contains(string(again.Blocks), "cluster us") || strings.Contains(string(again.Blocks), "cluster eu") {
		t.Errorf("Re-run did not answer for us: %s", again.Blocks)
	}
	// The same value, forged, clicked from a channel whose rule grants eu only; then typed there.
	click("env-c-3", eve, random, "random", "imgupd_rerun", "argocd/web --cluster us")
	h.send(slacklab.SlashCommand("env-c-4", slash(eve, random, "diagnose web --cluster us", h.srv.ResponseURL("c4"))))
	h.send(slacklab.SlashCommand("env-c-5", slash(eve, random, "diagnose web --cluster uk", h.srv.ResponseURL("c5"))))
	h.waitFor("the three are answered", func() bool { return len(h.auditLines()) == 5 })
	byEnv := map[string]map[string]any{}
	for _, a := range h.auditLines() {
		byEnv[a["envelope"].(string)] = a
	}
	forged, typed, missing := byEnv["env-c-3"], byEnv["env-c-4"], byEnv["env-c-5"]
	if forged["result"] != "not_found" || typed["result"] != "not_found" || forged["app"] != nil {
		t.Errorf("a forged us button for eu only: %v (typed: %v)", forged, typed)
	}
	var forgedText, missingText []string
	for _, m := range h.messages(func(m slacklab.Message) bool { return strings.Contains(m.Text, "no cluster") }) {
		switch {
		case strings.Contains(m.Text, "`us`"):
			forgedText = append(forgedText, m.Text)
		case strings.Contains(m.Text, "`uk`"):
			missingText = append(missingText, m.Text)
		}
	}
	if len(forgedText) != 2 || len(missingText) != 1 || forgedText[0] != forgedText[1] || forgedText[0] != strings.ReplaceAll(missingText[0], "uk", "us") {
		t.Errorf("the forged button's and the typed command's answers %q are not that of a cluster that does not exist (%q): %s", forgedText, missingText, h.dump())
	}
	if n := len(h.messages(func(m slacklab.Message) bool { return isReport("argocd/web")(m) })); n != 2 || missing["result"] != "not_found" {
		t.Errorf("%d reports of web; a cluster not configured: %v", n, missing)
	}

	// A summary of us alone: its Re-run names us.
	h.send(slacklab.SlashCommand("env-c-6", slash(alice, deploys, "summary --cluster us", h.srv.ResponseURL("c6"))))
	isSummary := func(m slacklab.Message) bool {
		return m.Via == "chat.postMessage" && m.ThreadTS == "" && strings.Contains(m.Text, "Image Updater summary")
	}
	h.waitFor("the summary is posted", func() bool { return len(h.messages(isSummary)) == 1 })
	sum := h.messages(isSummary)[0]
	if !strings.Contains(string(sum.Blocks), `"value":"{\"cluster\":\"us\"}"`) {
		t.Errorf("the summary's Re-run does not name us: %s", sum.Blocks)
	}
	rep = sum
	click("env-c-7", alice, deploys, "deploys", "imgupd_summary_rerun", `{"cluster":"us"}`)
	h.waitFor("its Re-run answers in the thread", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.ThreadTS == sum.TS && strings.Contains(m.Text, "Image Updater summary") && strings.Contains(string(m.Blocks), "cluster us")
		})) == 1
	})
	// A cluster that is not a name is refused before it is typed.
	click("env-c-8", alice, deploys, "deploys", "imgupd_summary_rerun", `{"cluster":"us -n kube-system"}`)
	h.waitFor("the forged value is refused", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Ephemeral && strings.Contains(m.Text, "--invalid-button-value")
		})) == 1
	})
}

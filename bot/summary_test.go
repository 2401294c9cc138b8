package bot_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
)

// paymentsFleet is a generated fleet whose every third app (app-0000, app-0003, …) is in Argo
// CD project payments.
func paymentsFleet(spec lab.FleetSpec) *lab.Scenario {
	sc := lab.FleetScenario(spec)
	re := regexp.MustCompile(`(metadata: \{name: app-(\d{4})-r\d{3}, namespace: argocd\}\nspec:\n  project: )default`)
	sc.Objects = re.ReplaceAllStringFunc(sc.Objects, func(m string) string {
		if i, _ := strconv.Atoi(re.FindStringSubmatch(m)[2]); i%3 == 0 {
			return re.ReplaceAllString(m, "${1}payments")
		}
		return m
	})
	sc.Objects += "---\napiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: payments, namespace: argocd}\nspec:\n  sourceRepos: [\"*\"]\n  destinations: [{server: \"*\", namespace: \"*\"}]\n"
	return sc
}

// onlyPayments: #deploys may see project payments only; the platform group sees everything.
func onlyPayments(c *bot.Config, _ *slacklab.Config) {
	c.Service.Policy = &commands.Policy{Rules: []commands.Rule{
		{Name: "payments", Channels: []string{deploys}, Projects: []string{"payments"}},
		{Name: "platform", Groups: []string{platform}, Channels: []string{"*"}},
	}}
	c.Service.Fleet = &fleet.Scanner{Engine: c.Service.Engine.(*diagnostics.Engine)}
}

func isSummary(m slacklab.Message) bool {
	return m.Via == "chat.postMessage" && strings.Contains(string(m.Blocks), "imgupd_summary_rerun")
}

// TestSummaryOnDemand: /imgupd summary in a channel posts the summary of what that channel
// may see, with no trace of the rest, and pages the details in its thread; Re-run runs it
// again for the one who clicks — the platform group sees every app, which only its own rule
// grants, so that summary is for the clicker alone; a mention answers in its thread; a forged
// button value is refused.
func TestSummaryOnDemand(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := startScenario(t, paymentsFleet(lab.FleetSpec{Apps: 12, Repos: 3, Broken: 4}), onlyPayments)
	h.send(slacklab.SlashCommand("env-sum-1", slash(alice, deploys, "summary", h.srv.ResponseURL("s1"))))
	ack, err := h.srv.WaitAck(h.ctx(), "env-sum-1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ack.Payload), "Scanning every Application") {
		t.Errorf("progress note: %s", ack.Payload)
	}
	h.waitFor("the summary is posted", func() bool { return len(h.messages(isSummary)) == 1 })
	sum := h.messages(isSummary)[0]
	if sum.Channel != deploys || sum.ThreadTS != "" {
		t.Errorf("the summary should be a top-level message in the channel: %+v", sum)
	}
	if !strings.Contains(sum.Text+string(sum.Blocks), "4 app(s)") || strings.Contains(sum.Text+string(sum.Blocks), "not shown") {
		t.Errorf("the summary: %s %s", sum.Text, sum.Blocks)
	}
	all := sum.Text + string(sum.Blocks)
	for _, m := range h.messages(func(m slacklab.Message) bool { return m.ThreadTS == sum.TS }) {
		all += m.Text + string(m.Blocks)
	}
	for _, app := range regexp.MustCompile(`app-(\d{4})-r\d{3}`).FindAllStringSubmatch(all, -1) {
		if i, _ := strconv.Atoi(app[1]); i%3 != 0 {
			t.Errorf("#deploys may not see %s (project default), but the summary shows it", app[0])
		}
	}
	if !strings.Contains(all, "app-0003-r000") || !strings.Contains(sum.Text, "1 blocked, 3 up to date") { // app-0003: payments, and broken (Broken: 4)
		t.Errorf("the summary should show the blocked payments app: %s", all)
	}
	h.waitFor("the audit line", func() bool { return len(h.auditLines()) == 1 })
	if a := h.auditLines()[0]; a["command"] != "summary" || a["result"] != "summary" || a["hidden"] != nil || a["apps"] != float64(4) {
		t.Errorf("audit: %v", a)
	}

	click := func(env, user, value string) {
		h.send(slacklab.BlockAction(env, slacklab.Action{User: user, UserName: strings.ToLower(user), Channel: deploys, ChannelName: "deploys",
			MessageTS: sum.TS, ActionID: "imgupd_summary_rerun", BlockID: "imgupd_summary_actions", Value: value, ResponseURL: h.srv.ResponseURL("b-" + env)}))
	}
	click("env-sum-2", carol, `{}`)
	carolSummary := func(m slacklab.Message) bool {
		return m.Via == "chat.postEphemeral" && m.User == carol && strings.Contains(string(m.Blocks), "imgupd_summary_rerun")
	}
	h.waitFor("Re-run shows the clicker's summary to the clicker", func() bool { return len(h.messages(carolSummary)) == 1 })
	again := h.messages(carolSummary)[0]
	if !strings.Contains(again.Text+string(again.Blocks), "12 app(s)") || !strings.Contains(string(again.Blocks), "the access rule `platform` grants you Applications in this summary, not this channel") {
		t.Errorf("carol (platform) should see all 12 apps, privately: %s", again.Blocks)
	}
	if n := len(h.messages(func(m slacklab.Message) bool { return isSummary(m) && m.ThreadTS == sum.TS })); n != 0 {
		t.Errorf("carol's summary was posted for the channel (%d)", n)
	}
	click("env-sum-3", alice, `{"namespaces":["argocd"],"evil":1}`)
	h.waitFor("a forged value is refused to the clicker", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Ephemeral && m.User == alice && strings.Contains(m.Text, "unknown option")
		})) == 1
	})

	const ts = "1718031600.000001"
	h.srv.AddUserMessage(deploys, ts, "", "@imgupd summary --project payments")
	h.send(slacklab.AppMention("env-sum-4", slacklab.Mention{User: alice, Channel: deploys, Text: "<@U0BOTUSER1> summary --project payments --name app-000*", TS: ts}))
	h.waitFor("the mention's summary is in its thread", func() bool {
		return len(h.messages(func(m slacklab.Message) bool { return isSummary(m) && m.ThreadTS == ts })) == 1
	})
	m := h.messages(func(m slacklab.Message) bool { return isSummary(m) && m.ThreadTS == ts })[0]
	if strings.Contains(string(m.Blocks), "not shown") || !strings.Contains(string(m.Blocks), "projects payments, names app-000∗") {
		t.Errorf("a scope within the channel's grant hides nothing: %s", m.Blocks)
	}
	h.waitFor("✅ on the mention", func() bool { r := h.srv.Reactions(deploys, ts); return len(r) == 1 && r[0] == "white_check_mark" })

	h.send(slacklab.SlashCommand("env-sum-5", slash(alice, deploys, "summary --projects payments", h.srv.ResponseURL("s5"))))
	ack, err = h.srv.WaitAck(h.ctx(), "env-sum-5")
	if err != nil || !strings.Contains(string(ack.Payload), "did you mean --project?") {
		t.Errorf("a misspelt option: %s %v", ack.Payload, err)
	}
}

// TestSummaryInADirectMessage: `summary` written to the bot directly is answered in the
// conversation, its details in the summary's thread.
func TestSummaryInADirectMessage(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := startScenario(t, lab.FleetScenario(lab.FleetSpec{Apps: 6, Repos: 2, Broken: 3}), allowDMs, func(c *bot.Config, _ *slacklab.Config) {
		c.Service.Fleet = &fleet.Scanner{Engine: c.Service.Engine.(*diagnostics.Engine)}
	})
	const ts = "1718032200.000001"
	h.srv.AddUserMessage(aliceDM, ts, "", "summary")
	h.send(slacklab.DirectMessage("env-dm-sum", slacklab.DM{User: alice, Channel: aliceDM, Text: "summary", TS: ts}))
	h.waitFor("the summary is in the DM", func() bool {
		return len(h.messages(func(m slacklab.Message) bool { return isSummary(m) && m.Channel == aliceDM && m.ThreadTS == "" })) == 1
	})
	sum := h.messages(func(m slacklab.Message) bool { return isSummary(m) && m.Channel == aliceDM })[0]
	h.waitFor("its details are in its thread", func() bool {
		return len(h.messages(func(m slacklab.Message) bool { return m.Channel == aliceDM && m.ThreadTS == sum.TS })) > 0
	})
	if !strings.Contains(sum.Text, "2 blocked, 4 up to date") {
		t.Errorf("summary: %s", sum.Text)
	}
}

// TestSummaryProgressNote: a slash command's summary that runs past ProgressAfter replaces its
// "Scanning …" note with how far the scan is, at most twice, and before the answer is posted
// (the notes are posted from the scan itself); the note is the asker's alone.
func TestSummaryProgressNote(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	soon := func(c *bot.Config, _ *slacklab.Config) {
		c.ProgressAfter, c.ProgressEvery = time.Nanosecond, time.Nanosecond
	}
	h := startScenario(t, paymentsFleet(lab.FleetSpec{Apps: 12, Repos: 3, Broken: 4}), onlyPayments, soon)
	h.send(slacklab.SlashCommand("env-sum-p", slash(alice, deploys, "summary", h.srv.ResponseURL("sp"))))
	h.waitFor("the summary is posted", func() bool { return len(h.messages(isSummary)) == 1 })
	var notes []int
	summaryAt := -1
	for i, m := range h.srv.Messages() {
		switch {
		case isSummary(m):
			summaryAt = i
		case m.Via == "response_url" && m.ResponseID == "sp":
			if !m.ReplaceOriginal || !m.Ephemeral || !regexp.MustCompile(`^:hourglass_flowing_sand: Scanning every Application .*: [1-3] of 4 apps diagnosed after [0-9]+s…$`).MatchString(m.Text) {
				t.Errorf("progress note: replace %v ephemeral %v %q", m.ReplaceOriginal, m.Ephemeral, m.Text)
			}
			notes = append(notes, i)
		}
	}
	if len(notes) == 0 || len(notes) > 2 {
		t.Errorf("%d progress notes, want 1 or 2", len(notes))
	}
	for _, i := range notes {
		if i > summaryAt {
			t.Errorf("a progress note came after the answer (message %d, the summary %d)", i, summaryAt)
		}
	}
}

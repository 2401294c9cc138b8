package bot_test

import (
	"strings"
	"testing"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
)

// onlyArgocd: #deploys may see namespace argocd only; the platform group sees everything.
func onlyArgocd(c *bot.Config, _ *slacklab.Config) {
	c.Service.Policy = &commands.Policy{Rules: []commands.Rule{
		{Name: "deploys", Channels: []string{deploys}, Namespaces: []string{"argocd"}},
		{Name: "platform", Groups: []string{platform}, Channels: []string{"*"}},
	}}
	c.Service.Fleet = &fleet.Scanner{Engine: c.Service.Engine.(*diagnostics.Engine)}
}

func whereFleet(t *testing.T) *lab.Scenario {
	t.Helper()
	sc, err := lab.Fleet("where-web")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func isWhere(m slacklab.Message) bool {
	return strings.Contains(m.Text, "apps that use it") && m.ThreadTS == "" && m.Via == "chat.postMessage"
}

// TestWhereInSlack: /imgupd where IMAGE:TAG in #deploys answers in the channel with the apps
// that channel may see (namespace argocd), each in its group, and no trace of team's apps;
// a mention in a thread answers there; bad input gets the grammar and a suggestion.
func TestWhereInSlack(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	h := startScenario(t, whereFleet(t), onlyArgocd)
	image := h.env.Vars["REGISTRY"] + "/team/web:1.2.0"
	h.send(slacklab.SlashCommand("env-where-1", slash(alice, deploys, "where "+image, h.srv.ResponseURL("w1"))))
	if _, err := h.srv.WaitAck(h.ctx(), "env-where-1"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the where answer is posted", func() bool { return len(h.messages(isWhere)) == 1 })
	m := h.messages(isWhere)[0]
	all := m.Text + string(m.Blocks)
	if !strings.Contains(m.Text, "runs in 1 of the 4 apps that use it") {
		t.Errorf("header/notification: %s", m.Text)
	}
	for _, want := range []string{"argocd/web`", "argocd/web-next", "argocd/web-private", "argocd/web-legacy", "REGISTRY_PULL_SECRET_MISSING", "will be picked next cycle", "blocked", "wrong update"} {
		if !strings.Contains(all, want) {
			t.Errorf("the answer lacks %q: %s", want, all)
		}
	}
	for _, hidden := range []string{"team/web", "web-stable", "team-web"} {
		if strings.Contains(strings.ReplaceAll(all, "/team/web", ""), hidden) {
			t.Errorf("#deploys may not see namespace team, but the answer names %q: %s", hidden, all)
		}
	}

	// carol's group may see namespace team too, which only her own rule grants: her answer is
	// hers alone, with team's apps.
	h.send(slacklab.AppMention("env-where-m", slacklab.Mention{User: carol, Channel: deploys, Text: "<@U0BOTUSER1> where " + image, TS: "1718031400.000100"}))
	carols := func(m slacklab.Message) bool {
		return m.Via == "chat.postEphemeral" && m.User == carol && strings.Contains(m.Text, "apps that use it")
	}
	h.waitFor("carol's private answer", func() bool { return len(h.messages(carols)) == 1 })
	if c := h.messages(carols)[0]; !strings.Contains(c.Text, "of the 6 apps") || !strings.Contains(string(c.Blocks), "team/web-stable") {
		t.Errorf("carol's answer: %s %s", c.Text, c.Blocks)
	}
	if n := len(h.messages(func(m slacklab.Message) bool { return isWhere(m) && strings.Contains(m.Text, "of the 6 apps") })); n != 0 {
		t.Errorf("carol's answer, with apps #deploys may not see, was posted for the channel (%d)", n)
	}

	h.send(slacklab.SlashCommand("env-where-2", slash(alice, deploys, "where team web", h.srv.ResponseURL("w2"))))
	ack, err := h.srv.WaitAck(h.ctx(), "env-where-2")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ack.Payload), "where takes one image") {
		t.Errorf("bad input: %s", ack.Payload)
	}
}

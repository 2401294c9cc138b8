package bot_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/lab/recorder"
	"github.com/imgupd/imgupd/report"
)

// The vault team's Applications: #deploys may not see them (project vault), the platform
// group may. vault-loner is not managed by Image Updater.
var vaultApps = []string{"secret-0001", "secret-0002", "vault-loner"}

// vaultFleet is a generated fleet (project default) plus what the vault team owns: a CR for
// its apps, their image repository team/secret, their git repository secret.git, the pull
// secret secret-regcred (a canary credential), project vault. withApps adds the vault team's
// Applications; without them the cluster is the same in every other object.
func vaultFleet(withApps bool) *lab.Scenario {
	sc := lab.FleetScenario(lab.FleetSpec{Apps: 6, Repos: 2, Broken: 3, Due: 2})
	sc.Registry.Repositories["team/secret"] = []lab.Image{{Tag: "1.0.0", Created: "2026-01-01T00:00:00Z"}, {Tag: "1.0.1", Created: "2026-02-01T00:00:00Z"}}
	files := map[string]string{}
	for _, name := range vaultApps {
		files["apps/"+name+"/kustomization.yaml"] = "resources:\n- deployment.yaml\nimages:\n- name: ${REGISTRY}/team/secret\n"
		files["apps/"+name+"/deployment.yaml"] = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: ${REGISTRY}/team/secret:1.0.0\n"
	}
	sc.Git.Repositories["secret"] = lab.Repo{DefaultBranch: "main", Branches: map[string]lab.Branch{"main": {Files: files}}}
	sc.Objects += `---
apiVersion: argocd-image-updater.argoproj.io/v1alpha1
kind: ImageUpdater
metadata: {name: vault, namespace: argocd}
spec:
  applicationRefs:
  - namePattern: "secret-*"
    images:
    - alias: app
      imageName: "${REGISTRY}/team/secret"
      commonUpdateSettings: {pullSecret: "pullsecret:argocd/secret-regcred"}
      manifestTargets: {kustomize: {name: "${REGISTRY}/team/secret"}}
---
apiVersion: v1
kind: Secret
type: kubernetes.io/dockerconfigjson
metadata: {name: secret-regcred, namespace: argocd}
stringData:
  .dockerconfigjson: '{"auths":{"${REGISTRY}":{"auth":"dmF1bHQ6Y2FuYXJ5LXZhdWx0LXB3"}}}'
---
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: vault, namespace: argocd}
spec:
  sourceRepos: ["*"]
  destinations: [{server: "*", namespace: "*"}]
`
	if withApps {
		for _, name := range vaultApps {
			live := "${REGISTRY}/team/secret:1.0.0"
			if name == "secret-0002" {
				live = "${REGISTRY}/other/team/secret:1.0.0" // not live: a report with details
			}
			sc.Objects += fmt.Sprintf(`---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: %s, namespace: argocd, labels: {team: vault}}
spec:
  project: vault
  source: {repoURL: "${GIT}/secret.git", path: apps/%s, targetRevision: main, kustomize: {}}
  destination: {server: "https://kubernetes.default.svc", namespace: %s}
  syncPolicy: {automated: {prune: true, selfHeal: true}}
status:
  sourceType: Kustomize
  summary: {images: ["%s"]}
  sync: {status: Synced, revision: abc123}
  health: {status: Healthy}
`, name, name, name, live)
		}
	}
	return sc
}

// summaryAt is the scans' clock in these tests: answers do not depend on when they ran.
var summaryAt = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// vaultAccess: #deploys may see project default; the platform group (carol) everything,
// anywhere, by its own rule. Every read goes through the seam.
func vaultAccess(s **recorder.Log) option {
	return func(c *bot.Config, sc *slacklab.Config) {
		c.Service.Policy = &commands.Policy{Rules: []commands.Rule{
			{Name: "deploys", Channels: []string{deploys}, Projects: []string{"default"}},
			{Name: "platform", Groups: []string{platform}, Channels: []string{"*"}},
		}}
		eng, apps, rec := recorder.Wrap(c.Service.Engine.(*diagnostics.Engine))
		c.Service.Engine, c.Service.Apps = eng, apps
		c.Service.Fleet = &fleet.Scanner{Engine: eng, Now: func() time.Time { return summaryAt }}
		sc.Channels = append(sc.Channels, slacklab.Channel{ID: shared, Name: "ext-partners", IsMember: true, IsExtShared: true})
		*s = rec
	}
}

const shared = "C0SHARED01" // a Slack Connect channel

// unlab puts the lab's placeholders back in place of its servers' addresses, which differ
// between two labs.
func unlab(env *lab.Env, s string) string {
	for k, v := range env.Vars {
		if v != "" {
			s = strings.ReplaceAll(s, v, "${"+k+"}")
		}
	}
	return s
}

// payload is a message as the test compares it: where it went and what it says, bytes as sent.
func payload(env *lab.Env, m slacklab.Message) string {
	return unlab(env, fmt.Sprintf("%s ephemeral=%v user=%s channel=%s threaded=%v response=%s\n%s\n%s",
		m.Via, m.Ephemeral, m.User, m.Channel, m.ThreadTS != "", m.ResponseID, m.Text, m.Blocks))
}

// TestHiddenAppsChangeNoAnswer: two clusters that differ only in Applications alice may not
// see in #deploys (project vault) give her byte-identical answers — summaries of every scope
// (probes for the hidden apps' names, project and namespace included), diagnose, tags and
// logs of a hidden app, with or without its namespace, and their "did you mean" — and the
// cluster with them reads exactly what the cluster without them reads: nothing of the hidden
// apps' repositories, registry, pull secret or project.
func TestHiddenAppsChangeNoAnswer(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	cmds := []string{
		"summary",
		"summary --name secret*",
		"summary --name vault*",
		"summary --project vault",
		"summary -n argocd --selector team=vault",
		"summary -n argocd",
		"diagnose secret-0001",
		"diagnose argocd/secret-0001",
		"diagnose secret-0001 -n argocd",
		"tags secret-0002 app -n argocd",
		"logs vault-loner",
		"diagnose secret-000",
		"diagnose app-0001-r001",
	}
	run := func(withApps bool) ([][]string, []string, *lab.Env) {
		var rec *recorder.Log
		h := startScenario(t, vaultFleet(withApps), vaultAccess(&rec), unpaced)
		var answers [][]string
		seen := 0
		for i, text := range cmds {
			env := fmt.Sprintf("env-hidden-%d", i)
			h.send(slacklab.SlashCommand(env, slash(alice, deploys, text, h.srv.ResponseURL(env))))
			h.waitFor("the answer to "+text, func() bool { return len(h.auditLines()) == i+1 })
			all := h.srv.Messages()
			var msgs []string
			for _, m := range all[seen:] {
				msgs = append(msgs, payload(h.env, m))
			}
			seen = len(all)
			answers = append(answers, msgs)
		}
		// A mention too: "not found" is posted in its thread for everyone, with ❔.
		const ts = "1718033000.000001"
		h.srv.AddUserMessage(deploys, ts, "", "@imgupd logs secret-0001")
		h.send(slacklab.AppMention("env-hidden-m", slacklab.Mention{User: alice, Channel: deploys, Text: "<@U0BOTUSER1> logs secret-0001", TS: ts}))
		h.waitFor("the mention's answer", func() bool { return len(h.auditLines()) == len(cmds)+1 })
		h.waitFor("its reaction", func() bool { r := h.srv.Reactions(deploys, ts); return len(r) == 1 && r[0] != "eyes" })
		var msgs []string
		for _, m := range h.srv.Messages()[seen:] {
			msgs = append(msgs, payload(h.env, m))
		}
		answers = append(answers, append(msgs, "reactions "+strings.Join(h.srv.Reactions(deploys, ts), ",")))
		var reads []string
		for _, r := range rec.Reads() {
			reads = append(reads, unlab(h.env, r))
		}
		slices.Sort(reads)
		return answers, reads, h.env
	}
	with, withReads, _ := run(true)
	without, withoutReads, _ := run(false)

	for i := range with {
		what := "the mention"
		if i < len(cmds) {
			what = cmds[i]
		}
		if !slices.Equal(with[i], without[i]) {
			t.Errorf("%s: the answers differ\nwith the hidden apps:\n%s\nwithout them:\n%s", what, strings.Join(with[i], "\n"), strings.Join(without[i], "\n"))
		}
		if len(with[i]) == 0 {
			t.Errorf("%s: no answer", what)
		}
	}
	// The answers say what the tests mean: the channel's six apps, and "not found".
	if s := strings.Join(with[0], "\n"); !strings.Contains(s, "6 app(s)") || strings.Contains(s, "not shown") || strings.Contains(s, "not managed") {
		t.Errorf("the summary: %s", s)
	}
	if s := strings.Join(with[7], "\n"); !strings.Contains(s, "no Application `secret-0001` in namespace `argocd`") {
		t.Errorf("diagnose argocd/secret-0001: %s", s)
	}
	if s := strings.Join(with[len(cmds)-1], "\n"); !strings.Contains(s, "argocd/app-0001-r001") {
		t.Errorf("diagnose app-0001-r001: %s", s)
	}

	if !slices.Equal(withReads, withoutReads) {
		t.Errorf("the reads differ:\nwith the hidden apps:\n%s\nwithout them:\n%s", strings.Join(withReads, "\n"), strings.Join(withoutReads, "\n"))
	}
	for _, r := range withReads {
		for _, hidden := range []string{"team/secret", "secret.git", "secret-regcred", "appproject argocd/vault"} {
			if strings.Contains(r, hidden) {
				t.Errorf("read for the hidden apps: %s", r)
			}
		}
		if !strings.HasPrefix(r, "application ") {
			for _, name := range vaultApps {
				if strings.Contains(r, name) {
					t.Errorf("read about a hidden app: %s", r)
				}
			}
		}
	}
	if !slices.ContainsFunc(withReads, func(r string) bool { return strings.HasPrefix(r, "tags team/svc-") }) {
		t.Errorf("the seam saw no registry read at all: %v", withReads)
	}
}

// TestPersonalGrantsAnswerPrivately: what only the platform group's rule grants carol (project
// vault) is answered to her alone, saying so — after a slash command through its response_url,
// after a mention (in #deploys, or a Slack Connect channel) and a click as ephemeral messages,
// details included — with 🔒 on the mention instead of the verdict; what #deploys may see is
// public; a click on a public report is decided for the clicker.
func TestPersonalGrantsAnswerPrivately(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	var rec *recorder.Log
	h := startScenario(t, vaultFleet(true), vaultAccess(&rec))
	const note = "Only you can see this: the access rule `platform` grants you `argocd/secret-0001`, not this channel."

	h.send(slacklab.SlashCommand("env-p-1", slash(carol, deploys, "diagnose secret-0001", h.srv.ResponseURL("p1"))))
	h.waitFor("carol's report, through the response_url", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Via == "response_url" && m.ResponseID == "p1" && strings.Contains(string(m.Blocks), note) && strings.Contains(m.Text, "argocd/secret-0001")
		})) == 1
	})
	h.waitFor("the audit line", func() bool { return len(h.auditLines()) == 1 })
	if a := h.auditLines()[0]; a["private"] != true || a["rule"] != "platform" || a["app"] != "argocd/secret-0001" {
		t.Errorf("audit: %v", a)
	}

	for i, ch := range []string{deploys, shared} {
		ts := fmt.Sprintf("1718033100.00000%d", i+1)
		h.srv.AddUserMessage(ch, ts, "", "@imgupd diagnose secret-0001")
		h.send(slacklab.AppMention(fmt.Sprintf("env-p-m%d", i), slacklab.Mention{User: carol, Channel: ch, Text: "<@U0BOTUSER1> diagnose secret-0001", TS: ts}))
		h.waitFor("🔒 on the mention in "+ch, func() bool { r := h.srv.Reactions(ch, ts); return len(r) == 1 && r[0] == "lock" })
		eph := h.messages(func(m slacklab.Message) bool {
			return m.Channel == ch && m.Via == "chat.postEphemeral" && m.User == carol
		})
		if len(eph) == 0 || !strings.Contains(string(eph[0].Blocks), note) || eph[0].ThreadTS != "" {
			t.Errorf("%s: the first ephemeral message should be the report with the note, at the top level: %+v", ch, eph)
		}
		if pub := h.messages(func(m slacklab.Message) bool { return m.Channel == ch && m.Via == "chat.postMessage" }); len(pub) != 0 {
			t.Errorf("%s: %d public message(s) for carol's private report: %s", ch, len(pub), pub[0].Text)
		}
	}

	// A report with details: all of them to carol alone, the note on the first.
	h.send(slacklab.SlashCommand("env-p-3", slash(carol, deploys, "diagnose secret-0002", h.srv.ResponseURL("p3"))))
	h.waitFor("the audit line of the report with details", func() bool { return len(h.auditLines()) == 4 })
	withDetails := h.messages(func(m slacklab.Message) bool { return m.ResponseID == "p3" })
	if len(withDetails) < 2 || !strings.Contains(string(withDetails[0].Blocks), "grants you `argocd/secret-0002`") || !strings.Contains(withDetails[0].Text, "blocked") {
		t.Errorf("the report and its details through the response_url: %d message(s)", len(withDetails))
	}

	// What the channel may see is the channel's, even for carol.
	h.send(slacklab.SlashCommand("env-p-2", slash(carol, deploys, "diagnose app-0001-r001", h.srv.ResponseURL("p2"))))
	h.waitFor("the public report", func() bool { return len(h.messages(isReport("argocd/app-0001-r001"))) == 1 })
	rep := h.messages(isReport("argocd/app-0001-r001"))[0]
	if strings.Contains(string(rep.Blocks), "Only you can see this") {
		t.Errorf("a public report with the private note: %s", rep.Blocks)
	}

	// Buttons of that public report, pointed at the vault app, decided for each clicker.
	click := func(env, user, action, value string) {
		h.send(slacklab.BlockAction(env, slacklab.Action{User: user, UserName: strings.ToLower(user), Channel: deploys, ChannelName: "deploys",
			MessageTS: rep.TS, ActionID: action, BlockID: "imgupd_actions", Value: value, ResponseURL: h.srv.ResponseURL("b-" + env)}))
	}
	click("env-p-b1", alice, "imgupd_rerun", "argocd/secret-0001")
	h.waitFor("alice: not found, to her alone", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Via == "chat.postEphemeral" && m.User == alice && strings.Contains(m.Text, "no Application `secret-0001` in namespace `argocd`")
		})) == 1
	})
	click("env-p-b2", carol, "imgupd_tags", "argocd/secret-0001")
	h.waitFor("carol: the tags, to her alone", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Via == "chat.postEphemeral" && m.User == carol && strings.Contains(m.Text, "candidate tags for argocd/secret-0001") && strings.Contains(string(m.Blocks), "grants you `argocd/secret-0001`")
		})) == 1
	})
	if pub := h.messages(func(m slacklab.Message) bool {
		return m.Via == "chat.postMessage" && strings.Contains(m.Text+string(m.Blocks), "secret-0001")
	}); len(pub) != 0 {
		t.Errorf("the vault app reached the channel: %s", pub[0].Text)
	}
	for _, m := range h.messages(func(slacklab.Message) bool { return true }) {
		if strings.Contains(m.Text+string(m.Blocks), "Y2FuYXJ5") || strings.Contains(m.Text+string(m.Blocks), "canary-vault") {
			t.Errorf("the vault pull secret reached Slack: %s", m.Text)
		}
	}
}

// gate holds every diagnosis until it is opened, and counts those waiting at it.
type gate struct {
	commands.Diagnoser
	open    chan struct{}
	mu      sync.Mutex
	waiting int
}

func (g *gate) Diagnose(ctx context.Context, req diagnostics.Request) *report.Report {
	g.mu.Lock()
	g.waiting++
	g.mu.Unlock()
	select {
	case <-g.open:
	case <-ctx.Done():
	}
	return g.Diagnoser.Diagnose(ctx, req)
}

func (g *gate) Waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.waiting
}

// TestOnePersonCannotTakeEveryTurn: with one turn per person, alice's second diagnosis while
// her first runs is answered "busy" at once, to her alone (after a slash command through its
// response_url, after a mention as an ephemeral message with ⌛); explain takes no turn; carol
// still gets a turn; once the first answers, alice has her turn back.
func TestOnePersonCannotTakeEveryTurn(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	g := &gate{open: make(chan struct{})}
	h := start(t, "healthy-kustomize-argocd", func(c *bot.Config, _ *slacklab.Config) {
		g.Diagnoser = c.Service.Engine
		c.Service.Engine = g
		c.MaxConcurrentPerUser = 1
	})
	h.send(slacklab.SlashCommand("env-busy-1", slash(alice, deploys, "diagnose web", h.srv.ResponseURL("busy1"))))
	h.waitFor("alice's first diagnosis runs", func() bool { return g.Waiting() == 1 })
	h.send(slacklab.SlashCommand("env-busy-2", slash(alice, deploys, "diagnose web", h.srv.ResponseURL("busy2"))))
	const busy = "imgupd is busy for you: you already have 1 command that reads the cluster running or waiting (at most 1 at once per person"
	h.waitFor("alice's second is busy", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Via == "response_url" && m.ResponseID == "busy2" && strings.Contains(m.Text, busy)
		})) == 1
	})
	const ts = "1718033200.000001"
	h.srv.AddUserMessage(deploys, ts, "", "@imgupd tags web")
	h.send(slacklab.AppMention("env-busy-m", slacklab.Mention{User: alice, Channel: deploys, Text: "<@U0BOTUSER1> tags web", TS: ts}))
	h.waitFor("the mention is busy, to alice alone, with ⌛", func() bool {
		r := h.srv.Reactions(deploys, ts)
		return len(r) == 1 && r[0] == "hourglass" && len(h.messages(func(m slacklab.Message) bool {
			return m.Via == "chat.postEphemeral" && m.User == alice && strings.Contains(m.Text, busy)
		})) == 1
	})
	h.send(slacklab.SlashCommand("env-busy-3", slash(alice, deploys, "explain LIVE_IMAGE_NOT_LIVE", h.srv.ResponseURL("busy3"))))
	h.waitFor("explain takes no turn", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.ResponseID == "busy3" && strings.Contains(m.Text, "LIVE_IMAGE_NOT_LIVE:")
		})) == 1
	})
	h.send(slacklab.SlashCommand("env-busy-4", slash(carol, deploys, "diagnose web", h.srv.ResponseURL("busy4"))))
	h.waitFor("carol's diagnosis runs beside alice's", func() bool { return g.Waiting() == 2 })
	close(g.open)
	h.waitFor("both reports", func() bool { return len(h.messages(isReport("argocd/web"))) == 2 })
	h.send(slacklab.SlashCommand("env-busy-5", slash(alice, deploys, "diagnose web", h.srv.ResponseURL("busy5"))))
	h.waitFor("alice's turn is back", func() bool { return len(h.messages(isReport("argocd/web"))) == 3 })
	h.waitFor("every command audited", func() bool { return len(h.auditLines()) == 6 })
	busyLines := 0
	for _, a := range h.auditLines() {
		if a["result"] == "busy" {
			busyLines++
		}
	}
	if busyLines != 2 {
		t.Errorf("%d busy audit lines, want 2", busyLines)
	}
	if v := metric(t, h.bot, `imgupd_commands_total{command="diagnose",result="busy"}`); v != "1" {
		t.Errorf("busy diagnoses counted %q, want 1", v)
	}
}

// TestGroupDMsAreNotChannels: a group DM (mpim) matches no rule, not even "*": a slash
// command there (Slack names it mpdm-…) and a mention there (conversations.info says is_mpim)
// get a refusal that says why, to the asker alone. A private channel Slack names
// "privategroup" is looked up and its rules apply by name; when the lookup fails, rules for
// every channel do not apply (rules naming it by ID still do).
func TestGroupDMsAreNotChannels(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	const group, ops = "G0GROUPDM1", "G0OPSPRIV1"
	h := start(t, "healthy-kustomize-argocd", func(c *bot.Config, s *slacklab.Config) {
		c.Service.Policy = &commands.Policy{Rules: []commands.Rule{
			{Name: "anywhere", Channels: []string{"*"}, Namespaces: []string{"argocd"}},
			{Name: "ops", Channels: []string{"#ops"}},
			{Name: "deploys-by-id", Channels: []string{deploys}},
		}}
		s.Channels = append(s.Channels,
			slacklab.Channel{ID: group, Name: "mpdm-alice--carol--eve-1", IsMember: true, IsMPIM: true},
			slacklab.Channel{ID: ops, Name: "ops", IsMember: true, IsPrivate: true})
	})
	const refusal = "imgupd does not answer in group direct messages"
	h.send(slacklab.SlashCommand("env-g-1", slacklab.Slash{User: alice, UserName: "alice", Channel: group, ChannelName: "mpdm-alice--carol--eve-1", Text: "diagnose web", ResponseURL: h.srv.ResponseURL("g1")}))
	h.waitFor("the slash command's refusal", func() bool {
		return len(h.messages(func(m slacklab.Message) bool { return m.ResponseID == "g1" && strings.Contains(m.Text, refusal) })) == 1
	})
	const ts = "1718033300.000001"
	h.srv.AddUserMessage(group, ts, "", "@imgupd diagnose web")
	h.send(slacklab.AppMention("env-g-m", slacklab.Mention{User: alice, Channel: group, Text: "<@U0BOTUSER1> diagnose web", TS: ts}))
	h.waitFor("the mention's refusal, to alice alone, with ⛔", func() bool {
		r := h.srv.Reactions(group, ts)
		return len(r) == 1 && r[0] == "no_entry" && len(h.messages(func(m slacklab.Message) bool {
			return m.Channel == group && m.Via == "chat.postEphemeral" && m.User == alice && strings.Contains(m.Text, refusal)
		})) == 1
	})
	if n := len(h.srv.CallsTo("chat.postMessage")); n != 0 {
		t.Errorf("%d public message(s) in a group DM", n)
	}

	h.send(slacklab.SlashCommand("env-g-2", slacklab.Slash{User: alice, UserName: "alice", Channel: ops, ChannelName: "privategroup", Text: "diagnose web", ResponseURL: h.srv.ResponseURL("g2")}))
	h.waitFor("#ops, named privategroup, gets the report", func() bool {
		return len(h.messages(func(m slacklab.Message) bool { return isReport("argocd/web")(m) && m.Channel == ops })) == 1
	})

	// The lookup fails: "*" does not apply, the rule naming #deploys by ID does.
	h.srv.FailNext("conversations.info", 1, "internal_error")
	const ts2 = "1718033300.000002"
	h.srv.AddUserMessage(random, ts2, "", "@imgupd diagnose web")
	h.send(slacklab.AppMention("env-g-u", slacklab.Mention{User: alice, Channel: random, Text: "<@U0BOTUSER1> diagnose web", TS: ts2}))
	h.waitFor("an unknown conversation is refused, saying a lookup failed", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return m.Channel == random && m.Via == "chat.postEphemeral" && strings.Contains(m.Text, "no access rule admits you") && strings.Contains(string(m.Blocks), "internal_error")
		})) == 1
	})
	h.srv.FailNext("conversations.info", 1, "internal_error")
	const ts3 = "1718033300.000003"
	h.srv.AddUserMessage(deploys, ts3, "", "@imgupd diagnose web")
	h.send(slacklab.AppMention("env-g-d", slacklab.Mention{User: alice, Channel: deploys, Text: "<@U0BOTUSER1> diagnose web", TS: ts3}))
	h.waitFor("a rule naming the channel by ID still applies", func() bool {
		return len(h.messages(func(m slacklab.Message) bool {
			return isReport("argocd/web")(m) && m.Channel == deploys && m.ThreadTS == ts3
		})) == 1
	})
}

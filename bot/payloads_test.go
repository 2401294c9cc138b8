package bot_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/internal/testtier"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/present/blockkit"
	"github.com/imgupd/imgupd/report"
)

// TestEveryPayloadWithinLimitsAndSecretFree renders every answer the bot
// can send, over every built-in scenario (diagnose, tags, logs, refusals,
// not found, bad input, help, a summary of the scenario's fleet, every catalogue entry), checks each
// message against Slack's documented limits and rules (blockkit.Validate),
// reads it back as Slack shows it (nothing may be live), and checks that no
// secret of the scenario (registry and git passwords, Secret data) appears in it.
func TestEveryPayloadWithinLimitsAndSecretFree(t *testing.T) {
	testtier.ContentOnly(t)
	scs, err := lab.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	everyone := &commands.Policy{Rules: []commands.Rule{{Name: "all", Channels: []string{"*"}}}}
	nobody := &commands.Policy{Rules: []commands.Rule{{Name: "other", Channels: []string{"C0ELSEWHRE"}}}}
	pr := commands.Principal{User: "U0ALICE001", Channel: "C0DEPLOYS1"}
	// The scenarios run in parallel (t.Parallel: each waits mostly on its loopback servers and git
	// processes); the counts are summed under mu.
	var mu sync.Mutex
	checked, secretCount := 0, 0
	check := func(t *testing.T, where string, secrets []string, res commands.Result) {
		t.Helper()
		for i, m := range bot.Payloads(res) {
			for _, err := range blockkit.Validate(blockkit.Payload{Message: m}) {
				t.Errorf("%s message %d: %v", where, i, err)
			}
			data, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			shown, err := slacklab.ShowMessage(data)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range shown.Live {
				t.Errorf("%s message %d carries a live sequence: %s", where, i, l)
			}
			for _, s := range secrets {
				if strings.Contains(string(data), s) {
					t.Errorf("%s message %d contains the secret %q", where, i, s)
				}
			}
			mu.Lock()
			checked++
			mu.Unlock()
		}
	}
	t.Run("scenarios", func(t *testing.T) {
		for _, sc := range scs {
			t.Run(sc.Name, func(t *testing.T) {
				t.Parallel()
				scenarioPayloads(t, sc, everyone, nobody, pr, func(secrets []string) {
					mu.Lock()
					secretCount += len(secrets)
					mu.Unlock()
				}, check)
			})
		}
	})
	svc := &commands.Service{Policy: everyone}
	for _, e := range report.Catalogue() {
		check(t, "explain "+string(e.Code), nil, svc.Handle(context.Background(), pr, commands.Explain{Code: string(e.Code)}))
	}
	check(t, "help", nil, svc.Handle(context.Background(), pr, commands.Help{}))
	check(t, "summary", nil, svc.Handle(context.Background(), pr, commands.Summary{}))
	_, perr := commands.Parse("diagnsoe web")
	check(t, "invalid", nil, commands.Result{Kind: commands.KindInvalid, Text: perr.Error() + "\n\n" + commands.HelpText()})
	if secretCount < 5 {
		t.Errorf("only %d secrets found in the scenarios: the canary check would check nothing", secretCount)
	}
	if checked < 5*len(scs) {
		t.Errorf("only %d messages checked", checked)
	}
}

// scenarioPayloads checks every answer about one scenario's app (see
// TestEveryPayloadWithinLimitsAndSecretFree).
func scenarioPayloads(t *testing.T, sc *lab.Scenario, everyone, nobody *commands.Policy, pr commands.Principal,
	found func(secrets []string), check func(t *testing.T, where string, secrets []string, res commands.Result)) {
	env, err := lab.Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	secrets := env.Secrets()
	found(secrets)
	eng := env.Engine()
	svc := &commands.Service{Apps: eng.Cluster, Engine: eng, Policy: everyone, Cluster: "lab"}
	ns := sc.App.Namespace
	if ns == "" {
		ns = "argocd"
	}
	ctx := context.Background()
	for _, cmd := range []commands.Command{
		commands.Diagnose{App: sc.App.Name, Namespace: ns},
		commands.Tags{App: sc.App.Name, Namespace: ns},
		commands.Logs{App: sc.App.Name, Namespace: ns},
		commands.Diagnose{App: sc.App.Name + "x", Namespace: ns},
	} {
		check(t, sc.Name+" "+commands.Verb(cmd), secrets, svc.Handle(ctx, pr, cmd))
	}
	svc.Fleet = &fleet.Scanner{Engine: eng}
	check(t, sc.Name+" summary", secrets, svc.Handle(ctx, pr, commands.Summary{}))
	svc.Policy = nobody
	check(t, sc.Name+" denied", secrets, svc.Handle(ctx, pr, commands.Diagnose{App: sc.App.Name, Namespace: ns}))
}

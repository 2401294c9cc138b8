package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Canary tokens: they must appear nowhere in config check's output.
const (
	canaryBot = "xoxb-canary-7f3a9c1e5b"
	canaryApp = "xapp-canary-2d8e6f4a0c"
)

func noCanary(t *testing.T, outputs ...string) {
	t.Helper()
	for _, o := range outputs {
		for _, c := range []string{canaryBot, canaryApp, "canary-7f3a", "canary-2d8e"} {
			if strings.Contains(o, c) {
				t.Errorf("a token leaked into the output:\n%s", o)
			}
		}
	}
}

// TestConfigCheckAcceptsAGoodConfig: the example configuration, with the tokens in the
// environment, is accepted; the output says what serve resolves and where each value came from,
// the access rules, the scopes, and the tokens only as [redacted].
func TestConfigCheckAcceptsAGoodConfig(t *testing.T) {
	env := map[string]string{"IMGUPD_SLACK_BOT_TOKEN": canaryBot, "IMGUPD_SLACK_APP_TOKEN": canaryApp, "IMGUPD_MAX_CONCURRENT": "8"}
	code, out, errOut := runCLI(t, env, "config", "check", "--config", "../../config.example.yaml")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{
		"../../config.example.yaml: imgupd serve accepts this configuration.",
		"max-concurrent", "8", "env IMGUPD_MAX_CONCURRENT", // the environment over the file
		"file serve.updater-namespace",
		"bot-token", "xoxb-[redacted]", "env IMGUPD_SLACK_BOT_TOKEN",
		"app-token", "xapp-[redacted]",
		"access: 2 rule(s), direct messages off",
		"platform", "groups S0123PLATFORM in channels *: namespaces any, projects any",
		"payments", "anyone in channels #payments-deploys: namespaces payments, payments-*, projects payments",
		"Slack bot token scopes this configuration needs: app_mentions:read, channels:read, chat:write, commands, groups:read, mpim:read, reactions:write, usergroups:read",
		"simulate: ", "update-strategy=semver",
		"schedules: 1", `payments-daily  "0 9 * * 1-5" (Europe/Paris) in #payments-deploys: namespaces payments,payments-*, projects payments; a new message every day, updated in place between, alerts on; next run`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if errOut != "" {
		t.Errorf("stderr %q", errOut)
	}
	noCanary(t, out, errOut)

	// Without tokens the configuration is still fine: in a cluster they come from a Secret.
	code, out, _ = runCLI(t, nil, "config", "check", "--config", "../../config.example.yaml")
	if code != 0 || !strings.Contains(out, "not set: imgupd serve needs IMGUPD_SLACK_BOT_TOKEN (or slack.bot-token)") {
		t.Errorf("exit %d without tokens:\n%s", code, out)
	}
}

// TestConfigCheckNamesTheKeyAtFault: each kind of mistake exits 2 with one line naming its key.
// serve refuses the same configurations (it stops at the first), except the two config check is
// stricter about: a section no command reads, and another command's section.
func TestConfigCheckNamesTheKeyAtFault(t *testing.T) {
	okTokens := map[string]string{"IMGUPD_SLACK_BOT_TOKEN": "xoxb-1", "IMGUPD_SLACK_APP_TOKEN": "xapp-1"}
	for _, tc := range []struct {
		name, config string
		env          map[string]string
		key, msg     string
		serveAccepts bool
	}{
		{"unknown serve key", serveConfig + "serve:\n  listne: ':1'\n", okTokens, "serve.listne", `is not a setting of "serve"; did you mean serve.listen?`, false},
		{"serve value of the wrong type", serveConfig + "serve:\n  timeout: soon\n", okTokens, "serve.timeout", `invalid argument "soon" for "--timeout" flag`, false},
		{"environment value of the wrong type", serveConfig, map[string]string{"IMGUPD_SLACK_BOT_TOKEN": "xoxb-1", "IMGUPD_SLACK_APP_TOKEN": "xapp-1", "IMGUPD_MAX_CONCURRENT": "many"},
			"IMGUPD_MAX_CONCURRENT", `invalid argument "many"`, false},
		{"bad cluster name", serveConfig + "serve:\n  cluster: Prod_EU\n", okTokens, "serve.cluster", "use lower-case letters, digits, - and .", false},
		{"bad log level", serveConfig + "serve:\n  log-level: loud\n", okTokens, "serve.log-level", "want debug, info, warn or error", false},
		{"bad log format", serveConfig + "serve:\n  log-format: xml\n", okTokens, "serve.log-format", "want json, text or auto", false},
		{"no turn per person", serveConfig + "serve:\n  max-concurrent-per-user: 0\n", okTokens, "serve.max-concurrent-per-user", "want at least 1", false},
		{"bad listen address", serveConfig + "serve:\n  listen: '8080'\n", okTokens, "serve.listen", "want host:port or :port", false},
		{"unknown lab scenario", serveConfig + "serve:\n  lab: no-such-scenario\n", okTokens, "serve.lab", "neither a built-in scenario", false},
		{"bad forge", serveConfig + "serve:\n  forge: [github]\n", okTokens, "serve.forge", "want KIND:HOST[=API_URL]", false},
		{"unknown slack key", serveConfig + "slack:\n  bot_token: x\n", okTokens, "slack.bot_token", "unknown key (slack.bot-token and slack.app-token are the only ones); did you mean slack.bot-token?", false},
		{"bot token of the wrong kind", serveConfig + "slack:\n  bot-token: xoxp-1\n  app-token: xapp-1\n", nil, "slack.bot-token", "does not start with xoxb-", false},
		{"app token of the wrong kind", serveConfig, map[string]string{"IMGUPD_SLACK_BOT_TOKEN": "xoxb-1", "IMGUPD_SLACK_APP_TOKEN": "xoxb-2"}, "IMGUPD_SLACK_APP_TOKEN", "does not start with xapp-", false},
		{"swapped tokens", serveConfig, map[string]string{"IMGUPD_SLACK_BOT_TOKEN": "xapp-1", "IMGUPD_SLACK_APP_TOKEN": "xoxb-1"}, "IMGUPD_SLACK_BOT_TOKEN", "swapped", false},
		{"unknown access key", "access:\n  allowDM: true\n  rules: [{name: x, channels: ['*']}]\n", okTokens, "access.allowdm", "not a key of access; did you mean allowDMs?", false},
		{"unknown rule key", "access:\n  rules:\n  - name: x\n    channels: ['*']\n    namespace: [team-a]\n", okTokens, "access.rules[0].namespace", "not a key of an access rule; did you mean namespaces?", false},
		{"bad rule value", "access:\n  rules:\n  - name: ok\n    channels: ['*']\n  - name: pay\n    channels: [Payments]\n", okTokens, "access.rules[1]", `rule pay: channel "Payments" is neither a channel ID`, false},
		{"rule naming nobody", "access:\n  rules:\n  - name: all\n    namespaces: ['*']\n", okTokens, "access.rules[0]", "names no channels, users or groups", false},
		{"no rules", "access: {}\n", okTokens, "access.rules", "is empty: nobody could use the bot", false},
		{"schedules not a list", serveConfig + "schedules:\n  name: nightly\n", okTokens, "schedules", "a list of schedules", false},
		{"unknown schedule key", serveConfig + "schedules:\n- name: nightly\n  cron: '@daily'\n  chanel: '#deploys'\n", okTokens,
			"schedules[0].chanel", "not a key of a schedule; did you mean channel?", false},
		{"unknown scope key", serveConfig + "schedules:\n- name: nightly\n  cron: '@daily'\n  channel: '#deploys'\n  scope: {namespace: [argocd]}\n", okTokens,
			"schedules[0].scope.namespace", "not a key of a schedule's scope; did you mean namespaces?", false},
		{"schedule beyond its channel's rules", serveConfig + "schedules:\n- name: nightly\n  cron: '@daily'\n  channel: '#deploys'\n", okTokens,
			"schedules[0]", "schedule nightly: scope namespaces (any), projects (any) goes beyond what the access rules grant everyone in #deploys (namespace * in project * not granted): rule deploys grants namespaces [argocd] and projects (any)", false},
		{"schedule in a channel no rule opens", serveConfig + "schedules:\n- name: nightly\n  cron: '@daily'\n  channel: '#random'\n  scope: {namespaces: [argocd]}\n", okTokens,
			"schedules[0]", "schedule nightly: no access rule admits everyone in #random", false},
		{"bad cron", serveConfig + "schedules:\n- name: nightly\n  cron: '0 9 * *'\n  channel: '#deploys'\n  scope: {namespaces: [argocd]}\n", okTokens,
			"schedules[0]", `schedule nightly: cron "0 9 * *": 4 fields: give five`, false},
		{"bad timezone", serveConfig + "schedules:\n- name: nightly\n  cron: '0 9 * * *'\n  timezone: Paris\n  channel: '#deploys'\n  scope: {namespaces: [argocd]}\n", okTokens,
			"schedules[0]", `timezone "Paris" is not an IANA time zone`, false},
		{"alerts of the wrong type", serveConfig + "schedules:\n- name: nightly\n  cron: '@daily'\n  channel: '#deploys'\n  alerts: sometimes\n  scope: {namespaces: [argocd]}\n", okTokens,
			"schedules[0]", "alerts", false},
		{"two schedules of one name", serveConfig + "schedules:\n- {name: n, cron: '@daily', channel: '#deploys', scope: {namespaces: [argocd]}}\n- {name: n, cron: '@hourly', channel: '#deploys', scope: {namespaces: [argocd]}}\n", okTokens,
			"schedules[1].name", `"n" is the name of schedules[0] too`, false},
		{"unknown section", serveConfig + "slak:\n  bot-token: x\n", okTokens, "slak", "no imgupd command reads this section; did you mean slack?", true},
		{"another command's section", serveConfig + "simulate:\n  update-stratgy: semver\n", okTokens, "simulate.update-stratgy", "did you mean simulate.update-strategy?", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeConfig(t, tc.config)
			code, out, errOut := runCLI(t, tc.env, "config", "check", "--config", path)
			if code != exitNoDecide {
				t.Fatalf("exit %d, want 2\n%s%s", code, out, errOut)
			}
			if want := "  " + tc.key + ": "; !strings.Contains(errOut, want) || !strings.Contains(errOut, tc.msg) {
				t.Errorf("stderr lacks %q and %q:\n%s", want, tc.msg, errOut)
			}
			if !strings.Contains(errOut, path+": imgupd serve would not start:\n") || !strings.Contains(errOut, "problem(s); imgupd serve would not start") {
				t.Errorf("stderr:\n%s", errOut)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}

			serveEnv := map[string]string{"IMGUPD_SLACK_API_URL": "http://127.0.0.1:1/"}
			for k, v := range tc.env {
				serveEnv[k] = v
			}
			// serve as the configuration would run it: flags on the command line win over the
			// file, and with --lab serve reads no --forge.
			args := []string{"serve", "--config", path}
			if !strings.Contains(tc.config, "listen:") {
				args = append(args, "--listen", "127.0.0.1:0")
			}
			if !strings.Contains(tc.config, "lab:") && !strings.Contains(tc.config, "forge:") {
				args = append(args, "--lab", "healthy-kustomize-argocd")
			}
			code, _, serveErr := runCLI(t, serveEnv, args...)
			accepted := strings.Contains(serveErr, "cannot reach Slack")
			switch {
			case code != exitNoDecide && code != exitConfig && code != exitUsage:
				t.Errorf("serve exit %d: %s", code, serveErr)
			case tc.serveAccepts && !accepted:
				t.Errorf("serve refused what only config check should: %s", serveErr)
			case !tc.serveAccepts && accepted:
				t.Errorf("config check refuses what serve accepts: %s", serveErr)
			}
		})
	}
}

// TestConfigCheckAllProblemsAtOnce: unlike serve, which stops at the first, every problem is
// listed; and a token in the file is never printed, even when it is wrong.
func TestConfigCheckAllProblemsAtOnce(t *testing.T) {
	cfg := "serve:\n  listne: ':1'\n  timeout: soon\nslack:\n  bot-token: " + canaryApp + "\n  app-token: " + canaryBot + "\naccess:\n  rules:\n  - name: x\n    channel: ['*']\n"
	code, out, errOut := runCLI(t, nil, "config", "check", "--config", writeConfig(t, cfg))
	if code != exitNoDecide {
		t.Fatalf("exit %d", code)
	}
	for _, key := range []string{"serve.listne", "serve.timeout", "slack.bot-token", "access.rules[0].channel"} {
		if !strings.Contains(errOut, "  "+key+": ") {
			t.Errorf("stderr lacks %s:\n%s", key, errOut)
		}
	}
	if !strings.Contains(errOut, "4 problem(s)") {
		t.Errorf("stderr:\n%s", errOut)
	}
	noCanary(t, out, errOut)
}

// TestConfigCheckJSON: -o json carries the same, tokens masked, for scripts and CI.
func TestConfigCheckJSON(t *testing.T) {
	cfg := "serve:\n  cluster: prod-eu\nslack:\n  bot-token: " + canaryBot + "\naccess:\n  allowDMs: true\n  rules:\n  - name: dm\n    channels: [dm]\n"
	env := map[string]string{"IMGUPD_SLACK_APP_TOKEN": canaryApp}
	code, out, errOut := runCLI(t, env, "config", "check", "--config", writeConfig(t, cfg), "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	noCanary(t, out, errOut)
	var got struct {
		OK     bool
		Serve  []setting
		Slack  []struct{ Key, Value, Prefix, Source string }
		Access struct {
			AllowDMs bool
			Rules    []struct{ Name string }
		}
		Scopes   []string
		Problems []problem
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if !got.OK || len(got.Problems) != 0 || !got.Access.AllowDMs || len(got.Access.Rules) != 1 {
		t.Errorf("%+v", got)
	}
	var cluster setting
	for _, s := range got.Serve {
		if s.Key == "cluster" {
			cluster = s
		}
	}
	if cluster != (setting{Key: "cluster", Value: "prod-eu", Source: "file serve.cluster"}) {
		t.Errorf("cluster %+v", cluster)
	}
	if len(got.Slack) != 2 || got.Slack[0].Value != "[redacted]" || got.Slack[0].Source != "file slack.bot-token" ||
		got.Slack[1].Source != "env IMGUPD_SLACK_APP_TOKEN" || got.Slack[1].Prefix != "xapp-" {
		t.Errorf("slack %+v", got.Slack)
	}
	if strings.Join(got.Scopes, ",") != "app_mentions:read,channels:read,chat:write,commands,groups:read,im:history,mpim:read,reactions:write" {
		t.Errorf("scopes %v (DMs need im:history)", got.Scopes)
	}

	code, out, _ = runCLI(t, nil, "config", "check", "--config", writeConfig(t, "access: {}\n"), "-o", "json")
	if code != exitNoDecide || !strings.Contains(out, `"ok": false`) || !strings.Contains(out, `"key": "access.rules"`) {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestConfigCheckNeedsAFile(t *testing.T) {
	code, _, errOut := runCLI(t, nil, "config", "check")
	if code != exitUsage || !strings.Contains(errOut, "give --config FILE") {
		t.Errorf("exit %d, %q", code, errOut)
	}
	code, _, errOut = runCLI(t, nil, "config", "check", "--config", "/nonexistent/imgupd.yaml")
	if code != exitConfig || !strings.Contains(errOut, "reading config /nonexistent/imgupd.yaml") {
		t.Errorf("exit %d, %q", code, errOut)
	}
	code, _, errOut = runCLI(t, nil, "config", "check", "--config", writeConfig(t, "access: [unclosed\n"))
	if code != exitConfig || !strings.Contains(errOut, "reading config") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

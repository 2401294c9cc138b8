package blockkit

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/imgupd/imgupd/internal/shell"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
)

// stepsReport is a blocked report whose root cause has a fix in steps, a
// warning in another stage, a stage not verified and the rest passed.
func stepsReport(steps ...report.Step) *report.Report {
	rc := report.Finding{Code: report.CodeRegistryUnauthorized, Stage: report.StageRegistry, Severity: report.Fail, RootCause: true,
		Title: "cannot list the tags of image web at ghcr.io: unauthorized (HTTP 401)",
		Fix:   &report.Fix{Summary: "Give Image Updater a pull secret for the registry.", Where: "ImageUpdater argocd/web", Steps: steps}}
	r := &report.Report{App: report.AppRef{Namespace: "argocd", Name: "web"}, State: report.StateBlocked,
		Answer: "argocd/web is blocked: the registry wants credentials (401)", Headline: "argocd/web is blocked: " + rc.Title, RootCause: &rc}
	for _, s := range report.Stages() {
		st := report.StageResult{StageInfo: s, Status: report.Pass}
		switch s.ID {
		case report.StageRegistry:
			st.Status, st.Findings = report.Fail, []report.Finding{rc}
		case report.StageSync:
			st.Status, st.Findings = report.Warn, []report.Finding{{Code: "SYNC_AUTOMATED_OFF", Severity: report.Warn, Title: "automated sync is off for this app"}}
		case report.StageWriteBack:
			st.Status, st.Findings = report.Unknown, []report.Finding{{Code: "WRITEBACK_GIT_PUSH_NOT_VERIFIED", Severity: report.Unknown, Title: "whether main accepts the push was not verified"}}
			r.NotVerified = append(r.NotVerified, report.NotVerified{Stage: s.ID, Code: "WRITEBACK_GIT_PUSH_NOT_VERIFIED", What: "whether main accepts the push was not verified", VerifyBy: "grant get on pods/log"})
		case report.StageCandidates:
			st.Status, st.SkipReason = report.Skipped, "no tags could be listed"
		}
		r.Stages = append(r.Stages, st)
	}
	return r
}

// TestReportFixSteps: the fix reads as numbered steps, each naming its
// language, a YAML step its object and the command that opens it, the
// placeholders to replace after the step that has them, an alternative
// as "or" under the step it replaces.
func TestReportFixSteps(t *testing.T) {
	r := stepsReport(
		report.SetVars(report.Var{Name: "REGISTRY_USER", About: "a user"}, report.Var{Name: "REGISTRY_TOKEN", About: "its token"}),
		report.RunWords("create the pull secret", append(shell.Args("kubectl", "-n", "argocd", "create", "secret", "docker-registry", "reg"),
			shell.Concat(shell.Lit("--docker-username="), shell.Var("REGISTRY_USER")), shell.Concat(shell.Lit("--docker-password="), shell.Var("REGISTRY_TOKEN")))...),
		report.Otherwise(report.Command("reuse the secret the pods pull with", "kubectl", "-n", "argocd", "get", "secret", "regcred")),
		report.Paste("use it for the image", "ImageUpdater argocd/web", []string{"kubectl", "-n", "argocd", "edit", "imageupdater", "web"}, "spec:\n  commonUpdateSettings:\n    pullSecret: pullsecret:argocd/reg\n"),
	)
	p := Report(r, Options{Buttons: true})
	msg := string(must(json.Marshal(p.Message)))
	for _, want := range []string{
		`*Fix:* Give Image Updater a pull secret for the registry. _(ImageUpdater argocd/web)_`,
		"*1.* set your values (REGISTRY_USER: a user; REGISTRY_TOKEN: its token) — _fill in the quotes, then run (shell)_:\\n```REGISTRY_USER=''\\nREGISTRY_TOKEN=''```",
		"*2.* create the pull secret — _run (shell)_:\\n```kubectl -n argocd create secret docker-registry reg --docker-username=\\\"${REGISTRY_USER:?set REGISTRY_USER first}\\\" --docker-password=\\\"${REGISTRY_TOKEN:?set REGISTRY_TOKEN first}\\\"```",
		"*or* reuse the secret the pods pull with — _run (shell)_:\\n```kubectl -n argocd get secret regcred```",
		"*3.* use it for the image — _paste into ImageUpdater argocd/web, YAML_ (`kubectl -n argocd edit imageupdater web`):\\n```spec:\\n  commonUpdateSettings:\\n    pullSecret: pullsecret:argocd/reg```",
		// The stages: the root cause's stage once, the warning, one line for the rest.
		`:x: Registry and network (the root cause)\n:warning: Sync — ` + "`SYNC_AUTOMATED_OFF`" + ` automated sync is off for this app\n:white_check_mark: 5 other stages passed · 1 skipped · 1 not verified`,
		// What was not verified is small print.
		`{"type":"context","elements":[{"type":"mrkdwn","text":"*Not verified:*\n• whether main accepts the push was not verified — verify: grant get on pods/log","verbatim":true}]}`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %s\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "full fix is in the thread") {
		t.Errorf("a fix that fits says it is in the thread:\n%s", msg)
	}
	for _, e := range Validate(p) {
		t.Error(e)
	}
}

// TestReportFixTooLong: a step that does not fit the message is not cut:
// the message says the full fix is in the thread, and the thread has
// every step whole.
func TestReportFixTooLong(t *testing.T) {
	var yaml strings.Builder
	for i := 0; i < 300; i++ {
		yaml.WriteString("  - name: entry-number-" + strings.Repeat("x", i%7) + "\n")
	}
	r := stepsReport(report.Command("create the pull secret", "kubectl", "-n", "argocd", "create", "secret", "generic", "reg"),
		report.Paste("list the registries", "ConfigMap argocd/argocd-image-updater-config", []string{"kubectl", "-n", "argocd", "edit", "configmap", "argocd-image-updater-config"}, "registries:\n"+yaml.String()))
	p := Report(r, Options{Buttons: true})
	msg := string(must(json.Marshal(p.Message)))
	if !strings.Contains(msg, "_(the full fix is in the thread)_") {
		t.Errorf("the message does not say the fix is in the thread:\n%s", msg)
	}
	if strings.Contains(msg, "entry-number") {
		t.Errorf("the message shows part of the step that does not fit:\n%s", msg)
	}
	var shown []string
	for _, m := range p.Thread {
		for _, x := range show(t, m).Texts {
			shown = append(shown, x.Code...)
		}
	}
	for _, s := range r.RootCause.Fix.Steps {
		if !readsBack(shown, strings.TrimRight(s.Text, "\n")) {
			t.Errorf("the thread does not hold the step %q whole", s.Say)
		}
	}
	for _, e := range Validate(p) {
		t.Error(e)
	}
}

// TestHeaderOnOneLine: the header is the whole answer when it fits on one
// line, else the app and its state (the first line says the cause), else,
// for a long app name, the state and the app clipped; the notification is
// always the whole answer.
func TestHeaderOnOneLine(t *testing.T) {
	long := report.AppRef{Namespace: "payments-eu-central", Name: "checkout-api-with-a-very-long-name"}
	for _, tc := range []struct {
		app    report.AppRef
		answer string
		header string
		first  string
	}{
		{report.AppRef{Namespace: "argocd", Name: "web"}, "argocd/web is blocked: the proxy fails", "🔴 argocd/web is blocked: the proxy fails", "*Root cause* `REGISTRY_UNAUTHORIZED`\n"},
		{report.AppRef{Namespace: "argocd", Name: "web"}, "argocd/web is blocked: the registry wants credentials (401)", "🔴 argocd/web is blocked",
			"*Root cause* `REGISTRY_UNAUTHORIZED`: the registry wants credentials (401)\n"},
		{long, long.String() + " is blocked: the registry wants credentials (401)", "🔴 blocked · payments-eu-central/checkout-api-with-a-very-lo…",
			"*Root cause* `REGISTRY_UNAUTHORIZED`: the registry wants credentials (401)\n"},
	} {
		r := stepsReport()
		r.App, r.Answer = tc.app, tc.answer
		p := Report(r, Options{})
		h := p.Message.Blocks.BlockSet[0].(*slack.HeaderBlock).Text.Text
		if h != tc.header || utf8.RuneCountInString(h) > MaxHeaderLine {
			t.Errorf("header %q (%d characters), want %q", h, utf8.RuneCountInString(h), tc.header)
		}
		if first := p.Message.Blocks.BlockSet[1].(*slack.SectionBlock).Text.Text; !strings.HasPrefix(first, tc.first) {
			t.Errorf("first section %q, want it to open with %q", first, tc.first)
		}
		if want := "🔴 " + tc.answer; p.Message.Text != want {
			t.Errorf("notification %q, want %q", p.Message.Text, want)
		}
	}
}

// TestButtonsShowSomething: a report offers Show candidate tags only when a
// tag was listed, Show updater log lines only with log lines, Explain only
// for a code the catalogue explains; Re-run always.
func TestButtonsShowSomething(t *testing.T) {
	labels := func(r *report.Report) string {
		var out []string
		for _, b := range Report(r, Options{Buttons: true}).Message.Blocks.BlockSet {
			if a, ok := b.(*slack.ActionBlock); ok {
				for _, el := range a.Elements.ElementSet {
					out = append(out, el.(*slack.ButtonBlockElement).Text.Text)
				}
			}
		}
		return strings.Join(out, " | ")
	}
	bare := stepsReport()
	if got, want := labels(bare), "Re-run | Explain the finding"; got != want {
		t.Errorf("no tag listed, no log line: buttons %q, want %q", got, want)
	}
	full := stepsReport()
	full.Candidates = []report.CandidateTable{{Alias: "web", Image: "ghcr.io/acme/web", Decision: updater.Decision{Tags: []updater.TagFate{{Tag: "1.0.1"}}}}}
	full.UpdaterLog = []report.LogLine{{Level: "info", Message: "Setting new image to ghcr.io/acme/web:1.0.1"}}
	if got, want := labels(full), "Re-run | Show candidate tags | Show updater log lines | Explain the finding"; got != want {
		t.Errorf("tags and log lines: buttons %q, want %q", got, want)
	}
	empty := stepsReport()
	empty.Candidates = []report.CandidateTable{{Alias: "web", Image: "ghcr.io/acme/web"}} // the registry listed no tag
	rc := *empty.RootCause
	rc.Code = "NOT_A_CATALOGUE_CODE"
	empty.RootCause = &rc
	if got, want := labels(empty), "Re-run"; got != want {
		t.Errorf("an empty tag list, a code the catalogue does not explain: buttons %q, want %q", got, want)
	}
}

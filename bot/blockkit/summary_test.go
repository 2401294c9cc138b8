package blockkit

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/imgupd/imgupd/diagnostics/fleet"
	"github.com/imgupd/imgupd/diagnostics/render"
	"github.com/imgupd/imgupd/diagnostics/report"
	"github.com/imgupd/imgupd/lab"
)

var summaryAt = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// smallSummary is a fleet with an app in every state, remembered since
// 3 days 4 hours (web since a day longer).
func smallSummary() report.Summary {
	app := func(ns, name string, st report.State, stage report.StageID, code report.Code, title string) report.AppResult {
		return report.AppResult{App: report.AppRef{Namespace: ns, Name: name}, State: st, Stage: stage, Code: code, Title: title,
			Headline: ns + "/" + name + " is " + st.Title()}
	}
	waiting := summaryAt.Add(-12 * day)
	res := &fleet.Result{Cluster: "prod-eu", Scope: report.Scope{Namespaces: []string{"payments", "payments-*"}, Projects: []string{"payments"}},
		StartedAt: summaryAt, Duration: 3200 * time.Millisecond, Unmanaged: 1,
		Apps: []report.AppResult{
			app("payments", "api", report.StateBlocked, report.StageRegistry, "REGISTRY_UNAUTHORIZED", "the registry ghcr.io refuses Image Updater's credentials <401> & more"),
			app("payments", "web", report.StateBlocked, report.StageTarget, "TARGET_NO_MATCHING_REF", "no applicationRef of ImageUpdater argocd/payments selects payments/web"),
			app("payments", "ledger", report.StateHeldBack, report.StageCandidates, "CANDIDATES_NEWER_TAGS_DROPPED", "3 newer tags are dropped by the constraint ~1.2"),
			app("payments", "worker", report.StateNotDeployed, report.StageSync, "SYNC_AUTOMATED_OFF", "automated sync is off"),
			app("payments-eu", "cron", report.StateWrongUpdate, report.StageSource, "SOURCE_HELM_PARAMETER_NOT_IN_VALUES", "image.tag is not in the chart's values"),
			app("payments-eu", "slow", report.StateUnknown, report.StageRegistry, report.CodeCheckTimeout, "the registry did not answer within 10s"),
			app("payments-eu", "ok", report.StateUpToDate, "", "", ""),
			app("payments-eu", "due", report.StateOnItsWay, "", "", ""),
		}}
	res.Apps[0].Waiting = &waiting
	var mem fleet.Memory
	mem.Observe(res, summaryAt.Add(-(3*day + 4*time.Hour)))
	mem.Apps["payments/web"] = fleet.Seen{State: report.StateBlocked, Since: summaryAt.Add(-(4*day + 4*time.Hour))}
	return fleet.Summarize(res, &mem)
}

// labSummary is a real scan of a generated fleet: apps over repos, every
// 3rd with an update due, every 2nd with its image not live; remembered
// since 3 days 4 hours, its time fixed for the goldens.
func labSummary(t *testing.T, apps, repos int) (report.Summary, *lab.Env) {
	t.Helper()
	env, err := lab.Start(context.Background(), lab.FleetScenario(lab.FleetSpec{Apps: apps, Repos: repos, MinTags: 3, MaxTags: 40, Due: 3, Broken: 2}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	res, err := (&fleet.Scanner{Engine: env.Engine(), Now: func() time.Time { return summaryAt }}).Scan(context.Background(), report.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Apps) != apps || res.Partial {
		t.Fatalf("%d apps, partial %v", len(res.Apps), res.Partial)
	}
	res.Duration = 2500 * time.Millisecond
	var mem fleet.Memory
	mem.Observe(res, summaryAt.Add(-(3*day + 4*time.Hour)))
	return fleet.Summarize(res, &mem), env
}

// checkGolden compares a payload with its golden JSON (go test
// ./bot/blockkit -update rewrites them), after Slack's limits.
func checkGolden(t *testing.T, name string, p Payload, norm func(string) string) {
	t.Helper()
	for _, e := range Validate(p) {
		t.Error(e)
	}
	got, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out := string(got)
	if norm != nil {
		out = norm(out)
	}
	golden := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.WriteFile(golden, []byte(out+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./bot/blockkit -update)", err)
	}
	if string(want) != out+"\n" {
		t.Errorf("payload differs from %s (go test ./bot/blockkit -update, then review the diff)", golden)
	}
}

// TestSummaryGoldens: a small summary and the alerts match their goldens
// and Slack's limits.
func TestSummaryGoldens(t *testing.T) {
	web := report.AppResult{App: report.AppRef{Namespace: "payments", Name: "web"}, State: report.StateBlocked, Stage: report.StageTarget,
		Code: "TARGET_NO_MATCHING_REF", Title: "no applicationRef of ImageUpdater argocd/payments selects payments/web",
		Headline: "payments/web is blocked: no applicationRef of ImageUpdater argocd/payments selects it"}
	fixed := web
	fixed.State, fixed.Stage, fixed.Code, fixed.Title, fixed.Headline = report.StateOnItsWay, "", "", "", "payments/web: update on its way (1.2.3 → 1.2.4)"
	checkGolden(t, "summary-small", Summary(smallSummary(), SummaryOptions{Title: "nightly payments summary", Buttons: true}), nil)
	checkGolden(t, "summary-alert", Payload{Message: Alert(report.Transition{App: web.App, From: report.StateUpToDate, To: report.StateBlocked, Code: web.Code}, web)}, nil)
	checkGolden(t, "summary-recovery", Payload{Message: Alert(report.Transition{App: web.App, From: report.StateBlocked, To: report.StateOnItsWay}, fixed)}, nil)
}

// TestSummaryMessage: the message has the worst state's mark, every
// state's count, the most urgent apps (the longest stuck first within a
// state) with code, stage and age, the scope, and a Re-run button whose
// value is the scope.
func TestSummaryMessage(t *testing.T) {
	s := smallSummary()
	p := Summary(s, SummaryOptions{Title: "nightly payments summary", Buttons: true})
	texts := blockTexts(p.Message)
	all := strings.Join(texts, "\n")
	for _, want := range []string{
		"✗ nightly payments summary: 6 of 8 app(s) need someone",
		"✗ *2* blocked  ·  ✗ *1* wrong update  ·  ✗ *1* not deployed  ·  ✗ *1* held back by configuration  ·  ? *1* unknown  ·  ✔ *1* update on its way  ·  ✔ *1* up to date",
		"*Most urgent*\n✗ `payments/web` `TARGET_NO_MATCHING_REF` · target · since 4d 4h\n✗ `payments/api` `REGISTRY_UNAUTHORIZED` · registry and network · since 3d 4h, newer tag waiting 12d\n✗ `payments-eu/cron`",
		"? `payments-eu/slow` `CHECK_TIMEOUT` · registry and network · since 3d 4h",
		"_Details in the thread._",
		"cluster prod-eu · namespaces payments,payments-*, projects payments · 2026-11-29 12:00 UTC · scanned in 3.2s · 1 not managed by Image Updater",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("message lacks %q:\n%s", want, all)
		}
	}
	if p.Message.Text != "✗ nightly payments summary: 2 blocked, 1 wrong update, 1 not deployed, 1 held back by configuration, 1 unknown, 1 update on its way, 1 up to date" {
		t.Errorf("fallback %q", p.Message.Text)
	}
	if strings.Contains(all, "<401>") || !strings.Contains(strings.Join(blockTexts(p.Thread[0]), ""), "&lt;401&gt; &amp; more") {
		t.Error("titles are not escaped")
	}
	btn := button(t, p.Message, ActionSummaryRerun)
	var scope report.Scope
	if err := json.Unmarshal([]byte(btn.Value), &scope); err != nil || scope.String() != s.Scope.String() {
		t.Errorf("Re-run value %q: %v", btn.Value, err)
	}
	if p := Summary(s, SummaryOptions{}); hasActions(p.Message) {
		t.Error("buttons without Buttons")
	}

	// Nothing needs anyone; no app at all.
	fine := fleet.Summarize(&fleet.Result{StartedAt: summaryAt, Apps: []report.AppResult{{App: report.AppRef{Namespace: "a", Name: "x"}, State: report.StateUpToDate}}}, nil)
	p = Summary(fine, SummaryOptions{})
	if h := blockTexts(p.Message)[0]; h != "✔ Image Updater summary: all 1 app(s) fine" || len(p.Thread) != 0 {
		t.Errorf("header %q, %d thread messages", h, len(p.Thread))
	}
	p = Summary(fleet.Summarize(&fleet.Result{StartedAt: summaryAt}, nil), SummaryOptions{Buttons: true})
	if h := blockTexts(p.Message)[0]; h != "✔ Image Updater summary: no managed app in scope" || len(Validate(p)) != 0 {
		t.Errorf("header %q, %v", h, Validate(p))
	}
}

// TestSummaryOf500Apps: 500 apps that all need someone, with long names
// and titles full of Slack markup, stay within Slack's limits: the message
// is short, the thread carries every app exactly once, grouped by state
// and stage.
func TestSummaryOf500Apps(t *testing.T) {
	states := []report.State{report.StateBlocked, report.StateWrongUpdate, report.StateNotDeployed, report.StateHeldBack, report.StateUnknown}
	stages := report.Stages()
	res := &fleet.Result{Cluster: strings.Repeat("c", 200), Scope: report.Scope{Names: []string{strings.Repeat("n", 300)}}, StartedAt: summaryAt}
	for i := 0; i < 500; i++ {
		st := states[i%len(states)]
		res.Apps = append(res.Apps, report.AppResult{
			App:   report.AppRef{Namespace: fmt.Sprintf("ns-%03d-%s", i, strings.Repeat("x", 50)), Name: fmt.Sprintf("app-%03d-%s", i, strings.Repeat("y", 150))},
			State: st, Stage: stages[i%len(stages)].ID, Code: "REGISTRY_UNAUTHORIZED",
			Title: strings.Repeat("a very long title with `ticks` <b>&</b> *bold* ", 40)})
	}
	var mem fleet.Memory
	mem.Observe(res, summaryAt.Add(-time.Hour))
	s := fleet.Summarize(res, &mem)
	p := Summary(s, SummaryOptions{Title: strings.Repeat("t", 400), Buttons: true})
	for _, e := range Validate(p) {
		t.Error(e)
	}
	if n := len(p.Message.Blocks.BlockSet); n >= 20 {
		t.Errorf("the message has %d blocks", n)
	}
	msg := strings.Join(blockTexts(p.Message), "\n")
	if n := strings.Count(msg, "`REGISTRY_UNAUTHORIZED`"); n != 10 {
		t.Errorf("the message lists %d apps, want 10", n)
	}
	if !strings.Contains(msg, "… 490 more in the thread") {
		t.Errorf("message:\n%s", msg)
	}
	if len(p.Thread) < 2 {
		t.Fatalf("%d thread messages: the thread should be paged", len(p.Thread))
	}
	var thread strings.Builder
	for _, m := range p.Thread {
		thread.WriteString(strings.Join(blockTexts(m), "\n") + "\n")
	}
	seen := map[string]int{}
	for _, m := range regexp.MustCompile("`(ns-[0-9]{3}-x+/app-[0-9]{3}-y+)`").FindAllStringSubmatch(thread.String(), -1) {
		seen[m[1]]++
	}
	for _, a := range res.Apps {
		if seen[a.App.String()] != 1 {
			t.Errorf("%s appears %d times in the thread", a.App, seen[a.App.String()])
		}
	}
	if len(seen) != 500 {
		t.Errorf("%d apps in the thread", len(seen))
	}
	// Grouped: every group's heading, in the summary's order.
	last := -1
	for _, g := range s.Attention {
		h := fmt.Sprintf("%s *%s · ", g.State.Mark(), g.State.Title())
		i := strings.Index(thread.String(), h+esc(render.StageTitle(g.Stage))+"* (")
		if i < 0 || i < last {
			t.Errorf("group %s/%s at %d (after %d)", g.State, g.Stage, i, last)
		}
		last = i
	}
}

// TestSummaryOfALab500Fleet: a real scan of 500 apps over 150
// repositories, half of them blocked, matches its golden; the message stays
// short, the thread names every app that needs someone exactly once, and
// no fine one.
func TestSummaryOfALab500Fleet(t *testing.T) {
	s, env := labSummary(t, 500, 150)
	p := Summary(s, SummaryOptions{Buttons: true})
	checkGolden(t, "summary-500", p, func(s string) string { return replaceValue(s, env.Vars["REGISTRY"], "${REGISTRY}") })
	var thread strings.Builder
	for _, m := range p.Thread {
		thread.WriteString(strings.Join(blockTexts(m), "\n") + "\n")
	}
	if s.NeedAttention() != 250 {
		t.Fatalf("%d apps need someone, want 250", s.NeedAttention())
	}
	for _, g := range s.Attention {
		for _, l := range g.Apps {
			if n := strings.Count(thread.String(), "`"+l.App.String()+"`"); n != 1 {
				t.Errorf("%s: %d times in the thread", l.App, n)
			}
		}
	}
	for _, l := range s.Fine {
		if strings.Contains(thread.String(), "`"+l.App.String()+"`") {
			t.Errorf("fine app %s in the thread", l.App)
		}
	}
	if n := len(p.Message.Blocks.BlockSet); n >= 20 {
		t.Errorf("%d blocks in the message", n)
	}
	msg := strings.Join(blockTexts(p.Message), "\n")
	for _, want := range []string{"✗ Image Updater summary: 250 of 500 app(s) need someone", "✗ *250* blocked", "✔ *84* updates on their way", "✔ *166* up to date",
		"✗ `argocd/app-0001-r001` `LIVE_IMAGE_NOT_LIVE` · live image · since 3d 4h", "… 240 more in the thread"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

func TestAlert(t *testing.T) {
	r := report.AppResult{App: report.AppRef{Namespace: "payments", Name: "api"}, State: report.StateBlocked, Stage: report.StageRegistry,
		Code: "REGISTRY_UNAUTHORIZED", Title: "the registry refuses <the> credentials", Headline: "payments/api is blocked: the registry refuses Image Updater's credentials"}
	m := Alert(report.Transition{App: r.App, From: report.StateUpToDate, To: r.State, Code: r.Code}, r)
	all := strings.Join(blockTexts(m), "\n")
	for _, want := range []string{"✗ payments/api is now blocked", "payments/api is blocked: the registry refuses Image Updater's credentials",
		"*Root cause* `REGISTRY_UNAUTHORIZED` (registry and network)\nthe registry refuses &lt;the&gt; credentials", "was up to date"} {
		if !strings.Contains(all, want) {
			t.Errorf("alert lacks %q:\n%s", want, all)
		}
	}
	if m.Text != "✗ payments/api: up to date → blocked (REGISTRY_UNAUTHORIZED)" {
		t.Errorf("fallback %q", m.Text)
	}
	if b := button(t, m, ActionRerun); b.Value != "payments/api" {
		t.Errorf("Re-run value %q", b.Value)
	}
	r.State, r.Code, r.Stage, r.Title, r.Headline = report.StateUpToDate, "", "", "", "payments/api is up to date"
	m = Alert(report.Transition{App: r.App, From: report.StateBlocked, To: r.State}, r)
	if h := blockTexts(m)[0]; h != "✔ payments/api recovered: up to date" || m.Text != "✔ payments/api: blocked → up to date" {
		t.Errorf("recovery %q %q", h, m.Text)
	}
	for _, m := range []Message{m} {
		if errs := Validate(Payload{Message: m}); len(errs) > 0 {
			t.Error(errs)
		}
	}
	button(t, m, ActionRerun)
}

func blockTexts(m Message) []string {
	var out []string
	for _, b := range m.Blocks.BlockSet {
		switch b := b.(type) {
		case *slack.HeaderBlock:
			out = append(out, b.Text.Text)
		case *slack.SectionBlock:
			if b.Text != nil {
				out = append(out, b.Text.Text)
			}
		case *slack.ContextBlock:
			for _, e := range b.ContextElements.Elements {
				if t, ok := e.(*slack.TextBlockObject); ok {
					out = append(out, t.Text)
				}
			}
		}
	}
	return out
}

func button(t *testing.T, m Message, action string) *slack.ButtonBlockElement {
	t.Helper()
	for _, b := range m.Blocks.BlockSet {
		if a, ok := b.(*slack.ActionBlock); ok {
			for _, e := range a.Elements.ElementSet {
				if btn, ok := e.(*slack.ButtonBlockElement); ok && btn.ActionID == action {
					return btn
				}
			}
		}
	}
	t.Fatalf("no %s button", action)
	return nil
}

func hasActions(m Message) bool {
	for _, b := range m.Blocks.BlockSet {
		if _, ok := b.(*slack.ActionBlock); ok {
			return true
		}
	}
	return false
}

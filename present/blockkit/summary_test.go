package blockkit

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/imgupd/imgupd/present/phrase"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

var summaryAt = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// smallSummary is a fleet with an app in every state, remembered since
// 3 days 4 hours (web since a day longer); api, ledger and cron have the
// engine's one-line answer, the others only their code and title.
func smallSummary() report.Summary {
	app := func(ns, name string, st report.State, stage report.StageID, code report.Code, title string) report.AppResult {
		return report.AppResult{App: report.AppRef{Namespace: ns, Name: name}, State: st, Stage: stage, Code: code, Title: title,
			Headline: ns + "/" + name + " is " + phrase.Title(st)}
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
	res.Apps[0].Answer = "payments/api is blocked: the registry wants credentials (401)"
	res.Apps[2].Answer = "payments/ledger is held back by configuration: newer tags are not candidates"
	res.Apps[4].Answer = "payments-eu/cron gets a wrong update: the Helm parameter is not in the chart's values"
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
	res, err := (&fleet.Scanner{Engine: env.Engine(), Now: func() time.Time { return summaryAt }}).Scan(context.Background(), fleet.Query{})
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
// ./present/blockkit -update rewrites them), after Slack's limits.
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
		t.Fatalf("%v (run go test ./present/blockkit -update)", err)
	}
	if string(want) != out+"\n" {
		t.Errorf("payload differs from %s (go test ./present/blockkit -update, then review the diff)", golden)
	}
}

// TestSummaryGoldens: a small summary and the alerts match their goldens
// and Slack's limits.
func TestSummaryGoldens(t *testing.T) {
	web := report.AppResult{App: report.AppRef{Namespace: "payments", Name: "web"}, State: report.StateBlocked, Stage: report.StageTarget,
		Code: "TARGET_NO_MATCHING_REF", Title: "no applicationRef of ImageUpdater argocd/payments selects payments/web",
		Headline: "payments/web is blocked: no applicationRef of ImageUpdater argocd/payments selects payments/web",
		Answer:   "payments/web is blocked: no applicationRef selects the app"}
	fixed := web
	fixed.State, fixed.Stage, fixed.Code, fixed.Title = report.StateOnItsWay, "", "", ""
	fixed.Headline = "payments/web: update on its way: web 1.2.3 → 1.2.4 on Image Updater's next cycle"
	fixed.Answer = fixed.Headline
	checkGolden(t, "summary-small", Summary(smallSummary(), SummaryOptions{Title: "nightly payments summary", Buttons: true}), nil)
	checkGolden(t, "summary-alert", Payload{Message: Alert(report.Transition{App: web.App, From: report.StateUpToDate, To: report.StateBlocked, Code: web.Code}, web)}, nil)
	checkGolden(t, "summary-recovery", Payload{Message: Alert(report.Transition{App: web.App, From: report.StateBlocked, To: report.StateOnItsWay}, fixed)}, nil)
}

// TestSummaryMessage: the message has the worst state's emoji, the count
// of each state that has apps (each with its own emoji), the most urgent
// apps (the longest stuck first within a state) with their state's words
// and their cause in short (the answer's, else code and stage) and age,
// the scope, and a Re-run button whose value is the scope.
func TestSummaryMessage(t *testing.T) {
	s := smallSummary()
	p := Summary(s, SummaryOptions{Title: "nightly payments summary", Buttons: true})
	texts := blockTexts(p.Message)
	all := strings.Join(texts, "\n")
	for _, want := range []string{
		"🔴 nightly payments summary: 6 of 8 app(s) need someone",
		"🔴 *2* blocked  ·  🟠 *1* wrong update  ·  🟣 *1* not deployed  ·  🟡 *1* held back by configuration  ·  ⚪ *1* unknown  ·  🔵 *1* update on its way  ·  🟢 *1* up to date",
		"*Most urgent*\n🔴 `payments/web` blocked · `TARGET_NO_MATCHING_REF` · target · since 4d 4h\n" +
			"🔴 `payments/api` blocked: the registry wants credentials (401) · since 3d 4h, newer tag waiting 12d\n" +
			"🟠 `payments-eu/cron` wrong update: the Helm parameter is not in the chart's values · since 3d 4h\n" +
			"🟣 `payments/worker` not deployed · `SYNC_AUTOMATED_OFF` · sync · since 3d 4h\n" +
			"🟡 `payments/ledger` held back by configuration: newer tags are not candidates · since 3d 4h\n" +
			"⚪ `payments-eu/slow` unknown · `CHECK_TIMEOUT` · registry and network · since 3d 4h\n" +
			"_Details in the thread._",
		"cluster prod-eu · namespaces payments,payments-∗, projects payments · 2026-11-29 12:00 UTC · scanned in 3.2s · 1 not managed by Image Updater",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("message lacks %q:\n%s", want, all)
		}
	}
	if p.Message.Text != "🔴 nightly payments summary: 2 blocked, 1 wrong update, 1 not deployed, 1 held back by configuration, 1 unknown, 1 update on its way, 1 up to date" {
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

	// Nothing needs anyone: only the states that have apps are counted.
	fine := fleet.Summarize(&fleet.Result{StartedAt: summaryAt, Apps: []report.AppResult{{App: report.AppRef{Namespace: "a", Name: "x"}, State: report.StateUpToDate}}}, nil)
	p = Summary(fine, SummaryOptions{})
	if h := blockTexts(p.Message); h[0] != "🟢 Image Updater summary: all 1 app(s) fine" || h[1] != "🟢 *1* up to date" || len(p.Thread) != 0 {
		t.Errorf("%q, %d thread messages", h, len(p.Thread))
	}
	if p.Message.Text != "🟢 Image Updater summary: 1 up to date" {
		t.Errorf("fallback %q", p.Message.Text)
	}
	// No app at all: said once, in the header; no count line.
	p = Summary(fleet.Summarize(&fleet.Result{StartedAt: summaryAt}, nil), SummaryOptions{Buttons: true})
	all = strings.Join(blockTexts(p.Message), "\n")
	if h := blockTexts(p.Message)[0]; h != "🟢 Image Updater summary: no managed app in scope" || len(Validate(p)) != 0 || strings.Count(all, "no managed app") != 1 {
		t.Errorf("%q, %v", all, Validate(p))
	}
	if p.Message.Text != "🟢 Image Updater summary: no managed app in scope" {
		t.Errorf("fallback %q", p.Message.Text)
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
		h := fmt.Sprintf("%s *%s · ", phrase.Emoji(g.State), phrase.Title(g.State))
		i := strings.Index(thread.String(), h+esc(phrase.StageTitle(g.Stage))+"* (")
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
	for _, want := range []string{"🔴 Image Updater summary: 250 of 500 app(s) need someone", "🔴 *250* blocked  ·  🔵 *84* updates on their way  ·  🟢 *166* up to date\n",
		"🔴 `argocd/app-0001-r001` blocked: the image is not live in the Application · since 3d 4h", "… 240 more in the thread"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

// TestAlert: the header is the new state's emoji, the app and "is now
// <state>" (or "recovered: <state>"); the body says the cause once, with
// the root cause's code and stage; the notification is the header and the
// code.
func TestAlert(t *testing.T) {
	r := report.AppResult{App: report.AppRef{Namespace: "payments", Name: "api"}, State: report.StateBlocked, Stage: report.StageRegistry,
		Code: "REGISTRY_UNAUTHORIZED", Title: "the registry refuses <the> credentials",
		Headline: "payments/api is blocked: the registry refuses <the> credentials",
		Answer:   "payments/api is blocked: the registry wants credentials (401)"}
	m := Alert(report.Transition{App: r.App, From: report.StateUpToDate, To: r.State, Code: r.Code}, r)
	want := []string{"🔴 payments/api is now blocked",
		"*Root cause* `REGISTRY_UNAUTHORIZED` (registry and network): the registry wants credentials (401)",
		"was up to date · `/imgupd diagnose payments/api` for the full report"}
	if got := blockTexts(m); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("alert %q, want %q", got, want)
	}
	if m.Text != "🔴 payments/api is now blocked (REGISTRY_UNAUTHORIZED)" {
		t.Errorf("notification %q", m.Text)
	}
	if b := button(t, m, ActionRerun); b.Value != "payments/api" {
		t.Errorf("Re-run value %q", b.Value)
	}

	// Without an answer (a result from before answers), the title, escaped.
	r.Answer = ""
	m = Alert(report.Transition{App: r.App, From: report.StateUpToDate, To: r.State, Code: r.Code}, r)
	if got := blockTexts(m)[1]; got != "*Root cause* `REGISTRY_UNAUTHORIZED` (registry and network): the registry refuses &lt;the&gt; credentials" {
		t.Errorf("body %q", got)
	}

	r = report.AppResult{App: r.App, State: report.StateOnItsWay, Headline: "payments/api: update on its way: api 1.2.3 → 1.2.4 on Image Updater's next cycle",
		Answer: "payments/api: update on its way: api 1.2.3 → 1.2.4 on Image Updater's next cycle"}
	m = Alert(report.Transition{App: r.App, From: report.StateBlocked, To: r.State}, r)
	want = []string{"🔵 payments/api recovered: update on its way", "api 1.2.3 → 1.2.4 on Image Updater's next cycle",
		"was blocked · `/imgupd diagnose payments/api` for the full report"}
	if got := blockTexts(m); strings.Join(got, "\n") != strings.Join(want, "\n") || m.Text != "🔵 payments/api recovered: update on its way" {
		t.Errorf("recovery %q %q", got, m.Text)
	}
	r = report.AppResult{App: r.App, State: report.StateUpToDate, Headline: "payments/api is up to date"}
	m = Alert(report.Transition{App: r.App, From: report.StateBlocked, To: r.State}, r)
	if got := blockTexts(m); len(got) != 2 || got[0] != "🟢 payments/api recovered: up to date" || m.Text != got[0] {
		t.Errorf("recovery without a cause %q %q", got, m.Text)
	}
	if errs := Validate(Payload{Message: m}); len(errs) > 0 {
		t.Error(errs)
	}
	button(t, m, ActionRerun)
}

// demoFleet is the fleet "imgupd demo --summary" shows: every built-in
// scenario diagnosed in its own lab, each an app lab/NAME (as
// cmd/imgupd/demo.go builds it).
func demoFleet(t *testing.T) *fleet.Result {
	t.Helper()
	all := diagnoseBuiltins(t)
	res := &fleet.Result{Cluster: "lab", StartedAt: summaryAt, Duration: 5 * time.Second, Apps: make([]report.AppResult, len(all))}
	for i, d := range all {
		if d.err != nil {
			t.Fatal(d.err)
		}
		rep := *d.rep // the report is shared by the package's tests
		rep.App = report.AppRef{Namespace: "lab", Name: d.sc.Name}
		res.Apps[i] = fleet.ResultOf(&rep, "default")
	}
	return res
}

// TestSummaryRules: the demo fleet's summary (every built-in scenario) and
// an alert for each of its apps and for every state read as the issue asks:
// each state its own emoji, shown next to its words; no empty count; no
// line said twice, nothing said twice within a line, and within an alert no
// sentence twice; button labels within 30 characters; headers within 150.
func TestSummaryRules(t *testing.T) {
	if testing.Short() {
		t.Skip("diagnoses every built-in scenario")
	}
	res := demoFleet(t)
	s := fleet.Summarize(res, nil)
	seen := map[report.State]bool{}
	for _, c := range s.Counts {
		seen[c.State] = c.Count > 0
	}
	if !seen[report.StateBlocked] || !seen[report.StateWrongUpdate] || !seen[report.StateHeldBack] || !seen[report.StateOnItsWay] || seen[report.StateUnknown] {
		t.Fatalf("the demo fleet is not the one this test reads (it needs an empty state): %v", s.Counts)
	}
	p := Summary(s, SummaryOptions{Buttons: true})
	for _, e := range Validate(p) {
		t.Error(e)
	}
	for i, m := range append([]Message{p.Message}, p.Thread...) {
		checkSummaryRules(t, fmt.Sprintf("summary message %d", i), m, false)
	}
	if msg := strings.Join(blockTexts(p.Message), "\n"); !strings.Contains(msg, phrase.Emoji(report.StateWrongUpdate)+" *35* wrong update") {
		t.Errorf("the count line:\n%s", msg)
	}

	apps := append([]report.AppResult{}, res.Apps...)
	for _, st := range report.States() { // every state, also those no alert is sent for
		apps = append(apps, report.AppResult{App: report.AppRef{Namespace: "x", Name: string(st)}, State: st, Code: "SOME_CODE", Stage: report.StageRegistry,
			Title: "the registry refuses Image Updater's credentials", Headline: "x/" + string(st) + " is " + phrase.Title(st) + ": the registry refuses Image Updater's credentials"})
	}
	for _, a := range apps {
		from := report.StateUpToDate
		if report.Healthy(a.State) {
			from = report.StateBlocked
		}
		m := Alert(report.Transition{App: a.App, From: from, To: a.State, Code: a.Code}, a)
		if errs := Validate(Payload{Message: m}); len(errs) > 0 {
			t.Errorf("%s: %v", a.App, errs)
		}
		checkSummaryRules(t, "alert "+a.App.String(), m, true)
		if h := blockTexts(m)[0]; !strings.HasPrefix(h, phrase.Emoji(a.State)+" "+a.App.String()+" ") || !strings.Contains(h, phrase.Title(a.State)) {
			t.Errorf("alert %s: header %q lacks the emoji, the app or the state", a.App, h)
		}
		if want := md(blockTexts(m)[0]); a.Code != "" && !report.Healthy(a.State) {
			if m.Text != want+" ("+string(a.Code)+")" {
				t.Errorf("alert %s: notification %q, want the header and the code", a.App, m.Text)
			}
		} else if m.Text != want {
			t.Errorf("alert %s: notification %q, want the header", a.App, m.Text)
		}
	}
}

var (
	terminalMark = regexp.MustCompile(`[✔✗↯◌⊘➜]`)
	zeroCount    = regexp.MustCompile(`(^|[^0-9*])\*?0\*? (blocked|wrong update|not deployed|held back|unknown|updates? on|up to date)`)
	segmentSep   = regexp.MustCompile(` · |: |; |\. |, `)
)

// checkSummaryRules checks one Slack message of a summary or an alert.
// With whole, no sentence (a part of three words or more between
// separators) appears twice in the message; else no line does, nor a part
// twice within a line.
func checkSummaryRules(t *testing.T, name string, m Message, whole bool) {
	t.Helper()
	emoji := map[string]report.State{}
	for _, st := range report.States() {
		if _, dup := emoji[phrase.Emoji(st)]; dup {
			t.Fatalf("two states have the emoji %s", phrase.Emoji(st))
		}
		emoji[phrase.Emoji(st)] = st
	}
	texts := blockTexts(m)
	all := strings.Join(texts, "\n")
	if terminalMark.MatchString(all) {
		t.Errorf("%s: a terminal mark (%s) in Slack, where each state has its emoji:\n%s", name, terminalMark.FindString(all), all)
	}
	// Every emoji shown is its state's: at least once right before the
	// state's words (a count, an app, a group's heading), and every line
	// that opens with one names its state there.
	for e, st := range emoji {
		if !strings.Contains(all, e) {
			continue
		}
		words := regexp.QuoteMeta(phrase.Title(st))
		if st == report.StateOnItsWay {
			words = `(update on its way|updates on their way)`
		}
		re := regexp.MustCompile(regexp.QuoteMeta(e) + " (\\*[0-9]+\\* |`[^`]*` |\\*|[^ ]+ (is now |recovered: ))?" + words)
		if !re.MatchString(all) {
			t.Errorf("%s: %s is never next to %q:\n%s", name, e, phrase.Title(st), all)
		}
		for _, l := range strings.Split(all, "\n") {
			if strings.HasPrefix(l, e+" `") && !re.MatchString(l) {
				t.Errorf("%s: line %q: %s without %q", name, l, e, phrase.Title(st))
			}
		}
	}
	for _, tx := range append(texts, m.Text) {
		if zeroCount.MatchString(tx) {
			t.Errorf("%s: an empty count %q in %q", name, zeroCount.FindString(tx), tx)
		}
	}
	seenLine, seenPart := map[string]bool{}, map[string]string{}
	for _, l := range strings.Split(all, "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if seenLine[l] && !whole {
			t.Errorf("%s: the line %q twice", name, l)
		}
		seenLine[l] = true
		inLine := map[string]bool{}
		for _, part := range segmentSep.Split(l, -1) {
			part = strings.Trim(strings.ToLower(strings.Join(strings.Fields(part), " ")), "*_ .…")
			if len(strings.Fields(part)) < 3 {
				continue
			}
			if inLine[part] {
				t.Errorf("%s: %q twice in the line %q", name, part, l)
			}
			inLine[part] = true
			if prev, ok := seenPart[part]; ok && whole {
				t.Errorf("%s: %q said twice, in %q and %q", name, part, prev, l)
			}
			seenPart[part] = l
		}
	}
	for _, b := range m.Blocks.BlockSet {
		switch b := b.(type) {
		case *slack.HeaderBlock:
			if n := utf8.RuneCountInString(b.Text.Text); n > MaxHeaderText {
				t.Errorf("%s: header of %d characters", name, n)
			}
		case *slack.ActionBlock:
			for _, e := range b.Elements.ElementSet {
				if btn, ok := e.(*slack.ButtonBlockElement); ok && utf8.RuneCountInString(btn.Text.Text) > 30 {
					t.Errorf("%s: button label %q beyond 30 characters", name, btn.Text.Text)
				}
			}
		}
	}
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

// TestSummaryClipWords: a long mrkdwn line is cut after a whole word, never
// in an entity, and an inline code span it cuts open is closed.
func TestSummaryClipWords(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short enough", 20, "short enough"},
		{"the registry refuses Image Updater's credentials", 30, "the registry refuses Image…"},
		{"a b &amp;&amp;&amp; c", 12, "a b &amp;…"},
		{"a b c d e f &lt;x", 15, "a b c d e f…"},
		{"`payments/web` and `a very long code span here`", 40, "`payments/web` and `a very long code…`"},
		{"oneverylongwordwithoutanyspaceatall", 12, "oneverylon…"},
		{"ends, with; punctuation: here and more", 27, "ends, with; punctuation…"},
	} {
		got := summaryClipWords(tc.s, tc.n)
		if got != tc.want || utf8.RuneCountInString(got) > tc.n {
			t.Errorf("summaryClipWords(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// FuzzSummaryClipWords: within n runes, no entity cut, an inline code span
// of a balanced text closed.
func FuzzSummaryClipWords(f *testing.F) {
	f.Add("`payments/web` blocked: the registry &lt;x&gt; wants credentials", 30)
	f.Add("a &amp; b", 5)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 1 || n > 500 || !utf8.ValidString(s) {
			return
		}
		if strings.Contains(strings.NewReplacer("&amp;", "", "&lt;", "", "&gt;", "").Replace(s), "&") {
			return // the clip's input is escaped text: every & starts an entity
		}
		got := summaryClipWords(s, n)
		if utf8.RuneCountInString(got) > n {
			t.Fatalf("%q: %d runes > %d", got, utf8.RuneCountInString(got), n)
		}
		if got == s {
			return
		}
		if regexp.MustCompile(`&[a-z]{0,3}…`).MatchString(got) && !regexp.MustCompile(`&[a-z]{0,3}…`).MatchString(s) {
			t.Fatalf("an entity cut: %q", got)
		}
		if !strings.Contains(s, "```") && strings.Count(s, "`")%2 == 0 && strings.Count(got, "`")%2 == 1 {
			t.Fatalf("a code span left open: %q", got)
		}
	})
}

package render_test

import (
	"bytes"
	"context"
	"fmt"
	"github.com/imgupd/imgupd/present/phrase"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/report"
)

var at = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) *time.Time { t := at.Add(-d); return &t }

const day = 24 * time.Hour

// handSummary is a summary of a fleet in every state, built as Summarize
// builds it; api and cron have the engine's one-line answer.
func handSummary() report.Summary {
	app := func(ns, name string, st report.State, stage report.StageID, code report.Code, title string) report.AppResult {
		return report.AppResult{App: report.AppRef{Namespace: ns, Name: name}, State: st, Stage: stage, Code: code, Title: title}
	}
	res := &fleet.Result{Cluster: "prod-eu", Scope: report.Scope{Namespaces: []string{"payments-*"}}, StartedAt: at, Duration: 3200 * time.Millisecond, Unmanaged: 2,
		Apps: []report.AppResult{
			app("payments-a", "api", report.StateBlocked, report.StageRegistry, "REGISTRY_UNAUTHORIZED", "the registry ghcr.io refuses Image Updater's credentials (401)"),
			app("payments-a", "web", report.StateBlocked, report.StageTarget, "TARGET_NO_MATCHING_REF", "no applicationRef of ImageUpdater argocd/payments selects payments-a/web"),
			app("payments-b", "ledger", report.StateHeldBack, report.StageCandidates, "CANDIDATES_NEWER_TAGS_DROPPED", "3 newer tags are dropped by the constraint ~1.2 "+strings.Repeat("and more words ", 10)),
			app("payments-b", "worker", report.StateNotDeployed, report.StageSync, "SYNC_AUTOMATED_OFF", "automated sync is off"),
			app("payments-b", "cron", report.StateWrongUpdate, report.StageSource, "SOURCE_HELM_PARAMETER_NOT_IN_VALUES", "image.tag is not in the chart's values"),
			app("payments-c", "slow", report.StateUnknown, "", report.CodeCheckTimeout, ""),
			app("payments-c", "ok1", report.StateUpToDate, "", "", ""),
			app("payments-c", "ok2", report.StateUpToDate, "", "", ""),
			app("payments-c", "due", report.StateOnItsWay, "", "", ""),
		}}
	res.Apps[5].NotReached = true
	res.Apps[0].Answer = "payments-a/api is blocked: the registry wants credentials (401)"
	res.Apps[4].Answer = "payments-b/cron gets a wrong update: the Helm parameter is not in the chart's values"
	res.Apps[0].Waiting = ago(12 * day)
	res.Apps[2].Waiting = ago(40 * day)
	res.Partial = true
	var mem fleet.Memory
	mem.Observe(res, at.Add(-(3*day + 4*time.Hour)))
	s := fleet.Summarize(res, &mem)
	return s
}

func TestSummaryText(t *testing.T) {
	s := handSummary()
	var b bytes.Buffer
	render.SummaryText(&b, s, render.SummaryOptions{TitleWidth: 60})
	out := b.String()
	for _, want := range []string{
		"✗  Image Updater fleet on prod-eu · namespaces payments-* · 2026-11-29 12:00 UTC · 9 app(s) in 3.2s · partial\n",
		"partial: the scan's deadline ended it",
		// every state that has apps, each with its own mark
		"\n   ✗ blocked                       2\n" +
			"   ↯ wrong update                  1\n" +
			"   ◌ not deployed                  1\n" +
			"   ⊘ held back by configuration    1\n" +
			"   ? unknown                       1\n" +
			"   ➜ update on its way             1\n" +
			"   ✔ up to date                    2\n",
		"(2 more Application(s) in the scope that Image Updater does not manage)",
		"6 app(s) need someone:",
		// grouped by state, then stage in stage order
		"✗ blocked · Target (1)\n   payments-a/web",
		"✗ blocked · Registry and network (1)\n   payments-a/api",
		// the cause in short: the answer's, else the root cause's title
		"   payments-a/api     REGISTRY_UNAUTHORIZED                the registry wants credentials (401)                        since 3d 4h, newer tag waiting 12d\n",
		"↯ wrong update · Source and mapping (1)\n   payments-b/cron    SOURCE_HELM_PARAMETER_NOT_IN_VALUES  the Helm parameter is not in the chart's values  ",
		"   payments-a/web     TARGET_NO_MATCHING_REF               no applicationRef of ImageUpdater argocd/payments selects…  since 3d 4h\n",
		"⊘ held back by configuration · Candidates (1)",
		"newer tag waiting 40d",
		"? unknown · no stage (1)",
		"not diagnosed before the scan's deadline",
		"not diagnosed before the scan's deadline\n\nNext: imgupd diagnose APP -n NAMESPACE shows an app's full report and its fix, e.g. imgupd diagnose web -n payments-a\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	// The order of the groups: blocked, wrong update, not deployed, held back, unknown.
	last := -1
	for _, g := range []string{"✗ blocked · Target", "✗ blocked · Registry", "↯ wrong update · Source", "◌ not deployed · Sync", "⊘ held back by configuration · Candidates", "? unknown · no stage"} {
		i := strings.Index(out, g)
		if i < last {
			t.Errorf("group %q out of order:\n%s", g, out)
		}
		last = i
	}
	// A long title is clipped to the width, at a word's end.
	if !strings.Contains(out, "3 newer tags are dropped by the constraint ~1.2 and more…  ") {
		t.Errorf("the long title is not clipped at 60:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "ok1") || strings.Contains(l, "payments-c/due") {
			t.Errorf("a fine app is listed: %q", l)
		}
	}

	b.Reset()
	render.SummaryText(&b, s, render.SummaryOptions{Command: "kubectl imgupd"})
	if !strings.Contains(b.String(), "e.g. kubectl imgupd diagnose web -n payments-a") {
		t.Errorf("kubectl plugin next step:\n%s", b.String())
	}
}

func TestSummaryTextEdges(t *testing.T) {
	fine := fleet.Summarize(&fleet.Result{StartedAt: at, Apps: []report.AppResult{
		{App: report.AppRef{Namespace: "a", Name: "x"}, State: report.StateUpToDate},
		{App: report.AppRef{Namespace: "a", Name: "y"}, State: report.StateOnItsWay},
		{App: report.AppRef{Namespace: "a", Name: "z"}, State: report.StateOnItsWay},
	}}, nil)
	for _, tc := range []struct {
		name    string
		s       report.Summary
		want    []string
		notWant []string
	}{
		{"every app fine", fine,
			[]string{"➜  Image Updater fleet · every Application · 2026-11-29 12:00 UTC · 3 app(s)\n\n   ➜ update on its way    2\n   ✔ up to date           1\n\nNothing needs anyone."},
			[]string{"need someone", "Next:", "partial", "blocked", " 0"}},
		{"no app", fleet.Summarize(&fleet.Result{StartedAt: at}, nil),
			[]string{"· 0 app(s)\n\n   no managed app in scope\n\n"},
			[]string{"Nothing needs anyone", "Next:", "blocked", "up to date", " 0\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			render.SummaryText(&b, tc.s, render.SummaryOptions{})
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("lacks %q:\n%s", w, b.String())
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(b.String(), w) {
					t.Errorf("has %q:\n%s", w, b.String())
				}
			}
		})
	}
}

func TestSummaryMarkdown(t *testing.T) {
	s := handSummary()
	s.Attention[0].Apps[0].Title = "a | pipe\nand a newline"
	var b bytes.Buffer
	render.SummaryMarkdown(&b, s)
	out := b.String()
	for _, want := range []string{
		"## ✗ Image Updater fleet on prod-eu · namespaces payments-\\* · 2026-11-29 12:00 UTC · 9 app(s) in 3.2s · partial\n",
		"**Partial:**",
		"| | state | apps |\n|---|---|---:|\n| ✗ | blocked | 2 |\n| ↯ | wrong update | 1 |\n| ◌ | not deployed | 1 |\n| ⊘ | held back by configuration | 1 |\n| ? | unknown | 1 |\n| ➜ | update on its way | 1 |\n| ✔ | up to date | 2 |\n",
		"### ✗ blocked · Target (1)",
		"| `payments-a/web` | `TARGET_NO_MATCHING_REF` | a \\| pipe and a newline | 3d 4h | — |",
		"| `payments-a/api` | `REGISTRY_UNAUTHORIZED` | the registry wants credentials (401) | 3d 4h | 12d |",
		"### ↯ wrong update · Source and mapping (1)",
		"### ? unknown · no stage (1)",
		"\n`imgupd diagnose APP -n NAMESPACE` shows an app's full report and its fix (`imgupd diagnose web -n payments-a`).\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}

// TestSummaryOfALabFleet: a real scan of a generated fleet (30 apps over 5
// repositories, every 4th with an update due, every 10th with its image not
// live), remembered since 3 days 4 hours, reads as a user expects.
func TestSummaryOfALabFleet(t *testing.T) {
	env, err := lab.Start(context.Background(), lab.FleetScenario(lab.FleetSpec{Apps: 30, Repos: 5, MinTags: 3, MaxTags: 30, Due: 4, Broken: 10}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	res, err := (&fleet.Scanner{Engine: env.Engine()}).Scan(context.Background(), fleet.Everyone(report.Scope{Names: []string{"app-*"}}))
	if err != nil {
		t.Fatal(err)
	}
	var mem fleet.Memory
	mem.Observe(res, res.StartedAt.Add(-(3*day + 4*time.Hour)))
	s := fleet.Summarize(res, &mem)
	c := res.Counts()
	if c[report.StateBlocked] != 3 || c[report.StateOnItsWay] != 8 || c[report.StateUpToDate] != 19 {
		t.Fatalf("the fleet is not the one this test reads: %v", c)
	}
	var b bytes.Buffer
	render.SummaryText(&b, s, render.SummaryOptions{TitleWidth: 100})
	out := b.String()
	for _, want := range []string{
		" · names app-* · ", " · 30 app(s) in ",
		"\n\n   ✗ blocked              3\n   ➜ update on its way    8\n   ✔ up to date          19\n\n",
		"3 app(s) need someone:\n\n✗ blocked · Live image (3)\n",
		"   argocd/app-0009-r004  LIVE_IMAGE_NOT_LIVE  the image is not live in the Application  since 3d 4h\n",
		"   argocd/app-0019-r004  LIVE_IMAGE_NOT_LIVE", "   argocd/app-0029-r004  LIVE_IMAGE_NOT_LIVE",
		"e.g. imgupd diagnose app-0009-r004 -n argocd\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "LIVE_IMAGE_NOT_LIVE"); n != 3 {
		t.Errorf("%d lines name the root cause, want 3:\n%s", n, out)
	}

	b.Reset()
	render.SummaryMarkdown(&b, s)
	md := b.String()
	for i := 9; i < 30; i += 10 {
		want := fmt.Sprintf("| `argocd/app-%04d-r004` | `LIVE_IMAGE_NOT_LIVE` | the image is not live in the Application |", i)
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(md, "### ✗ blocked · Live image (3)") || !strings.Contains(md, "| 3d 4h | — |") {
		t.Errorf("markdown:\n%s", md)
	}
	checkSummaryRules(t, "lab fleet text", out)
	checkSummaryRules(t, "lab fleet markdown", md)
}

// TestSummaryRules: the text and Markdown summaries of a fleet in every
// state, of a fine fleet and of an empty scope give each state its own mark
// next to its words, leave empty counts out, and say nothing twice.
func TestSummaryRules(t *testing.T) {
	fine := fleet.Summarize(&fleet.Result{StartedAt: at, Apps: []report.AppResult{
		{App: report.AppRef{Namespace: "a", Name: "x"}, State: report.StateUpToDate},
		{App: report.AppRef{Namespace: "a", Name: "y"}, State: report.StateOnItsWay},
	}}, nil)
	empty := fleet.Summarize(&fleet.Result{StartedAt: at}, nil)
	for name, s := range map[string]report.Summary{"every state": handSummary(), "fine": fine, "empty": empty} {
		var text, md bytes.Buffer
		render.SummaryText(&text, s, render.SummaryOptions{})
		render.SummaryMarkdown(&md, s)
		checkSummaryRules(t, name+" text", text.String())
		checkSummaryRules(t, name+" markdown", md.String())
		if name == "empty" {
			for _, out := range []string{text.String(), md.String()} {
				if strings.Count(strings.ToLower(out), "no managed app in scope") != 1 {
					t.Errorf("the empty scope is not said once:\n%s", out)
				}
			}
		}
	}
}

var (
	// a state's line in the count table, a group's heading: the mark, then the words
	markedLine = regexp.MustCompile(`^(?:\s*|\| |### )(\S) (?:\| )?([a-z][a-z ]*[a-z])`)
	zeroCount  = regexp.MustCompile(`(?m)^\s*\S [a-z ]+\s+0$|\| 0 \|`)
	partSep    = regexp.MustCompile(` · |: |; |\. |, |  +|\|`)
)

// checkSummaryRules checks a text or Markdown summary: a mark that opens a
// line (or a table row, a heading) is always its state's and is followed
// by the state's words, no state is counted 0, no line appears twice (but
// a table's heading) and nothing twice within a line.
func checkSummaryRules(t *testing.T, name, out string) {
	t.Helper()
	marks := map[string]report.State{}
	for _, st := range report.States() {
		if _, dup := marks[phrase.Mark(st)]; dup {
			t.Fatalf("two states have the mark %s", phrase.Mark(st))
		}
		marks[phrase.Mark(st)] = st
	}
	if m := zeroCount.FindString(out); m != "" {
		t.Errorf("%s: an empty count %q:\n%s", name, m, out)
	}
	seen := map[string]bool{}
	for i, l := range strings.Split(out, "\n") {
		if m := markedLine.FindStringSubmatch(l); m != nil && i > 0 {
			if st, ok := marks[m[1]]; ok && !strings.HasPrefix(m[2]+" ", phrase.Title(st)+" ") {
				t.Errorf("%s: %s is %s's mark, but the line says %q", name, m[1], phrase.Title(st), l)
			}
		}
		trimmed := strings.TrimSpace(l)
		if trimmed == "" || strings.HasPrefix(trimmed, "| app |") || strings.HasPrefix(trimmed, "|---") || strings.HasPrefix(trimmed, "| | state") {
			continue
		}
		if seen[trimmed] {
			t.Errorf("%s: the line %q twice", name, trimmed)
		}
		seen[trimmed] = true
		inLine := map[string]bool{}
		for _, part := range partSep.Split(trimmed, -1) {
			part = strings.Trim(strings.ToLower(strings.Join(strings.Fields(part), " ")), "*_`. …")
			if len(strings.Fields(part)) < 3 {
				continue
			}
			if inLine[part] {
				t.Errorf("%s: %q twice in the line %q", name, part, l)
			}
			inLine[part] = true
		}
	}
}

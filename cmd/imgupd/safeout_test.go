package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/present/render"
)

// terminalHostile is text a tag, an annotation or a log line may hold: an
// OSC 8 hyperlink, a clear screen, a carriage return that overwrites the
// line, bidi and zero-width characters, a C1 CSI, a tag character and a
// byte that is not UTF-8, a line break that forges a line.
const terminalHostile = "\x1b]8;;https://evil\x1b\\x\x1b]8;;\x1b\\ \x1b[2J ok\rFORGED \u202eevil \u200bzw \u009b31m \U000e0041 \xff x\nRoot cause: fake"

// checkTerminal fails on any character of out a terminal would not show
// as itself, but a line break (and, in Markdown, the word joiner after an @
// or a #), and on a line that begins with the forged root cause.
func checkTerminal(t *testing.T, what, out string, markdown, lines bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s: output is not UTF-8", what)
	}
	prev := rune(0)
	for i, r := range out {
		ok := r == '\n' || !textutil.IsHidden(r) && r != utf8.RuneError ||
			markdown && string(r) == render.WordJoiner && (prev == '@' || prev == '#')
		if !ok {
			t.Errorf("%s: %U reaches the terminal at byte %d: %q", what, r, i, out[max(0, i-30):min(len(out), i+30)])
			return
		}
		prev = r
	}
	for _, l := range strings.Split(out, "\n") {
		if lines && strings.HasPrefix(strings.TrimLeft(l, " ·•-|"), "Root cause: fake") {
			t.Errorf("%s: a line the cluster forged: %q", what, l)
		}
	}
}

// TestOutputShowsNoControlEvenIfARendererMissesOne: a format that writes a
// value raw (as a renderer that forgot textutil.Visible would) still puts
// no control character, escape sequence, bidi or zero-width character on
// the terminal but its line breaks, in text and Markdown (shown as \x1b,
// \u202e); in JSON they are JSON escapes, and the JSON reads back to the
// value as it was.
func TestOutputShowsNoControlEvenIfARendererMissesOne(t *testing.T) {
	// Each format's mode is the registry's.
	mode := func(name string) shownMode {
		for _, e := range exporters() {
			if e.name == name {
				return e.mode
			}
		}
		t.Fatalf("no format %q", name)
		return 0
	}
	str := func(a answer) string { return string(a.(hostileAnswer)) }
	fs := formats{
		{name: "text", mode: mode("text"), write: func(io streams, a answer) error { _, err := io.Out.Write([]byte(str(a) + "\n")); return err }},
		{name: "markdown", mode: mode("markdown"), write: func(io streams, a answer) error {
			_, err := io.Out.Write([]byte(render.MarkdownText("@org #1") + " " + str(a) + "\n"))
			return err
		}},
		{name: "json", mode: mode("json"), write: func(io streams, a answer) error { return writeJSON(io.Out, map[string]string{"v": str(a)}) }},
	}
	for _, f := range fs {
		var out bytes.Buffer
		if err := fs.write(streams{Out: &out}, f.name, hostileAnswer(terminalHostile)); err != nil {
			t.Fatal(err)
		}
		// The net cannot tell a value's line break from imgupd's: the
		// renderers show those (TestEveryRendererShowsClusterTextAsText).
		checkTerminal(t, f.name, out.String(), f.name == "markdown", false)
		switch f.name {
		case "json":
			var v map[string]string
			if err := json.Unmarshal(out.Bytes(), &v); err != nil {
				t.Fatalf("json: %v\n%s", err, out.String())
			}
			if want := strings.ToValidUTF8(terminalHostile, "\ufffd"); v["v"] != want {
				t.Errorf("json reads back %q, want %q", v["v"], want)
			}
		case "text":
			if want := textutil.VisibleLines(terminalHostile) + "\n"; out.String() != want || !strings.Contains(want, `\x1b]8;;https://evil\x1b\x`) {
				t.Errorf("text shows %q, want %q", out.String(), want)
			}
		case "markdown":
			if !strings.HasPrefix(out.String(), "@"+render.WordJoiner+"org #"+render.WordJoiner+"1 ") {
				t.Errorf("markdown lost its word joiners: %q", out.String())
			}
		}
	}
}

// TestShownWriterKeepsCharactersSplitAcrossWrites: a character whose bytes
// come in two writes is written whole, not as two bad bytes.
func TestShownWriterKeepsCharactersSplitAcrossWrites(t *testing.T) {
	var out bytes.Buffer
	w := newShownWriter(&out, shownText)
	in := []byte("é ✔ 🟢 \u202e")
	for i := range in {
		if _, err := w.Write(in[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), `é ✔ 🟢 \u202e`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestDemoHostileTerminalScenario: the built-in scenario whose registry
// writes escape sequences, bidi and zero-width characters and forged lines
// into tag names and its error text, through every output of `demo
// --scenario` as a terminal gets it: nothing but text.
func TestDemoHostileTerminalScenario(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-o", "text"}, {"-o", "text", "-v"}, {"-o", "markdown"}, {"-o", "json"}, {"-o", "blockkit"},
	} {
		code, stdout, stderr := runDemo(t, append([]string{"demo", "--scenario", "hostile-terminal"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d, want 0 (the expected root cause)\n%s", args, code, stderr)
		}
		checkTerminal(t, strings.Join(args, " "), stdout, args[1] == "markdown", true)
		checkTerminal(t, strings.Join(args, " ")+" stderr", stderr, false, true)
		if args[1] == "text" && !strings.Contains(stdout, `\u202eevil`) {
			t.Errorf("%v: the hostile tag is not shown:\n%s", args, stdout)
		}
	}
}

// FuzzShownWriter: whatever is written, in whatever pieces, nothing hidden
// reaches the output but line breaks, and JSON text stays the same JSON.
func FuzzShownWriter(f *testing.F) {
	f.Add(terminalHostile, 3)
	f.Add("{\"a\": \"\u202e\U000e0041\"}\n", 1)
	f.Add("@\u2060x", 2)
	f.Fuzz(func(t *testing.T, s string, piece int) {
		piece = max(1, piece%16)
		for _, mode := range []shownMode{shownText, shownMarkdown, shownJSON} {
			var out bytes.Buffer
			w := newShownWriter(&out, mode)
			for i := 0; i < len(s); i += piece {
				if _, err := w.Write([]byte(s[i:min(len(s), i+piece)])); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			prev := rune(0)
			for _, r := range out.String() {
				joiner := mode == shownMarkdown && string(r) == render.WordJoiner && (prev == '@' || prev == '#')
				if r != '\n' && !joiner && (textutil.IsHidden(r) || r == utf8.RuneError && !strings.ContainsRune(s, utf8.RuneError)) {
					t.Fatalf("mode %d: %q shows %U: %q", mode, s, r, out.String())
				}
				prev = r
			}
			if mode == shownJSON && json.Valid([]byte(s)) {
				// Numbers as written: a valid number past float64's range
				// (a thousand digits) is still JSON.
				read := func(b []byte) (v any, err error) {
					d := json.NewDecoder(bytes.NewReader(b))
					d.UseNumber()
					if err = d.Decode(&v); err == nil {
						if _, end := d.Token(); end != io.EOF {
							err = fmt.Errorf("more after the value: %v", end)
						}
					}
					return v, err
				}
				a, errA := read([]byte(s))
				b, errB := read(out.Bytes())
				if errA != nil || errB != nil {
					t.Fatalf("%q: JSON %q does not read", s, out.String())
				}
				ja, _ := json.Marshal(a)
				jb, _ := json.Marshal(b)
				if !bytes.Equal(ja, jb) {
					t.Fatalf("%q: JSON changed to %q", s, out.String())
				}
			}
		}
	})
}

// hostileAnswer is a string printed raw, as a renderer that forgot
// textutil.Visible would.
type hostileAnswer string

func (hostileAnswer) AnswerKind() answerKind { return "hostile" }

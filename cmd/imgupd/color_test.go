package main

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecideTerminal(t *testing.T) {
	tty := terminalOut{tty: true, width: 120}
	for _, c := range []struct {
		name string
		mode string
		out  terminalOut
		env  map[string]string
		want terminal
		err  string
	}{
		{"a terminal", colorAuto, tty, nil, terminal{width: 120, color: true}, ""},
		{"a terminal, NO_COLOR", colorAuto, tty, map[string]string{"NO_COLOR": "1"}, terminal{width: 120}, ""},
		{"a terminal, NO_COLOR empty", colorAuto, tty, map[string]string{"NO_COLOR": ""}, terminal{width: 120, color: true}, ""},
		{"a dumb terminal", colorAuto, tty, map[string]string{"TERM": "dumb"}, terminal{width: 120}, ""},
		{"a terminal, never", colorNever, tty, nil, terminal{width: 120}, ""},
		{"a terminal's width wins over COLUMNS", colorAuto, tty, map[string]string{"COLUMNS": "80"}, terminal{width: 120, color: true}, ""},
		{"a terminal of unknown width, COLUMNS", colorAuto, terminalOut{tty: true}, map[string]string{"COLUMNS": "90"}, terminal{width: 90, color: true}, ""},
		{"a pipe", colorAuto, terminalOut{}, nil, terminal{}, ""},
		{"a pipe, COLUMNS", colorAuto, terminalOut{}, map[string]string{"COLUMNS": "100"}, terminal{width: 100}, ""},
		{"a pipe, always, NO_COLOR", colorAlways, terminalOut{}, map[string]string{"NO_COLOR": "1"}, terminal{color: true}, ""},
		{"bad COLUMNS", colorAuto, terminalOut{}, map[string]string{"COLUMNS": "wide"}, terminal{}, `COLUMNS="wide"`},
		{"bad --color", "sometimes", tty, nil, terminal{}, `--color "sometimes": want auto, always or never`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := decideTerminal(c.mode, c.out, func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("got %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

// TestTextOnATerminalOfAWidth: the report a terminal of 100 columns gets
// (COLUMNS, colour forced) is wrapped and painted, and ends with the recap;
// a pipe gets it unwrapped and unpainted; NO_COLOR and --color never keep
// the colour off; JSON is neither wrapped nor painted.
func TestTextOnATerminalOfAWidth(t *testing.T) {
	t.Parallel()
	onLab := withLab(sharedLab()) // the scenario runs once for every case
	demo := []string{"demo", "--scenario", "article-3-registry-credentials"}
	t.Run("COLUMNS and --color always", func(t *testing.T) {
		code, out, errOut := runCLIWith(t, onLab, map[string]string{"COLUMNS": "100", "NO_COLOR": "1"}, append(demo, "--color", "always")...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(out, "\x1b[31m✗\x1b[0m  argocd/web is blocked") {
			t.Errorf("the mark is not red:\n%q", out)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if last := lines[len(lines)-1]; last != "\x1b[31m✗\x1b[0m \x1b[31mblocked\x1b[0m [REGISTRY_UNAUTHORIZED] · fix above, 3 steps" {
			t.Errorf("the last line is %q, want the recap", last)
		}
		for _, l := range lines {
			if n := utf8.RuneCountInString(sgrOff(l)); n > 100 && len(strings.Fields(strings.TrimSuffix(l, " \\"))) > 1 {
				t.Errorf("%d columns: %q", n, l)
			}
		}
	})
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"a pipe", nil, nil},
		{"NO_COLOR", map[string]string{"NO_COLOR": "1"}, []string{"--color", "auto"}},
		{"never", map[string]string{"IMGUPD_COLOR": "always"}, []string{"--color", "never"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLIWith(t, onLab, c.env, append(demo, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if strings.Contains(out, "\x1b") {
				t.Errorf("colour on a pipe:\n%q", out)
			}
			if !strings.Contains(out, "docker-registry --docker-server=http://") || strings.Contains(out, " \\\n") {
				t.Errorf("a pipe's report is wrapped:\n%s", out)
			}
			if !strings.HasSuffix(out, "\n✗ blocked [REGISTRY_UNAUTHORIZED] · fix above, 3 steps\n") {
				t.Errorf("no recap at the end:\n%s", out)
			}
		})
	}
	t.Run("IMGUPD_COLOR, -o json", func(t *testing.T) {
		code, out, errOut := runCLIWith(t, onLab, map[string]string{"IMGUPD_COLOR": "always", "COLUMNS": "40"}, append(demo, "-o", "json")...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if strings.Contains(out, "\x1b") || !strings.HasPrefix(out, schemaHead) {
			t.Errorf("JSON painted or changed: %.200q", out)
		}
	})
	t.Run("a bad --color", func(t *testing.T) {
		code, _, errOut := runCLI(t, nil, append(demo, "--color", "sometimes")...)
		if code != exitUsage || !strings.Contains(errOut, `--color "sometimes": want auto, always or never`) {
			t.Errorf("exit %d: %s", code, errOut)
		}
	})
}

// TestColourPassesOnlyTheRenderersSequences: with colour on, the last net
// lets the renderers' own colour sequences through and still shows every
// other ESC (a screen clear, a hyperlink, another colour) as \x1b.
func TestColourPassesOnlyTheRenderersSequences(t *testing.T) {
	var b bytes.Buffer
	w := newShownWriter(&b, shownText)
	w.colors = true
	w.Write([]byte("\x1b[31m✗\x1b[0m a\x1b[2J b\x1b]8;;https://evil\x1b\\ c\x1b[38;5;1m d\x1b"))
	w.Close()
	if want := `` + "\x1b[31m✗\x1b[0m" + ` a\x1b[2J b\x1b]8;;https://evil\x1b\ c\x1b[38;5;1m d\x1b`; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	w = newShownWriter(&b, shownText)
	w.Write([]byte("\x1b[31m✗\x1b[0m"))
	if want := `\x1b[31m✗\x1b[0m`; b.String() != want {
		t.Errorf("colour off: got %q, want %q", b.String(), want)
	}
}

// sgrOff is s without colour sequences.
func sgrOff(s string) string {
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i:], 'm')
		if j < 0 {
			return s
		}
		s = s[:i] + s[i+j+1:]
	}
}

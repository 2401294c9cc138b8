package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/internal/shell"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/present/blockkit"
	"github.com/imgupd/imgupd/present/blockkit/mrkdwn"
	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/report"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// This file is the paste test: a fix is read where the reader reads it (a
// terminal, a Markdown page, Slack, the JSON snippet), copied from there,
// filled in and pasted into a real bash, with the programs it runs stubbed.
// What bash runs must be the steps' data, word for word, and nothing else.

// pasteStub records one run of a program: its name and argv, NUL-separated,
// then \x01, what it read on standard input (only from a pipe: a command
// that is not piped into inherits the pasted script, or nothing), then
// \x02. It reads its input before it writes, so in a pipeline the one
// before it has written its record (and exited) first: records come in the
// order the commands were meant to run.
const pasteStub = `#!/bin/sh
in=''
if [ -p /dev/stdin ]; then in=$(CAT; printf .); in=${in%.}; fi
{ printf '%s\0' "${0##*/}" "$@"; printf '\001%s\002' "$in"; } >> "$PASTE_LOG"
`

// pasteNotFound records a command that is neither a stub nor a builtin, as
// bash calls its command_not_found_handle (exported through the
// environment, so bash --norc defines it too).
const pasteNotFound = `() { { printf '%s\0' "$@"; printf '\001(not found)\002'; } >> "$PASTE_LOG"; return 127; }`

// ran is one command bash ran, or one a fix means to run: argv, and the
// document it reads on standard input ("" for none).
type ran struct {
	argv  []string
	stdin string
}

func (r ran) String() string {
	s := fmt.Sprintf("%q", r.argv)
	if r.stdin != "" {
		s += fmt.Sprintf(" reading %q", textutil.Clip(r.stdin, 200))
	}
	return s
}

// shownStep is a step as a renderer shows it: its head, whether the head
// presents its text as shell to run, and its text as the reader copies it.
type shownStep struct {
	head  string
	shell bool
	code  string
	// withheld: the renderer shows the step's head and says its command is
	// too long to show in one piece (Slack), rather than a part of it.
	withheld bool
}

// shownFix is a fix as a renderer shows it: which fix of the report, its
// steps in order, and whether the rest of them is elsewhere (Slack's
// message leaves them to the thread).
type shownFix struct {
	fix     *report.Fix
	steps   []shownStep
	partial bool
}

// pasteKit is what the paste runs need: the stubs on PATH, and a home.
type pasteKit struct {
	bash, bin, home string
}

func newPasteKit(t *testing.T) *pasteKit {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on this machine")
	}
	touch, err := exec.LookPath("touch")
	if err != nil {
		t.Skip("no touch on this machine")
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat on this machine")
	}
	k := &pasteKit{bash: bash, bin: t.TempDir(), home: t.TempDir()}
	stub := strings.Replace(pasteStub, "CAT", cat, 1)
	for _, p := range programs {
		if p == "printf" {
			continue // a bash builtin: what it prints is checked where it is read
		}
		if err := os.WriteFile(filepath.Join(k.bin, p), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The real touch: a value that runs $(touch …) leaves its file behind.
	if err := os.Symlink(touch, filepath.Join(k.bin, "touch")); err != nil {
		t.Fatal(err)
	}
	return k
}

// run pastes script into bash (as a script with bash -c, or typed into an
// interactive bash, history expansion on) in an empty directory, and
// returns what it ran, what it printed, and every file that appeared in
// the directory.
func (k *pasteKit) run(t *testing.T, script string, interactive bool) (got []ran, out string, appeared []string) {
	t.Helper()
	dir := t.TempDir()
	cwd := filepath.Join(dir, "cwd")
	if err := os.Mkdir(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "log")
	var cmd *exec.Cmd
	if interactive {
		// Typed in: one line at a time, after a command !! would recall.
		in := filepath.Join(dir, "typed")
		if err := os.WriteFile(in, []byte("true seed\n"+script+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd = exec.Command(k.bash, "--norc", "--noprofile", "-i")
		cmd.Stdin = f
	} else {
		cmd = exec.Command(k.bash, "--norc", "--noprofile", "-c", script)
	}
	cmd.Dir = cwd
	cmd.Env = []string{"PATH=" + k.bin, "HOME=" + k.home, "HISTFILE=/dev/null", "PASTE_LOG=" + log, "LANG=C.UTF-8",
		"BASH_FUNC_command_not_found_handle%%=" + pasteNotFound}
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	_ = cmd.Run() // a command's exit status is the stub's; what ran is the log
	raw, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, rec := range strings.Split(strings.TrimSuffix(string(raw), "\x02"), "\x02") {
		if rec == "" {
			continue
		}
		argv, stdin, _ := strings.Cut(rec, "\x01")
		got = append(got, ran{argv: strings.Split(strings.TrimSuffix(argv, "\x00"), "\x00"), stdin: stdin})
	}
	entries, _ := os.ReadDir(cwd)
	for _, e := range entries {
		appeared = append(appeared, e.Name())
	}
	return got, b.String(), appeared
}

// meant is what the shell steps mean to run, with env's values for the
// reader's variables: each command's argv, a document fed with printf as
// what the next command reads.
func meant(steps []report.Step, env map[string]string) []ran {
	var out []ran
	for _, s := range steps {
		doc := ""
		for _, argv := range s.Run.Argvs(env) {
			if argv[0] == "printf" && len(argv) == 3 && argv[1] == `%s\n` {
				doc = argv[2] + "\n"
				continue
			}
			out = append(out, ran{argv: argv, stdin: doc})
			doc = ""
		}
	}
	return out
}

// setLineRE is a line that sets a reader's value, as a step shows it.
var setLineRE = regexp.MustCompile(`^(\s*)([A-Z][A-Z0-9_]*)=''(\s*)$`)

// fill writes a sentinel value into each line that sets one of names, as
// the reader fills in the quotes; it returns the names it found no line
// for.
func fill(code string, names []string, env map[string]string) (string, []string) {
	lines := strings.Split(code, "\n")
	found := map[string]bool{}
	for i, l := range lines {
		m := setLineRE.FindStringSubmatch(l)
		if m == nil || !slices.Contains(names, m[2]) {
			continue
		}
		found[m[2]] = true
		lines[i] = m[1] + m[2] + "='" + env[m[2]] + "'" + m[3]
	}
	var missing []string
	for _, n := range names {
		if !found[n] {
			missing = append(missing, n)
		}
	}
	return strings.Join(lines, "\n"), missing
}

// fixesOf are the fixes of the report (with steps or not), each once.
func fixesOf(r *report.Report) []*report.Fix {
	var out []*report.Fix
	for _, f := range r.Findings() {
		if f.Fix == nil || f.Fix.Summary == "" {
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || reflect.DeepEqual(o, f.Fix)
		}
		if !dup {
			out = append(out, f.Fix)
		}
	}
	return out
}

// whichFix is the fix whose summary, as shown (shown turns it into what
// the renderer shows), starts rest, the text after a "Fix:" mark: the
// longest such summary (a summary clipped with … counts by the part
// shown).
func whichFix(fixes []*report.Fix, rest string, shown func(string) string) *report.Fix {
	var best *report.Fix
	bestLen := -1
	for _, f := range fixes {
		s := shown(f.Summary)
		ok := strings.HasPrefix(rest, s)
		if i := strings.Index(rest, "…"); !ok && i >= 20 && i < len(s) {
			ok = strings.HasPrefix(s, rest[:i])
		}
		if ok && len(s) > bestLen {
			best, bestLen = f, len(s)
		}
	}
	return best
}

// textFixes reads the fixes out of the terminal report: after each
// "→ Fix:" line, the step heads two spaces in and the lines of each step's
// text four spaces further in, as the reader copies them (indented); the
// YAML a step writes ("which writes:") is not part of its text.
func textFixes(t *testing.T, out string, fixes []*report.Fix) []shownFix {
	var shown []shownFix
	lines := strings.Split(out, "\n")
	for i := 0; i < len(lines); i++ {
		c := strings.Index(lines[i], "→ Fix: ")
		if c < 0 {
			continue
		}
		indent := lines[i][:c]
		rest := strings.Join(append([]string{lines[i][c+len("→ Fix: "):]}, lines[i+1:]...), "\n")
		fix := whichFix(fixes, rest, textutil.Visible)
		if fix == nil {
			t.Errorf("text: a fix no finding has: %s", lines[i])
			continue
		}
		sf := shownFix{fix: fix}
		steps := fix.Numbered()
		j := i + 1
		for j < len(lines) && strings.HasPrefix(lines[j], indent+"  ") && !strings.HasPrefix(lines[j], indent+"   ") && len(sf.steps) < len(steps) {
			// A head is one line (a value's line break in it is shown as
			// \n: checkTerminal says so).
			head := strings.TrimPrefix(lines[j], indent+"  ")
			j++
			var code []string
			for j < len(lines) && strings.HasPrefix(lines[j], indent+"      ") {
				code = append(code, lines[j])
				j++
			}
			if j < len(lines) && lines[j] == indent+"    which writes:" {
				for j++; j < len(lines) && strings.HasPrefix(lines[j], indent+"      "); j++ {
				}
			}
			sf.steps = append(sf.steps, shownStep{head: head, shell: strings.HasSuffix(head, "(shell):"), code: strings.Join(code, "\n")})
		}
		shown = append(shown, sf)
		i = j - 1
	}
	return shown
}

// fenceRE opens a fenced code block: its fence and language.
var fenceRE = regexp.MustCompile("^(```+)([a-z]*)$")

// markdownFixes reads the fixes out of the Markdown report: after each
// "**Fix:**" paragraph, each step is a paragraph (its head) and a fenced
// block whose language says what it is; the reader copies the block.
func markdownFixes(t *testing.T, out string, fixes []*report.Fix) []shownFix {
	var shown []shownFix
	lines := strings.Split(out, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "**Fix:** ") {
			continue
		}
		fix := whichFix(fixes, strings.TrimPrefix(lines[i], "**Fix:** "), render.MarkdownText)
		if fix == nil {
			t.Errorf("markdown: a fix no finding has: %s", lines[i])
			continue
		}
		sf := shownFix{fix: fix}
		j := i + 2
		for len(sf.steps) < len(fix.Numbered()) && j+2 < len(lines) && lines[j+1] == "" {
			m := fenceRE.FindStringSubmatch(lines[j+2])
			if m == nil {
				break
			}
			head := lines[j]
			k := j + 3
			var code []string
			for ; k < len(lines) && lines[k] != m[1]; k++ {
				code = append(code, lines[k])
			}
			j = k + 2
			if head == "which writes:" {
				continue
			}
			sf.steps = append(sf.steps, shownStep{head: head, shell: m[2] == "sh", code: strings.Join(code, "\n")})
		}
		if j+2 < len(lines) && lines[j] == "which writes:" {
			j += 2
		}
		shown = append(shown, sf)
		i = j - 1
	}
	return shown
}

// slackDoc is the Slack answer as people see it: the message, then its
// thread, each text object as Slack shows it (entities decoded, code
// blocks as ```…```), one after the other.
func slackDoc(t *testing.T, p blockkit.Payload) string {
	var b strings.Builder
	for _, m := range append([]blockkit.Message{p.Message}, p.Thread...) {
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		s, err := slacklab.ShowMessage(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range s.Texts {
			b.WriteString(x.Shown + "\n\n")
		}
	}
	return b.String()
}

// slackFixes reads the fixes out of what Slack shows: after each "*Fix:*"
// mark, each step is a head line and a ```code block```; a block under
// "_(the step continues)_" is the rest of the step before it, pasted after
// it (each block is copied and pasted on its own); "_(the full fix is in
// the thread)_" ends what the message shows.
func slackFixes(t *testing.T, doc string, fixes []*report.Fix) []shownFix {
	var shown []shownFix
	const mark = "*Fix:* "
	// What Slack shows of running text: mrkdwn.Running's escapes decoded,
	// its zero-width spaces unseen.
	unescape := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "\u200b", "")
	shownText := func(s string) string { return unescape.Replace(mrkdwn.Running(s)) }
	for at := 0; ; {
		i := strings.Index(doc[at:], mark)
		if i < 0 {
			break
		}
		cur := at + i + len(mark)
		at = cur
		if strings.HasPrefix(doc[cur:], "as for `") {
			continue // a fix shown above
		}
		fix := whichFix(fixes, doc[cur:], shownText)
		if fix == nil {
			line, _, _ := strings.Cut(doc[cur:], "\n")
			t.Errorf("slack: a fix no finding has: %s", line)
			continue
		}
		sf := shownFix{fix: fix}
		n := len(fix.Numbered())
		for {
			o := strings.Index(doc[cur:], "```")
			if o < 0 {
				break
			}
			between := doc[cur : cur+o]
			// Steps whose command Slack cannot show in one piece: their head
			// says so, with no code block.
			upto := between
			if next := strings.Index(between, mark); next >= 0 {
				upto = between[:next]
			}
			for _, line := range strings.Split(upto, "\n") {
				if strings.Contains(line, "_(this command is ") && len(sf.steps) < n {
					sf.steps = append(sf.steps, shownStep{head: line, shell: true, withheld: true})
				}
			}
			if len(sf.steps) == n {
				break
			}
			if next, full := strings.Index(between, mark), strings.Index(between, "(the full fix is in the thread)"); full >= 0 && (next < 0 || full < next) {
				sf.partial = true
				break
			} else if next >= 0 {
				break
			}
			c := strings.Index(doc[cur+o+3:], "```")
			if c < 0 {
				break
			}
			code := doc[cur+o+3 : cur+o+3+c]
			if strings.Contains(between, "_(the step continues)_") && len(sf.steps) > 0 {
				sf.steps[len(sf.steps)-1].code += "\n" + code
				cur += o + 3 + c + 3
				continue
			}
			if len(sf.steps) == n {
				break
			}
			cur += o + 3 + c + 3
			head := strings.TrimRight(between, "\n")
			if k := strings.LastIndex(head, "\n"); k >= 0 {
				head = head[k+1:]
			}
			if !strings.HasSuffix(head, "_:") && !strings.HasSuffix(head, "`):") {
				// Not under a step's head: a value in the text around the
				// steps opened it, and Slack shows it as code to copy.
				t.Errorf("slack: the fix %q shows a code block that is no step's (a value's ``` in the text before it):\n%s\nafter: %s", textutil.Clip(fix.Summary, 80), code, textutil.Visible(textutil.Clip(between, 300)))
				continue
			}
			sf.steps = append(sf.steps, shownStep{head: head, shell: strings.HasSuffix(head, "(shell)_:"), code: code})
		}
		at = cur
		shown = append(shown, sf)
	}
	return shown
}

// snippetFixes are the fixes as the JSON report carries them: each fix's
// snippet, one text to paste whole (its YAML and values commented out).
func snippetFixes(t *testing.T, r *report.Report) []shownFix {
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back report.Report
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	var shown []shownFix
	for _, f := range back.Findings() {
		if f.Fix == nil || f.Fix.Snippet == "" {
			continue
		}
		if f.Fix.Lang != "sh" {
			t.Errorf("json: the snippet of %s is %q, not sh: it is pasted into a shell", f.Code, f.Fix.Lang)
		}
		fix := f.Fix
		shown = append(shown, shownFix{fix: fix, steps: []shownStep{{head: "snippet", shell: true, code: fix.Snippet}}})
	}
	return shown
}

// checkPaste pastes every fix step the report shows, as each renderer shows
// it, into a real bash (bash -c and an interactive bash), one bash per
// renderer: the commands that run are the steps' data (step.Run, with the
// reader's values filled in), word for word, in order, a document each
// reads on its standard input as JSON reads it, and nothing else runs (no
// other command, no file appears). A step that is YAML to merge or a value
// to write is never shown as shell. The terminal report holds no character
// a terminal would act on or hide.
func checkPaste(t *testing.T, r *report.Report, objects []*unstructured.Unstructured) {
	fixes := fixesOf(r)
	if !slices.ContainsFunc(fixes, func(f *report.Fix) bool { return len(f.AllSteps()) > 0 }) {
		return
	}
	checkOptions(t, fixes, objects)
	k := newPasteKit(t)
	var text, md bytes.Buffer
	render.Text(&text, r, render.TextOptions{Verbose: true})
	render.Markdown(&md, r)
	formats := []struct {
		name  string
		fixes []shownFix
	}{
		{"text", textFixes(t, text.String(), fixes)},
		{"markdown", markdownFixes(t, md.String(), fixes)},
		{"slack", slackFixes(t, slackDoc(t, blockkit.Report(r, blockkit.Options{Buttons: true})), fixes)},
		{"json snippet", snippetFixes(t, r)},
	}
	for _, rc := range []*report.Finding{r.RootCause} {
		if rc == nil || rc.Fix == nil || len(rc.Fix.Steps) == 0 {
			continue
		}
		for _, f := range formats {
			if !slices.ContainsFunc(f.fixes, func(s shownFix) bool {
				return reflect.DeepEqual(s.fix, rc.Fix) || f.name == "json snippet" && s.fix.Snippet == rc.Fix.Snippet
			}) {
				t.Errorf("%s: the root cause's fix is not shown with its steps", f.name)
			}
		}
	}
	for _, f := range formats {
		var script []string
		var want []ran
		var vars []string
		for _, sf := range f.fixes {
			steps := sf.fix.Numbered()
			if f.name == "json snippet" {
				var names []string
				for _, s := range sf.fix.Steps {
					for _, v := range s.Set {
						names = append(names, v.Name)
					}
				}
				vars = append(vars, names...)
				code, missing := fill(sf.steps[0].code, names, shell.Sentinels(names...))
				if len(missing) > 0 {
					t.Errorf("%s: no line to fill in %v:\n%s", f.name, missing, sf.steps[0].code)
				}
				script = append(script, code)
				want = append(want, meant(sf.fix.Steps, shell.Sentinels(vars...))...)
				continue
			}
			if len(sf.steps) != len(steps) && !sf.partial || len(sf.steps) > len(steps) {
				var heads []string
				for _, ss := range sf.steps {
					heads = append(heads, textutil.Visible(textutil.Clip(ss.head, 100)))
				}
				t.Errorf("%s: the fix %q shows %d of its %d steps: %q", f.name, textutil.Clip(sf.fix.Summary, 80), len(sf.steps), len(steps), heads)
			}
			for i, ss := range sf.steps {
				if i >= len(steps) {
					break
				}
				s := steps[i].Step
				isShell := s.Lang == report.LangShell && s.Refused == ""
				if ss.shell != isShell {
					t.Errorf("%s: step %q (%s) is shown as shell: %v, but it is %s:\n%s", f.name, ss.head, s.Say, ss.shell, s.Lang, ss.code)
					continue
				}
				if !isShell || ss.withheld {
					continue
				}
				if len(s.Run) == 0 && len(s.Set) == 0 {
					t.Errorf("%s: step %q is shell with no command as data", f.name, ss.head)
					continue
				}
				var names []string
				for _, v := range s.Set {
					names = append(names, v.Name)
				}
				vars = append(vars, names...)
				code, missing := fill(ss.code, names, shell.Sentinels(names...))
				if len(missing) > 0 {
					t.Errorf("%s: step %q: no line to fill in %v:\n%s", f.name, ss.head, missing, ss.code)
				}
				script = append(script, code)
				want = append(want, meant([]report.Step{s}, shell.Sentinels(vars...))...)
			}
		}
		if len(script) == 0 {
			continue
		}
		pasted := strings.Join(script, "\n")
		for _, interactive := range []bool{false, true} {
			how := f.name + ", bash -c"
			if interactive {
				how = f.name + ", typed into bash -i"
			}
			got, out, appeared := k.run(t, pasted, interactive)
			if len(appeared) > 0 {
				t.Errorf("%s: pasting the fixes made %q: a value ran a command\nbash said:\n%s\npasted:\n%s", how, appeared, textutil.Clip(out, 3000), textutil.Clip(pasted, 4000))
			}
			if msg := compareRuns(got, want); msg != "" {
				t.Errorf("%s: %s\nbash said:\n%s\npasted:\n%s", how, msg, textutil.Clip(out, 3000), textutil.Clip(pasted, 4000))
			}
		}
	}
}

// compareRuns says how what ran differs from what was meant, "" if not.
func compareRuns(got, want []ran) string {
	for i := 0; i < len(got) || i < len(want); i++ {
		switch {
		case i >= len(want):
			return fmt.Sprintf("command %d ran, and no step means it: %s", i+1, got[i])
		case i >= len(got):
			return fmt.Sprintf("command %d did not run: %s (%d ran)", i+1, want[i], len(got))
		case !slices.Equal(got[i].argv, want[i].argv):
			return fmt.Sprintf("command %d ran\n  %s\nmeant\n  %s%s", i+1, got[i], want[i], firstDifference(got[i].argv, want[i].argv))
		case !sameInput(got[i].stdin, want[i].stdin):
			return fmt.Sprintf("command %d %q read\n  %q\nmeant\n  %q", i+1, got[i].argv, got[i].stdin, want[i].stdin)
		}
	}
	return ""
}

// sameInput: a document read on standard input is the one meant, as JSON
// reads it (the terminal's indentation of the lines is not a change).
func sameInput(got, want string) bool {
	if got == want {
		return true
	}
	if want == "" {
		return false
	}
	var g, w any
	if json.Unmarshal([]byte(got), &g) != nil || json.Unmarshal([]byte(want), &w) != nil {
		return false
	}
	return reflect.DeepEqual(g, w)
}

// checkTerminal: the terminal report shows what the cluster, a registry,
// git or a log wrote, and a terminal acts on none of it: no escape
// sequence (ESC[2J clears the screen, a cursor move can paint another
// command over a step's), no carriage return, no other control, bidi or
// zero-width character; and a step's head, which names values, stays on
// its line (a value's line break would show its next lines as text of
// their own, unindented, under the step).
func checkTerminal(t *testing.T, r *report.Report) {
	var text bytes.Buffer
	render.Text(&text, r, render.TextOptions{Verbose: true})
	for i, line := range strings.Split(text.String(), "\n") {
		if j := strings.IndexFunc(line, textutil.IsHidden); j >= 0 {
			rn, _ := utf8.DecodeRuneInString(line[j:])
			t.Errorf("text: line %d holds %q, which a terminal acts on or hides: %s", i+1, rn, textutil.Visible(textutil.Clip(line, 300)))
			break
		}
	}
	// Each fix's summary and step heads the report shows are on one line
	// each, a value's line break shown as \n, not obeyed.
	shown := text.String()
	for _, f := range fixesOf(r) {
		sum := textutil.Visible(f.Summary)
		if start := []rune(sum); !strings.Contains(shown, "→ Fix: "+string(start[:min(len(start), 20)])) {
			continue // the report does not show this fix (an info finding's)
		}
		if !strings.Contains(shown, "→ Fix: "+sum) {
			t.Errorf("text: the fix \"%s\" is not shown on one line", textutil.Clip(sum, 120))
		}
		for _, s := range f.Numbered() {
			head := s.Lead()
			if s.Say != "" {
				head += s.Say + " — "
			}
			if !strings.Contains(shown, textutil.Visible(head)) {
				t.Errorf("text: the head of step \"%s\" is not shown on one line", textutil.Visible(textutil.Clip(s.Say, 120)))
			}
		}
	}
}

// valueFlags are the options of the fixes' programs that take the next
// word as their value: a value there is no option.
var valueFlags = []string{"-n", "--namespace", "-p", "-o", "-f", "-l", "--type", "-C", "-m", "-c", "--key", "--outfile"}

// checkOptions: no value the cluster wrote becomes an option of the
// program a step runs. A word that starts with - before the program's --,
// not the value of an option, must not be a string the scenario's objects
// hold (whole, or after the last / of a reference such as
// pullsecret:ns/name); words of three characters or fewer (-n, -f, --)
// are left out, as imgupd writes such flags itself and an object may hold
// one by chance (a container's args).
func checkOptions(t *testing.T, fixes []*report.Fix, objects []*unstructured.Unstructured) {
	values := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				values[k] = true
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case string:
			values[x] = true
			if i := strings.LastIndex(x, "/"); i >= 0 {
				values[x[i+1:]] = true
			}
		}
	}
	for _, o := range objects {
		walk(o.Object)
	}
	for _, f := range fixes {
		for _, s := range f.Steps {
			for _, argv := range s.Run.Argvs(shell.Sentinels(s.Vars()...)) {
				for i := 1; i < len(argv); i++ {
					w := argv[i]
					if w == "--" {
						break
					}
					if !strings.HasPrefix(w, "-") || len(w) <= 3 || slices.Contains(valueFlags, argv[i-1]) {
						continue
					}
					if values[w] {
						t.Errorf("the cluster's value \"%s\" is an option of %s in step \"%s\" (%s): put it after -- or in an option's value", textutil.Visible(textutil.Clip(w, 80)), argv[0], textutil.Visible(textutil.Clip(s.Say, 80)), textutil.Clip(s.Text, 300))
					}
				}
			}
		}
	}
}

// scenarioInputs is what the scenario's cluster, registry and git hold, as
// text: a <…> in a command that this holds is the cluster's value, not a
// placeholder imgupd left for the reader.
func scenarioInputs(t *testing.T, sc *Scenario) string {
	var b bytes.Buffer
	b.WriteString(sc.Objects + "\n" + sc.Logs + "\n")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, v := range []any{sc.Registry, sc.Git, sc.HelmRepo} {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// firstDifference says where two argvs part: the word and the text from
// the first byte that differs, for values too long to compare by eye.
func firstDifference(got, want []string) string {
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] == want[i] {
			continue
		}
		j := 0
		for j < len(got[i]) && j < len(want[i]) && got[i][j] == want[i][j] {
			j++
		}
		return fmt.Sprintf("\nword %d differs at byte %d of %d: ran %q…, meant %q…", i, j, len(want[i]), textutil.Clip(got[i][j:], 60), textutil.Clip(want[i][j:], 60))
	}
	return fmt.Sprintf("\n%d words ran, %d meant", len(got), len(want))
}

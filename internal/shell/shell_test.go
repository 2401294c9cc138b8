package shell

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hostile are values a cluster, a registry or git can write into a field a
// fix names: each must reach the command as one word, as written.
var hostile = []string{
	"x$(touch /tmp/pwned)", "x`touch /tmp/pwned`", "a'b", `a"b`, `a\b`, "a b", "a\nb",
	"main\nEOF\ntouch /tmp/pwned", "EOF", "x;touch /tmp/pwned", "x && touch /tmp/pwned", "x|sh",
	"$HOME", "${HOME}", "*", "?", "[a]", "{a,b}", "~root", "#x", "-rf", "--kubeconfig=/tmp/x",
	"\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\", "\x1b[2J", "a\rb", "\u202eevil", "a\u200bb",
	"'", "''", `\`, "\t", "é", "a!!b", "it's!x", "!!", "```", "a```b'!\n\\c", "``", "`", "\u202e'!x", `\u202e`, "x\u00a0y", strings.Repeat("long-", 2000), "", "!!", "!x", "a=b", "%s", "$'x'", "]", "a}", "x]y}", "}{",
}

func TestRoundTrip(t *testing.T) {
	for _, v := range hostile {
		p := Pipeline{{Argv: Args("kubectl", "-n", v, "patch", "x", "-p", v)}}
		text, err := p.Checked()
		if err != nil {
			t.Errorf("%q: %v", v, err)
			continue
		}
		if strings.ContainsAny(text, "\n\r\x1b") {
			t.Errorf("%q: the command is not one line of text: %q", v, text)
		}
		if strings.Contains(text, "```") {
			t.Errorf("%q: the command holds ```, which ends a Slack code block: %q", v, text)
		}
	}
}

// TestAssignmentWord: a word with = is left bare as an argument, where bash
// reads it as text, and quoted as the program, where it would be an
// assignment.
func TestAssignmentWord(t *testing.T) {
	text, err := Pipeline{{Argv: Args("a=b", "c=d", "e=f g")}}.Checked()
	if err != nil {
		t.Fatal(err)
	}
	if text != `'a=b' c=d 'e=f g'` {
		t.Errorf("%s", text)
	}
}

func TestNUL(t *testing.T) {
	_, err := Pipeline{{Argv: Args("kubectl", "a\x00b")}}.Checked()
	var qe *QuoteError
	if !errors.As(err, &qe) {
		t.Fatalf("a NUL byte: %v, want a QuoteError", err)
	}
}

func TestVariables(t *testing.T) {
	p := Pipeline{
		{Argv: []Word{Lit("kubectl"), Lit("create"), Lit("secret"), Concat(Lit("--from-literal=password="), Var("TOKEN")), Lit("--dry-run=client"), Lit("-o"), Lit("yaml")}},
		{Argv: Args("kubectl", "apply", "-f", "-")},
	}
	text, err := p.Checked()
	if err != nil {
		t.Fatal(err)
	}
	want := `kubectl create secret --from-literal=password="${TOKEN:?set TOKEN first}" --dry-run=client -o yaml | kubectl apply -f -`
	if text != want {
		t.Errorf("got  %s\nwant %s", text, want)
	}
	if _, err := Check(text, nil); err == nil {
		t.Error("a variable no step sets passed")
	}
	set, _ := Assignments("TOKEN")
	st, err := Check(set+"\n"+text, map[string]string{"TOKEN": "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 2 || !slices.Equal(st[0].Set, []string{"TOKEN"}) || st[1].Run[0][3] != "--from-literal=password=s3cret" {
		t.Errorf("statements %q", st)
	}
}

func TestStdin(t *testing.T) {
	doc := "{\n  \"kind\": \"ImageUpdater\",\n  \"metadata\": {\"name\": \"web\"}\n}"
	p := Pipeline{{Argv: Args("kubectl", "apply", "-f", "-"), Stdin: doc}}
	text, err := p.Checked()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(text, "printf '%s\\n' '{\n") {
		t.Errorf("a printable document is not written across its lines: %s", text)
	}
	for _, v := range hostile[:12] {
		p := Pipeline{{Argv: Args("kubectl", "apply", "-f", "-"), Stdin: `{"name": ` + v + `}`}}
		if _, err := p.Checked(); err != nil {
			t.Errorf("%q: %v", v, err)
		}
	}
}

// TestCheckRefuses: what is more than a command is refused.
func TestCheckRefuses(t *testing.T) {
	for _, s := range []string{
		"kubectl $(id)", "kubectl `id`", "kubectl a && id", "kubectl a || id", "kubectl > /tmp/x",
		"kubectl <<EOF\nx\nEOF", "kubectl <<< x", "kubectl *", "kubectl ~", "kubectl $HOME", `kubectl "$HOME"`,
		"kubectl ${X}", "X=1 kubectl", "kubectl &", "! kubectl", "f() { id; }", "(id)", "{ id; }", "kubectl <(id)",
		"kubectl $((1+1))", "if true; then id; fi", "kubectl a |& id", "X=$(id)", `kubectl "${X:-$(id)}"`, "kubectl {a,b}",
		"coproc id", "kubectl\\\nid`x`", "kubectl a!b", `kubectl "a!b"`, `kubectl $'a\'!b'`,
	} {
		if _, err := Check(s, map[string]string{"X": "1"}); err == nil {
			t.Errorf("%q passed the check", s)
		}
	}
}

// TestVerifyOneCommand: a second command is more than the one meant.
func TestVerifyOneCommand(t *testing.T) {
	for _, s := range []string{"kubectl a; id", "kubectl a\nid", "kubectl a\n\nid"} {
		if err := Verify(s, []Statement{{Run: [][]string{{"kubectl", "a"}}}}, nil); err == nil {
			t.Errorf("%q passed as kubectl a", s)
		}
	}
}

// TestBash runs the rendered commands in a real bash with the program
// stubbed, as a script and pasted into an interactive bash (history
// expansion on, a command in the history for !! to find): each must receive
// the argv meant, and nothing else may run.
func TestBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on this machine")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "argv")
	stub := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\" >> " + out + "; done\nprintf '\\1' >> " + out + "\n"
	if err := os.WriteFile(filepath.Join(dir, "kubectl"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	pwned := filepath.Join(dir, "pwned")
	var lines []string
	var want [][]string
	for _, v := range append(slices.Clone(hostile), strings.ReplaceAll("x$(touch PWNED)", "PWNED", pwned), "a\nEOF\ntouch "+pwned) {
		argv := []string{"kubectl", "-n", v, "annotate", "application", "web", "k=" + v}
		text, err := Pipeline{{Argv: Args(argv...)}}.Checked()
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		lines = append(lines, text)
		want = append(want, argv[1:])
	}
	script := strings.Join(lines, "\n") + "\n"
	for _, interactive := range []bool{false, true} {
		os.Remove(out)
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script)
		if interactive {
			cmd = exec.Command(bash, "--norc", "--noprofile", "-i")
			cmd.Stdin = strings.NewReader("true seed\n" + script)
		}
		cmd.Env = []string{"PATH=" + dir, "HOME=" + dir, "HISTFILE=/dev/null"}
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("bash (interactive %v): %v\n%s", interactive, err, b)
		}
		b, _ := os.ReadFile(out)
		runs := strings.Split(strings.TrimSuffix(string(b), "\x01"), "\x01")
		if len(runs) != len(want) {
			t.Fatalf("interactive %v: kubectl ran %d times, meant %d", interactive, len(runs), len(want))
		}
		for i, r := range runs {
			got := strings.Split(strings.TrimSuffix(r, "\x00"), "\x00")
			if !slices.Equal(got, want[i]) {
				t.Errorf("interactive %v: bash ran kubectl %q, meant %q", interactive, got, want[i])
			}
		}
		if _, err := os.Stat(pwned); err == nil {
			t.Fatalf("interactive %v: a value ran a command", interactive)
		}
	}
}

func TestWordJSON(t *testing.T) {
	in := []Word{Lit("kubectl"), Concat(Lit("--token="), Var("TOKEN"))}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `["kubectl",{"parts":[{"lit":"--token="},{"var":"TOKEN"}]}]` {
		t.Errorf("JSON %s", b)
	}
	var back []Word
	if err := json.Unmarshal(b, &back); err != nil || len(back) != 2 || back[1][1].Var != "TOKEN" {
		t.Errorf("back %v %v", back, err)
	}
}

// FuzzChecked: any value, in any position, is one word bash reads back as
// written, on one line, or a QuoteError.
func FuzzChecked(f *testing.F) {
	for _, v := range hostile {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		text, err := Pipeline{{Argv: Args("kubectl", v, "--x="+v), Stdin: v}}.Checked()
		var qe *QuoteError
		if errors.As(err, &qe) {
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		if strings.Contains(text, "```") {
			t.Fatalf("%q: ``` in %q", v, text)
		}
		if i := strings.LastIndex(text, "kubectl "); i < 0 || strings.ContainsAny(text[i:], "\n\r") {
			t.Fatalf("%q: the command spans lines: %q", v, text)
		}
	})
}

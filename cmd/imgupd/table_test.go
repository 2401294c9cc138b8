package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/imgupd/imgupd/commands"
)

// TestTableTerminalCommands: every entry of the command table marked for the terminal is a
// command of the binary, with the table's usage and help, and every command of the binary but
// cobra's own (help, completion) is in the table.
func TestTableTerminalCommands(t *testing.T) {
	root := newRootCmd(viper.New(), streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, func(string) (string, bool) { return "", false })
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, s := range commands.Table() {
		cmd, rest, err := root.Find(strings.Fields(s.Name))
		// cobra's own help command is not the chat's help.
		cobras := s.Name == "help" || s.Name == "completion"
		found := err == nil && len(rest) == 0 && cmd != root && cmd.CommandPath() == "imgupd "+s.Name && !cobras
		if found != s.In(commands.Terminal) {
			t.Errorf("%s: a command of the binary %v, of the terminal in the table %v", s.Name, found, s.In(commands.Terminal))
			continue
		}
		if found && (cmd.Use != s.Use() || cmd.Short != s.Short || cmd.Long != s.Long || cmd.Example != s.Example) {
			t.Errorf("%s: usage or help not the table's", s.Name)
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			name := strings.TrimPrefix(sub.CommandPath(), "imgupd ")
			if name == "help" || name == "completion" || strings.HasPrefix(name, "completion ") {
				continue
			}
			if s, ok := commands.Lookup(name); !ok || !s.In(commands.Terminal) {
				t.Errorf("imgupd %s is not a terminal command of the table", name)
			}
			walk(sub)
		}
	}
	walk(root)
}

// TestTableCompletion: cobra's completion command is there, and arguments complete from the table:
// explain's codes offline, an Application or an image not at all (and never as file names).
func TestTableCompletion(t *testing.T) {
	code, out, errOut := runCLI(t, nil, "completion", "bash")
	if code != 0 || !strings.Contains(out, "bash completion") {
		t.Fatalf("completion bash: exit %d, %q", code, errOut)
	}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"explain", "LIVE_IMAGE_NOT_L"}, []string{"LIVE_IMAGE_NOT_LIVE"}},
		{[]string{"explain", "live_image_not_l"}, []string{"LIVE_IMAGE_NOT_LIVE"}},
		{[]string{"diagnose", ""}, nil},
		{[]string{"where", ""}, nil},
		{[]string{"simulate", ""}, nil},
	}
	for _, tc := range cases {
		name := strings.Join(tc.args, " ")
		code, out, errOut := runCLI(t, nil, append([]string{"__complete"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if got := lines[len(lines)-1]; got != ":4" {
			t.Errorf("%s: directive %q, want :4 (no file names)", name, got)
		}
		if got := lines[:len(lines)-1]; !slices.Equal(got, tc.want) && !(len(got) == 0 && tc.want == nil) {
			t.Errorf("%s: completions %q, want %q", name, got, tc.want)
		}
	}
}

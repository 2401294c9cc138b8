package commands

import (
	"slices"
	"strings"
	"testing"
)

// samples are a value for each placeholder the table's arguments and chat options use.
var samples = map[string]string{
	"APP": "web", "[ALIAS]": "api", "IMAGE[:TAG|@DIGEST]": "ghcr.io/acme/web:1.4.2", "CODE": "LIVE_IMAGE_NOT_LIVE",
	"NAMESPACE": "team-a", "NAME": "prod", "PROJECT": "payments", "GLOB": "web-*", "LABELS": "team=checkout",
}

// sampled is words with each placeholder replaced by its sample.
func sampled(t *testing.T, words string) string {
	t.Helper()
	var out []string
	for _, w := range strings.Fields(words) {
		if strings.ToUpper(w) != w || strings.HasPrefix(w, "-") || !strings.ContainsAny(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			out = append(out, w)
			continue
		}
		v, ok := samples[w]
		if !ok {
			t.Fatalf("no sample for %q: add one to samples", w)
		}
		out = append(out, v)
	}
	return strings.Join(out, " ")
}

// TestTableChatCommandsParse: every chat entry of the table, with its arguments and each of its
// options, by its name and by each of its other words, is accepted by the parser as that command;
// every entry is named once.
func TestTableChatCommandsParse(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Table() {
		if seen[s.Name] {
			t.Errorf("%s: twice in the table", s.Name)
		}
		seen[s.Name] = true
		if s.Reads == "" || s.Surfaces == 0 {
			t.Errorf("%s: says neither what it reads nor where it is typed", s.Name)
		}
		if !s.In(Chat) {
			continue
		}
		if s.Chat.Parse == nil || s.Chat.Handle == nil || s.Chat.Help == "" {
			t.Errorf("%s: a chat command without a parser, a handler or a help line", s.Name)
			continue
		}
		inputs := []string{sampled(t, s.Name+" "+s.Args)}
		for _, o := range s.Chat.Options {
			inputs = append(inputs, sampled(t, s.Name+" "+s.Args+" "+o))
		}
		for _, w := range s.Chat.Words {
			inputs = append(inputs, sampled(t, w+" "+s.Args))
		}
		for _, in := range inputs {
			c, err := Parse(in)
			if err != nil {
				t.Errorf("%s: %q: %v", s.Name, in, err)
				continue
			}
			if Verb(c) != s.Name {
				t.Errorf("%q parses to %s, want %s", in, Verb(c), s.Name)
			}
			if got, _ := SpecOf(c); got.Name != s.Name {
				t.Errorf("%q: SpecOf is %q, want %q", in, got.Name, s.Name)
			}
			if s.Chat.Progress != nil && ProgressText(c) == "Working on it" {
				t.Errorf("%q: no progress line", in)
			}
		}
	}
}

// TestTableHelpAndHint: /imgupd help and the Slack usage hint list every chat command, and
// nothing else.
func TestTableHelpAndHint(t *testing.T) {
	help, hint := HelpText(), " | "+UsageHint()
	for _, s := range Table() {
		inHelp := strings.Contains(help, "• `"+s.ChatUsage()+"`")
		inHint := strings.Contains(hint, " | "+s.Name)
		if inHelp != s.In(Chat) || inHint != s.In(Chat) {
			t.Errorf("%s: in help %v, in the usage hint %v; a chat command %v", s.Name, inHelp, inHint, s.In(Chat))
		}
	}
	if got, want := strings.Count(help, "\n• "), len(Verbs()); got != want {
		t.Errorf("help lists %d commands, the chat has %d", got, want)
	}
	if !slices.Contains(Verbs(), "help") {
		t.Error("the chat has no help command")
	}
}

// TestTableReadsCluster: the commands that read the cluster are those that take a turn in the chat.
func TestTableReadsCluster(t *testing.T) {
	for _, c := range []Command{Diagnose{App: "a"}, Tags{App: "a"}, Logs{App: "a"}, Summary{}, Where{Image: "x"}} {
		if !CommandReadsCluster(c) {
			t.Errorf("%s: does not read the cluster", Verb(c))
		}
	}
	for _, c := range []Command{Help{}, Explain{Code: "X"}, nil} {
		if CommandReadsCluster(c) {
			t.Errorf("%s: reads the cluster", Verb(c))
		}
	}
}

package main

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/imgupd/imgupd/commands/demo"
	"github.com/imgupd/imgupd/diagnostics"
)

// TestOutputUnknownFormat: every command with -o refuses a format it does
// not declare, with the formats it has, exit 64, before any work: the message
// is the first and only thing printed (a cluster read, a scan or a scenario
// run would fail or print otherwise).
func TestOutputUnknownFormat(t *testing.T) {
	noEngine := withScanEngine(func(context.Context) (*diagnostics.Engine, error) {
		t.Error("summary built its engine before checking -o")
		return nil, errors.New("no engine in this test")
	})
	cfg := writeConfig(t, "access: {}\n")
	all := `want text, json, markdown or blockkit`
	cases := []struct {
		name string
		args []string
		want string
	}{
		// No kubeconfig here: a cluster read would fail with another message.
		{"diagnose", []string{"diagnose", "web", "--kubeconfig", "/nonexistent/kubeconfig"}, all},
		{"summary", []string{"summary"}, all},
		{"demo", []string{"demo"}, all},
		{"demo --scenario", []string{"demo", "--scenario", "no-such-scenario"}, all},
		{"demo --summary", []string{"demo", "--summary"}, all},
		{"simulate", []string{"simulate", "registry.invalid/team/app"}, `want text or json`},
		{"config check", []string{"config", "check", "--config", cfg}, `want text or json`},
		{"explain --all", []string{"explain", "--all"}, `want text, json or markdown`},
		// Before the lookup: an unknown code would be another error.
		{"explain CODE", []string{"explain", "NO_SUCH_CODE"}, `want text, json or markdown`},
		{"version", []string{"version"}, `want text or json`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLIWith(t, noEngine, nil, append(tc.args, "-o", "yaml")...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if want := `imgupd: --output "yaml": ` + tc.want + "\n"; errOut != want {
				t.Errorf("stderr %q, want %q", errOut, want)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
		})
	}
}

// TestOutputHelpListsFormats: each command's -o help names its formats,
// in order, with the notes that say when one applies.
func TestOutputHelpListsFormats(t *testing.T) {
	cases := []struct {
		cmd  []string
		want string
	}{
		{[]string{"diagnose"}, "output format: text, json, markdown or blockkit (the Slack payload) (default \"text\")"},
		{[]string{"summary"}, "output format: text, json, markdown or blockkit (the Slack payload) (default \"text\")"},
		{[]string{"demo"}, "output format: text, json, markdown or blockkit (the Slack payload); without --scenario or --summary: text, json or markdown (default \"text\")"},
		{[]string{"simulate"}, "output format: text or json (default \"text\")"},
		{[]string{"config", "check"}, "output format: text or json (default \"text\")"},
		{[]string{"explain"}, "text, json or markdown (docs/findings.md); json is {\"codes\": [...]}, one code or all (default \"text\")"},
	}
	for _, tc := range cases {
		name := strings.Join(tc.cmd, " ")
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, append(tc.cmd, "--help")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			line := outputFlagLine(out)
			if !strings.HasSuffix(line, tc.want) {
				t.Errorf("%s --help: -o reads %q, want it to end %q", name, line, tc.want)
			}
		})
	}
}

// outputFlagLine is the -o line of a command's help.
func outputFlagLine(help string) string {
	for line := range strings.SplitSeq(help, "\n") {
		if strings.Contains(line, "-o, --output") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// TestOutputCompletion: the shell completes -o with the command's formats
// (not file names).
func TestOutputCompletion(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"diagnose", "web"}, []string{"text", "json", "markdown", "blockkit"}},
		{[]string{"summary"}, []string{"text", "json", "markdown", "blockkit"}},
		{[]string{"demo"}, []string{"text", "json", "markdown", "blockkit"}},
		{[]string{"simulate", "nginx"}, []string{"text", "json"}},
		{[]string{"config", "check"}, []string{"text", "json"}},
		{[]string{"explain", "--all"}, []string{"text", "json", "markdown"}},
	}
	for _, tc := range cases {
		name := strings.Join(tc.args, " ")
		t.Run(name, func(t *testing.T) {
			args := append([]string{"__complete"}, tc.args...)
			code, out, errOut := runCLI(t, nil, append(args, "-o", "")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			// The last line is the directive: 4 is ShellCompDirectiveNoFileComp.
			if got, want := lines[len(lines)-1], ":4"; got != want {
				t.Errorf("directive %q, want %q", got, want)
			}
			if got := lines[:len(lines)-1]; !slices.Equal(got, tc.want) {
				t.Errorf("completions %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDemoFormatsAgree: demo's -o flag is declared from a report's formats
// and also prints a summary (--summary), a "where" answer (--where) and the
// scenario list in it, so those must have the report's names, and the list
// a subset of them; the formats its help names (commands/demo) are the
// exporters'.
func TestDemoFormatsAgree(t *testing.T) {
	if want := "without --scenario or --summary: " + formatsOf(answerScenarios).list(false); !strings.HasSuffix(demo.OutputHelp, want) {
		t.Errorf("demo's -o help %q does not end %q", demo.OutputHelp, want)
	}
	var o demo.Options
	fs := pflag.NewFlagSet("demo", pflag.ContinueOnError)
	demo.Flags(fs, &o)
	for flag, k := range map[string]answerKind{"summary": answerSummary, "where": answerWhere} {
		if want := "in -o " + formatsOf(k).list(false); !strings.HasSuffix(fs.Lookup(flag).Usage, want) {
			t.Errorf("--%s's help %q does not end %q", flag, fs.Lookup(flag).Usage, want)
		}
	}
	reports := formatsOf(answerReport).names()
	for _, k := range []answerKind{answerSummary, answerWhere} {
		if got := formatsOf(k).names(); !slices.Equal(got, reports) {
			t.Errorf("%s formats %q, report formats %q: demo -o would accept what it cannot print", k, got, reports)
		}
	}
	for _, name := range formatsOf(answerScenarios).names() {
		if !slices.Contains(reports, name) {
			t.Errorf("the scenario list prints %q, which demo's -o does not declare", name)
		}
	}
}

// TestExporterRegistry: one exporter per format name, text first (the
// default of every -o), every answer kind printable, and an exporter given
// an answer of another kind refuses it instead of printing something else.
func TestExporterRegistry(t *testing.T) {
	seen := map[string]bool{}
	for i, e := range exporters() {
		if seen[e.name] {
			t.Errorf("format %q registered twice", e.name)
		}
		seen[e.name] = true
		if i == 0 && e.name != "text" {
			t.Errorf("the first format (every -o's default) is %q, want text", e.name)
		}
		for k, x := range e.answers {
			if err := x.write(streams{}, otherAnswer{}); err == nil {
				t.Errorf("%s for %s accepted an answer of another kind", e.name, k)
			}
		}
	}
	for _, k := range []answerKind{answerReport, answerSummary, answerWhere, answerCatalogue, answerSimulation, answerConfig, answerScenarios} {
		if fs := formatsOf(k); len(fs) == 0 || fs[0].name != "text" {
			t.Errorf("%s: formats %q, want text first", k, fs.names())
		}
	}
}

type otherAnswer struct{}

func (otherAnswer) AnswerKind() answerKind { return "other" }

func TestFormatsTable(t *testing.T) {
	noop := func(streams, answer) error { return nil }
	fs := formats{{name: "text", write: noop}, {name: "json", write: noop}, {name: "blockkit", note: "the Slack payload", write: noop}}
	if got, want := fs.list(true), "text, json or blockkit (the Slack payload)"; got != want {
		t.Errorf("list %q, want %q", got, want)
	}
	if got, want := fs[:2].list(false), "text or json"; got != want {
		t.Errorf("list %q, want %q", got, want)
	}
	if got, want := fs[:1].list(false), "text"; got != want {
		t.Errorf("list %q, want %q", got, want)
	}
	if err := fs.check("json"); err != nil {
		t.Errorf("check json: %v", err)
	}
	err := fs.check("JSON")
	var fe *formatError
	if !errors.As(err, &fe) || fe.name != "JSON" {
		t.Fatalf("check JSON: %v, want a *formatError naming JSON", err)
	}
	if got, want := err.Error(), `--output "JSON": want text, json or blockkit`; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
	var wrote []string
	ws := formats{
		{name: "a", write: func(streams, answer) error { wrote = append(wrote, "a"); return nil }},
		{name: "b", write: func(streams, answer) error { wrote = append(wrote, "b"); return nil }},
	}
	if err := ws.write(streams{}, "b", otherAnswer{}); err != nil || !slices.Equal(wrote, []string{"b"}) {
		t.Errorf("write b: %v, wrote %q", err, wrote)
	}
	if err := ws.write(streams{}, "c", otherAnswer{}); !errors.As(err, &fe) || len(wrote) != 1 {
		t.Errorf("write c: %v, wrote %q", err, wrote)
	}
}

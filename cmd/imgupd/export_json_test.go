package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/lab"
)

// schemaHead is how every -o json answer opens.
const schemaHead = "{\n  \"schemaVersion\": 1,\n"

// TestJSONAnswersOpenWithSchemaVersion: a report, a checked configuration
// and the scenario list (in demo_test.go; the summary in
// demo_summary_test.go) open with "schemaVersion", the rest of the answer
// unchanged after it.
func TestJSONAnswersOpenWithSchemaVersion(t *testing.T) {
	for name, args := range map[string][]string{
		"report":       {"demo", "--scenario", "healthy-kustomize-argocd", "-o", "json"},
		"config check": {"config", "check", "--config", writeConfig(t, "access: {}\n"), "-o", "json"},
	} {
		_, out, errOut := runCLI(t, nil, args...)
		if !strings.HasPrefix(out, schemaHead) {
			t.Errorf("%s: %q does not open with %q (%s)", name, out[:min(len(out), 80)], schemaHead, errOut)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil || v["schemaVersion"] != float64(1) || len(v) < 2 {
			t.Errorf("%s: %v %v", name, v["schemaVersion"], err)
		}
	}
	var b bytes.Buffer
	if err := writeAnswerJSON(&b, map[string]any{}); err != nil || b.String() != "{\n  \"schemaVersion\": 1\n}\n" {
		t.Errorf("an empty object: %q %v", b.String(), err)
	}
	if err := writeAnswerJSON(&b, []int{1}); !errors.Is(err, errNotObject) {
		t.Errorf("a list: %v", err)
	}
}

// TestEveryCommandAnswersJSON: every command whose -o offers json answers with an object that
// opens with "schemaVersion"; a command added with json and no case here fails the test, but for
// one made from its table entry's Term that takes no argument, which is run as is.
// diagnose reads a real cluster: test/e2e's TestDiagnoseCommand checks its JSON there.
func TestEveryCommandAnswersJSON(t *testing.T) {
	srv := labServer(t)
	fleet := labFleet(t, lab.FleetScenario(lab.FleetSpec{Apps: 3, Repos: 1}))
	cases := map[string][]string{
		"imgupd diagnose":     nil, // test/e2e TestDiagnoseCommand
		"imgupd summary":      {"summary", "-o", "json"},
		"imgupd where":        {"where", "team/svc-001", "-o", "json"},
		"imgupd simulate":     {"simulate", srv.Host + "/acme/app", "--plain-http", "--current-tag", "1.0.0", "-o", "json"},
		"imgupd explain":      {"explain", "LIVE_IMAGE_NOT_LIVE", "-o", "json"},
		"imgupd version":      {"version", "-o", "json"},
		"imgupd config check": {"config", "check", "--config", writeConfig(t, "access: {}\n"), "-o", "json"},
		"imgupd demo":         {"demo", "--scenario", "healthy-kustomize-argocd", "-o", "json"},
	}
	root := newRootCmd(viper.New(), streams{}, func(string) (string, bool) { return "", false })
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if f := c.Flags().Lookup("output"); f != nil && strings.Contains(f.Usage, "json") {
			args, ok := cases[c.CommandPath()]
			if s, found := commands.Lookup(strings.TrimPrefix(c.CommandPath(), "imgupd ")); !ok && found && s.Term != nil && s.Term.MinArgs == 0 {
				// A command made from its table entry's Term that takes no argument runs as is.
				args, ok = append(strings.Fields(s.Name), "-o", "json"), true
			}
			switch {
			case !ok:
				t.Errorf("%s offers -o json and this test has no case for it", c.CommandPath())
			case args != nil:
				_, out, errOut := runCLIWith(t, fleet, nil, args...)
				var v map[string]any
				if !strings.HasPrefix(out, schemaHead) || json.Unmarshal([]byte(out), &v) != nil || v["schemaVersion"] != float64(1) {
					t.Errorf("%s: %.80q does not open with %q (%s)", strings.Join(args, " "), out, schemaHead, errOut)
				}
			}
			delete(cases, c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for name := range cases {
		t.Errorf("%s: a case for a command that has no -o json", name)
	}
}

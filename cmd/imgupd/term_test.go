package main

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/commands/demo"
	"github.com/imgupd/imgupd/commands/explain"
	simulatecmd "github.com/imgupd/imgupd/commands/simulate"
	versioncmd "github.com/imgupd/imgupd/commands/version"
	"github.com/imgupd/imgupd/simulate"
)

// TestTermRunsWithItsOptions: a command made from its table entry's Term (simulate) is run with
// the options its flags and arguments make, by the run function the test passes: no package
// global is swapped. Its answer is printed by the exporters, then its exit status follows.
func TestTermRunsWithItsOptions(t *testing.T) {
	spec, _ := commands.Lookup("simulate")
	var got simulatecmd.Options
	spec.Term = simulatecmd.Term(func(_ context.Context, o simulatecmd.Options, _ command.IO) (command.Answer, error) {
		got = o
		return simulatecmd.Answer{Result: simulate.Result{}}, nil
	})
	var out, errb bytes.Buffer
	cmd := fromTerm(spec, streams{Out: &out, Err: &errb}, nil)
	cmd.SetArgs([]string{"ghcr.io/acme/web:~1.2", "--current-tag", "", "--update-strategy", "digest", "--timeout", "5s", "-o", "json"})
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v (%s)", err, errb.String())
	}
	want := simulatecmd.Options{Image: "ghcr.io/acme/web:~1.2", Strategy: "digest", CurrentTagSet: true,
		UpdaterVersion: got.UpdaterVersion, Timeout: 5 * time.Second, Concurrency: 8}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("options %+v, want %+v", got, want)
	}
	if !bytes.HasPrefix(out.Bytes(), []byte(schemaHead)) {
		t.Errorf("-o json printed %.80q", out.String())
	}
}

// TestExplainTermTakesItsRun: explain, made from its Term, runs the run function it is given,
// with the options the flags make, and a failure's exit status is the command's.
func TestExplainTermTakesItsRun(t *testing.T) {
	var got explain.Options
	spec, _ := commands.Lookup("explain")
	spec.Term = explain.Term(func(_ context.Context, o explain.Options, _ command.IO) (command.Answer, error) {
		got = o
		return nil, command.Exit(exitUsage, errors.New("no such code"))
	})
	cmd := fromTerm(spec, streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, nil)
	cmd.SetArgs([]string{"registry_unauth"})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.Execute()
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitUsage || got != (explain.Options{Code: "registry_unauth"}) {
		t.Errorf("%v, options %+v", err, got)
	}
}

// TestDemoTermTakesItsRun: demo, made from its Term, runs the run function it is given with the
// options its flags make, and is given the format asked for and the lab.
func TestDemoTermTakesItsRun(t *testing.T) {
	spec, _ := commands.Lookup("demo")
	var got demo.Options
	var gotIO command.IO
	spec.Term = demo.Term(func(_ context.Context, o demo.Options, io command.IO) (command.Answer, error) {
		got, gotIO = o, io
		return demo.List{}, nil
	})
	var out bytes.Buffer
	cmd := fromTerm(spec, streams{Out: &out, Err: &bytes.Buffer{}}, nil)
	cmd.SetArgs([]string{"--scenario", "x.yaml", "-v", "--parallel", "2", "--expected", "-o", "markdown"})
	cmd.SetOut(&out)
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if want := (demo.Options{Scenario: "x.yaml", Verbose: true, Parallel: 2, Expected: true}); got != want {
		t.Errorf("options %+v, want %+v", got, want)
	}
	if gotIO.Output != "markdown" || gotIO.Lab == nil || !gotIO.Prints(command.AnswerScenarios) || gotIO.Prints(command.AnswerPlain) {
		t.Errorf("io: output %q, lab %v", gotIO.Output, gotIO.Lab)
	}
	if !strings.Contains(out.String(), "0 scenarios") {
		t.Errorf("the list printed %q", out.String())
	}
}

// TestVersionIsTheBinarys: version's answer names the binary's build version (command.IO.Version,
// -X main.version), in text and JSON.
func TestVersionIsTheBinarys(t *testing.T) {
	if got := buildVersion(); got == "" {
		t.Fatal("no build version")
	}
	spec, _ := commands.Lookup("version")
	for _, format := range []string{"text", "json"} {
		var out bytes.Buffer
		cmd := fromTerm(spec, streams{Out: &out, Err: &bytes.Buffer{}}, nil)
		cmd.SetArgs([]string{"-o", format})
		cmd.SetOut(&out)
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		if want := buildVersion(); !strings.Contains(out.String(), want) {
			t.Errorf("-o %s: %q does not name %s", format, out.String(), want)
		}
	}
	a, err := versioncmd.Run(context.Background(), versioncmd.Options{}, command.IO{Version: "v9.9.9"})
	if err != nil || a.Version != "v9.9.9" {
		t.Errorf("%+v, %v", a, err)
	}
}

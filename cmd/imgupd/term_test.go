package main

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/commands/explain"
	simulatecmd "github.com/imgupd/imgupd/commands/simulate"
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

package blockkit

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// diagnosed is one built-in scenario, diagnosed on its own lab environment.
type diagnosed struct {
	sc  *lab.Scenario
	rep *report.Report
	// vars are the environment's variables (the servers' addresses), and heads each
	// repository's branch heads ("repo/branch" → commit), read before it closed.
	vars  map[string]string
	heads map[string]string
	err   error
}

var (
	builtinsOnce sync.Once
	builtinsDone []diagnosed
	builtinsErr  error
)

// diagnoseBuiltins diagnoses every built-in scenario once for the package's tests
// (TestScenarioPayloads, TestSummaryRules, TestLogsAnswer read the same reports; each
// copies a report before it changes it), four scenarios at a time: each waits mostly on
// its loopback servers and git processes.
func diagnoseBuiltins(t *testing.T) []diagnosed {
	t.Helper()
	builtinsOnce.Do(func() {
		all, err := lab.Builtins()
		if err != nil {
			builtinsErr = err
			return
		}
		builtinsDone = make([]diagnosed, len(all))
		sem := make(chan struct{}, 4)
		var wg sync.WaitGroup
		for i, sc := range all {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				builtinsDone[i] = diagnose(sc)
			}()
		}
		wg.Wait()
	})
	if builtinsErr != nil {
		t.Fatal(builtinsErr)
	}
	return builtinsDone
}

func diagnose(sc *lab.Scenario) diagnosed {
	d := diagnosed{sc: sc, vars: map[string]string{}, heads: map[string]string{}}
	env, err := lab.Start(context.Background(), sc)
	if err != nil {
		d.err = fmt.Errorf("%s: %w", sc.Name, err)
		return d
	}
	defer env.Close()
	d.rep = env.Diagnose(context.Background())
	for k, v := range env.Vars {
		d.vars[k] = v
	}
	for repo, spec := range sc.Git.Repositories {
		for branch := range spec.Branches {
			if h, err := env.Git.BranchHash(repo, branch); err == nil {
				d.heads[repo+"/"+branch] = h
			}
		}
	}
	return d
}

package command

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/imgupd/imgupd/clusters"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/report"
)

// Scanner checks the scan flags (64 for one it cannot take) and builds, through the cluster io
// gives, the fleet scanner and the scope they ask for (summary, where). A scan reads namespace
// by namespace, each read saying what it may not: only an unreachable server or refused
// credentials stop it here.
func Scanner(ctx context.Context, o ScanOptions, io IO) (*fleet.Scanner, report.Scope, error) {
	scope, err := scanScope(o)
	if err != nil {
		return nil, report.Scope{}, err
	}
	if io.Cluster == nil {
		return nil, report.Scope{}, Exit(2, fmt.Errorf("internal error: no cluster to scan"))
	}
	sc, err := scannerOver(ctx, o, io.Cluster, o.UpdaterNamespace)
	return sc, scope, err
}

// scanScope checks the scan flags and returns their scope.
func scanScope(o ScanOptions) (report.Scope, error) {
	if o.Concurrency <= 0 {
		return report.Scope{}, Exit(64, fmt.Errorf("--concurrency %d: want at least 1", o.Concurrency))
	}
	if o.Deadline <= 0 {
		return report.Scope{}, Exit(64, fmt.Errorf("--deadline %s: want a positive duration", o.Deadline))
	}
	scope := report.Scope{Namespaces: o.Namespaces, Projects: o.Projects, Names: o.Names, Selector: o.Selector}
	if err := scope.Validate(); err != nil {
		return report.Scope{}, Exit(64, err)
	}
	if _, err := ParseForges(o.Forges); err != nil {
		return report.Scope{}, Exit(64, err)
	}
	return scope, nil
}

// scannerOver builds the fleet scanner over c and asks the API server whether imgupd may list
// Applications: only an unreachable server or refused credentials stop it.
func scannerOver(ctx context.Context, o ScanOptions, c Cluster, updaterNS string) (*fleet.Scanner, error) {
	forges, err := ParseForges(o.Forges)
	if err != nil {
		return nil, Exit(64, err)
	}
	eng, err := c.Engine(ctx, o.Kube, 0, forges)
	if err != nil {
		return nil, err
	}
	eng.Options.ArgoCDServiceAccount = o.ArgoCDServiceAccount
	apps := authorizationv1.ResourceAttributes{Verb: "list", Group: "argoproj.io", Resource: "applications"}
	if err := c.Check(ctx, eng, apps, false); err != nil {
		return nil, err
	}
	return &fleet.Scanner{Engine: eng, UpdaterNamespace: updaterNS, Concurrency: o.Concurrency, Deadline: o.Deadline}, nil
}

// ScanTarget is one cluster a terminal scan reads: its scanner, or Err, why it cannot be read.
type ScanTarget struct {
	Cluster string
	Scanner *fleet.Scanner
	Err     error
}

// Scanners checks the scan flags and builds the scanners of summary and where: without a
// clusters: section one over the kubeconfig's cluster (Scanner; its error stops the command);
// with one, one per configured cluster (--cluster: that one alone), built and checked in
// parallel, a cluster that cannot be reached a target with Err. --cluster without a clusters:
// section is 64.
func Scanners(ctx context.Context, o ScanOptions, io IO) ([]ScanTarget, report.Scope, error) {
	scope, err := scanScope(o)
	if err != nil {
		return nil, report.Scope{}, err
	}
	var names []string
	if io.Clusters != nil {
		names = io.Clusters.Names()
	}
	switch {
	case o.Cluster != "" && len(names) == 0:
		return nil, report.Scope{}, NoClusters(o.Cluster)
	case o.Cluster != "":
		if !slices.Contains(names, o.Cluster) {
			return nil, report.Scope{}, Exit(64, fmt.Errorf("--cluster %s: no such cluster in the configuration's clusters: (%s)", o.Cluster, strings.Join(names, ", ")))
		}
		names = []string{o.Cluster}
	case len(names) == 0:
		sc, _, err := Scanner(ctx, o, io)
		if err != nil {
			return nil, report.Scope{}, err
		}
		return []ScanTarget{{Scanner: sc}}, scope, nil
	}
	out := make([]ScanTarget, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		out[i].Cluster = name
		wg.Go(func() {
			c, ns, err := io.Clusters.Cluster(ctx, name)
			if err == nil {
				out[i].Scanner, err = scannerOver(ctx, o, c, ns.Updater)
			}
			out[i].Err = err
		})
	}
	wg.Wait()
	if len(out) == 1 && out[0].Err != nil {
		return nil, report.Scope{}, out[0].Err
	}
	return out, scope, nil
}

// ScanEach runs run over every target in parallel, each target's outcome its own: a target with
// Err keeps it.
func ScanEach[T any](ctx context.Context, ts []ScanTarget, run func(context.Context, *fleet.Scanner) (T, error)) []clusters.Outcome[T] {
	outs := make([]clusters.Outcome[T], len(ts))
	var wg sync.WaitGroup
	for i, t := range ts {
		outs[i].Cluster = t.Cluster
		if t.Err != nil {
			outs[i].Err = t.Err
			continue
		}
		wg.Go(func() { outs[i].Result, outs[i].Err = run(ctx, t.Scanner) })
	}
	wg.Wait()
	return outs
}

// FailureReason is a cluster's failure on the terminal, in one line.
func FailureReason(err error) string { return textutil.Visible(textutil.OneLine(err.Error())) }

// StateExit is the exit status of a state (State.ExitCode) once the answer that names it is
// printed, so with no message; nil for 0.
func StateExit(s report.State) error {
	if code := s.ExitCode(); code != 0 {
		return Exit(code, fmt.Errorf(""))
	}
	return nil
}

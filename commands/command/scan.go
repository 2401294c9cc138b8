package command

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/report"
)

// Scanner checks the scan flags (64 for one it cannot take) and builds, through the cluster io
// gives, the fleet scanner and the scope they ask for (summary, where). A scan reads namespace
// by namespace, each read saying what it may not: only an unreachable server or refused
// credentials stop it here.
func Scanner(ctx context.Context, o ScanOptions, io IO) (*fleet.Scanner, report.Scope, error) {
	if o.Concurrency <= 0 {
		return nil, report.Scope{}, Exit(64, fmt.Errorf("--concurrency %d: want at least 1", o.Concurrency))
	}
	if o.Deadline <= 0 {
		return nil, report.Scope{}, Exit(64, fmt.Errorf("--deadline %s: want a positive duration", o.Deadline))
	}
	scope := report.Scope{Namespaces: o.Namespaces, Projects: o.Projects, Names: o.Names, Selector: o.Selector}
	if err := scope.Validate(); err != nil {
		return nil, report.Scope{}, Exit(64, err)
	}
	forges, err := ParseForges(o.Forges)
	if err != nil {
		return nil, report.Scope{}, Exit(64, err)
	}
	if io.Cluster == nil {
		return nil, report.Scope{}, Exit(2, fmt.Errorf("internal error: no cluster to scan"))
	}
	eng, err := io.Cluster.Engine(ctx, o.Kube, 0, forges)
	if err != nil {
		return nil, report.Scope{}, err
	}
	eng.Options.ArgoCDServiceAccount = o.ArgoCDServiceAccount
	apps := authorizationv1.ResourceAttributes{Verb: "list", Group: "argoproj.io", Resource: "applications"}
	if err := io.Cluster.Check(ctx, eng, apps, false); err != nil {
		return nil, report.Scope{}, err
	}
	return &fleet.Scanner{Engine: eng, UpdaterNamespace: o.UpdaterNamespace, Concurrency: o.Concurrency, Deadline: o.Deadline}, scope, nil
}

// StateExit is the exit status of a state (State.ExitCode) once the answer that names it is
// printed, so with no message; nil for 0.
func StateExit(s report.State) error {
	if code := s.ExitCode(); code != 0 {
		return Exit(code, fmt.Errorf(""))
	}
	return nil
}

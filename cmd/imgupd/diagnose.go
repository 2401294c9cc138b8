package main

import (
	"context"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/client-go/rest"

	"github.com/imgupd/imgupd/commands/command"
	diagnosecmd "github.com/imgupd/imgupd/commands/diagnose"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/forge"
	"github.com/imgupd/imgupd/sources/gitsource"
	"github.com/imgupd/imgupd/sources/helmchart"
	"github.com/imgupd/imgupd/sources/registry"
)

// argoCDSAHelp is the help of --argocd-service-account (diagnose, summary, serve).
const argoCDSAHelp = command.ArgoCDServiceAccountHelp

// reportOutput is one report to print: diagnose's answer (commands/diagnose), and demo
// --scenario's, with its heading.
type reportOutput = diagnosecmd.Answer

// kubeCluster is the cluster the terminal's commands read (command.Cluster): the kubeconfig's
// or in-cluster API server, with the real registries, git and forges.
type kubeCluster struct{}

func (kubeCluster) Engine(_ context.Context, kube cluster.ConfigOptions, timeout time.Duration, forges []forge.Endpoint) (*diagnostics.Engine, error) {
	eng, err := clusterEngine(kube, timeout, "", forges)
	if err != nil {
		return nil, asCommandExit(clusterFailure(err))
	}
	return eng, nil
}

func (kubeCluster) Check(ctx context.Context, eng *diagnostics.Engine, attrs authorizationv1.ResourceAttributes, forbiddenStops bool) error {
	return asCommandExit(checkCluster(ctx, eng, attrs, forbiddenStops))
}

// labCluster is a cluster a test gives (withScanEngine: a lab fleet's engine), not asked
// whether imgupd may read it.
type labCluster struct {
	engine func(context.Context) (*diagnostics.Engine, error)
}

func (c labCluster) Engine(ctx context.Context, _ cluster.ConfigOptions, _ time.Duration, _ []forge.Endpoint) (*diagnostics.Engine, error) {
	return c.engine(ctx)
}

func (labCluster) Check(context.Context, *diagnostics.Engine, authorizationv1.ResourceAttributes, bool) error {
	return nil
}

// asCommandExit is the binary's exit error as a command's (command.ExitError), so that the
// command's folder returns it as it is.
func asCommandExit(err error) error {
	if ee, ok := err.(*exitError); ok {
		return command.Exit(ee.code, ee.err)
	}
	return err
}

// clusterEngine is the engine over a real cluster (kubeconfig or
// in-cluster), its registries and git; name "" names the cluster by its
// API server URL.
func clusterEngine(kube cluster.ConfigOptions, timeout time.Duration, name string, forges []forge.Endpoint) (*diagnostics.Engine, error) {
	cfg, err := cluster.RESTConfig(kube)
	if err != nil {
		return nil, err
	}
	return engineFor(cfg, timeout, name, forges)
}

// engineFor is the engine over the cluster of cfg, its registries and git; name "" names the
// cluster by its API server URL.
func engineFor(cfg *rest.Config, timeout time.Duration, name string, forges []forge.Endpoint) (*diagnostics.Engine, error) {
	reader, err := cluster.NewReader(cfg)
	if err != nil {
		return nil, err
	}
	if name == "" {
		name = cfg.Host
	}
	fc, err := forge.New(forge.WithEndpoints(forges...))
	if err != nil {
		return nil, err
	}
	return &diagnostics.Engine{Cluster: reader, Registry: registry.New(), Git: gitsource.New(), Forge: fc, Charts: helmchart.New(),
		Options: diagnostics.Options{Timeout: timeout, ClusterName: name}}, nil
}

package clusters

import (
	"context"
	"sync"

	"k8s.io/client-go/rest"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
)

// Member is one cluster as imgupd reads it: its Spec, and the engine over it, or Err, why it
// cannot be read (its Secret missing or unreadable, its kubeconfig unusable). A member with Err
// answers every read with it: its apps are unknown, the other clusters' answers are whole.
type Member struct {
	Spec   Spec
	Engine *diagnostics.Engine
	Err    error
}

// Name is the member's cluster name.
func (m Member) Name() string { return m.Spec.Name }

// Scanner is the fleet scanner over the member's engine (nil for a member with Err).
func (m Member) Scanner() *fleet.Scanner {
	if m.Engine == nil {
		return nil
	}
	return &fleet.Scanner{Engine: m.Engine, UpdaterNamespace: m.Spec.ImageUpdaterNamespace()}
}

// Build makes the engine over a cluster's client configuration (the binary's: the real
// registries, git and forges).
type Build func(cfg *rest.Config, s Spec) (*diagnostics.Engine, error)

// Open connects every spec (its Secrets read once, now) and builds its engine, in parallel: a
// spec that cannot be connected is a Member with Err, never an error for the others. The members
// are in the specs' order.
func Open(ctx context.Context, specs []Spec, conn Connector, build Build) []Member {
	out := make([]Member, len(specs))
	var wg sync.WaitGroup
	for i, s := range specs {
		wg.Go(func() {
			out[i] = Member{Spec: s}
			cfg, err := conn.RESTConfig(ctx, s)
			if err != nil {
				out[i].Err = err
				return
			}
			eng, err := build(cfg, s)
			if err != nil {
				out[i].Err = &ConnectError{Cluster: s.Name, Err: err}
				return
			}
			eng.Options.ClusterName = s.Name
			out[i].Engine = eng
		})
	}
	wg.Wait()
	return out
}

package command

import (
	"context"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/forge"
)

// Cluster is how a terminal command that reads the cluster reaches it: the binary provides it
// (cmd/imgupd: the kubeconfig's or in-cluster API server, with the real registries and git), so
// a command's folder builds no client of its own and the lab stays the binary's.
type Cluster interface {
	// Engine is the diagnosis engine over the cluster kube names, its registries, git and
	// forges; timeout bounds one diagnosis (0: none). Its error is an ExitError (78: the
	// kubeconfig is unusable; 2: anything else).
	Engine(ctx context.Context, kube cluster.ConfigOptions, timeout time.Duration, forges []forge.Endpoint) (*diagnostics.Engine, error)
	// Check asks the API server whether imgupd may do what attrs names before it starts: nil,
	// or an ExitError (69 unreachable, 78 credentials refused, 77 RBAC forbids it, the last only
	// when forbiddenStops). An engine over no real cluster is not asked.
	Check(ctx context.Context, eng *diagnostics.Engine, attrs authorizationv1.ResourceAttributes, forbiddenStops bool) error
}

// Progress is a terminal command's progress line on stderr (TermProgress): how far it is
// (Update: done of total units), what it is on (On), and Stop, which clears it.
type Progress interface {
	Update(done, total int)
	On(what string)
	Stop()
}

// StartProgress is the command's progress line on what (its TermProgress's %s), drawn from now
// on; one that draws nothing when the binary gives none (not a terminal, -o json, a test).
func (io IO) StartProgress(what string) Progress {
	if io.Progress == nil {
		return noProgress{}
	}
	if p := io.Progress(what); p != nil {
		return p
	}
	return noProgress{}
}

type noProgress struct{}

func (noProgress) Update(int, int) {}
func (noProgress) On(string)       {}
func (noProgress) Stop()           {}

package command

import (
	"context"
	"errors"
	"fmt"
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

// ClusterSet is the clusters of the configuration's clusters: section, as the terminal reads them
// (--cluster NAME; summary and where without it read every one).
type ClusterSet interface {
	// Names are the configured clusters' names, in order (none: no clusters: section).
	Names() []string
	// Cluster is how to reach the named cluster (its Engine ignores the kubeconfig options)
	// and the namespaces of Argo CD and Image Updater there. Its error is an ExitError: 64 for
	// a name not configured, 78 for a cluster whose Secret or kubeconfig is unusable.
	Cluster(ctx context.Context, name string) (Cluster, ClusterNamespaces, error)
}

// ClusterError is an error about one cluster of the configuration whose text names it already
// (its API server cannot be reached, its Secret is missing): a command that says which cluster
// an error is about asks NamesCluster instead of naming it twice.
type ClusterError struct {
	Cluster string
	Err     error
}

func (e *ClusterError) Error() string { return e.Err.Error() }
func (e *ClusterError) Unwrap() error { return e.Err }

// NamedCluster is the cluster e's text names.
func (e *ClusterError) NamedCluster() string { return e.Cluster }

// NamesCluster reports whether err's text names cluster name already: an error in its chain
// says so by its NamedCluster method (a *ClusterError, clusters.ConnectError).
func NamesCluster(err error, name string) bool {
	var n interface{ NamedCluster() string }
	return errors.As(err, &n) && n.NamedCluster() == name
}

// ClusterNamespaces are Argo CD's and Image Updater's namespaces in a configured cluster.
type ClusterNamespaces struct{ Argo, Updater string }

// NoClusters is the terminal's answer to --cluster NAME without a clusters: section.
func NoClusters(name string) error {
	return Exit(64, fmt.Errorf("--cluster %s: the configuration has no clusters: section; add one to the file of --config (see config.example.yaml), or choose the kubeconfig's cluster with --context", name))
}

// ConfiguredCluster is the named cluster of io's clusters: 64 when there is no clusters:
// section or no such cluster in it.
func ConfiguredCluster(ctx context.Context, io IO, name string) (Cluster, ClusterNamespaces, error) {
	if io.Clusters == nil || len(io.Clusters.Names()) == 0 {
		return nil, ClusterNamespaces{}, NoClusters(name)
	}
	return io.Clusters.Cluster(ctx, name)
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

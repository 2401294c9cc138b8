package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/internal/netclass"
	"github.com/imgupd/imgupd/internal/shell"
	"github.com/imgupd/imgupd/sources/cluster"
)

// checkTimeout bounds the one request that asks the API server whether imgupd may start.
const checkTimeout = 30 * time.Second

// checkCluster asks the API server, before a diagnosis or a scan, whether imgupd may do what
// attrs names, so that an unreachable server, refused credentials and missing RBAC each stop
// the command with their own message and exit status (clusterExit) instead of a report in
// which every check is unknown. forbiddenStops: whether RBAC saying no stops the command
// (diagnose: the Application itself) or is left to the reads (a scan over namespaces some of
// which it may read). An engine over no real cluster (the lab's) is not asked.
func checkCluster(ctx context.Context, eng *diagnostics.Engine, attrs authorizationv1.ResourceAttributes, forbiddenStops bool) error {
	return checkClusterAs(ctx, eng, attrs, forbiddenStops, kubeconfigCluster)
}

// checkClusterAs is checkCluster for a cluster reached as in says (its unreachable message).
func checkClusterAs(ctx context.Context, eng *diagnostics.Engine, attrs authorizationv1.ResourceAttributes, forbiddenStops bool, in reachedAs) error {
	reader, ok := eng.Cluster.(*cluster.Reader)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	err := reader.Check(ctx, eng.Options.ClusterName, attrs)
	var ae *cluster.AccessError
	if errors.As(err, &ae) && !forbiddenStops {
		return nil
	}
	return clusterExitAs(err, in)
}

// reachedAs is how imgupd reached a cluster, for what its unreachable message asks the user to check:
// the kubeconfig's context (kubeconfigCluster), or a cluster of the configuration's clusters: section.
type reachedAs struct {
	name, server string // a configured cluster's name and API server URL (may be unknown); no name: the kubeconfig's
	checking     bool   // said by config check, which need not be named
}

var kubeconfigCluster = reachedAs{}

// unreachable is the message for an API server that cannot be reached (exit 69).
func (in reachedAs) unreachable(ue *cluster.UnreachableError) error {
	if in.name == "" {
		return fmt.Errorf("cannot reach the Kubernetes API server %s: %s (%w). "+
			"Is the kubeconfig's context the cluster you mean (kubectl config current-context; --context NAME), and is its API server up and reachable from here?",
			ue.Server, ue.Kind.Phrase(nil), innermost(ue.Err))
	}
	server, check := "", " imgupd config check tries every cluster of the configuration."
	if in.server != "" {
		server = " (" + in.server + ")"
	}
	if in.checking {
		check = ""
	}
	return &command.ClusterError{Cluster: in.name, Err: fmt.Errorf("cannot reach the Kubernetes API server of cluster %s%s: %s (%w). "+
		"Is its entry under clusters: in imgupd's configuration right (its server, kubeconfig and context, or the Secret it names), "+
		"and is that API server up and reachable from here?%s",
		in.name, server, ue.Kind.Phrase(nil), innermost(ue.Err), check)}
}

// clusterExit is what stops imgupd from reading the cluster, as its message and exit status:
// 69 the API server cannot be reached, 78 the kubeconfig is unusable or its credentials are
// refused (401), 77 RBAC forbids the read; nil for any other error.
func clusterExit(err error) error { return clusterExitAs(err, kubeconfigCluster) }

// clusterExitAs is clusterExit for a cluster reached as in says.
func clusterExitAs(err error, in reachedAs) error {
	var (
		ue *cluster.UnreachableError
		ce *cluster.CredentialsError
		ae *cluster.AccessError
		ke *cluster.KubeconfigError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ue):
		return &exitError{code: exitUnreachable, err: in.unreachable(ue)}
	case errors.As(err, &ce):
		return &exitError{code: exitConfig, err: fmt.Errorf("the Kubernetes API server %s refused the kubeconfig's credentials (401 Unauthorized): "+
			"its token or client certificate has expired or was revoked. Log in again to refresh the kubeconfig (kubectl get --raw /version fails the same way until then), and re-run", ce.Server)}
	case errors.As(err, &ae) && ae.Forbidden:
		return &exitError{code: exitNoPermission, err: fmt.Errorf("RBAC forbids imgupd to %s %s%s: it needs the read-only rules of deploy/rbac.yaml "+
			"(kubectl apply -f deploy/rbac.yaml, or the Helm chart) bound to the user or ServiceAccount it runs as; "+
			"kubectl auth can-i %s %s%s says the same", ae.Verb, resourceOf(ae), inNamespace(ae.Namespace), ae.Verb, resourceOf(ae), nsFlag(ae.Namespace))}
	case errors.As(err, &ke):
		return &exitError{code: exitConfig, err: err}
	}
	return nil
}

func resourceOf(ae *cluster.AccessError) string {
	if ae.Group == "" {
		return ae.Resource
	}
	return ae.Resource + "." + ae.Group
}

func inNamespace(ns string) string {
	if ns == "" {
		return " in any namespace"
	}
	return " in namespace " + ns
}

func nsFlag(ns string) string {
	if ns == "" {
		return " --all-namespaces"
	}
	q, err := shell.Quote(ns)
	if err != nil {
		return ""
	}
	return " -n " + q
}

// innermost is the network error at the bottom of a transport's chain (dial tcp …: connection
// refused), without the request's method and URL around it.
func innermost(err error) error {
	if _, inner := netclass.Classify(err); inner != nil {
		return inner
	}
	return err
}

// clusterFailure is an error building the engine over a cluster: the kubeconfig's (exit 78), or
// any other that stops the command (exit 2).
func clusterFailure(err error) error {
	if ex := clusterExit(err); ex != nil {
		return ex
	}
	return &exitError{code: exitNoDecide, err: err}
}

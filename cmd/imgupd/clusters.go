package main

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/client-go/rest"

	"github.com/spf13/viper"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/clusters"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/forge"
)

// readClusters reads the configuration's clusters: section strictly (clusters.Decode): the
// specs, and the problems naming their keys.
func readClusters(v *viper.Viper) ([]clusters.Spec, []problem) {
	specs, ps := clusters.Decode(v.Get("clusters"))
	out := make([]problem, len(ps))
	for i, p := range ps {
		out[i] = problem{Key: p.Key, Message: p.Message}
	}
	return specs, out
}

// loadClusters is readClusters for serve and the terminal: the problems as one error.
func loadClusters(v *viper.Viper) ([]clusters.Spec, error) {
	specs, problems := readClusters(v)
	if len(problems) == 0 {
		return specs, nil
	}
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.Key + ": " + p.Message
	}
	return nil, fmt.Errorf("config %s", strings.Join(msgs, "; "))
}

// configClusters is the configuration's clusters: section as the terminal reads it
// (command.ClusterSet), read when first asked: the file is read by then.
type configClusters struct {
	v         *viper.Viper
	lookupEnv func(string) (string, bool)
}

func (c *configClusters) Names() []string {
	if c.v.Get("clusters") == nil {
		return nil
	}
	specs, err := loadClusters(c.v)
	if err != nil {
		return []string{"(invalid)"} // Cluster says why
	}
	return clusters.Names(specs)
}

func (c *configClusters) Cluster(ctx context.Context, name string) (command.Cluster, command.ClusterNamespaces, error) {
	specs, err := loadClusters(c.v)
	if err != nil {
		return nil, command.ClusterNamespaces{}, command.Exit(exitConfig, err)
	}
	for _, s := range specs {
		if s.Name != name {
			continue
		}
		conn := clusters.Connector{Namespace: lookupOr(c.lookupEnv, "POD_NAMESPACE", "imgupd"), Secrets: lazySecrets{}}
		cfg, err := conn.RESTConfig(ctx, s)
		if err != nil {
			return nil, command.ClusterNamespaces{}, command.Exit(exitConfig, err)
		}
		return restCluster{cfg: cfg, name: name}, command.ClusterNamespaces{Argo: s.ArgoNamespace(), Updater: s.ImageUpdaterNamespace()}, nil
	}
	return nil, command.ClusterNamespaces{}, command.Exit(exitUsage, fmt.Errorf("--cluster %s: no such cluster in the configuration's clusters: (%s)", name, strings.Join(clusters.Names(specs), ", ")))
}

// lazySecrets reads Secrets with the kubeconfig's (or in-cluster) client, built when a cluster
// of the configuration first needs one: imgupd's own cluster.
type lazySecrets struct{}

func (lazySecrets) Secret(ctx context.Context, ns, name string) (map[string][]byte, error) {
	cs, err := cluster.NewClientset(cluster.ConfigOptions{})
	if err != nil {
		return nil, fmt.Errorf("imgupd's own cluster, where the Secret is: %w", err)
	}
	return cluster.Secrets{Client: cs.CoreV1()}.Secret(ctx, ns, name)
}

// restCluster is a cluster of the configuration (command.Cluster): the engine over its client
// configuration, asked as the kubeconfig's is whether imgupd may read it.
type restCluster struct {
	cfg  *rest.Config
	name string
}

func (r restCluster) Engine(_ context.Context, _ cluster.ConfigOptions, timeout time.Duration, forges []forge.Endpoint) (*diagnostics.Engine, error) {
	eng, err := engineFor(r.cfg, timeout, r.name, forges)
	if err != nil {
		return nil, asCommandExit(clusterFailure(err))
	}
	return eng, nil
}

func (r restCluster) Check(ctx context.Context, eng *diagnostics.Engine, attrs authorizationv1.ResourceAttributes, forbiddenStops bool) error {
	return asCommandExit(checkClusterAs(ctx, eng, attrs, forbiddenStops, reachedAs{name: r.name, server: r.cfg.Host}))
}

// serveClusters connects the configuration's clusters for serve (their Secrets read now, from
// imgupd's own namespace with its own client) and builds the service's clusters: one whose
// Secret is missing or unusable is Down, with the reason, never a failure to start. open
// connects specs again the same way (commands.Service.Reopen: a Down cluster tried again).
func serveClusters(ctx context.Context, o *serveOptions, specs []clusters.Spec, lookupEnv func(string) (string, bool)) (members []clusters.Member, open func(context.Context, []clusters.Spec) []clusters.Member, err error) {
	forges, err := parseForges(o.forges)
	if err != nil {
		return nil, nil, err
	}
	conn := clusters.Connector{Namespace: ownNamespace(o, lookupEnv)}
	if kc, err := ownClient(o, "the clusters' Secrets"); err == nil {
		conn.Secrets = cluster.Secrets{Client: kc.CoreV1()}
	} else {
		conn.Secrets = failingSecrets{err: err}
	}
	build := func(cfg *rest.Config, s clusters.Spec) (*diagnostics.Engine, error) {
		eng, err := engineFor(cfg, o.timeout, s.Name, forges)
		if err != nil {
			return nil, err
		}
		eng.Options.ArgoCDServiceAccount = o.argoCDSA
		return eng, nil
	}
	open = func(ctx context.Context, specs []clusters.Spec) []clusters.Member {
		return clusters.Open(ctx, specs, conn, build)
	}
	return open(ctx, specs), open, nil
}

// serviceCluster is a member as the chat service reads it.
func serviceCluster(m clusters.Member) commands.Cluster {
	c := commands.Cluster{Name: m.Name(), DefaultNamespace: m.Spec.ArgoNamespace(), UpdaterNamespace: m.Spec.ImageUpdaterNamespace(), Down: m.Err}
	if m.Err == nil {
		c.Apps, c.Engine, c.Fleet = m.Engine.Cluster, m.Engine, m.Scanner()
	}
	return c
}

type failingSecrets struct{ err error }

func (f failingSecrets) Secret(context.Context, string, string) (map[string][]byte, error) {
	return nil, f.err
}

// reachCluster asks a cluster of the configuration, within timeout, whether imgupd may list
// Applications (config check): nil, or why not in one line.
func reachCluster(ctx context.Context, m clusters.Member, timeout time.Duration) error {
	if m.Err != nil {
		return m.Err
	}
	reader, ok := m.Engine.Cluster.(*cluster.Reader)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := reader.Check(ctx, m.Name(), authorizationv1.ResourceAttributes{Verb: "list", Group: "argoproj.io", Resource: "applications"})
	if ex := clusterExitAs(err, reachedAs{name: m.Name(), checking: true}); ex != nil {
		var ee *exitError
		if errors.As(ex, &ee) {
			return ee.err
		}
		return ex
	}
	return nil
}

// reachTimeout bounds config check's try of one cluster.
const reachTimeout = 10 * time.Second

// tryClusters connects every cluster as serve would (its Secrets from imgupd's namespace, with
// the kubeconfig's or in-cluster client) and asks each, in parallel and within reachTimeout,
// whether imgupd may list Applications there.
func tryClusters(ctx context.Context, specs []clusters.Spec, lookupEnv func(string) (string, bool)) []command.ConfigCluster {
	if len(specs) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	conn := clusters.Connector{Namespace: lookupOr(lookupEnv, "POD_NAMESPACE", "imgupd"), Secrets: lazySecrets{}}
	members := clusters.Open(ctx, specs, conn, func(cfg *rest.Config, s clusters.Spec) (*diagnostics.Engine, error) {
		reader, err := cluster.NewReader(cfg)
		if err != nil {
			return nil, err
		}
		return &diagnostics.Engine{Cluster: reader}, nil
	})
	out := make([]command.ConfigCluster, len(members))
	done := make(chan struct{}, len(members))
	for i, m := range members {
		out[i] = command.ConfigCluster{Name: m.Name(), Way: string(m.Spec.Way())}
		go func() {
			defer func() { done <- struct{}{} }()
			if err := reachCluster(ctx, m, reachTimeout); err != nil {
				out[i].Reason = err.Error()
				return
			}
			out[i].Reachable = true
		}()
	}
	for range members {
		<-done
	}
	return out
}

// scheduleClusterProblems are the schedules whose clusters match none of the clusters
// configured (names; none: no clusters: section, where a schedule names no cluster).
func scheduleClusterProblems(list []bot.Schedule, names []string) []problem {
	var out []problem
	for i, s := range list {
		for _, g := range s.Clusters {
			key := fmt.Sprintf("schedules[%d].clusters", i)
			if len(names) == 0 {
				out = append(out, problem{Key: key, Message: "the configuration has no clusters: section: leave clusters out (the schedule scans imgupd's one cluster)"})
				break
			}
			if !slices.ContainsFunc(names, func(n string) bool { ok, _ := path.Match(g, n); return ok }) {
				out = append(out, problem{Key: key, Message: fmt.Sprintf("%q matches none of the clusters configured (%s)", g, strings.Join(names, ", "))})
			}
		}
	}
	return out
}

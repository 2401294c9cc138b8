package diagnose

import (
	"context"
	"errors"
	"fmt"
	goio "io"
	"os"
	"strings"
	"sync"

	"github.com/spf13/pflag"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/forge"
)

// Term is how the terminal runs diagnose with run (Run, or a test's).
func Term(run func(context.Context, Options, command.IO) (command.Answer, error)) *command.Term {
	return command.TermOf(command.AnswerReport, 1, 1, Flags, func(fs *pflag.FlagSet, o *Options, args []string) {
		o.App = args[0]
		o.UpdaterNamespaceSet = fs.Changed("updater-namespace")
	}, run)
}

// Run diagnoses the Application through the cluster io gives (io.Cluster): 64 for a --forge it
// cannot read, 2 for an --updater-log it cannot read, the cluster's exit statuses (69, 77, 78)
// before any report; the answer's exit status is its state's (Answer.Exit).
func Run(ctx context.Context, o Options, io command.IO) (command.Answer, error) {
	forges, err := command.ParseForges(o.Forges)
	if err != nil {
		return nil, command.Exit(64, err)
	}
	req := diagnostics.Request{App: o.App, UpdaterNamespace: o.UpdaterNamespace}
	if o.UpdaterLog != "" {
		text, err := readUpdaterLog(o.UpdaterLog, io.In)
		if err != nil {
			return nil, command.Exit(2, err)
		}
		req.UpdaterLog = &text
	}
	var eng *diagnostics.Engine
	var heading string
	switch {
	case o.Cluster != "":
		c, ns, err := command.ConfiguredCluster(ctx, io, o.Cluster)
		if err != nil {
			return nil, err
		}
		if eng, err = clusterEngine(ctx, o, c, ns, forges, &req); err != nil {
			return nil, err
		}
	case o.Kube == (cluster.ConfigOptions{}) && io.Clusters != nil && len(io.Clusters.Names()) > 0:
		// A clusters: section and no kubeconfig asked for: the app is looked for in every cluster.
		var err error
		if eng, heading, err = findAcross(ctx, o, io, forges, &req); err != nil {
			return nil, err
		}
	default:
		if io.Cluster == nil {
			return nil, command.Exit(2, fmt.Errorf("internal error: diagnose was given no cluster"))
		}
		if o.Namespace == "" {
			o.Namespace = contextNamespace(o.Kube)
		}
		var err error
		if eng, err = engineOver(ctx, o, io.Cluster, forges); err != nil {
			return nil, err
		}
		req.Namespace = o.Namespace
	}
	prog := io.StartProgress(req.Namespace + "/" + o.App)
	eng.Options.OnStage = func(s report.StageInfo) { prog.On(s.Title) }
	defer prog.Stop()
	rep := eng.Diagnose(ctx, req)
	prog.Stop()
	return Answer{Report: rep, Verbose: o.Verbose, Heading: heading}, nil
}

// engineOver is the engine over c, once the API server has said imgupd may read the
// Application o.Namespace/o.App (the cluster's exit statuses otherwise).
func engineOver(ctx context.Context, o Options, c command.Cluster, forges []forge.Endpoint) (*diagnostics.Engine, error) {
	eng, err := c.Engine(ctx, o.Kube, o.Timeout, forges)
	if err != nil {
		return nil, err
	}
	eng.Options.ArgoCDServiceAccount = o.ArgoCDServiceAccount
	app := authorizationv1.ResourceAttributes{Verb: "get", Group: "argoproj.io", Resource: "applications", Namespace: o.Namespace, Name: o.App}
	if err := c.Check(ctx, eng, app, true); err != nil {
		return nil, err
	}
	return eng, nil
}

// clusterEngine is engineOver for a cluster of the clusters: section: its Argo CD namespace the
// default of -n, its Image Updater namespace the default of --updater-namespace (given, the
// flag wins: a person who types it means it); req gets both.
func clusterEngine(ctx context.Context, o Options, c command.Cluster, ns command.ClusterNamespaces, forges []forge.Endpoint, req *diagnostics.Request) (*diagnostics.Engine, error) {
	if o.Namespace == "" {
		o.Namespace = ns.Argo
	}
	if !o.UpdaterNamespaceSet {
		req.UpdaterNamespace = ns.Updater
	}
	req.Namespace = o.Namespace
	return engineOver(ctx, o, c, forges)
}

// findAcross looks for the Application in every cluster of the clusters: section, in parallel,
// and returns the engine of the one cluster that has it (req set for it) and the heading that
// says which (text output: the report names its cluster in JSON only). Several: 64 naming
// them. None: the diagnosis in the first cluster that answered, whose report says the
// Application is missing; but when some cluster could not be read, the app may be there, so
// that cluster's exit status with both said. Every cluster unreadable: the first one's error.
func findAcross(ctx context.Context, o Options, io command.IO, forges []forge.Endpoint, req *diagnostics.Request) (*diagnostics.Engine, string, error) {
	names := io.Clusters.Names()
	type look struct {
		eng   *diagnostics.Engine
		req   diagnostics.Request
		found bool
		err   error
	}
	looks := make([]look, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			l := &looks[i]
			l.req = *req
			c, ns, err := io.Clusters.Cluster(ctx, name)
			if err == nil {
				l.eng, err = clusterEngine(ctx, o, c, ns, forges, &l.req)
			}
			if err == nil {
				_, err = l.eng.Cluster.Application(ctx, l.req.Namespace, o.App)
				if cluster.IsNotFound(err) {
					err = nil
				} else {
					l.found = err == nil
				}
			}
			if err != nil {
				l.err = err
				if !command.NamesCluster(err, name) { // said once
					l.err = &command.ClusterError{Cluster: name, Err: fmt.Errorf("cluster %s: %w", name, err)}
				}
			}
		})
	}
	wg.Wait()
	var found, missing, failed []int
	for i, l := range looks {
		switch {
		case l.err != nil:
			failed = append(failed, i)
		case l.found:
			found = append(found, i)
		default:
			missing = append(missing, i)
		}
	}
	pick := func(i int, heading string) (*diagnostics.Engine, string, error) {
		*req = looks[i].req
		return looks[i].eng, heading, nil
	}
	switch {
	case len(found) == 1:
		return pick(found[0], fmt.Sprintf("cluster %s, the one of the clusters: section that has %s", names[found[0]], o.App))
	case len(found) > 1:
		var where []string
		for _, i := range found {
			where = append(where, names[i])
		}
		return nil, "", command.Exit(64, fmt.Errorf("there are Applications named %s in clusters %s: add --cluster NAME", o.App, strings.Join(where, ", ")))
	case len(missing) == 0 && len(failed) == 1:
		return nil, "", looks[failed[0]].err
	case len(missing) == 0:
		var unread []string
		for _, i := range failed {
			unread = append(unread, names[i])
		}
		err := looks[failed[0]].err
		return nil, "", command.Exit(exitOf(err), fmt.Errorf("no cluster of the clusters: section could be read (%s); the first: %w", strings.Join(unread, ", "), err))
	case len(failed) > 0:
		var read []string
		for _, i := range missing {
			read = append(read, names[i])
		}
		err := looks[failed[0]].err
		code := exitOf(err)
		in := "cluster "
		if len(read) > 1 {
			in = "clusters "
		}
		return nil, "", command.Exit(code, fmt.Errorf("no Application %s in %s%s, but it may be in a cluster that could not be read: %w", o.App, in, command.OrList(read), err))
	}
	return pick(missing[0], fmt.Sprintf("no cluster of the clusters: section has %s (%s); cluster %s's answer:", o.App, strings.Join(names, ", "), names[missing[0]]))
}

// Answer is one report to print (diagnose, demo --scenario).
type Answer struct {
	Report *report.Report
	// Heading, in text only, is printed above the report with a blank line (demo --scenario:
	// the scenario and its description).
	Heading string
	// Verbose, in text only, shows passing checks and all evidence.
	Verbose bool
}

func (Answer) AnswerKind() command.AnswerKind { return command.AnswerReport }

// Exit maps the state to the exit status (State.ExitCode); the report is already printed, so
// no message is added.
func (a Answer) Exit() error {
	code := a.Report.State.ExitCode()
	if code == 0 {
		return nil
	}
	return command.Exit(code, fmt.Errorf(""))
}

// maxUpdaterLog bounds --updater-log, as the pod log read is bounded.
const maxUpdaterLog = 16 << 20

// readUpdaterLog reads --updater-log: a file, or - for stdin (in).
func readUpdaterLog(path string, in goio.Reader) (string, error) {
	var rd goio.Reader
	if path == "-" {
		rd = in
	} else {
		f, err := os.Open(path)
		if err != nil {
			return "", fmt.Errorf("--updater-log: %w", err)
		}
		defer f.Close()
		rd = f
	}
	if rd == nil {
		return "", fmt.Errorf("--updater-log -: no standard input")
	}
	b, err := goio.ReadAll(goio.LimitReader(rd, maxUpdaterLog+1))
	if err != nil {
		return "", fmt.Errorf("--updater-log: %w", err)
	}
	if len(b) > maxUpdaterLog {
		b = b[len(b)-maxUpdaterLog:] // the newest part matters
	}
	return string(b), nil
}

// contextNamespace is the kubeconfig context's namespace, else argocd.
func contextNamespace(o cluster.ConfigOptions) string {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if o.Kubeconfig != "" {
		rules.ExplicitPath = o.Kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: o.Context})
	if ns, explicit, err := cc.Namespace(); err == nil && explicit && ns != "" {
		return ns
	}
	return "argocd"
}

// exitOf is err's exit status: its own (command.ExitError), else 2.
func exitOf(err error) int {
	var ee *command.ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return 2
}

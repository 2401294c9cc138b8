package diagnose

import (
	"context"
	"fmt"
	goio "io"
	"os"

	"github.com/spf13/pflag"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

// Term is how the terminal runs diagnose with run (Run, or a test's).
func Term(run func(context.Context, Options, command.IO) (command.Answer, error)) *command.Term {
	return command.TermOf(command.AnswerReport, 1, 1, Flags, func(_ *pflag.FlagSet, o *Options, args []string) {
		o.App = args[0]
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
	cl := io.Cluster
	if o.Cluster != "" {
		c, ns, err := command.ConfiguredCluster(ctx, io, o.Cluster)
		if err != nil {
			return nil, err
		}
		cl = c
		if o.Namespace == "" {
			o.Namespace = ns.Argo
		}
		if req.UpdaterNamespace == "" || req.UpdaterNamespace == "argocd" {
			req.UpdaterNamespace = ns.Updater
		}
	}
	if cl == nil {
		return nil, command.Exit(2, fmt.Errorf("internal error: diagnose was given no cluster"))
	}
	eng, err := cl.Engine(ctx, o.Kube, o.Timeout, forges)
	if err != nil {
		return nil, err
	}
	eng.Options.ArgoCDServiceAccount = o.ArgoCDServiceAccount
	if o.Namespace == "" {
		o.Namespace = contextNamespace(o.Kube)
	}
	req.Namespace = o.Namespace
	app := authorizationv1.ResourceAttributes{Verb: "get", Group: "argoproj.io", Resource: "applications", Namespace: o.Namespace, Name: o.App}
	if err := cl.Check(ctx, eng, app, true); err != nil {
		return nil, err
	}
	prog := io.StartProgress(o.Namespace + "/" + o.App)
	eng.Options.OnStage = func(s report.StageInfo) { prog.On(s.Title) }
	defer prog.Stop()
	rep := eng.Diagnose(ctx, req)
	prog.Stop()
	return Answer{Report: rep, Verbose: o.Verbose}, nil
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

package main

import (
	"context"
	"fmt"
	goio "io"
	"os"
	"time"

	"github.com/spf13/cobra"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/imgupd/imgupd/commands/command"
	diagnosecmd "github.com/imgupd/imgupd/commands/diagnose"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/forge"
	"github.com/imgupd/imgupd/sources/gitsource"
	"github.com/imgupd/imgupd/sources/helmchart"
	"github.com/imgupd/imgupd/sources/registry"
)

// diagnoseOptions are `imgupd diagnose`'s options (commands/diagnose) and its -o.
type diagnoseOptions struct {
	diagnosecmd.Options
	output string
}

func newDiagnoseCmd(io streams) *cobra.Command {
	o := &diagnoseOptions{}
	cmd := fromTable("diagnose", &cobra.Command{
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.App = args[0]
			return runDiagnose(cmd.Context(), o, io)
		},
	})
	diagnosecmd.Flags(cmd.Flags(), &o.Options)
	formatsOf(answerReport).flag(cmd, &o.output, "output format: %s")
	return cmd
}

// argoCDSAHelp is the help of --argocd-service-account (diagnose, summary, serve).
const argoCDSAHelp = command.ArgoCDServiceAccountHelp

func runDiagnose(ctx context.Context, o *diagnoseOptions, io streams) error {
	out := formatsOf(answerReport)
	if err := out.check(o.output); err != nil {
		return usageError(err)
	}
	forges, err := parseForges(o.Forges)
	if err != nil {
		return usageError(err)
	}
	req := diagnostics.Request{App: o.App, UpdaterNamespace: o.UpdaterNamespace}
	if o.UpdaterLog != "" {
		text, err := readUpdaterLog(o.UpdaterLog, io)
		if err != nil {
			return &exitError{code: exitNoDecide, err: err}
		}
		req.UpdaterLog = &text
	}
	eng, err := clusterEngine(o.Kube, o.Timeout, "", forges)
	if err != nil {
		return clusterFailure(err)
	}
	eng.Options.ArgoCDServiceAccount = o.ArgoCDServiceAccount
	if o.Namespace == "" {
		o.Namespace = contextNamespace(o.Kube)
	}
	req.Namespace = o.Namespace
	app := authorizationv1.ResourceAttributes{Verb: "get", Group: "argoproj.io", Resource: "applications", Namespace: o.Namespace, Name: o.App}
	if err := checkCluster(ctx, eng, app, true); err != nil {
		return err
	}
	prog := progressOf("diagnose", io.Err, o.output, o.Namespace+"/"+o.App)
	if prog != nil {
		eng.Options.OnStage = func(s report.StageInfo) { prog.on(s.Title) }
		defer prog.stop()
	}
	rep := eng.Diagnose(ctx, req)
	prog.stop()
	if err := out.write(io, o.output, reportOutput{report: rep, verbose: o.Verbose}); err != nil {
		return &exitError{code: exitNoDecide, err: err}
	}
	return reportExit(rep)
}

// reportOutput is one report to print.
type reportOutput struct {
	report *report.Report
	// heading, in text only, is printed above the report with a blank line
	// (demo --scenario: the scenario and its description).
	heading string
	// verbose, in text only, shows passing checks and all evidence.
	verbose bool
}

func (reportOutput) AnswerKind() answerKind { return answerReport }

// reportExit maps the state to the exit status (State.ExitCode); the report
// is already printed, so no message is added.
func reportExit(rep *report.Report) error {
	code := rep.State.ExitCode()
	if code == 0 {
		return nil
	}
	return &exitError{code: code, err: fmt.Errorf("")}
}

// clusterEngine is the engine over a real cluster (kubeconfig or
// in-cluster), its registries and git; name "" names the cluster by its
// API server URL.
func clusterEngine(kube cluster.ConfigOptions, timeout time.Duration, name string, forges []forge.Endpoint) (*diagnostics.Engine, error) {
	cfg, err := cluster.RESTConfig(kube)
	if err != nil {
		return nil, err
	}
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

// maxUpdaterLog bounds --updater-log, as the pod log read is bounded.
const maxUpdaterLog = 16 << 20

// readUpdaterLog reads --updater-log: a file, or - for stdin.
func readUpdaterLog(path string, io streams) (string, error) {
	var rd goio.Reader
	if path == "-" {
		rd = io.In
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

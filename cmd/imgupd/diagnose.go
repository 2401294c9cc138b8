package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/imgupd/imgupd/bot/blockkit"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/diagnostics/cluster"
	"github.com/imgupd/imgupd/diagnostics/gitsource"
	"github.com/imgupd/imgupd/diagnostics/registry"
	"github.com/imgupd/imgupd/diagnostics/render"
)

// diagnoseOptions are the flags of `imgupd diagnose`.
type diagnoseOptions struct {
	app              string
	namespace        string
	updaterNamespace string
	kube             cluster.ConfigOptions
	output           string
	timeout          time.Duration
	verbose          bool
}

func newDiagnoseCmd(io streams) *cobra.Command {
	o := &diagnoseOptions{}
	cmd := &cobra.Command{
		Use:   "diagnose APP",
		Short: "Find why Image Updater does not update an Argo CD Application, and what to change",
		Long: `diagnose reads the cluster (with your kubeconfig, or in-cluster), the registries and git
as Image Updater would, and runs staged checks: health, target, source and mapping, live image,
registry and network, candidates, write-back, sync, history. The first failing check is the root
cause; each finding has its evidence and a fix. Nothing is written anywhere.

Exit status: 0 nothing blocks updates, 1 a failing finding, 2 could not diagnose.`,
		Example: `  imgupd diagnose guestbook -n argocd
  imgupd diagnose web -n team-a --updater-namespace argocd-image-updater -o markdown`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.app = args[0]
			return runDiagnose(cmd.Context(), o, io)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.namespace, "namespace", "n", "", "the Application's namespace (default: the kubeconfig context's, else argocd)")
	f.StringVar(&o.updaterNamespace, "updater-namespace", "argocd", "where Image Updater runs (other namespaces are searched if it is not there)")
	f.StringVar(&o.kube.Kubeconfig, "kubeconfig", "", "kubeconfig (default: KUBECONFIG, ~/.kube/config, in-cluster)")
	f.StringVar(&o.kube.Context, "context", "", "kubeconfig context")
	f.StringVarP(&o.output, "output", "o", "text", "output format: text, json, markdown or blockkit (the Slack payload)")
	f.DurationVar(&o.timeout, "timeout", 20*time.Second, "deadline for the whole diagnosis")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "text: show passing checks and all evidence")
	return cmd
}

func runDiagnose(ctx context.Context, o *diagnoseOptions, io streams) error {
	switch o.output {
	case "text", "json", "markdown", "blockkit":
	default:
		return &exitError{code: exitNoDecide, err: fmt.Errorf("--output %q: want text, json, markdown or blockkit", o.output)}
	}
	eng, err := clusterEngine(o.kube, o.timeout, "")
	if err != nil {
		return &exitError{code: exitNoDecide, err: err}
	}
	if o.namespace == "" {
		o.namespace = contextNamespace(o.kube)
	}
	rep := eng.Diagnose(ctx, diagnostics.Request{App: o.app, Namespace: o.namespace, UpdaterNamespace: o.updaterNamespace})
	if err := writeReport(io, rep, o.output, o.verbose); err != nil {
		return &exitError{code: exitNoDecide, err: err}
	}
	return reportExit(rep)
}

func writeReport(io streams, rep *diagnostics.Report, output string, verbose bool) error {
	switch output {
	case "json":
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	case "markdown":
		render.Markdown(io.Out, rep)
	case "blockkit":
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(blockkit.Report(rep, blockkit.Options{Buttons: true}))
	default:
		render.Text(io.Out, rep, render.TextOptions{Verbose: verbose})
	}
	return nil
}

// reportExit maps the state to the exit status (State.ExitCode); the report
// is already printed, so no message is added.
func reportExit(rep *diagnostics.Report) error {
	code := rep.State.ExitCode()
	if code == 0 {
		return nil
	}
	return &exitError{code: code, err: fmt.Errorf("")}
}

// clusterEngine is the engine over a real cluster (kubeconfig or
// in-cluster), its registries and git; name "" names the cluster by its
// API server URL.
func clusterEngine(kube cluster.ConfigOptions, timeout time.Duration, name string) (*diagnostics.Engine, error) {
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
	return &diagnostics.Engine{Cluster: reader, Registry: registry.New(), Git: gitsource.New(),
		Options: diagnostics.Options{Timeout: timeout, ClusterName: name}}, nil
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

package diagnose

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/sources/cluster"
)

// Options are `imgupd diagnose`'s: the Application and its flags (but -o).
type Options struct {
	App                  string
	Namespace            string
	UpdaterNamespace     string
	Kube                 cluster.ConfigOptions
	Timeout              time.Duration
	Verbose              bool
	UpdaterLog           string
	Forges               []string
	ArgoCDServiceAccount string
	// Cluster is --cluster: a cluster of the configuration's clusters: ("": the kubeconfig's).
	Cluster string
}

// Flags defines diagnose's flags (all but -o) into o.
func Flags(f *pflag.FlagSet, o *Options) {
	f.StringVarP(&o.Namespace, "namespace", "n", "", "the Application's namespace (default: the kubeconfig context's, else argocd)")
	f.StringVar(&o.UpdaterNamespace, "updater-namespace", "argocd", "where Image Updater runs (other namespaces are searched if it is not there)")
	f.StringVar(&o.Kube.Kubeconfig, "kubeconfig", "", "kubeconfig (default: KUBECONFIG, ~/.kube/config, in-cluster)")
	f.StringVar(&o.Kube.Context, "context", "", "kubeconfig context")
	f.DurationVar(&o.Timeout, "timeout", 20*time.Second, "deadline for the whole diagnosis")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "text: show passing checks, all evidence and the candidate tables")
	f.StringVar(&o.UpdaterLog, "updater-log", "", "read Image Updater's log from FILE (- for stdin) instead of its pod (clusters without pods/log, a log store export)")
	f.StringArrayVar(&o.Forges, "forge", nil, command.ForgeHelp)
	f.StringVar(&o.ArgoCDServiceAccount, "argocd-service-account", "", command.ArgoCDServiceAccountHelp)
	f.StringVar(&o.Cluster, "cluster", "", "a cluster of the configuration's clusters: section (--config FILE), read instead of the kubeconfig's; its namespace is the default of -n")
}

package command

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/sources/cluster"
)

// The help of the flags several commands share (diagnose, summary, where, serve).
const (
	// ForgeHelp documents --forge.
	ForgeHelp = "a self-hosted forge whose API says whether a write-back branch is protected: KIND:HOST[=API_URL], KIND github, gitlab, gitea, forgejo or bitbucket (repeatable; github.com, gitlab.com, bitbucket.org and codeberg.org are known)"
	// ArgoCDServiceAccountHelp documents --argocd-service-account.
	ArgoCDServiceAccountHelp = "the ServiceAccount, in Argo CD's namespace, that reads Argo CD's repository Secrets: imgupd reads them for a source only if it may list them (default: the serviceAccountName of Argo CD's application controller StatefulSet or Deployment, else " + diagnostics.DefaultArgoCDServiceAccount + ")"
)

// ScanOptions are the options of the commands that scan the fleet (summary, where): the scope,
// the scan's bounds, the cluster.
type ScanOptions struct {
	Namespaces, Projects, Names []string
	Selector                    string
	Concurrency                 int
	Deadline                    time.Duration
	UpdaterNamespace            string
	Kube                        cluster.ConfigOptions
	Forges                      []string
	ArgoCDServiceAccount        string
}

// ScanFlags defines the flags of the commands that scan the fleet (summary, where) into o.
func ScanFlags(f *pflag.FlagSet, o *ScanOptions) {
	f.StringArrayVarP(&o.Namespaces, "namespace", "n", nil, "the Applications' namespace, a glob (repeatable; default every namespace)")
	f.StringArrayVar(&o.Projects, "project", nil, "the Applications' Argo CD project (repeatable)")
	f.StringArrayVar(&o.Names, "name", nil, "the Applications' name, a glob (repeatable)")
	f.StringVarP(&o.Selector, "selector", "l", "", "label selector of the Applications (kubectl's syntax: team=checkout,tier!=batch)")
	f.IntVar(&o.Concurrency, "concurrency", fleet.DefaultConcurrency, "Applications diagnosed at once")
	f.DurationVar(&o.Deadline, "deadline", fleet.DefaultDeadline, "deadline for the whole scan; what did not finish is unknown")
	f.StringVar(&o.UpdaterNamespace, "updater-namespace", "argocd", "where Image Updater runs (other namespaces are searched if it is not there)")
	f.StringVar(&o.Kube.Kubeconfig, "kubeconfig", "", "kubeconfig (default: KUBECONFIG, ~/.kube/config, in-cluster)")
	f.StringVar(&o.Kube.Context, "context", "", "kubeconfig context")
	f.StringArrayVar(&o.Forges, "forge", nil, ForgeHelp)
	f.StringVar(&o.ArgoCDServiceAccount, "argocd-service-account", "", ArgoCDServiceAccountHelp)
}

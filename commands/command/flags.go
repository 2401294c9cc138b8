package command

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/forge"
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
	// Cluster is --cluster: one cluster of the configuration's clusters: ("": every one, or the
	// kubeconfig's without a clusters: section).
	Cluster string
}

// ClusterHelp documents --cluster on the terminal.
const ClusterHelp = "a cluster of the configuration's clusters: section (--config FILE); default: the kubeconfig's, or with clusters: (summary, where) every one"

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
	f.StringVar(&o.Cluster, "cluster", "", ClusterHelp)
}

// ParseForges reads --forge values: "github:ghe.corp.example",
// "gitlab:git.corp.example=https://git.corp.example/api/v4".
func ParseForges(vals []string) ([]forge.Endpoint, error) {
	var out []forge.Endpoint
	for _, v := range vals {
		kind, rest, ok := strings.Cut(strings.TrimSpace(v), ":")
		if !ok || rest == "" {
			return nil, fmt.Errorf("--forge %q: want KIND:HOST[=API_URL], e.g. github:ghe.corp.example", v)
		}
		k, err := forge.ParseForge(kind)
		if err != nil {
			return nil, fmt.Errorf("--forge %q: %w", v, err)
		}
		host, api, _ := strings.Cut(rest, "=")
		ep := forge.Endpoint{Host: host, Kind: k, APIURL: api}
		if _, err := ep.Validate(); err != nil {
			return nil, fmt.Errorf("--forge %q: %w", v, err)
		}
		out = append(out, ep)
	}
	return out, nil
}

package cluster

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// ConfigOptions select the cluster: an explicit kubeconfig and context, or
// the usual loading rules (KUBECONFIG, ~/.kube/config), or in-cluster config.
type ConfigOptions struct {
	Kubeconfig string
	Context    string
}

// RESTConfig builds a client config from the options: the kubeconfig loading
// rules first, the in-cluster config when no kubeconfig is found.
func RESTConfig(o ConfigOptions) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if o.Kubeconfig != "" {
		rules.ExplicitPath = o.Kubeconfig
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.Context}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if err == nil {
		return cfg, nil
	}
	if o.Kubeconfig == "" && o.Context == "" {
		if ic, icErr := rest.InClusterConfig(); icErr == nil {
			return ic, nil
		}
	}
	return nil, &KubeconfigError{Err: err}
}

// KubeconfigError: no kubeconfig could be loaded (none found, unreadable, no such context) and
// imgupd does not run in a cluster.
type KubeconfigError struct{ Err error }

func (e *KubeconfigError) Error() string {
	return fmt.Sprintf("no usable kubeconfig (set --kubeconfig or KUBECONFIG, or run in a cluster): %v", e.Err)
}

func (e *KubeconfigError) Unwrap() error { return e.Err }

// NewClientset builds the typed clients for the options.
func NewClientset(o ConfigOptions) (*Clients, error) {
	cfg, err := RESTConfig(o)
	if err != nil {
		return nil, err
	}
	cs, err := NewClients(cfg)
	if err != nil {
		return nil, fmt.Errorf("building a Kubernetes client: %w", err)
	}
	return cs, nil
}

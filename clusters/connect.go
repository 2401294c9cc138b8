package clusters

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/imgupd/imgupd/internal/secret"
)

// SecretReader reads a Secret's data (cluster.Secrets over imgupd's own client).
type SecretReader interface {
	Secret(ctx context.Context, ns, name string) (map[string][]byte, error)
}

// Connector builds the client configuration of a cluster. Secrets are read from Namespace
// (imgupd's own) only, through Secrets (imgupd's own ServiceAccount); InCluster is the
// configuration of the cluster imgupd runs in (nil: rest.InClusterConfig).
type Connector struct {
	Secrets   SecretReader
	Namespace string
	InCluster func() (*rest.Config, error)
}

// Token is a bearer token read from a Secret: it never prints.
type Token = secret.Secret[secret.Stars]

// ConnectError is why a cluster cannot be reached before any request: its Secret missing or
// unreadable, its kubeconfig unusable. Its text names the Secret or file, never its data.
type ConnectError struct {
	Cluster string
	Err     error
}

func (e *ConnectError) Error() string { return fmt.Sprintf("cluster %s: %v", e.Cluster, e.Err) }
func (e *ConnectError) Unwrap() error { return e.Err }

// NamedCluster is the cluster e's text names (command.NamesCluster).
func (e *ConnectError) NamedCluster() string { return e.Cluster }

// RESTConfig is the client configuration of s. Its error is a *ConnectError.
func (c Connector) RESTConfig(ctx context.Context, s Spec) (*rest.Config, error) {
	cfg, err := c.restConfig(ctx, s)
	if err != nil {
		return nil, &ConnectError{Cluster: s.Name, Err: err}
	}
	return cfg, nil
}

func (c Connector) restConfig(ctx context.Context, s Spec) (*rest.Config, error) {
	switch s.Way() {
	case WayInCluster:
		in := c.InCluster
		if in == nil {
			in = rest.InClusterConfig
		}
		cfg, err := in()
		if err != nil {
			return nil, fmt.Errorf("inCluster: imgupd does not run in a cluster (or its ServiceAccount token is not mounted): %w", err)
		}
		return cfg, nil
	case WayKubeconfig:
		rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: s.Kubeconfig}
		cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: s.Context}).ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("kubeconfig %s: %w", s.Kubeconfig, err)
		}
		return cfg, nil
	case WayKubeconfigSecret:
		data, err := c.secretKey(ctx, *s.KubeconfigSecret)
		if err != nil {
			return nil, err
		}
		return FromKubeconfig(data.Reveal(), s.Context, "Secret "+c.Namespace+"/"+s.KubeconfigSecret.Name)
	}
	tok, err := c.secretKey(ctx, *s.TokenSecret)
	if err != nil {
		return nil, err
	}
	cfg := &rest.Config{Host: s.Server, BearerToken: tok.Reveal()}
	if s.CASecret != nil {
		ca, err := c.secretKey(ctx, *s.CASecret)
		if err != nil {
			return nil, err
		}
		cfg.TLSClientConfig.CAData = []byte(ca.Reveal())
	}
	return cfg, nil
}

// secretKey reads one key of a Secret in the connector's namespace.
func (c Connector) secretKey(ctx context.Context, r SecretRef) (Token, error) {
	where := "Secret " + c.Namespace + "/" + r.Name
	if c.Secrets == nil {
		return "", fmt.Errorf("%s: imgupd has no client of its own cluster to read it", where)
	}
	data, err := c.Secrets.Secret(ctx, c.Namespace, r.Name)
	if err != nil {
		return "", fmt.Errorf("%s: %w", where, err)
	}
	v, ok := data[r.Key]
	if !ok || len(v) == 0 {
		return "", fmt.Errorf("%s has no key %q", where, r.Key)
	}
	return Token(v), nil
}

// FromKubeconfig is the client configuration of a kubeconfig's context (its current-context
// when context is ""), from bytes kept away from the machine (a Secret, named by from). Such a
// kubeconfig may reach nothing but its API server: one that runs a command to get its
// credentials (exec, an auth provider) or reads a file of imgupd's machine is refused.
func FromKubeconfig(data, context, from string) (*rest.Config, error) {
	kc, err := clientcmd.Load([]byte(data))
	if err != nil {
		return nil, fmt.Errorf("%s: not a kubeconfig: %w", from, err)
	}
	name := context
	if name == "" {
		name = kc.CurrentContext
	}
	kctx, ok := kc.Contexts[name]
	if !ok || kctx == nil {
		if name == "" {
			return nil, fmt.Errorf("%s: the kubeconfig has no current-context; set the cluster's context", from)
		}
		return nil, fmt.Errorf("%s: the kubeconfig has no context %q", from, name)
	}
	if err := onlyInline(kc, kctx); err != nil {
		return nil, fmt.Errorf("%s: %w", from, err)
	}
	cfg, err := clientcmd.NewNonInteractiveClientConfig(*kc, name, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", from, err)
	}
	return cfg, nil
}

// onlyInline refuses what a kubeconfig from a Secret must not make imgupd do: run a command,
// or read a file of imgupd's own machine.
func onlyInline(kc *clientcmdapi.Config, kctx *clientcmdapi.Context) error {
	if cl, ok := kc.Clusters[kctx.Cluster]; ok && cl != nil && cl.CertificateAuthority != "" {
		return errors.New("its cluster names a CA file (certificate-authority): put the CA inline (certificate-authority-data)")
	}
	ai, ok := kc.AuthInfos[kctx.AuthInfo]
	if !ok || ai == nil {
		return nil
	}
	switch {
	case ai.Exec != nil:
		return errors.New("its user runs a command for its credentials (exec): imgupd runs no command from a Secret; use a token (e.g. a ServiceAccount token)")
	case ai.AuthProvider != nil:
		return errors.New("its user uses an auth provider: use a token or a client certificate inline")
	case ai.TokenFile != "" || ai.ClientCertificate != "" || ai.ClientKey != "":
		return errors.New("its user names a file (tokenFile, client-certificate or client-key): put the credentials inline (token, client-certificate-data, client-key-data)")
	}
	return nil
}

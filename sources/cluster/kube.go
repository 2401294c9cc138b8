package cluster

import (
	"fmt"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/imgupd/imgupd/internal/kubeclient"
)

// Kube is the typed part of the Kubernetes API that the Reader reads: the
// core, apps and authorization groups, as internal/kubeclient has them.
// Clients and the lab's fake (lab/kubefake) have it. client-go's generated
// clients (k8s.io/client-go/kubernetes/...) would bring the scheme of every
// API group, registered at start by every imgupd process, and their apply
// configurations (internal/depcheck keeps them out).
type Kube interface {
	CoreV1() kubeclient.CoreV1
	AppsV1() kubeclient.AppsV1
	AuthorizationV1() kubeclient.AuthorizationV1
}

// Clients are typed clients of the API groups imgupd uses (Kube, and the
// coordination group of serve's leader Lease) and a client of the API
// server's root, as client-go's kubernetes.NewForConfig builds its groups:
// one HTTP client and one client-side rate limiter for all of them.
type Clients struct {
	*kubeclient.Groups
	root *rest.RESTClient
}

var _ Kube = (*Clients)(nil)

// Root is a client of the API server's root (the paths of any group), as
// client-go's discovery client builds it: the Reader's Raw.
func (c *Clients) Root() rest.Interface { return c.root }

// NewClients builds the clients for cfg, as kubernetes.NewForConfig does for
// these groups.
func NewClients(cfg *rest.Config) (*Clients, error) {
	c := *cfg
	if c.UserAgent == "" {
		c.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	httpClient, err := rest.HTTPClientFor(&c)
	if err != nil {
		return nil, err
	}
	if c.RateLimiter == nil && c.QPS > 0 {
		if c.Burst <= 0 {
			return nil, fmt.Errorf("burst is required to be greater than 0 when RateLimiter is not set and QPS is set to greater than 0")
		}
		c.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(c.QPS, c.Burst)
	}
	var cs Clients
	if cs.Groups, err = kubeclient.NewGroups(&c, httpClient); err != nil {
		return nil, err
	}
	if cs.root, err = rootClient(c, httpClient); err != nil {
		return nil, err
	}
	return &cs, nil
}

// rootClient is client-go's discovery client's REST client
// (discovery.NewDiscoveryClientForConfigAndClient and its setDiscoveryDefaults).
func rootClient(c rest.Config, httpClient *http.Client) (*rest.RESTClient, error) {
	c.APIPath = ""
	c.GroupVersion = nil
	if c.Timeout == 0 {
		c.Timeout = 32 * time.Second
	}
	if c.Burst == 0 {
		c.Burst = 300
	}
	codec := runtime.NoopEncoder{Decoder: kubeclient.Codecs().UniversalDecoder()}
	c.NegotiatedSerializer = serializer.NegotiatedSerializerWrapper(runtime.SerializerInfo{Serializer: codec})
	return rest.UnversionedRESTClientForConfigAndClient(&c, httpClient)
}

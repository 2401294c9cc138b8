package cluster

import (
	"fmt"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
	appsv1 "k8s.io/client-go/kubernetes/typed/apps/v1"
	authorizationv1 "k8s.io/client-go/kubernetes/typed/authorization/v1"
	coordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"
	corev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// Kube is the typed part of the Kubernetes API that the Reader reads: the
// core, apps and authorization groups. client-go's Clientset and its fake
// have it; so do Clients and the lab's fake (lab/kubefake), which hold only
// the groups imgupd uses. client-go's aggregate clientset
// (k8s.io/client-go/kubernetes) would bring the typed client and the apply
// configurations of every API group into every package that reaches the
// Reader (internal/depcheck keeps it out).
type Kube interface {
	CoreV1() corev1.CoreV1Interface
	AppsV1() appsv1.AppsV1Interface
	AuthorizationV1() authorizationv1.AuthorizationV1Interface
}

// Clients are typed clients of the API groups imgupd uses (Kube, and the
// coordination group of serve's leader Lease) and a client of the API
// server's root, as client-go's kubernetes.NewForConfig builds its groups:
// one HTTP client and one client-side rate limiter for all of them.
type Clients struct {
	core          *corev1.CoreV1Client
	apps          *appsv1.AppsV1Client
	authorization *authorizationv1.AuthorizationV1Client
	coordination  *coordinationv1.CoordinationV1Client
	root          *rest.RESTClient
}

var _ Kube = (*Clients)(nil)

func (c *Clients) CoreV1() corev1.CoreV1Interface { return c.core }

func (c *Clients) AppsV1() appsv1.AppsV1Interface { return c.apps }

func (c *Clients) AuthorizationV1() authorizationv1.AuthorizationV1Interface { return c.authorization }

func (c *Clients) CoordinationV1() coordinationv1.CoordinationV1Interface { return c.coordination }

// Root is a client of the API server's root paths (Reader.Raw), configured as
// client-go's discovery client is (no API path or group version, a 32 s
// timeout unless cfg sets one), which served these reads before.
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
	if cs.core, err = corev1.NewForConfigAndClient(&c, httpClient); err != nil {
		return nil, err
	}
	if cs.apps, err = appsv1.NewForConfigAndClient(&c, httpClient); err != nil {
		return nil, err
	}
	if cs.authorization, err = authorizationv1.NewForConfigAndClient(&c, httpClient); err != nil {
		return nil, err
	}
	if cs.coordination, err = coordinationv1.NewForConfigAndClient(&c, httpClient); err != nil {
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
	codec := runtime.NoopEncoder{Decoder: scheme.Codecs.UniversalDecoder()}
	c.NegotiatedSerializer = serializer.NegotiatedSerializerWrapper(runtime.SerializerInfo{Serializer: codec})
	return rest.UnversionedRESTClientForConfigAndClient(&c, httpClient)
}

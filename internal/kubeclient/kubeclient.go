package kubeclient

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/gentype"
	"k8s.io/client-go/rest"
)

// Client is a typed client of one kind, T, listed as L.
type Client[T runtime.Object, L runtime.Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// Creator is a typed client of a kind that is only created (a review).
type Creator[T runtime.Object] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
}

// The kinds' clients.
type (
	SecretInterface         = Client[*corev1.Secret, *corev1.SecretList]
	ConfigMapInterface      = Client[*corev1.ConfigMap, *corev1.ConfigMapList]
	EventInterface          = Client[*corev1.Event, *corev1.EventList]
	ServiceAccountInterface = Client[*corev1.ServiceAccount, *corev1.ServiceAccountList]
	NamespaceInterface      = Client[*corev1.Namespace, *corev1.NamespaceList]
	DeploymentInterface     = Client[*appsv1.Deployment, *appsv1.DeploymentList]
	StatefulSetInterface    = Client[*appsv1.StatefulSet, *appsv1.StatefulSetList]
	LeaseInterface          = Client[*coordinationv1.Lease, *coordinationv1.LeaseList]
)

// PodInterface is the Pods' client, with their logs.
type PodInterface interface {
	Client[*corev1.Pod, *corev1.PodList]
	// GetLogs is the request for a container's log (pods/log).
	GetLogs(name string, opts *corev1.PodLogOptions) *rest.Request
}

// Getters of one kind, for what reads one kind only.
type (
	PodsGetter interface {
		Pods(namespace string) PodInterface
	}
	SecretsGetter interface {
		Secrets(namespace string) SecretInterface
	}
	ConfigMapsGetter interface {
		ConfigMaps(namespace string) ConfigMapInterface
	}
	LeasesGetter interface {
		Leases(namespace string) LeaseInterface
	}
)

// CoreV1 is the core group's client (v1).
type CoreV1 interface {
	PodsGetter
	SecretsGetter
	ConfigMapsGetter
	Events(namespace string) EventInterface
	ServiceAccounts(namespace string) ServiceAccountInterface
	Namespaces() NamespaceInterface
}

// AppsV1 is the apps group's client.
type AppsV1 interface {
	Deployments(namespace string) DeploymentInterface
	StatefulSets(namespace string) StatefulSetInterface
}

// AuthorizationV1 is the authorization group's client: its reviews.
type AuthorizationV1 interface {
	SubjectAccessReviews() Creator[*authorizationv1.SubjectAccessReview]
	SelfSubjectAccessReviews() Creator[*authorizationv1.SelfSubjectAccessReview]
	SelfSubjectRulesReviews() Creator[*authorizationv1.SelfSubjectRulesReview]
}

// CoordinationV1 is the coordination group's client.
type CoordinationV1 interface {
	LeasesGetter
}

// Scheme is the scheme of the groups' types (and of the options every
// request takes), built on first use.
var Scheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		panic(fmt.Sprintf("kubeclient: %v", err)) // the API types' own registration: never
	}
	return s
})

// AddToScheme registers the groups' types in s, and the options every
// request takes (a scheme of more groups starts from it: the lab's).
func AddToScheme(s *runtime.Scheme) error {
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, authorizationv1.AddToScheme, coordinationv1.AddToScheme} {
		if err := add(s); err != nil {
			return err
		}
	}
	return nil
}

// Codecs are Scheme's serializers.
var Codecs = sync.OnceValue(func() serializer.CodecFactory { return serializer.NewCodecFactory(Scheme()) })

// ParameterCodec writes the requests' options as query parameters.
var ParameterCodec = sync.OnceValue(func() runtime.ParameterCodec { return runtime.NewParameterCodec(Scheme()) })

// Groups are the four groups' clients over one REST configuration.
type Groups struct {
	core, apps, authorization, coordination rest.Interface
}

// NewGroups builds the groups' REST clients from cfg as client-gen's
// NewForConfigAndClient does (each group's API path and version, the
// scheme's serializers), sharing httpClient.
func NewGroups(cfg *rest.Config, httpClient *http.Client) (*Groups, error) {
	var g Groups
	for _, gr := range []struct {
		into *rest.Interface
		gv   schema.GroupVersion
		path string
	}{
		{&g.core, corev1.SchemeGroupVersion, "/api"},
		{&g.apps, appsv1.SchemeGroupVersion, "/apis"},
		{&g.authorization, authorizationv1.SchemeGroupVersion, "/apis"},
		{&g.coordination, coordinationv1.SchemeGroupVersion, "/apis"},
	} {
		c := *cfg
		gv := gr.gv
		c.GroupVersion, c.APIPath = &gv, gr.path
		c.NegotiatedSerializer = rest.CodecFactoryForGeneratedClient(Scheme(), Codecs()).WithoutConversion()
		if c.UserAgent == "" {
			c.UserAgent = rest.DefaultKubernetesUserAgent()
		}
		rc, err := rest.RESTClientForConfigAndClient(&c, httpClient)
		if err != nil {
			return nil, err
		}
		*gr.into = rc
	}
	return &g, nil
}

// CoreV1 is the core group's client.
func (g *Groups) CoreV1() CoreV1 { return core{g.core} }

// AppsV1 is the apps group's client.
func (g *Groups) AppsV1() AppsV1 { return apps{g.apps} }

// AuthorizationV1 is the authorization group's client.
func (g *Groups) AuthorizationV1() AuthorizationV1 { return authorization{g.authorization} }

// CoordinationV1 is the coordination group's client.
func (g *Groups) CoordinationV1() CoordinationV1 { return coordination{g.coordination} }

// list is gentype's client of a kind with a list, as client-gen makes it
// (protobuf preferred for the built-in kinds).
func list[I any, T interface {
	*I
	runtime.Object
	metav1.Object
}, LI any, L interface {
	*LI
	runtime.Object
}](rc rest.Interface, resource, ns string) *gentype.ClientWithList[T, L] {
	return gentype.NewClientWithList[T, L](resource, rc, ParameterCodec(), ns,
		func() T { return new(I) }, func() L { return new(LI) }, gentype.PrefersProtobuf[T]())
}

// creator is gentype's client of a kind that is only created.
func creator[I any, T interface {
	*I
	runtime.Object
	metav1.Object
}](rc rest.Interface, resource string) *gentype.Client[T] {
	return gentype.NewClient[T](resource, rc, ParameterCodec(), "", func() T { return new(I) }, gentype.PrefersProtobuf[T]())
}

type core struct{ rc rest.Interface }

func (c core) Pods(ns string) PodInterface {
	return pods{list[corev1.Pod, *corev1.Pod, corev1.PodList, *corev1.PodList](c.rc, "pods", ns)}
}
func (c core) Secrets(ns string) SecretInterface {
	return list[corev1.Secret, *corev1.Secret, corev1.SecretList, *corev1.SecretList](c.rc, "secrets", ns)
}
func (c core) ConfigMaps(ns string) ConfigMapInterface {
	return list[corev1.ConfigMap, *corev1.ConfigMap, corev1.ConfigMapList, *corev1.ConfigMapList](c.rc, "configmaps", ns)
}
func (c core) Events(ns string) EventInterface {
	return list[corev1.Event, *corev1.Event, corev1.EventList, *corev1.EventList](c.rc, "events", ns)
}
func (c core) ServiceAccounts(ns string) ServiceAccountInterface {
	return list[corev1.ServiceAccount, *corev1.ServiceAccount, corev1.ServiceAccountList, *corev1.ServiceAccountList](c.rc, "serviceaccounts", ns)
}
func (c core) Namespaces() NamespaceInterface {
	return list[corev1.Namespace, *corev1.Namespace, corev1.NamespaceList, *corev1.NamespaceList](c.rc, "namespaces", "")
}

// pods adds the log request to gentype's Pods client, as client-go's
// pod_expansion.go does.
type pods struct {
	*gentype.ClientWithList[*corev1.Pod, *corev1.PodList]
}

func (c pods) GetLogs(name string, opts *corev1.PodLogOptions) *rest.Request {
	return c.GetClient().Get().Namespace(c.GetNamespace()).Name(name).Resource("pods").SubResource("log").VersionedParams(opts, ParameterCodec())
}

type apps struct{ rc rest.Interface }

func (a apps) Deployments(ns string) DeploymentInterface {
	return list[appsv1.Deployment, *appsv1.Deployment, appsv1.DeploymentList, *appsv1.DeploymentList](a.rc, "deployments", ns)
}
func (a apps) StatefulSets(ns string) StatefulSetInterface {
	return list[appsv1.StatefulSet, *appsv1.StatefulSet, appsv1.StatefulSetList, *appsv1.StatefulSetList](a.rc, "statefulsets", ns)
}

type authorization struct{ rc rest.Interface }

func (a authorization) SubjectAccessReviews() Creator[*authorizationv1.SubjectAccessReview] {
	return creator[authorizationv1.SubjectAccessReview](a.rc, "subjectaccessreviews")
}
func (a authorization) SelfSubjectAccessReviews() Creator[*authorizationv1.SelfSubjectAccessReview] {
	return creator[authorizationv1.SelfSubjectAccessReview](a.rc, "selfsubjectaccessreviews")
}
func (a authorization) SelfSubjectRulesReviews() Creator[*authorizationv1.SelfSubjectRulesReview] {
	return creator[authorizationv1.SelfSubjectRulesReview](a.rc, "selfsubjectrulesreviews")
}

type coordination struct{ rc rest.Interface }

func (c coordination) Leases(ns string) LeaseInterface {
	return list[coordinationv1.Lease, *coordinationv1.Lease, coordinationv1.LeaseList, *coordinationv1.LeaseList](c.rc, "leases", ns)
}

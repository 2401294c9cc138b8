package kubefake

import (
	"io"
	"net/http"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/gentype"
	"k8s.io/client-go/rest"
	fakerest "k8s.io/client-go/rest/fake"
	"k8s.io/client-go/testing"

	"github.com/imgupd/imgupd/internal/kubeclient"
)

// Scheme is kubeclient's scheme and RBAC's kinds (the lab's Roles and
// bindings, which its SubjectAccessReviews are answered from), built on
// first use.
var Scheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{kubeclient.AddToScheme, rbacv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err) // the API types' own registration: never
		}
	}
	return s
})

// Codecs are Scheme's serializers (the lab decodes its objects with them).
var Codecs = sync.OnceValue(func() serializer.CodecFactory { return serializer.NewCodecFactory(Scheme()) })

// Clientset is the fake: the typed clients of kubeclient's groups over one
// object tracker, and the tracker's reactions (testing.Fake).
type Clientset struct {
	testing.Fake
	tracker testing.ObjectTracker
}

// NewClientset is a Clientset holding objects, built as client-gen's
// kubernetes/fake NewClientset: a field-managed tracker, its reactions, its
// watches.
func NewClientset(objects ...runtime.Object) *Clientset {
	o := testing.NewFieldManagedObjectTracker(Scheme(), Codecs().UniversalDecoder(), managedfields.NewDeducedTypeConverter())
	for _, obj := range objects {
		if err := o.Add(obj); err != nil {
			panic(err)
		}
	}
	cs := &Clientset{tracker: o}
	cs.AddReactor("*", "*", testing.ObjectReaction(o))
	cs.AddWatchReactor("*", func(action testing.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if w, ok := action.(testing.WatchActionImpl); ok {
			opts = w.ListOptions
		}
		w, err := o.Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return false, nil, err
		}
		return true, w, nil
	})
	return cs
}

// Tracker is the object tracker behind the clients.
func (c *Clientset) Tracker() testing.ObjectTracker { return c.tracker }

// CoreV1 is the core group's fake client.
func (c *Clientset) CoreV1() kubeclient.CoreV1 { return core{&c.Fake} }

// AppsV1 is the apps group's fake client.
func (c *Clientset) AppsV1() kubeclient.AppsV1 { return apps{&c.Fake} }

// AuthorizationV1 is the authorization group's fake client.
func (c *Clientset) AuthorizationV1() kubeclient.AuthorizationV1 { return authorization{&c.Fake} }

// CoordinationV1 is the coordination group's fake client.
func (c *Clientset) CoordinationV1() kubeclient.CoordinationV1 { return coordination{&c.Fake} }

// list is gentype's fake client of a kind with a list, as client-gen's
// fakes make it.
func list[I any, T interface {
	*I
	runtime.Object
	metav1.Object
}, LI any, L interface {
	*LI
	runtime.Object
	metav1.ListInterface
}](f *testing.Fake, gv schema.GroupVersion, resource, kind, ns string, items func(L) *[]I) *gentype.FakeClientWithList[T, L] {
	return gentype.NewFakeClientWithList[T, L](f, ns, gv.WithResource(resource), gv.WithKind(kind),
		func() T { return new(I) }, func() L { return new(LI) },
		func(dst, src L) {
			dst.SetResourceVersion(src.GetResourceVersion())
			dst.SetContinue(src.GetContinue())
			dst.SetRemainingItemCount(src.GetRemainingItemCount())
			dst.SetSelfLink(src.GetSelfLink())
		},
		func(l L) []T {
			its := *items(l)
			out := make([]T, len(its))
			for i := range its {
				out[i] = &its[i]
			}
			return out
		},
		func(l L, ts []T) {
			its := make([]I, len(ts))
			for i, t := range ts {
				its[i] = *t
			}
			*items(l) = its
		})
}

// creator is gentype's fake client of a kind that is only created.
func creator[I any, T interface {
	*I
	runtime.Object
	metav1.Object
}](f *testing.Fake, gv schema.GroupVersion, resource, kind string) *gentype.FakeClient[T] {
	return gentype.NewFakeClient[T](f, "", gv.WithResource(resource), gv.WithKind(kind), func() T { return new(I) })
}

type core struct{ f *testing.Fake }

var coreGV = corev1.SchemeGroupVersion

func (c core) Pods(ns string) kubeclient.PodInterface {
	return pods{list(c.f, coreGV, "pods", "Pod", ns, func(l *corev1.PodList) *[]corev1.Pod { return &l.Items })}
}
func (c core) Secrets(ns string) kubeclient.SecretInterface {
	return list(c.f, coreGV, "secrets", "Secret", ns, func(l *corev1.SecretList) *[]corev1.Secret { return &l.Items })
}
func (c core) ConfigMaps(ns string) kubeclient.ConfigMapInterface {
	return list(c.f, coreGV, "configmaps", "ConfigMap", ns, func(l *corev1.ConfigMapList) *[]corev1.ConfigMap { return &l.Items })
}
func (c core) Events(ns string) kubeclient.EventInterface {
	return list(c.f, coreGV, "events", "Event", ns, func(l *corev1.EventList) *[]corev1.Event { return &l.Items })
}
func (c core) ServiceAccounts(ns string) kubeclient.ServiceAccountInterface {
	return list(c.f, coreGV, "serviceaccounts", "ServiceAccount", ns, func(l *corev1.ServiceAccountList) *[]corev1.ServiceAccount { return &l.Items })
}
func (c core) Namespaces() kubeclient.NamespaceInterface {
	return list(c.f, coreGV, "namespaces", "Namespace", "", func(l *corev1.NamespaceList) *[]corev1.Namespace { return &l.Items })
}

// pods answers a log request as client-go's fake does: "fake logs".
type pods struct {
	*gentype.FakeClientWithList[*corev1.Pod, *corev1.PodList]
}

func (p pods) GetLogs(name string, opts *corev1.PodLogOptions) *rest.Request {
	action := testing.GenericActionImpl{}
	action.Verb, action.Namespace = "get", p.Namespace()
	action.Resource, action.Subresource = p.Resource(), "log"
	action.Value = opts
	_, _ = p.Fake.Invokes(action, &corev1.Pod{})
	c := &fakerest.RESTClient{
		Client: fakerest.CreateHTTPClient(func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("fake logs"))}, nil
		}),
		NegotiatedSerializer: Codecs().WithoutConversion(),
		GroupVersion:         coreGV,
		VersionedAPIPath:     "/api/v1/namespaces/" + p.Namespace() + "/pods/" + name + "/log",
	}
	return c.Request()
}

type apps struct{ f *testing.Fake }

var appsGV = appsv1.SchemeGroupVersion

func (a apps) Deployments(ns string) kubeclient.DeploymentInterface {
	return list(a.f, appsGV, "deployments", "Deployment", ns, func(l *appsv1.DeploymentList) *[]appsv1.Deployment { return &l.Items })
}
func (a apps) StatefulSets(ns string) kubeclient.StatefulSetInterface {
	return list(a.f, appsGV, "statefulsets", "StatefulSet", ns, func(l *appsv1.StatefulSetList) *[]appsv1.StatefulSet { return &l.Items })
}

type authorization struct{ f *testing.Fake }

var authorizationGV = authorizationv1.SchemeGroupVersion

func (a authorization) SubjectAccessReviews() kubeclient.Creator[*authorizationv1.SubjectAccessReview] {
	return creator[authorizationv1.SubjectAccessReview](a.f, authorizationGV, "subjectaccessreviews", "SubjectAccessReview")
}
func (a authorization) SelfSubjectAccessReviews() kubeclient.Creator[*authorizationv1.SelfSubjectAccessReview] {
	return creator[authorizationv1.SelfSubjectAccessReview](a.f, authorizationGV, "selfsubjectaccessreviews", "SelfSubjectAccessReview")
}
func (a authorization) SelfSubjectRulesReviews() kubeclient.Creator[*authorizationv1.SelfSubjectRulesReview] {
	return creator[authorizationv1.SelfSubjectRulesReview](a.f, authorizationGV, "selfsubjectrulesreviews", "SelfSubjectRulesReview")
}

type coordination struct{ f *testing.Fake }

func (c coordination) Leases(ns string) kubeclient.LeaseInterface {
	return list(c.f, coordinationv1.SchemeGroupVersion, "leases", "Lease", ns, func(l *coordinationv1.LeaseList) *[]coordinationv1.Lease { return &l.Items })
}

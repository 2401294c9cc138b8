package cluster

import (
	"context"
	"sort"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// ConfigMap returns the data of a ConfigMap (binaryData is left out).
func (r *Reader) ConfigMap(ctx context.Context, ns, name string) (map[string]string, error) {
	cm, err := r.Kube.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, newAccessError("get", "", "configmaps", ns, name, err)
	}
	if cm.Data == nil {
		return map[string]string{}, nil
	}
	return cm.Data, nil
}

// ServiceAccountAnnotations returns a ServiceAccount's annotations (IRSA and
// workload identity live there).
func (r *Reader) ServiceAccountAnnotations(ctx context.Context, ns, name string) (map[string]string, error) {
	sa, err := r.Kube.CoreV1().ServiceAccounts(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, newAccessError("get", "", "serviceaccounts", ns, name, err)
	}
	if sa.Annotations == nil {
		return map[string]string{}, nil
	}
	return sa.Annotations, nil
}

// EventsOfKind returns every event in ns about objects of kind, oldest
// first: one list for all the objects of a namespace (the fleet scan).
func (r *Reader) EventsOfKind(ctx context.Context, ns, kind string) ([]corev1.Event, error) {
	list, err := r.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.Set{"involvedObject.kind": kind}.AsSelector().String()})
	if err != nil {
		return nil, newAccessError("list", "", "events", ns, "", err)
	}
	out := make([]corev1.Event, 0, len(list.Items))
	for _, e := range list.Items {
		if e.InvolvedObject.Kind == kind {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return EventTime(out[i]).Before(EventTime(out[j])) })
	return out, nil
}

// Events returns the events in ns whose involvedObject has the given kind
// and name (kind "" matches any kind), oldest first by their last
// occurrence. The API server filters by field selector; the result is
// filtered again so that servers (and fakes) that ignore the selector give
// the same answer.
func (r *Reader) Events(ctx context.Context, ns, kind, name string) ([]corev1.Event, error) {
	sel := fields.Set{"involvedObject.name": name}
	if kind != "" {
		sel["involvedObject.kind"] = kind
	}
	list, err := r.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: sel.AsSelector().String()})
	if err != nil {
		return nil, newAccessError("list", "", "events", ns, "", err)
	}
	var out []corev1.Event
	for _, e := range list.Items {
		if e.InvolvedObject.Name == name && (kind == "" || e.InvolvedObject.Kind == kind) {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return EventTime(out[i]).Before(EventTime(out[j])) })
	return out, nil
}

// EventTime is when an event last happened: lastTimestamp, else eventTime
// (events.k8s.io writers), else firstTimestamp, else its creation time.
func EventTime(e corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	case !e.FirstTimestamp.IsZero():
		return e.FirstTimestamp.Time
	}
	return e.CreationTimestamp.Time
}

// Can asks the API server whether the reader's identity may verb resource
// in group in ns ("" = cluster-wide; resource may name a subresource, "pods/log"), via a SelfSubjectAccessReview, so the
// engine can list missing permissions before it reads.
func (r *Reader) Can(ctx context.Context, verb, group, resource, ns string) (bool, error) {
	res, sub, _ := strings.Cut(resource, "/")
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: verb, Group: group, Resource: res, Subresource: sub},
	}}
	answer, err := r.Kube.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return false, newAccessError("create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", err)
	}
	return answer.Status.Allowed, nil
}

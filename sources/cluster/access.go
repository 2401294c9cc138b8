package cluster

import (
	"context"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Subject is who an access review asks about: a user name and its groups,
// as the API server's authorizer sees them.
type Subject struct {
	User   string
	Groups []string
	// Namespace and ServiceAccount are set for a ServiceAccount subject
	// (ServiceAccountSubject): they name it in RBAC bindings.
	Namespace, ServiceAccount string
}

// ServiceAccountSubject is the identity a pod running as ServiceAccount
// ns/name has: user system:serviceaccount:NS:NAME in the groups
// system:serviceaccounts, system:serviceaccounts:NS and
// system:authenticated. An empty name is "default", as for a pod template
// without serviceAccountName.
func ServiceAccountSubject(ns, name string) Subject {
	if name == "" {
		name = "default"
	}
	return Subject{
		User:           "system:serviceaccount:" + ns + ":" + name,
		Groups:         []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
		Namespace:      ns,
		ServiceAccount: name,
	}
}

// String names the subject: "ServiceAccount NS/NAME" or "user NAME".
func (s Subject) String() string {
	if s.ServiceAccount != "" {
		return "ServiceAccount " + s.Namespace + "/" + s.ServiceAccount
	}
	return "user " + s.User
}

// AccessQuery asks whether Subject may Verb a resource: Group "" is the
// core group; Namespace "" is cluster-wide; Name "" means any object (a
// list or a watch).
type AccessQuery struct {
	Subject                                Subject
	Verb, Group, Resource, Namespace, Name string
}

// Key identifies the query for caches.
func (q AccessQuery) Key() string {
	return strings.Join([]string{q.Subject.User, strings.Join(q.Subject.Groups, ","), q.Verb, q.Group, q.Resource, q.Namespace, q.Name}, "\x00")
}

// String is the question in kubectl's words: "may ServiceAccount argocd/x
// get secrets argocd/regcred".
func (q AccessQuery) String() string {
	res := q.Resource
	if q.Group != "" {
		res += "." + q.Group
	}
	where := "in all namespaces"
	switch {
	case q.Namespace != "" && q.Name != "":
		where = q.Namespace + "/" + q.Name
	case q.Namespace != "":
		where = "in namespace " + q.Namespace
	case q.Name != "":
		where = q.Name
	}
	return fmt.Sprintf("may %s %s %s %s", q.Subject, q.Verb, res, where)
}

// AccessAnswer is the API server's answer to an AccessQuery. Allowed is
// true only when an authorizer allowed it; Reason is the authorizer's own
// text (cluster-written: show it, never parse it).
type AccessAnswer struct {
	Allowed bool
	// Denied is an explicit deny (a webhook authorizer); RBAC never
	// denies, it only does not allow.
	Denied bool
	Reason string
	// EvaluationError is set when the authorizer could not evaluate every
	// rule (a missing role): the answer may be incomplete.
	EvaluationError string
}

// ReviewAccess asks the API server whether q.Subject may do what q says,
// with a SubjectAccessReview (authorization.k8s.io/v1). Creating one writes
// nothing: the API server answers and keeps nothing. It needs create on
// subjectaccessreviews (cluster-wide); without it the error is an
// *AccessError naming that rule, and nothing is assumed about the answer.
func (r *Reader) ReviewAccess(ctx context.Context, q AccessQuery) (AccessAnswer, error) {
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   q.Subject.User,
		Groups: q.Subject.Groups,
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: q.Namespace, Verb: q.Verb, Group: q.Group, Resource: q.Resource, Name: q.Name,
		},
	}}
	got, err := r.Kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return AccessAnswer{}, newAccessError("create", "authorization.k8s.io", "subjectaccessreviews", "", "", err)
	}
	return AccessAnswer{Allowed: got.Status.Allowed, Denied: got.Status.Denied, Reason: got.Status.Reason, EvaluationError: got.Status.EvaluationError}, nil
}

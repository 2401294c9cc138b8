package cluster

import (
	"context"
	"errors"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/imgupd/imgupd/internal/netclass"
)

// UnreachableError: the API server gave no answer at all: its name did not
// resolve, the connection was refused, TLS failed, or it timed out.
type UnreachableError struct {
	Server string
	Kind   netclass.Kind
	Err    error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach the Kubernetes API server %s: %s: %v", e.Server, e.Kind.Phrase(nil), e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// CredentialsError: the API server answered 401 Unauthorized: it does not
// accept the credentials (an expired or revoked token, an expired client
// certificate, a wrong user).
type CredentialsError struct {
	Server string
	Err    error
}

func (e *CredentialsError) Error() string {
	return fmt.Sprintf("the Kubernetes API server %s refused the credentials (401 Unauthorized): %v", e.Server, e.Err)
}

func (e *CredentialsError) Unwrap() error { return e.Err }

// Check asks the API server, with one SelfSubjectAccessReview (which any
// authenticated user may create and which writes nothing), whether the
// reader may do what attrs names. It tells apart what would otherwise turn a
// whole diagnosis into "unknown" check by check: an *UnreachableError (no
// answer), a *CredentialsError (401), or an *AccessError with Forbidden set
// (RBAC says no). It returns nil when allowed, and also when it could not
// ask (the review itself forbidden, or another answer): the reads then say
// what they could not read, one by one.
func (r *Reader) Check(ctx context.Context, server string, attrs authorizationv1.ResourceAttributes) error {
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs}}
	res, err := r.Kube.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	switch {
	case err == nil:
		if res.Status.Allowed {
			return nil
		}
		return &AccessError{Verb: attrs.Verb, Group: attrs.Group, Resource: attrs.Resource, Namespace: attrs.Namespace, Forbidden: true,
			Err: errors.New("RBAC does not allow it")}
	case apierrors.IsUnauthorized(err):
		return &CredentialsError{Server: server, Err: err}
	}
	if kind, _ := netclass.Classify(err); kind != netclass.None && kind != netclass.Canceled {
		return &UnreachableError{Server: server, Kind: kind, Err: err}
	}
	return nil
}

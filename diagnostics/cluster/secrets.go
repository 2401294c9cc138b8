package cluster

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// AccessError is a read the API server refused or could not answer, with the
// RBAC rule that would allow it.
type AccessError struct {
	Verb, Resource, Namespace, Name string
	// Forbidden is true for a 403 (the missing rule is Rule()); false for a
	// missing object or another failure.
	Forbidden bool
	NotFound  bool
	Err       error
}

func (e *AccessError) Error() string {
	switch {
	case e.Forbidden:
		return fmt.Sprintf("forbidden to %s %s %s/%s: the reader needs RBAC rule %s", e.Verb, e.Resource, e.Namespace, e.Name, e.Rule())
	case e.NotFound:
		return fmt.Sprintf("%s %s/%s not found", e.Resource, e.Namespace, e.Name)
	}
	return fmt.Sprintf("%s %s %s/%s: %v", e.Verb, e.Resource, e.Namespace, e.Name, e.Err)
}

func (e *AccessError) Unwrap() error { return e.Err }

// Rule is the missing RBAC rule in the form of a Role rule.
func (e *AccessError) Rule() string {
	return fmt.Sprintf(`{apiGroups: [""], resources: [%q], verbs: [%q]} in namespace %s`, e.Resource, e.Verb, e.Namespace)
}

// Secrets reads Secrets. It implements the Secret half of the updater
// model's CredentialSource.
type Secrets struct {
	Client kubernetes.Interface
}

// Secret returns the data of a Secret. Errors never include the data.
func (s Secrets) Secret(ctx context.Context, ns, name string) (map[string][]byte, error) {
	sec, err := s.Client.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		ae := &AccessError{Verb: "get", Resource: "secrets", Namespace: ns, Name: name, Err: err}
		var status apierrors.APIStatus
		if errors.As(err, &status) {
			ae.Forbidden = apierrors.IsForbidden(err)
			ae.NotFound = apierrors.IsNotFound(err)
		}
		return nil, ae
	}
	return sec.Data, nil
}

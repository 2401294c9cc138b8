package cluster

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/imgupd/imgupd/internal/kubeclient"
)

// AccessError is a read the API server refused or could not answer, with the
// RBAC rule that would allow it. Group is the API group ("" for core,
// "argoproj.io", "apps", ...); Resource may name a subresource ("pods/log");
// Namespace "" means cluster-wide or all namespaces; Name "" means a list.
type AccessError struct {
	Verb, Group, Resource, Namespace, Name string
	// Forbidden is true for a 403 (the missing rule is Rule()); false for a
	// missing object or another failure.
	Forbidden bool
	NotFound  bool
	// Upstream is true when the API server answered with a 5xx: it failed on
	// its way to what serves the read (for pods/log, the node's kubelet),
	// not on the reader's permission.
	Upstream bool
	Err      error
}

// IsNotFound reports whether err is an AccessError for a missing object.
func IsNotFound(err error) bool {
	var ae *AccessError
	return errors.As(err, &ae) && ae.NotFound
}

func (e *AccessError) Error() string {
	switch {
	case e.Forbidden:
		return fmt.Sprintf("forbidden to %s %s %s: the reader needs RBAC rule %s", e.Verb, e.resourceName(), e.where(), e.Rule())
	case e.NotFound && e.Name == "" && e.Err != nil:
		return fmt.Sprintf("%s %s: %v", e.resourceName(), e.where(), e.Err)
	case e.NotFound:
		return fmt.Sprintf("%s %s not found", e.resourceName(), e.where())
	}
	return fmt.Sprintf("%s %s %s: %v", e.Verb, e.resourceName(), e.where(), e.Err)
}

func (e *AccessError) Unwrap() error { return e.Err }

// Rule is the missing RBAC rule in the form of a Role rule (or, for
// cluster-wide reads, a ClusterRole rule).
func (e *AccessError) Rule() string {
	scope := "in namespace " + e.Namespace
	if e.Namespace == "" {
		scope = "cluster-wide (ClusterRole)"
	}
	return fmt.Sprintf(`{apiGroups: [%q], resources: [%q], verbs: [%q]} %s`, e.Group, e.Resource, e.Verb, scope)
}

// RuleYAML is the missing rule as a YAML list item to paste under a Role's
// (or ClusterRole's) rules: with RuleScope it says where it goes.
func (e *AccessError) RuleYAML() string {
	return fmt.Sprintf("- apiGroups: [%q]\n  resources: [%q]\n  verbs: [%q]", e.Group, e.Resource, e.Verb)
}

// RuleScope is where RuleYAML belongs: "a Role in namespace NS" or "a
// ClusterRole".
func (e *AccessError) RuleScope() string {
	if e.Namespace == "" {
		return "imgupd's ClusterRole"
	}
	return "a Role bound to imgupd in namespace " + e.Namespace + " (or imgupd's ClusterRole)"
}

// resourceName is "secrets" for the core group, "applications.argoproj.io"
// otherwise (kubectl's spelling).
func (e *AccessError) resourceName() string {
	if e.Group == "" {
		return e.Resource
	}
	return e.Resource + "." + e.Group
}

func (e *AccessError) where() string {
	switch {
	case e.Namespace == "" && e.Name == "":
		return "in all namespaces"
	case e.Namespace == "":
		return e.Name
	case e.Name == "":
		return "in namespace " + e.Namespace
	}
	return e.Namespace + "/" + e.Name
}

// newAccessError classifies an API error by its status (never its text).
func newAccessError(verb, group, resource, ns, name string, err error) *AccessError {
	ae := &AccessError{Verb: verb, Group: group, Resource: resource, Namespace: ns, Name: name, Err: err}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		ae.Forbidden = apierrors.IsForbidden(err)
		ae.NotFound = apierrors.IsNotFound(err)
		ae.Upstream = status.Status().Code >= 500
	}
	return ae
}

// Secrets reads Secrets. It implements the Secret half of the updater
// model's CredentialSource.
type Secrets struct {
	Client kubeclient.SecretsGetter
}

// Secret returns the data of a Secret. Errors never include the data.
func (s Secrets) Secret(ctx context.Context, ns, name string) (map[string][]byte, error) {
	sec, err := s.Client.Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, newAccessError("get", "", "secrets", ns, name, err)
	}
	return sec.Data, nil
}

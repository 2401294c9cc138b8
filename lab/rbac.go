package lab

import (
	"fmt"
	"slices"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

// rbacAuthorizer answers the fake cluster's SubjectAccessReviews as the API
// server's RBAC authorizer does, over the Roles, ClusterRoles,
// RoleBindings and ClusterRoleBindings the fake holds at the time of the
// review. It is the lab's stand-in for `--authorization-mode=RBAC`; not
// modelled: aggregated ClusterRoles (aggregationRule), non-resource URLs,
// the system:masters group and the other authorizers (Node, webhooks).
// The real-API-server tier (test/e2e) checks the same scenarios against the
// real authorizer.
type rbacAuthorizer struct {
	tracker k8stesting.ObjectTracker
}

var (
	rolesGVR               = rbacv1.SchemeGroupVersion.WithResource("roles")
	clusterRolesGVR        = rbacv1.SchemeGroupVersion.WithResource("clusterroles")
	roleBindingsGVR        = rbacv1.SchemeGroupVersion.WithResource("rolebindings")
	clusterRoleBindingsGVR = rbacv1.SchemeGroupVersion.WithResource("clusterrolebindings")
)

// react answers a create of a SubjectAccessReview with its status filled
// in; the review is not stored (the API server keeps none either).
func (a rbacAuthorizer) react(action k8stesting.Action) (bool, runtime.Object, error) {
	ca, ok := action.(k8stesting.CreateAction)
	if !ok {
		return false, nil, nil
	}
	review, ok := ca.GetObject().(*authorizationv1.SubjectAccessReview)
	if !ok {
		return false, nil, nil
	}
	out := review.DeepCopy()
	if attr := review.Spec.ResourceAttributes; attr != nil {
		allowed, reason, err := a.allows(review.Spec.User, review.Spec.Groups, *attr)
		out.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: allowed, Reason: reason}
		if err != nil {
			out.Status.EvaluationError = err.Error()
		}
	}
	return true, out, nil
}

// allows reports whether user (in groups) may do attr, and the binding
// that allows it, in the words of the RBAC authorizer.
func (a rbacAuthorizer) allows(user string, groups []string, attr authorizationv1.ResourceAttributes) (bool, string, error) {
	crbs, err := a.tracker.List(clusterRoleBindingsGVR, rbacv1.SchemeGroupVersion.WithKind("ClusterRoleBinding"), "")
	if err != nil {
		return false, "", err
	}
	for _, b := range crbs.(*rbacv1.ClusterRoleBindingList).Items {
		if !anySubject(b.Subjects, "", user, groups) || b.RoleRef.Kind != "ClusterRole" {
			continue
		}
		if a.roleAllows("ClusterRole", "", b.RoleRef.Name, attr) {
			return true, fmt.Sprintf("RBAC: allowed by ClusterRoleBinding %q of ClusterRole %q to %s", b.Name, b.RoleRef.Name, user), nil
		}
	}
	if attr.Namespace == "" {
		return false, "", nil
	}
	rbs, err := a.tracker.List(roleBindingsGVR, rbacv1.SchemeGroupVersion.WithKind("RoleBinding"), attr.Namespace)
	if err != nil {
		return false, "", err
	}
	for _, b := range rbs.(*rbacv1.RoleBindingList).Items {
		if b.Namespace != attr.Namespace || !anySubject(b.Subjects, b.Namespace, user, groups) {
			continue
		}
		if a.roleAllows(b.RoleRef.Kind, b.Namespace, b.RoleRef.Name, attr) {
			return true, fmt.Sprintf("RBAC: allowed by RoleBinding \"%s/%s\" of %s %q to %s", b.Name, b.Namespace, b.RoleRef.Kind, b.RoleRef.Name, user), nil
		}
	}
	return false, "", nil
}

// roleAllows: a Role in ns (or a ClusterRole) of that name has a rule for attr.
func (a rbacAuthorizer) roleAllows(kind, ns, name string, attr authorizationv1.ResourceAttributes) bool {
	var rules []rbacv1.PolicyRule
	switch kind {
	case "ClusterRole":
		o, err := a.tracker.Get(clusterRolesGVR, "", name)
		if err != nil {
			return false
		}
		rules = o.(*rbacv1.ClusterRole).Rules
	case "Role":
		o, err := a.tracker.Get(rolesGVR, ns, name)
		if err != nil {
			return false
		}
		rules = o.(*rbacv1.Role).Rules
	default:
		return false
	}
	for _, r := range rules {
		if ruleAllows(r, attr) {
			return true
		}
	}
	return false
}

// ruleAllows matches one rule as RBAC does: verb, API group, resource (with
// its subresource) and, when the rule names objects, the object's name (a
// request without a name, a list, never matches a rule with
// resourceNames).
func ruleAllows(r rbacv1.PolicyRule, attr authorizationv1.ResourceAttributes) bool {
	res := attr.Resource
	if attr.Subresource != "" {
		res += "/" + attr.Subresource
	}
	if !hasOrStar(r.Verbs, attr.Verb) || !hasOrStar(r.APIGroups, attr.Group) || !hasOrStar(r.Resources, res) {
		return false
	}
	return len(r.ResourceNames) == 0 || attr.Name != "" && slices.Contains(r.ResourceNames, attr.Name)
}

func hasOrStar(list []string, v string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, v)
}

// anySubject: one of the binding's subjects is the user or one of its
// groups. A ServiceAccount subject without a namespace is in the
// binding's namespace (bindingNS, "" for a ClusterRoleBinding).
func anySubject(subjects []rbacv1.Subject, bindingNS, user string, groups []string) bool {
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.UserKind:
			if s.Name == user {
				return true
			}
		case rbacv1.GroupKind:
			if slices.Contains(groups, s.Name) {
				return true
			}
		case rbacv1.ServiceAccountKind:
			ns := s.Namespace
			if ns == "" {
				ns = bindingNS
			}
			if ns != "" && user == "system:serviceaccount:"+ns+":"+s.Name {
				return true
			}
		}
	}
	return false
}

// isRBACKind: the four kinds the RBAC authorizer reads.
func isRBACKind(u *unstructured.Unstructured) bool {
	if !strings.HasPrefix(u.GetAPIVersion(), rbacv1.GroupName+"/") {
		return false
	}
	switch u.GetKind() {
	case "Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding":
		return true
	}
	return false
}

// ArgoCDServiceAccount is the ServiceAccount the lab's Argo CD reads its
// repository Secrets with (Argo CD's own install: the application
// controller), and what the engine is told it is.
const ArgoCDServiceAccount = "argocd-application-controller"

// defaultRBAC is the RBAC of a scenario that brings none: what the usual
// installs give the two components that read Secrets.
//
//   - Image Updater: its shipped install (config/install.yaml of v1.3.0),
//     a Role in its namespace with get, list and watch on secrets and
//     configmaps, bound to the ServiceAccount its Deployment runs as.
//   - Argo CD: get, list and watch on secrets in its own namespace for its
//     application controller (the namespace Image Updater's
//     ARGOCD_NAMESPACE names, else Image Updater's).
//
// So a scenario reads the Secrets of Image Updater's namespace as before,
// and a reference to a Secret elsewhere is one Image Updater may not read,
// unless the scenario brings its own RBAC objects.
func defaultRBAC(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	for _, o := range objs {
		if isRBACKind(o) {
			return nil
		}
	}
	argoNS := "argocd"
	var out []*unstructured.Unstructured
	if ns, sa, argo, ok := updaterIdentity(objs); ok {
		out = append(out, secretsRole(ns, "argocd-image-updater", rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: ns})...)
		argoNS = ns
		if argo != "" {
			argoNS = argo
		}
	}
	return append(out, secretsRole(argoNS, ArgoCDServiceAccount, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: ArgoCDServiceAccount, Namespace: argoNS})...)
}

// updaterIdentity finds the Image Updater Deployment among the objects
// (a container whose image is argocd-image-updater): its namespace, its
// pod template's ServiceAccount ("default" when unset) and a literal
// ARGOCD_NAMESPACE.
func updaterIdentity(objs []*unstructured.Unstructured) (ns, sa, argoNS string, ok bool) {
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		for _, c := range containers {
			cm, _ := c.(map[string]any)
			img, _ := cm["image"].(string)
			if !strings.Contains(img, "argocd-image-updater") {
				continue
			}
			sa, _, _ = unstructured.NestedString(o.Object, "spec", "template", "spec", "serviceAccountName")
			if sa == "" {
				sa = "default"
			}
			env, _ := cm["env"].([]any)
			for _, e := range env {
				em, _ := e.(map[string]any)
				if em["name"] == "ARGOCD_NAMESPACE" {
					argoNS, _ = em["value"].(string)
				}
			}
			return o.GetNamespace(), sa, argoNS, true
		}
	}
	return "", "", "", false
}

// secretsRole is a Role in ns reading secrets and configmaps, and its
// RoleBinding to subject.
func secretsRole(ns, name string, subject rbacv1.Subject) []*unstructured.Unstructured {
	role := map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": map[string]any{"imgupd.lab/default-rbac": "true"}},
		"rules":    []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"secrets", "configmaps"}, "verbs": []any{"get", "list", "watch"}}},
	}
	binding := map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": map[string]any{"imgupd.lab/default-rbac": "true"}},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
		"subjects": []any{map[string]any{"kind": subject.Kind, "name": subject.Name, "namespace": subject.Namespace}},
	}
	return []*unstructured.Unstructured{{Object: role}, {Object: binding}}
}

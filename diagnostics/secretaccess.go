package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/diagnostics/cluster"
	"github.com/imgupd/imgupd/diagnostics/report"
)

// imgupd reads a Secret only for a check of what another component does
// with it, and only when that component may read it itself: before each
// Secret read it asks the API server (a SubjectAccessReview, which writes
// nothing) whether Image Updater's ServiceAccount (pull secrets, git:secret
// and, for git:repocreds, Argo CD's repository Secrets) or Argo CD's
// (its repository Secrets, for the source) may get or list it. When that
// component may not, that is the finding and the Secret is not read; when
// imgupd cannot ask, it reads nothing and the check is not verified. So a
// reference written by whoever controls an Application or a CR never makes
// imgupd read, let alone send anywhere, a Secret the controller it
// explains could not read.
//
// The Secrets behind env secretKeyRefs of Image Updater's container are
// not reviewed: the kubelet resolves them into the container's environment,
// whatever the ServiceAccount may read, and they are always in Image
// Updater's own namespace.

// secretUser is the component that reads a Secret in the cluster.
type secretUser struct {
	// who names it for people: "Image Updater", "Argo CD".
	who     string
	subject cluster.Subject
	// via says how imgupd learnt the ServiceAccount.
	via string
}

// updaterUser is Image Updater's identity: the ServiceAccount of its
// Deployment's pod template ("default" when it names none), in its
// namespace. ok is false when imgupd found no Image Updater.
func (r *run) updaterUser() (secretUser, bool) {
	if r.install == nil {
		return secretUser{}, false
	}
	sa, via := r.install.ServiceAccount, "spec.template.spec.serviceAccountName of Deployment "+r.install.Namespace+"/"+r.install.Name
	if sa == "" {
		via = "Deployment " + r.install.Namespace + "/" + r.install.Name + " names no serviceAccountName: its pods run as default"
	}
	return secretUser{who: "Image Updater", subject: cluster.ServiceAccountSubject(r.install.Namespace, sa), via: via}, true
}

// argoUser is Argo CD's identity for its repository Secrets: the
// configured ServiceAccount in Argo CD's namespace.
func (r *run) argoUser() secretUser {
	sa := r.opts.ArgoCDServiceAccount
	via := "imgupd's --argocd-service-account"
	if sa == DefaultArgoCDServiceAccount {
		via += " (default: Argo CD's application controller)"
	}
	return secretUser{who: "Argo CD", subject: cluster.ServiceAccountSubject(r.argoNamespace(), sa), via: via}
}

// mayRead asks, once per diagnosis and verb, whether u may do each of verbs
// on secrets ns/name (name "" for a list). It returns nil when every verb is
// allowed, a *secretForbidden naming the verbs that are not, or a
// *secretUnverified when the API server could not be asked.
func (r *run) mayRead(ctx context.Context, u secretUser, ns, name string, verbs ...string) error {
	var missing []string
	for _, v := range verbs {
		q := cluster.AccessQuery{Subject: u.subject, Verb: v, Resource: "secrets", Namespace: ns, Name: name}
		res, ok := r.access[q.Key()]
		if !ok {
			a, err := r.e.Cluster.ReviewAccess(ctx, q)
			res = accessResult{answer: a, err: err}
			if ctx.Err() == nil {
				r.access[q.Key()] = res
			}
		}
		if res.err != nil {
			return &secretUnverified{user: &u, namespace: ns, name: name, verbs: verbs, err: res.err}
		}
		if !res.answer.Allowed {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		return &secretForbidden{user: u, verbs: missing, namespace: ns, name: name}
	}
	return nil
}

// updaterSecret reads Secret ns/name for a check of what Image Updater
// does with it, once the API server said Image Updater's ServiceAccount
// may get it.
func (r *run) updaterSecret(ctx context.Context, ns, name string) (map[string][]byte, error) {
	u, ok := r.updaterUser()
	if !ok {
		return nil, &secretUnverified{namespace: ns, name: name, verbs: []string{"get"},
			reason: "imgupd found no Image Updater Deployment, so it does not know the ServiceAccount that would read the Secret"}
	}
	if err := r.mayRead(ctx, u, ns, name, "get"); err != nil {
		return nil, err
	}
	return r.e.Cluster.Secret(ctx, ns, name)
}

// repoCredsFor lists Argo CD's repository Secrets for u (Argo CD for its
// sources, Image Updater for git:repocreds), once the API server said u
// may list and watch Secrets in Argo CD's namespace (both read them
// through an informer).
func (r *run) repoCredsFor(ctx context.Context, u secretUser) ([]cluster.RepoCred, error) {
	if err := r.mayRead(ctx, u, r.argoNamespace(), "", "list", "watch"); err != nil {
		return nil, err
	}
	return r.repoCreds(ctx)
}

// secretForbidden: the component that uses the Secret may not read it, so
// it fails to where imgupd would have read it; imgupd did not read it.
type secretForbidden struct {
	user            secretUser
	verbs           []string
	namespace, name string
}

func (e *secretForbidden) Error() string {
	return fmt.Sprintf("%s's %s may not %s %s (the API server's answer to a SubjectAccessReview); imgupd did not read it",
		e.user.who, e.user.subject, strings.Join(e.verbs, " or "), e.object())
}

// object is "Secret NS/NAME" or "the Secrets of namespace NS".
func (e *secretForbidden) object() string {
	if e.name == "" {
		return "the Secrets of namespace " + e.namespace
	}
	return "Secret " + e.namespace + "/" + e.name
}

// roleName names the Role the fix adds.
func (e *secretForbidden) roleName() string {
	n := e.user.subject.ServiceAccount + "-read-secrets"
	if e.name != "" {
		n = e.user.subject.ServiceAccount + "-read-" + e.name
	}
	if len(n) > 63 {
		n = n[:63]
	}
	return strings.Trim(n, "-.")
}

// rbacYAML is the Role and RoleBinding that let the component read what it
// may not: by name for one Secret, the verbs an informer needs for a list.
func (e *secretForbidden) rbacYAML() string {
	names := ""
	verbs := `["get"]`
	if e.name != "" {
		names = fmt.Sprintf("\n  resourceNames: [%q]", e.name)
	} else {
		verbs = `["get", "list", "watch"]`
	}
	s := e.user.subject
	return fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: %[1]s
  namespace: %[2]s
rules:
- apiGroups: [""]
  resources: ["secrets"]%[3]s
  verbs: %[4]s
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: %[1]s
  namespace: %[2]s
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: %[1]s
subjects:
- kind: ServiceAccount
  name: %[5]s
  namespace: %[6]s`, e.roleName(), e.namespace, names, verbs, s.ServiceAccount, s.Namespace)
}

// secretUnverified: imgupd could not ask whether the component may read
// the Secret (it may not create SubjectAccessReviews, the API server did
// not answer, or it does not know the component's ServiceAccount); it read
// nothing.
type secretUnverified struct {
	user            *secretUser
	namespace, name string
	verbs           []string
	reason          string
	err             error
}

func (e *secretUnverified) Error() string {
	what := "Secret " + e.namespace + "/" + e.name
	if e.name == "" {
		what = "the Secrets of namespace " + e.namespace
	}
	why := e.reason
	if why == "" && e.err != nil {
		why = "asking the API server failed: " + e.err.Error()
	}
	who := "the component that uses it"
	if e.user != nil {
		who = e.user.who + "'s " + e.user.subject.String()
	}
	return fmt.Sprintf("imgupd did not read %s: it could not verify that %s may %s it (%s)", what, who, strings.Join(e.verbs, " and "), why)
}

func (e *secretUnverified) Unwrap() error { return e.err }

// verify says what would let imgupd make the check.
func (e *secretUnverified) verify() string {
	var ae *cluster.AccessError
	switch {
	case e.user == nil:
		return "point imgupd at Image Updater's namespace (--updater-namespace) so it finds its Deployment and ServiceAccount"
	case errors.As(e.err, &ae) && ae.Forbidden:
		return "grant imgupd create on subjectaccessreviews.authorization.k8s.io (a ClusterRole rule; the chart's ClusterRole has it), so it can ask whether " + e.user.who + " may read the Secret before reading it"
	}
	return "re-run when the API server answers SubjectAccessReviews"
}

// secretGateFinding turns a gate error into its finding: forbidden (code,
// a failure: the component fails there) or not verified. stay is true when
// the Secret may not move (Image Updater v1.3+ wants an image's pull secret
// and git:secret in the Application's namespace). ok is false for any
// other error.
func (r *run) secretGateFinding(code report.Code, what string, stay bool, err error) (report.Finding, bool) {
	var sf *secretForbidden
	var su *secretUnverified
	switch {
	case errors.As(err, &sf):
		f := find(code, catalogue()[code].Severity, fmt.Sprintf("%s's %s may not %s %s (%s)", sf.user.who, sf.user.subject, strings.Join(sf.verbs, " or "), sf.object(), what)).
			With(ev("asked the API server", cluster.AccessQuery{Subject: sf.user.subject, Verb: sf.verbs[0], Resource: "secrets", Namespace: sf.namespace, Name: sf.name}.String()+": no"),
				ev("ServiceAccount from", sf.user.via),
				ev("imgupd", "did not read "+sf.object()+": "+sf.user.who+" cannot read it either"))
		home := ""
		if !stay {
			home = secretHome(sf)
		}
		return f.WithFix(forbiddenFixSummary(sf, home), sf.object()+" / "+sf.user.subject.String(), forbiddenFixSteps(sf, home)...), true
	case errors.As(err, &su):
		f := find(report.CodeSecretAccessNotVerified, report.Unknown, "not verified: "+what+": "+su.Error())
		f.Verify = su.verify()
		f.Decides = true
		var ae *cluster.AccessError
		if errors.As(su.err, &ae) && ae.Forbidden {
			f = f.With(ev("missing rule", ae.Rule())).WithFix("Let imgupd ask the API server who may read what (creating a SubjectAccessReview writes nothing).", ae.RuleScope(), ruleStep(ae))
		}
		return f, true
	}
	return report.Finding{}, false
}

// forbiddenFixSummary: give the component the read, or move the Secret to
// home, where it may read.
func forbiddenFixSummary(sf *secretForbidden, home string) string {
	s := fmt.Sprintf("Let %s's ServiceAccount %s %s: a Role and RoleBinding in namespace %s", sf.user.who, strings.Join(sf.verbs, " and "), sf.object(), sf.namespace)
	if sf.name != "" {
		s += " limited to that Secret by name"
	}
	if home != "" {
		s += fmt.Sprintf("; or move the Secret to namespace %s, where it reads Secrets, and point the reference there", home)
	}
	return s + "."
}

// forbiddenFixSteps: the Role and RoleBinding that let the component read
// the Secret, or (home set) first the copy of the Secret into home.
func forbiddenFixSteps(sf *secretForbidden, home string) []report.Step {
	grant := report.Run(fmt.Sprintf("let %s read it: a Role and RoleBinding in namespace %s", sf.user.subject, sf.namespace), heredoc(sf.rbacYAML()))
	if home == "" {
		return []report.Step{grant}
	}
	return []report.Step{
		report.Run(fmt.Sprintf("copy the Secret to namespace %s, then point the reference at %s/%s", home, home, sf.name),
			fmt.Sprintf("kubectl get secret -n %s %s -o yaml | sed 's/namespace: %s/namespace: %s/' | kubectl apply -f -", sf.namespace, sf.name, sf.namespace, home)),
		report.Otherwise(grant),
	}
}

// secretHome is where a named Secret could move: the component's own
// namespace, when the Secret is elsewhere.
func secretHome(sf *secretForbidden) string {
	home := sf.user.subject.Namespace
	if sf.name == "" || home == sf.namespace {
		return ""
	}
	return home
}

// repoCreds lists Argo CD's repository Secrets once per diagnosis.
func (r *run) repoCreds(ctx context.Context) ([]cluster.RepoCred, error) {
	if r.repoCredsDone {
		return r.repoCredsList, r.repoCredsErr
	}
	r.repoCredsList, r.repoCredsErr = r.e.Cluster.RepoCredentials(ctx, r.argoNamespace())
	r.repoCredsDone = true
	return r.repoCredsList, r.repoCredsErr
}

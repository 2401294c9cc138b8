package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
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
	// guessed: imgupd found no workload naming the ServiceAccount and took
	// the usual name, so the API server's "no" may only mean that the
	// component runs as another.
	guessed bool
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

// argoUser is Argo CD's identity for its repository Secrets, found once
// per diagnosis: the ServiceAccount imgupd is told (--argocd-service-
// account), else the one Argo CD's application controller runs as (the
// serviceAccountName of its StatefulSet or Deployment in Argo CD's
// namespace: OpenShift GitOps, for one, names it
// <instance>-argocd-application-controller), else Argo CD's own default
// name, argocd-application-controller (guessed).
func (r *run) argoUser(ctx context.Context) secretUser {
	if r.argo != nil {
		return *r.argo
	}
	ns := r.argoNamespace()
	u := secretUser{who: "Argo CD"}
	if sa := r.opts.ArgoCDServiceAccount; sa != "" {
		u.subject, u.via = cluster.ServiceAccountSubject(ns, sa), "imgupd's --argocd-service-account"
		r.argo = &u
		return u
	}
	ctl, err := r.e.Cluster.ArgoController(ctx, ns)
	switch {
	case err == nil:
		u.subject = cluster.ServiceAccountSubject(ns, ctl.ServiceAccount)
		u.via = "spec.template.spec.serviceAccountName of " + ctl.Kind + " " + ns + "/" + ctl.Name + " (Argo CD's application controller: label " + ctl.MatchedBy + ")"
	default:
		u.subject, u.guessed = cluster.ServiceAccountSubject(ns, DefaultArgoCDServiceAccount), true
		why := "found no StatefulSet or Deployment labelled as Argo CD's application controller in " + ns
		if !cluster.IsNotFound(err) {
			why = "could not look for Argo CD's application controller in " + ns + ": " + textutil.OneLine(err.Error())
		}
		u.via = "Argo CD's default name, argocd-application-controller: imgupd " + why
	}
	if ctx.Err() == nil {
		r.argo = &u
	}
	return u
}

// serviceAccountExists says whether the ServiceAccount of s exists; known
// is false when imgupd could not read it.
func (r *run) serviceAccountExists(ctx context.Context, s cluster.Subject) (exists, known bool) {
	_, err := r.e.Cluster.ServiceAccountAnnotations(ctx, s.Namespace, s.ServiceAccount)
	switch {
	case err == nil:
		return true, true
	case cluster.IsNotFound(err):
		return false, true
	}
	return false, false
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

// grantSteps create the Role and the RoleBinding that let the component
// read what it may not (by name for one Secret, the verbs an informer needs
// for a list), with kubectl create; say names what the read is for.
func grantSteps(e *secretForbidden, say string) []report.Step {
	verbs, argv := "get", []string{"kubectl", "-n", e.namespace, "create", "role", e.roleName(), "--resource=secrets"}
	if e.name != "" {
		argv = append(argv, "--resource-name="+e.name)
	} else {
		verbs = "get,list,watch"
	}
	s := e.user.subject
	return []report.Step{
		report.Command(say+": the Role", append(argv, "--verb="+verbs)...),
		report.Command("bind it to "+s.String(), "kubectl", "-n", e.namespace, "create", "rolebinding", e.roleName(), "--role="+e.roleName(), "--serviceaccount="+s.Namespace+":"+s.ServiceAccount),
	}
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

// secretUse is what the component does with a Secret, for the fix of a
// Secret it may not read: the host it sends the credentials to and who chose
// that host (the Application's owner, a CR's author, Image Updater's
// admin), "" for a Secret it only reads (a public key); stay: the Secret must
// be where it is (Image Updater v1.3+ wants an image's pull secret and
// git:secret in the Application's namespace); instead: the steps that give
// the component credentials of the reader's own where it reads them, which
// the fix offers first when the Secret may move, since the Secret's owner
// did not put it there for this component.
type secretUse struct {
	stay              bool
	sendsTo, chosenBy string
	instead           []report.Step
	insteadWhere      string
}

// secretGateFinding turns a gate error into its finding: forbidden (code,
// a failure: the component fails there) or not verified. ok is false for
// any other error.
func (r *run) secretGateFinding(code report.Code, what string, use secretUse, err error) (report.Finding, bool) {
	var sf *secretForbidden
	var su *secretUnverified
	switch {
	case errors.As(err, &sf):
		f := find(code, catalogue()[code].Severity, fmt.Sprintf("%s's %s may not %s %s (%s)", sf.user.who, sf.user.subject, strings.Join(sf.verbs, " or "), sf.object(), what)).
			With(ev("asked the API server", cluster.AccessQuery{Subject: sf.user.subject, Verb: sf.verbs[0], Resource: "secrets", Namespace: sf.namespace, Name: sf.name}.String()+": no"),
				ev("ServiceAccount from", sf.user.via),
				ev("imgupd", "did not read "+sf.object()+": "+sf.user.who+" cannot read it either"))
		if use.sendsTo != "" {
			f = f.With(ev("the credentials would go to", use.sendsTo+" (chosen by "+use.chosenBy+")"))
		}
		summary, steps := forbiddenFix(sf, use)
		where := sf.object() + " / " + sf.user.subject.String()
		if len(use.instead) > 0 && !use.stay && use.insteadWhere != "" {
			where = use.insteadWhere
		}
		return f.WithFix(summary, where, steps...), true
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

// forbiddenFix: credentials of the reader's own where the component reads
// (when the Secret may move), or the read by name, which says where the
// Secret's credentials then go and who chose that. No fix copies or moves a
// Secret out of the namespace its owner chose.
func forbiddenFix(sf *secretForbidden, use secretUse) (string, []report.Step) {
	goes := ""
	if use.sendsTo != "" {
		goes = fmt.Sprintf(" %s then sends its credentials to %s, which %s chose: grant it only if %s is meant to have them.", sf.user.who, use.sendsTo, use.chosenBy, use.sendsTo)
	}
	grantSay := fmt.Sprintf("let %s %s %s: a Role and RoleBinding in namespace %s", sf.user.subject, strings.Join(sf.verbs, " and "), sf.object(), sf.namespace)
	if use.sendsTo != "" {
		grantSay += " (it then sends them to " + use.sendsTo + ")"
	}
	grant := grantSteps(sf, grantSay)
	by := ""
	if sf.name != "" {
		by = " limited to that Secret by name"
	}
	if len(use.instead) > 0 && !use.stay {
		summary := fmt.Sprintf("Give %s credentials of your own where it reads Secrets, rather than %s, which its owner keeps in namespace %s (imgupd does not move or copy it). Or, if that Secret is meant for this, let %s's ServiceAccount %s it: a Role and RoleBinding in namespace %s%s.%s",
			sf.user.who, sf.object(), sf.namespace, sf.user.who, strings.Join(sf.verbs, " and "), sf.namespace, by, goes)
		return summary, append(append([]report.Step(nil), use.instead...), report.Alternative(grant...)...)
	}
	summary := fmt.Sprintf("Let %s's ServiceAccount %s %s: a Role and RoleBinding in namespace %s%s.%s", sf.user.who, strings.Join(sf.verbs, " and "), sf.object(), sf.namespace, by, goes)
	return summary, grant
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

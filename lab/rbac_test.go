package lab

import (
	"context"
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/imgupd/imgupd/lab/kubefake"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

// The canary credentials of the two kube-system scenarios.
const (
	canaryRegistry = "canary-kube-system-7f3a9c21"
	canaryGit      = "canary-git-admin-5d81e0b4"
)

// startScenario starts a built-in scenario with extra objects appended.
func startScenario(t *testing.T, name, extra string) (*Env, *kubefake.Clientset) {
	t.Helper()
	sc, ok := Builtin(name)
	if !ok {
		t.Fatalf("no scenario %s", name)
	}
	if extra != "" {
		sc.Objects += "\n---\n" + extra
	}
	env, err := Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	return env, env.engine.Cluster.(*cluster.Reader).Kube.(*kubefake.Clientset)
}

// secretReads are the Secrets imgupd got or listed, as "verb ns/name".
func secretReads(kube *kubefake.Clientset) []string {
	var out []string
	for _, a := range kube.Actions() {
		if a.GetResource().Resource != "secrets" {
			continue
		}
		name := ""
		if g, ok := a.(k8stesting.GetAction); ok {
			name = g.GetName()
		}
		out = append(out, a.GetVerb()+" "+a.GetNamespace()+"/"+name)
	}
	return out
}

// sawCanary reports whether any Authorization header carries the canary,
// plainly or in Basic's base64.
func sawCanary(auths []string, canary string) bool {
	for _, a := range auths {
		if strings.Contains(a, canary) {
			return true
		}
		if b, ok := strings.CutPrefix(a, "Basic "); ok {
			if d, err := base64.StdEncoding.DecodeString(b); err == nil && strings.Contains(string(d), canary) {
				return true
			}
		}
	}
	return false
}

// TestSecretImageUpdaterMayNotReadIsNotRead: a reference to a Secret Image
// Updater's ServiceAccount may not read (the attack: a pull secret
// and a git:secret in kube-system) is the finding; imgupd neither reads
// the Secret nor sends its value to the registry or git server the
// reference points at.
func TestSecretImageUpdaterMayNotReadIsNotRead(t *testing.T) {
	for _, c := range []struct{ scenario, canary string }{
		{"updater-v0-18-pull-secret-in-kube-system", canaryRegistry},
		{"updater-v1-2-git-secret-in-kube-system", canaryGit},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			env, kube := startScenario(t, c.scenario, "")
			rep := env.Diagnose(context.Background())
			if !env.Scenario.Matches(rep) {
				t.Fatalf("got %s %s, want %s", rep.State, Primary(rep), env.Scenario.Expect)
			}
			for _, r := range secretReads(kube) {
				if strings.Contains(r, "kube-system") {
					t.Errorf("imgupd read a Secret Image Updater may not read: %s", r)
				}
			}
			if sawCanary(env.Registry.Authorizations(), c.canary) || sawCanary(env.Git.Authorizations(), c.canary) {
				t.Error("the kube-system credential reached the registry or the git server")
			}
			// The fix gives Image Updater credentials of the reader's own
			// where it reads Secrets; the read of the kube-system Secret by
			// name comes only as the other way, saying where the Secret's
			// credentials would then go. No step copies or reads it.
			f := rep.RootCause
			if f == nil || f.Fix == nil {
				t.Fatalf("no fix: %+v", f)
			}
			var role, binding *report.Step
			for i, s := range f.Fix.Steps {
				for _, argv := range s.Run.Argvs(nil) {
					if slices.Contains(argv, "get") && slices.Contains(argv, "secret") || slices.Contains(argv, "sed") {
						t.Errorf("a step reads or copies a Secret: %q", argv)
					}
					if slices.Equal(argv[:5], []string{"kubectl", "-n", "kube-system", "create", "role"}) && slices.ContainsFunc(argv, func(w string) bool { return strings.HasPrefix(w, "--resource-name=") }) {
						role = &f.Fix.Steps[i]
					}
					if len(argv) > 4 && argv[4] == "rolebinding" {
						binding = &f.Fix.Steps[i]
					}
				}
			}
			if role == nil || binding == nil || !role.Or || !binding.Then || f.Fix.Steps[0].Or || len(f.Fix.Steps[0].Set) == 0 {
				t.Errorf("the fix should first create credentials of the reader's own, then offer a Role by name in kube-system as the other way:\n%s", f.Fix.Script())
			}
			if !strings.Contains(f.Fix.Summary, "then sends its credentials to 127.0.0.1") || !strings.Contains(role.Say, "it then sends them to 127.0.0.1") {
				t.Errorf("the grant does not say where the credentials go: %q / %q", f.Fix.Summary, role.Say)
			}
		})
	}
}

// TestSecretGrantedToImageUpdaterIsRead: the same setups with a Role that
// lets Image Updater read that one Secret: imgupd reads it and uses it as
// Image Updater would (the gate is what stopped it above, nothing else).
func TestSecretGrantedToImageUpdaterIsRead(t *testing.T) {
	grant := func(name string) string {
		return `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: iu-read, namespace: kube-system}
rules: [{apiGroups: [""], resources: [secrets], resourceNames: [` + name + `], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: iu-read, namespace: kube-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: iu-read}
subjects: [{kind: ServiceAccount, name: argocd-image-updater, namespace: argocd}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: argocd-application-controller}
rules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: argocd-application-controller}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: argocd-application-controller}
subjects: [{kind: ServiceAccount, name: argocd-application-controller, namespace: argocd}]`
	}
	env, kube := startScenario(t, "updater-v0-18-pull-secret-in-kube-system", grant("registry-admin"))
	rep := env.Diagnose(context.Background())
	if !rep.HasCode(report.CodeRegistryOK) || rep.HasCode(report.CodeRegistryPullSecretDenied) {
		t.Fatalf("with the grant the registry should be reached with the credential: %s %s", rep.State, Primary(rep))
	}
	if !sawCanary(env.Registry.Authorizations(), canaryRegistry) {
		t.Error("the registry should have seen the credential Image Updater may read")
	}
	if got := strings.Join(secretReads(kube), ","); !strings.Contains(got, "get kube-system/registry-admin") {
		t.Errorf("secret reads %s", got)
	}

	env, _ = startScenario(t, "updater-v1-2-git-secret-in-kube-system", grant("git-admin"))
	rep = env.Diagnose(context.Background())
	if rep.HasCode(report.CodeWriteBackSecretDenied) || !sawCanary(env.Git.Authorizations(), canaryGit) {
		t.Fatalf("with the grant the git server should be probed with the credential: %s %s", rep.State, Primary(rep))
	}
}

// TestSecretReviewsForbiddenFailClosed: when imgupd may not create
// SubjectAccessReviews it reads no Secret at all, and every credential
// check is not verified (never passed).
func TestSecretReviewsForbiddenFailClosed(t *testing.T) {
	forbid := func(kube *kubefake.Clientset) {
		kube.PrependReactor("create", "subjectaccessreviews", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}, "",
				errors.New(`User "system:serviceaccount:imgupd:imgupd" cannot create resource "subjectaccessreviews"`))
		})
	}
	for _, c := range []struct {
		scenario string
		stage    report.StageID
	}{
		{"report-4-pull-secret-key-mismatch", report.StageRegistry},
		{"healthy-git-writeback", report.StageWriteBack},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			env, kube := startScenario(t, c.scenario, "")
			forbid(kube)
			rep := env.Diagnose(context.Background())
			if reads := secretReads(kube); len(reads) > 0 {
				t.Errorf("imgupd read Secrets without asking: %v", reads)
			}
			st := rep.Stage(c.stage)
			var got *report.Finding
			for i := range st.Findings {
				if st.Findings[i].Code == report.CodeSecretAccessNotVerified {
					got = &st.Findings[i]
				}
			}
			if got == nil || got.Severity != report.Unknown || !got.Decides || !strings.Contains(got.Verify, "subjectaccessreviews") {
				t.Fatalf("the %s stage should report the credential check as not verified, with what would verify it: %+v", c.stage, st.Findings)
			}
			if rep.State != report.StateUnknown {
				t.Errorf("state %s: a credential check that was not made must not give an answer", rep.State)
			}
		})
	}
}

// TestSourceReadWithoutRepoSecretsArgoCDMayNotRead: when the ServiceAccount
// imgupd takes for Argo CD (one that exists: a missing one is not
// verified, never forbidden) may not list Secrets in its namespace, imgupd
// does not read the repository Secrets and says so.
func TestSourceReadWithoutRepoSecretsArgoCDMayNotRead(t *testing.T) {
	env, _ := startScenario(t, "healthy-git-writeback", "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: not-argocd, namespace: argocd}")
	env.engine.Options.ArgoCDServiceAccount = "not-argocd"
	rep := env.Diagnose(context.Background())
	if !rep.HasCode(report.CodeSourceRepoSecretsDenied) {
		t.Fatalf("want %s\n%v", report.CodeSourceRepoSecretsDenied, rep.Findings())
	}
	// Image Updater (git:repocreds) may still list them: the write-back
	// check reads them for itself.
	if st := rep.Stage(report.StageWriteBack); st == nil || st.Status == report.Fail || rep.HasCode(report.CodeWriteBackRepoDenied) || rep.HasCode(report.CodeSecretAccessNotVerified) {
		t.Errorf("the write-back check should still run with Image Updater's own access: %s %s", rep.State, Primary(rep))
	}
}

func TestRBACAuthorizer(t *testing.T) {
	objs := []runtime.Object{
		&rbacv1.Role{ObjectMeta: meta("argocd", "named"), Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"regcred"}, Verbs: []string{"get"}}}},
		&rbacv1.RoleBinding{ObjectMeta: meta("argocd", "named"), RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "named"},
			// A ServiceAccount subject without a namespace is the binding's.
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "iu"}}},
		&rbacv1.ClusterRole{ObjectMeta: meta("", "lister"), Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"list", "watch"}}}},
		&rbacv1.RoleBinding{ObjectMeta: meta("team", "lister"), RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "lister"},
			Subjects: []rbacv1.Subject{{Kind: "Group", Name: "system:serviceaccounts:argocd"}}},
		&rbacv1.ClusterRole{ObjectMeta: meta("", "pods"), Rules: []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"pods/log"}, Verbs: []string{"*"}}}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: meta("", "pods"), RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "pods"},
			Subjects: []rbacv1.Subject{{Kind: "User", Name: "alice"}}},
	}
	kube := kubefake.NewClientset(objs...)
	a := rbacAuthorizer{tracker: kube.Tracker()}
	iu := cluster.ServiceAccountSubject("argocd", "iu")
	other := cluster.ServiceAccountSubject("other", "iu")
	cases := []struct {
		name   string
		s      cluster.Subject
		attr   authorizationv1.ResourceAttributes
		expect bool
	}{
		{"named Secret", iu, authorizationv1.ResourceAttributes{Namespace: "argocd", Verb: "get", Resource: "secrets", Name: "regcred"}, true},
		{"another Secret", iu, authorizationv1.ResourceAttributes{Namespace: "argocd", Verb: "get", Resource: "secrets", Name: "admin"}, false},
		{"list against resourceNames", iu, authorizationv1.ResourceAttributes{Namespace: "argocd", Verb: "list", Resource: "secrets"}, false},
		{"same name, other namespace's ServiceAccount", other, authorizationv1.ResourceAttributes{Namespace: "argocd", Verb: "get", Resource: "secrets", Name: "regcred"}, false},
		{"Role only in its namespace", iu, authorizationv1.ResourceAttributes{Namespace: "kube-system", Verb: "get", Resource: "secrets", Name: "regcred"}, false},
		{"ClusterRole through a RoleBinding to a group", iu, authorizationv1.ResourceAttributes{Namespace: "team", Verb: "watch", Resource: "secrets"}, true},
		{"that RoleBinding stays in its namespace", iu, authorizationv1.ResourceAttributes{Namespace: "kube-system", Verb: "list", Resource: "secrets"}, false},
		{"ClusterRoleBinding, wildcard group and verb, subresource", cluster.Subject{User: "alice"}, authorizationv1.ResourceAttributes{Namespace: "x", Verb: "get", Resource: "pods", Subresource: "log", Name: "p"}, true},
		{"the subresource is not the resource", cluster.Subject{User: "alice"}, authorizationv1.ResourceAttributes{Namespace: "x", Verb: "get", Resource: "pods", Name: "p"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, reason, err := a.allows(c.s.User, c.s.Groups, c.attr)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.expect {
				t.Fatalf("allowed = %v (%s), want %v", got, reason, c.expect)
			}
		})
	}
}

// TestDefaultRBAC: a scenario without RBAC objects gets Image Updater's
// shipped Role for its Deployment's ServiceAccount and Argo CD's; one with
// any RBAC object gets none.
func TestDefaultRBAC(t *testing.T) {
	env, _ := startScenario(t, "healthy-git-writeback", "")
	r := env.engine.Cluster.(*cluster.Reader)
	ask := func(s cluster.Subject, verb, ns, name string) bool {
		a, err := r.ReviewAccess(context.Background(), cluster.AccessQuery{Subject: s, Verb: verb, Resource: "secrets", Namespace: ns, Name: name})
		if err != nil {
			t.Fatal(err)
		}
		return a.Allowed
	}
	iu := cluster.ServiceAccountSubject("argocd", "argocd-image-updater")
	argo := cluster.ServiceAccountSubject("argocd", ArgoCDServiceAccount)
	if !ask(iu, "get", "argocd", "x") || !ask(iu, "list", "argocd", "") || ask(iu, "get", "kube-system", "x") || ask(iu, "get", "web", "x") {
		t.Error("Image Updater should read Secrets in its own namespace only")
	}
	if !ask(argo, "watch", "argocd", "") || ask(argo, "get", "kube-system", "x") {
		t.Error("Argo CD should read Secrets in its own namespace only")
	}
	if ask(cluster.ServiceAccountSubject("argocd", "default"), "get", "argocd", "x") {
		t.Error("other ServiceAccounts get nothing")
	}
	sc, _ := Builtin("healthy-git-writeback")
	sc.Objects += "\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: x}\n"
	env2, err := Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	defer env2.Close()
	objs, _ := env2.Objects()
	for _, o := range objs {
		if o.GetLabels()["imgupd.lab/default-rbac"] != "" {
			t.Fatalf("a scenario with its own RBAC got the default: %s %s", o.GetKind(), o.GetName())
		}
	}
}

func meta(ns, name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: ns, Name: name} }

// TestTemplateForAnotherHostIsNotSent: a repo-creds template whose url is a
// string prefix of the repository's across the host boundary (here: the
// git server's URL with its port cut short) is what Argo CD would send
// there; imgupd says so and reads the repository without it.
func TestTemplateForAnotherHostIsNotSent(t *testing.T) {
	const canary = "canary-template-token-0c4e"
	sc, _ := Builtin("healthy-kustomize-argocd")
	sc.Git.Auth = &Auth{Username: "tmpl-user", Password: canary}
	env, err := StartServers(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	git := env.Vars["GIT"]
	short := git[:len(git)-1] // http://127.0.0.1:4012 for port 40123: another port, another origin
	env.Scenario.Objects += "\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: creds-tmpl, namespace: argocd, labels: {argocd.argoproj.io/secret-type: repo-creds}}\n" +
		"stringData: {url: \"" + short + "\", username: tmpl-user, password: " + canary + "}\n"
	reader, err := env.fakeCluster()
	if err != nil {
		t.Fatal(err)
	}
	env.UseCluster(reader)
	rep := env.Diagnose(context.Background())
	if !rep.HasCode(report.CodeRepoCredsOtherHost) {
		t.Fatalf("want %s\n%v", report.CodeRepoCredsOtherHost, rep.Findings())
	}
	if sawCanary(env.Git.Authorizations(), canary) {
		t.Error("the template's credentials were sent to a host they are not for")
	}
}

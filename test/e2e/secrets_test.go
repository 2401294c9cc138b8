package e2e

import (
	"context"
	"encoding/base64"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// updaterSA is the ServiceAccount Image Updater's own install runs as.
const updaterSA = "argocd-image-updater-controller"

// withShippedUpdaterRBAC replaces the lab's default RBAC for Image Updater with Image Updater
// v1.3.0's own (testdata/install/imageupdater-v1.3.0-install.yaml, as `kubectl apply -n argocd`
// installs it: a Role reading secrets and configmaps in argocd, bound to
// argocd-image-updater-controller), and runs the scenario's Image Updater as that
// ServiceAccount. Argo CD's default Role (its application controller's Secrets in argocd) stays.
func withShippedUpdaterRBAC(t *testing.T) func([]*unstructured.Unstructured) []*unstructured.Unstructured {
	t.Helper()
	shipped, err := readYAMLDocs(filepath.Join("testdata", "install", "imageupdater-v1.3.0-install.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var rbac []*unstructured.Unstructured
	for _, o := range shipped {
		switch o.GetKind() {
		case "ServiceAccount", "Role", "RoleBinding":
			o.SetNamespace("argocd")
			rbac = append(rbac, o)
		case "ClusterRole", "ClusterRoleBinding":
			rbac = append(rbac, o)
		}
	}
	if len(rbac) < 8 {
		t.Fatalf("only %d RBAC objects in Image Updater's install.yaml", len(rbac))
	}
	return func(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
		var out []*unstructured.Unstructured
		for _, o := range objs {
			if o.GetLabels()["imgupd.lab/default-rbac"] != "" && o.GetName() != lab.ArgoCDServiceAccount {
				continue // the lab's stand-in for Image Updater's RBAC
			}
			if o.GetKind() == "Deployment" {
				_ = unstructured.SetNestedField(o.Object, updaterSA, "spec", "template", "spec", "serviceAccountName")
			}
			out = append(out, o)
		}
		return append(out, rbac...)
	}
}

// sawValue reports whether an Authorization header carries v, plainly or in Basic's base64.
func sawValue(auths []string, v string) bool {
	for _, a := range auths {
		if strings.Contains(a, v) {
			return true
		}
		if b, ok := strings.CutPrefix(a, "Basic "); ok {
			if d, err := base64.StdEncoding.DecodeString(b); err == nil && strings.Contains(string(d), v) {
				return true
			}
		}
	}
	return false
}

// TestSecretImageUpdaterMayNotReadOnRealAPIServer: with Image Updater's shipped RBAC and the
// chart's (Secret reads on, and off), a pull secret and a git:secret in kube-system, which Image
// Updater may not read, are reported as such (the root cause, with the Role to add); imgupd never
// asks the API server for them, and their canary values reach neither the registry nor the git
// server the references point at. When Image Updater is granted the Secret but imgupd is not (no
// rbac.secrets.namespaces for kube-system), the check is not verified and still nothing is sent;
// when both are, the credential goes to the host it is configured for, and only there.
func TestSecretImageUpdaterMayNotReadOnRealAPIServer(t *testing.T) {
	kubeSystem := chartRelease{what: "rbac.secrets.namespaces={kube-system}", name: "imgupd-kubesystem", ns: "imgupd-kubesystem",
		set: []string{"rbac.secrets.namespaces={kube-system}"}}
	for _, r := range []chartRelease{chartDefault, chartNoSecrets, kubeSystem} {
		installChart(t, r)
	}
	cases := []struct {
		scenario, secret, canary string
		toRegistry               bool // the credential is for the registry (else the git server)
	}{
		{"updater-v0-18-pull-secret-in-kube-system", "registry-admin", "canary-kube-system-7f3a9c21", true},
		{"updater-v1-2-git-secret-in-kube-system", "git-admin", "canary-git-admin-5d81e0b4", false},
	}
	for _, c := range cases {
		t.Run(c.scenario, func(t *testing.T) {
			sc, ok := lab.Builtin(c.scenario)
			if !ok {
				t.Fatalf("no scenario %s", c.scenario)
			}
			env, cleanup := loadScenarioObjects(t, sc, withShippedUpdaterRBAC(t))
			defer cleanup()
			noCanary := func(what string) {
				t.Helper()
				if sawValue(env.Registry.Authorizations(), c.canary) || sawValue(env.Git.Authorizations(), c.canary) {
					t.Errorf("%s: the kube-system credential reached the registry or the git server", what)
				}
			}
			for _, r := range []chartRelease{chartDefault, chartNoSecrets} {
				reader, calls := readAs(t, env, r.ns, r.name)
				env.UseCluster(reader)
				rep := env.Diagnose(context.Background())
				if !sc.Matches(rep) {
					t.Fatalf("chart (%s): %s, want %s %s\n%s", r.what, answer(rep), sc.ExpectState, sc.Expect, findings(rep))
				}
				if f := rep.RootCause; f == nil || f.Fix == nil || !strings.Contains(f.Fix.Snippet+"\n", "--serviceaccount=argocd:"+updaterSA+"\n") || !strings.Contains(f.Fix.Snippet+"\n", " --resource=secrets --resource-name="+c.secret+" --verb=get\n") {
					t.Errorf("chart (%s): the fix should bind a Role naming %s to %s: %+v", r.what, c.secret, updaterSA, f)
				}
				calls.mu.Lock()
				for _, call := range calls.calls {
					if strings.Contains(call, "/namespaces/kube-system/") {
						t.Errorf("chart (%s): imgupd asked for a Secret Image Updater may not read: %s", r.what, call)
					}
				}
				calls.mu.Unlock()
				noCanary("chart (" + r.what + ")")
			}

			// Image Updater may read it, imgupd may not: not verified, not read, not sent.
			grant := []*unstructured.Unstructured{
				{Object: map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
					"metadata": map[string]any{"name": "iu-read-" + c.secret, "namespace": "kube-system"},
					"rules":    []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"secrets"}, "resourceNames": []any{c.secret}, "verbs": []any{"get"}}}}},
				{Object: map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
					"metadata": map[string]any{"name": "iu-read-" + c.secret, "namespace": "kube-system"},
					"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "iu-read-" + c.secret},
					"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": updaterSA, "namespace": "argocd"}}}},
			}
			admin, err := newClient(srv.config)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range grant {
				if _, err := admin.create(context.Background(), o); err != nil {
					t.Fatal(err)
				}
				defer admin.delete(context.Background(), o)
			}
			reader, calls := readAs(t, env, chartDefault.ns, chartDefault.name)
			env.UseCluster(reader)
			rep := env.Diagnose(context.Background())
			notVerified := slices.ContainsFunc(rep.Findings(), func(f report.Finding) bool {
				return f.Code == report.CodeReadForbidden && f.Severity == report.Unknown && strings.Contains(f.Title, "kube-system/"+c.secret)
			})
			if !notVerified || rep.HasCode(report.CodeRegistryPullSecretDenied) || rep.HasCode(report.CodeWriteBackSecretDenied) {
				t.Errorf("Image Updater may read it, imgupd may not: want the read as not verified (READ_FORBIDDEN), got %s\n%s", answer(rep), findings(rep))
			}
			calls.mu.Lock()
			tried := slices.Contains(calls.calls, "GET /api/v1/namespaces/kube-system/secrets/"+c.secret+" 403")
			calls.mu.Unlock()
			if !tried {
				t.Errorf("once Image Updater may read the Secret, imgupd should try (and be refused by its own RBAC): %v", calls.calls)
			}
			noCanary("granted to Image Updater only")

			// Both may read it: the credential goes where the reference says, and nowhere else.
			reader, _ = readAs(t, env, kubeSystem.ns, kubeSystem.name)
			env.UseCluster(reader)
			rep = env.Diagnose(context.Background())
			reg, git := sawValue(env.Registry.Authorizations(), c.canary), sawValue(env.Git.Authorizations(), c.canary)
			if reg != c.toRegistry || git == c.toRegistry {
				t.Errorf("granted to both: the registry saw the credential: %v, the git server: %v; want only the %s (%s)\n%s",
					reg, git, map[bool]string{true: "registry", false: "git server"}[c.toRegistry], answer(rep), findings(rep))
			}
		})
	}
}

// TestCredentialsOnlyToTheirHostOnRealAPIServer: read as the chart's ServiceAccount, with Image
// Updater's shipped RBAC, scenarios whose registry and git server each want their own
// credentials: the registry never sees a git credential and the git server (and the forge API
// it serves) never sees a registry credential.
func TestCredentialsOnlyToTheirHostOnRealAPIServer(t *testing.T) {
	installChart(t, chartDefault)
	for _, name := range []string{"article-3-registry-credentials", "protected-branch-github-api", "protected-branch-gitlab-api", "source-private-ca", "source-insecure-true"} {
		t.Run(name, func(t *testing.T) {
			sc, ok := lab.Builtin(name)
			if !ok {
				t.Fatalf("no scenario %s", name)
			}
			env, cleanup := loadScenarioObjects(t, sc, withShippedUpdaterRBAC(t))
			defer cleanup()
			reader, _ := readAs(t, env, chartDefault.ns, chartDefault.name)
			env.UseCluster(reader)
			rep := env.Diagnose(context.Background())
			var registrySecrets, gitSecrets []string
			if a := sc.Registry.Auth; a != nil {
				registrySecrets = append(registrySecrets, a.Password)
			}
			for _, a := range []*lab.Auth{sc.Git.Auth, sc.Git.ReadOnly} {
				if a != nil {
					gitSecrets = append(gitSecrets, a.Password)
				}
			}
			for _, v := range gitSecrets {
				if sawValue(env.Registry.Authorizations(), v) {
					t.Errorf("the registry saw a git credential (%s)", answer(rep))
				}
			}
			if sc.Git.Auth != nil && !sawValue(env.Git.Authorizations(), sc.Git.Auth.Password) && !(sc.Git.ReadOnly != nil && sawValue(env.Git.Authorizations(), sc.Git.ReadOnly.Password)) {
				t.Errorf("the git server never saw its own credentials: the test would prove nothing (%s)", answer(rep))
			}
			for _, v := range registrySecrets {
				if sawValue(env.Git.Authorizations(), v) {
					t.Errorf("the git server saw a registry credential (%s)", answer(rep))
				}
			}
		})
	}
}

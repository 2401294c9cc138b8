package e2e

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/imgupd/imgupd/lab"
)

// chartRBACOnly is the chart's RBAC alone (rbacOnly=true), as installed on a cluster another
// imgupd reads: a release of its own, so that its ServiceAccount and ClusterRole meet no other.
var chartRBACOnly = chartRelease{what: "rbacOnly=true", name: "imgupd-remote", ns: "imgupd-remote", set: []string{"rbacOnly=true"}, secretsOK: true}

// TestRBACOnlyOnRemoteCluster: the chart's rbacOnly rendering, applied for real (server-side
// apply, strict validation), is only RBAC, a ServiceAccount and its token Secret; the token read
// from that Secret, in a kubeconfig of its own (no impersonation, no admin), lets the imgupd
// binary diagnose a scenario loaded in the API server — the answer it gives with the shipped
// RBAC, not a cluster problem (exit 69, 77, 78) — and the API server grants that token no write
// but SubjectAccessReviews.
//
// No kube-controller-manager runs here, so nothing fills the Secret: the test does what its
// token controller does, a token for the ServiceAccount bound to the Secret (TokenRequest; deleting
// the Secret revokes it), written into data.token.
func TestRBACOnlyOnRemoteCluster(t *testing.T) {
	ctx := context.Background()
	began := time.Now()
	phase := func(what string) { t.Logf("%s after %s", what, time.Since(began).Round(time.Millisecond)) }
	admin, err := newClient(srv.config)
	if err != nil {
		t.Fatal(err)
	}
	objs := chartRBACOnly.render(t)
	var secretName string
	for _, o := range objs {
		switch {
		case o.GetKind() == "Secret":
			secretName = o.GetName()
			if o.Object["type"] != "kubernetes.io/service-account-token" || o.GetAnnotations()["kubernetes.io/service-account.name"] != chartRBACOnly.name {
				t.Errorf("Secret %s: type %v, annotations %v", o.GetName(), o.Object["type"], o.GetAnnotations())
			}
		case !isRBACObject(o) || o.GetKind() == "Lease" || o.GetKind() == "ConfigMap":
			t.Errorf("rbacOnly renders %s %s: only the ServiceAccount, its RBAC and its token Secret belong on a remote cluster", o.GetKind(), o.GetName())
		}
		if err := admin.apply(ctx, o, false); err != nil {
			t.Fatal(err)
		}
	}
	if secretName != chartRBACOnly.name+"-token" {
		t.Fatalf("token Secret %q, want %s-token", secretName, chartRBACOnly.name)
	}

	token := tokenFromSecret(t, srv, chartRBACOnly.ns, chartRBACOnly.name, secretName)

	// The token alone may read, and write nothing but SubjectAccessReviews.
	asToken := &rest.Config{Host: srv.config.Host, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	for _, ns := range []string{chartRBACOnly.ns, "argocd"} {
		everyone := grantedToEveryone(t, ns)
		for _, rule := range rulesReview(t, asToken, ns) {
			if slices.ContainsFunc(everyone, func(e authorizationv1.ResourceRule) bool { return reflect.DeepEqual(e, rule) }) {
				continue
			}
			for _, v := range []string{"create", "update", "patch", "delete", "deletecollection"} {
				if slices.Contains(rule.Verbs, v) && !slices.Equal(rule.Resources, []string{"subjectaccessreviews"}) {
					t.Errorf("in %s the token may %s %v", ns, v, rule.Resources)
				}
			}
		}
	}

	phase("installed, token read, rules reviewed")
	sc, ok := lab.Builtin("report-1-image-not-live")
	if !ok {
		t.Fatal("no report-1-image-not-live scenario")
	}
	_, cleanup := loadScenario(t, sc, nil)
	defer cleanup()
	phase("scenario loaded")
	bin, _ := buildCLI(t)
	phase("imgupd built")
	kubeconfig := kubeconfigFile(t, filepath.Join(t.TempDir(), "remote.kubeconfig"), srv.config.Host, token, "")
	start := time.Now()
	out, code, stderr := diagnoseJSON(t, bin, "web", kubeconfig)
	if code == 69 || code == 77 || code == 78 {
		t.Fatalf("exit %d: a cluster problem with the rbacOnly token (%s)\n%s", code, stderr, out)
	}
	rep := parseReport(t, out)
	if code != 1 || rep.State != "blocked" || rep.RootCause.Code != "LIVE_IMAGE_NOT_LIVE" {
		t.Fatalf("exit %d state %q root cause %q, want what the shipped RBAC answers: exit 1, blocked, LIVE_IMAGE_NOT_LIVE\n%s", code, rep.State, rep.RootCause.Code, out)
	}
	t.Logf("diagnosed with the rbacOnly token in %s", time.Since(start).Round(time.Millisecond))
}

// tokenFromSecret is the token of the kubernetes.io/service-account-token Secret secretName of
// the ServiceAccount ns/saName in the API server s, as the reading imgupd gets it. No
// kube-controller-manager runs here, so nothing fills the Secret: this does what its token
// controller does first, a token for the ServiceAccount bound to the Secret (TokenRequest;
// deleting the Secret revokes it), written into data.token.
func tokenFromSecret(t *testing.T, s *apiServer, ns, saName, secretName string) string {
	t.Helper()
	ctx := context.Background()
	kc, err := kubernetes.NewForConfig(s.config)
	if err != nil {
		t.Fatal(err)
	}
	secrets := kc.CoreV1().Secrets(ns)
	sec, err := secrets.Get(ctx, secretName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sec.Data["token"]) == 0 { // the token controller's part
		exp := int64(3600)
		tr, err := kc.CoreV1().ServiceAccounts(ns).CreateToken(ctx, saName, &authenticationv1.TokenRequest{
			Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &exp,
				BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Secret", APIVersion: "v1", Name: sec.Name, UID: sec.UID}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if sec.Data == nil {
			sec.Data = map[string][]byte{}
		}
		sec.Data["token"] = []byte(tr.Status.Token)
		if _, err := secrets.Update(ctx, sec, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// What the reader of the remote cluster does: read the token from the Secret.
	sec, err = secrets.Get(ctx, secretName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return string(sec.Data["token"])
}

package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
)

// TestNoSecretInOutput prints every value this package returns that could
// carry secret material, in every fmt form and as JSON, and checks that the
// canary never appears.
func TestNoSecretInOutput(t *testing.T) {
	const canary = "CANARY-7f3a9e"
	ctx := context.Background()
	sec := func(name, typ string) *corev1.Secret {
		s := repoSecret(name, typ, map[string]string{"url": "https://github.com/acme", "username": "bot",
			"password": canary, "sshPrivateKey": canary, "githubAppPrivateKey": canary, "bearerToken": canary})
		return s
	}
	withProxy := plainDeployment("argocd", "iu", "quay.io/argoprojlabs/argocd-image-updater:v1.3.0", []corev1.EnvVar{
		{Name: "HTTPS_PROXY", Value: "http://user:" + canary + "@proxy:3128"},
		{Name: "GITHUB_TOKEN", Value: canary},
		{Name: "DOCKERHUB", Value: "bot:" + canary},
		{Name: "ARGOCD_TOKEN", Value: canary},
		{Name: "DOCKER_WEBHOOK_SECRET", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "iu-secret"}, Key: "webhook"}}},
	})
	withProxy.Spec.Template.Spec.Containers[1].Args = []string{"run", "--argocd-auth-token=$(ARGOCD_TOKEN)", "--argocd-auth-token", canary,
		"--argocd-server-addr=https://admin:" + canary + "@argocd"}
	withProxy.Spec.Template.Spec.Containers[1].EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "iu-secret"}}}}
	r := newTestReader(t, []runtime.Object{
		sec("repo", "repository"), sec("creds", "repo-creds"), withProxy,
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "argocd", Name: "iu-secret"}, Data: map[string][]byte{"webhook": []byte(canary)}},
	})

	creds, err := r.RepoCredentials(ctx, "argocd")
	if err != nil || len(creds) != 2 {
		t.Fatalf("%v %v", len(creds), err)
	}
	best := ResolveRepository(creds, "https://github.com/acme/web", "default")
	why := best.Why
	inst, err := r.FindUpdater(ctx, "argocd")
	if err != nil {
		t.Fatal(err)
	}

	// An API error whose message quotes secret material must not carry it
	// into an AccessError's own text beyond what the server said; here the
	// server says nothing secret, so nothing may leak.
	r.kube.PrependReactor("get", "secrets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "repo", errors.New("denied"))
	})
	_, secErr := r.Secret(ctx, "argocd", "repo")

	values := []any{creds, creds[0], &creds[0], best, why, inst, *inst, secErr, asAccess(t, secErr)}
	for i, v := range values {
		for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
			if s := fmt.Sprintf(f, v); strings.Contains(s, canary) {
				t.Errorf("value %d printed with %s leaks the secret: %s", i, f, s)
			}
		}
		if b, err := json.Marshal(v); err == nil && strings.Contains(string(b), canary) {
			t.Errorf("value %d marshals the secret: %s", i, b)
		}
	}
	if s := creds[0].String() + creds[0].GoString(); strings.Contains(s, canary) || !strings.Contains(s, "password:***") {
		t.Errorf("String/GoString: %s", s)
	}
	// The raw data stays available to the engine, which masks it itself.
	if string(best.Data["password"]) != canary {
		t.Error("Data must keep the raw values")
	}
	if e, _ := inst.LookupEnv("DOCKERHUB"); e.Value != "bot:"+canary || e.DisplayValue() != "***" {
		t.Errorf("literal env must stay raw for the engine and print masked: %v", e)
	}
	if got := strings.Join(inst.Args, " "); got != "run --argocd-auth-token=*** --argocd-auth-token *** --argocd-server-addr=https://admin:xxxxx@argocd" {
		t.Errorf("args: %s", got)
	}
	if !strings.Contains(inst.Proxy.HTTPSProxy, "proxy:3128") || len(inst.EnvFromSecrets) != 1 {
		t.Errorf("install: proxy %q envFrom %v", inst.Proxy.HTTPSProxy, inst.EnvFromSecrets)
	}
}

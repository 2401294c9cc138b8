package cluster

import (
	"context"
	"errors"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
)

func TestServiceAccountSubject(t *testing.T) {
	s := ServiceAccountSubject("argocd", "")
	if s.User != "system:serviceaccount:argocd:default" || strings.Join(s.Groups, ",") != "system:serviceaccounts,system:serviceaccounts:argocd,system:authenticated" {
		t.Fatalf("%+v", s)
	}
	if s.String() != "ServiceAccount argocd/default" {
		t.Errorf("String() = %q", s.String())
	}
}

// TestReviewAccess: the review carries the subject and the object asked
// about, the API server's answer comes back as it is, and a refused review
// is an AccessError naming the rule imgupd lacks, never an answer.
func TestReviewAccess(t *testing.T) {
	r := newTestReader(t, nil)
	var sent *authorizationv1.SubjectAccessReview
	r.kube.PrependReactor("create", "subjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		sent = a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		out := sent.DeepCopy()
		out.Status.Allowed = sent.Spec.ResourceAttributes.Name == "regcred"
		out.Status.Reason = "RBAC: allowed by RoleBinding"
		return true, out, nil
	})
	q := AccessQuery{Subject: ServiceAccountSubject("argocd", "iu"), Verb: "get", Resource: "secrets", Namespace: "team", Name: "regcred"}
	got, err := r.ReviewAccess(context.Background(), q)
	if err != nil || !got.Allowed || got.Reason == "" {
		t.Fatalf("got %+v, %v", got, err)
	}
	ra := sent.Spec.ResourceAttributes
	if sent.Spec.User != q.Subject.User || len(sent.Spec.Groups) != 3 || ra.Verb != "get" || ra.Resource != "secrets" || ra.Namespace != "team" || ra.Name != "regcred" || ra.Group != "" {
		t.Errorf("review sent: %+v %+v", sent.Spec, ra)
	}
	q.Name = "admin"
	if got, _ := r.ReviewAccess(context.Background(), q); got.Allowed {
		t.Error("the answer should come from the API server")
	}
	if want := "may ServiceAccount argocd/iu get secrets team/admin"; q.String() != want {
		t.Errorf("String() = %q, want %q", q.String(), want)
	}

	denied := newTestReader(t, nil)
	denied.kube.PrependReactor("create", "subjectaccessreviews", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}, "", errors.New("no"))
	})
	_, err = denied.ReviewAccess(context.Background(), q)
	var ae *AccessError
	if !errors.As(err, &ae) || !ae.Forbidden || !strings.Contains(ae.Rule(), "subjectaccessreviews") || ae.Namespace != "" {
		t.Fatalf("want a forbidden AccessError naming the cluster-wide rule, got %v", err)
	}
}

func TestOriginOf(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/org/repo.git":       "github.com",
		"https://GitHub.com":                    "github.com",
		"https://github.com.evil.example/org/x": "github.com.evil.example",
		"https://git.corp:8443/x":               "git.corp:8443",
		"git@github.com:org/repo.git":           "github.com",
		"ssh://git@github.com:22/org/repo":      "github.com:22",
		"registry-1.docker.io/bitnamicharts":    "registry-1.docker.io",
		"https://user:pass@git.corp/org/r":      "git.corp",
	} {
		if got := OriginOf(in); got != want {
			t.Errorf("OriginOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTemplateAcrossHosts: a repo-creds template whose url prefix also
// matches a repository on another host is marked, so no one sends its
// credentials there; a template ending in "/" does not match it at all.
func TestTemplateAcrossHosts(t *testing.T) {
	creds := []RepoCred{{SecretName: "gh", Type: SecretTypeRepoCreds, URL: "https://github.com", Username: "u", HasPassword: true,
		Data: map[string][]byte{"url": []byte("https://github.com"), "username": []byte("u"), "password": []byte("canary-template-pass")}}}
	evil := ResolveRepository(creds, "https://github.com.evil.example/org/x.git", "default")
	if evil.Template != "gh" || evil.TemplateOtherHost != "github.com" {
		t.Fatalf("Argo CD matches the template across the host (%+v), and it must be marked", evil)
	}
	if anon := evil.WithoutCredentials(); anon.HasCredentials() || anon.Get("password") != "" || anon.Get("username") != "" {
		t.Errorf("WithoutCredentials kept a credential: %v", anon.Data)
	}
	same := ResolveRepository(creds, "https://github.com/org/x.git", "default")
	if same.Template != "gh" || same.TemplateOtherHost != "" {
		t.Errorf("same host: %+v", same)
	}
	creds[0].URL = "https://github.com/"
	if r := ResolveRepository(creds, "https://github.com.evil.example/org/x.git", "default"); r.Template != "" {
		t.Errorf("a template ending in / must not match another host: %+v", r)
	}
}

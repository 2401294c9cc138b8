package kubeclient

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// Each group's client asks the API server's path for its kind, as
// client-go's generated clients do, and decodes the answer: a list, an
// object, a review, a log.
func TestGroupsAskTheirPaths(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/log"):
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, "line one\n")
		case r.URL.Path == "/api/v1/namespaces/argocd/pods":
			_, _ = io.WriteString(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"updater-0","namespace":"argocd"}}]}`)
		case r.URL.Path == "/apis/apps/v1/namespaces/argocd/deployments/argocd-image-updater-controller":
			_, _ = io.WriteString(w, `{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"argocd-image-updater-controller","namespace":"argocd"}}`)
		case r.URL.Path == "/apis/authorization.k8s.io/v1/subjectaccessreviews":
			_, _ = io.WriteString(w, `{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","status":{"allowed":true}}`)
		case r.URL.Path == "/apis/coordination.k8s.io/v1/namespaces/imgupd/leases/imgupd":
			_, _ = io.WriteString(w, `{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"imgupd","namespace":"imgupd"}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"secrets \"missing\" not found","reason":"NotFound","code":404}`)
		}
	}))
	defer srv.Close()
	cfg := &rest.Config{Host: srv.URL}
	g, err := NewGroups(cfg, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pods, err := g.CoreV1().Pods("argocd").List(ctx, metav1.ListOptions{LabelSelector: "app=x"})
	if err != nil || len(pods.Items) != 1 || pods.Items[0].Name != "updater-0" || pods.ResourceVersion != "5" {
		t.Fatalf("pods: %+v %v", pods, err)
	}
	tail := int64(10)
	logs, err := g.CoreV1().Pods("argocd").GetLogs("updater-0", &corev1.PodLogOptions{Container: "c", TailLines: &tail}).DoRaw(ctx)
	if err != nil || string(logs) != "line one\n" {
		t.Fatalf("log: %q %v", logs, err)
	}
	d, err := g.AppsV1().Deployments("argocd").Get(ctx, "argocd-image-updater-controller", metav1.GetOptions{})
	if err != nil || d.Name != "argocd-image-updater-controller" {
		t.Fatalf("deployment: %+v %v", d, err)
	}
	sar, err := g.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{}, metav1.CreateOptions{})
	if err != nil || !sar.Status.Allowed {
		t.Fatalf("review: %+v %v", sar, err)
	}
	l, err := g.CoordinationV1().Leases("imgupd").Get(ctx, "imgupd", metav1.GetOptions{})
	if err != nil || l.Name != "imgupd" {
		t.Fatalf("lease: %+v %v", l, err)
	}
	if _, err := g.CoreV1().Secrets("argocd").Get(ctx, "missing", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a missing Secret: %v, want the API server's NotFound", err)
	}
	want := []string{
		"GET /api/v1/namespaces/argocd/pods?labelSelector=app%3Dx",
		"GET /api/v1/namespaces/argocd/pods/updater-0/log?container=c&tailLines=10",
		"GET /apis/apps/v1/namespaces/argocd/deployments/argocd-image-updater-controller?",
		"POST /apis/authorization.k8s.io/v1/subjectaccessreviews?",
		"GET /apis/coordination.k8s.io/v1/namespaces/imgupd/leases/imgupd?",
		"GET /api/v1/namespaces/argocd/secrets/missing?",
	}
	if strings.Join(asked, "\n") != strings.Join(want, "\n") {
		t.Errorf("asked\n%s\nwant\n%s", strings.Join(asked, "\n"), strings.Join(want, "\n"))
	}
}

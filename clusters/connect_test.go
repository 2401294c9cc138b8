package clusters_test

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/imgupd/imgupd/clusters"
	"github.com/imgupd/imgupd/lab/kubefake"
	"github.com/imgupd/imgupd/sources/cluster"
)

const ownNS = "imgupd"

// apiServer is a real local TLS server answering /version to the one bearer token it expects.
func apiServer(t *testing.T, token string) (*httptest.Server, []byte) {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"major":"1","minor":"34","gitVersion":"v1.34.0"}`)
	}))
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return srv, ca
}

func kubeconfig(server string, ca []byte, token, user string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: main
clusters:
- name: c
  cluster:
    server: %s
    certificate-authority-data: %s
contexts:
- name: main
  context: {cluster: c, user: u}
- name: other
  context: {cluster: c, user: other}
users:
- name: u
  user:
%s
- name: other
  user:
    token: wrong
`, server, b64(ca), user)
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func secretsOf(objs ...*corev1.Secret) clusters.SecretReader {
	cs := kubefake.NewClientset()
	for _, s := range objs {
		if _, err := cs.CoreV1().Secrets(s.Namespace).Create(context.Background(), s, metav1.CreateOptions{}); err != nil {
			panic(err)
		}
	}
	return cluster.Secrets{Client: cs.CoreV1()}
}

func secretObj(ns, name string, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

// version asks the server its version with cfg: the configuration really reaches it.
func version(t *testing.T, cfg *rest.Config) error {
	t.Helper()
	c, err := cluster.NewClients(cfg)
	if err != nil {
		return err
	}
	_, err = c.Root().Get().AbsPath("/version").DoRaw(t.Context())
	return err
}

func TestKubeconfigFromSecret(t *testing.T) {
	srv, ca := apiServer(t, "s3cret-token")
	kc := kubeconfig(srv.URL, ca, "", "    token: s3cret-token")
	conn := clusters.Connector{Namespace: ownNS, Secrets: secretsOf(
		secretObj(ownNS, "prod-us", map[string]string{"kubeconfig": kc}),
		secretObj("elsewhere", "far", map[string]string{"kubeconfig": kc}),
	)}
	ctx := context.Background()
	spec := clusters.Spec{Name: "prod-us", KubeconfigSecret: &clusters.SecretRef{Name: "prod-us", Key: "kubeconfig"}}
	cfg, err := conn.RESTConfig(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != srv.URL {
		t.Errorf("host %s, want %s", cfg.Host, srv.URL)
	}
	if err := version(t, cfg); err != nil {
		t.Errorf("the current context does not reach the server: %v", err)
	}
	// Another context of the same kubeconfig: its token is refused.
	spec.Context = "other"
	cfg, err = conn.RESTConfig(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := version(t, cfg); err == nil {
		t.Error("context other: the server accepted a wrong token?")
	}
	spec.Context = "nope"
	if _, err := conn.RESTConfig(ctx, spec); err == nil || !strings.Contains(err.Error(), `no context "nope"`) {
		t.Errorf("missing context: %v", err)
	}

	// Only imgupd's own namespace is read: a Secret of the same name elsewhere is not found.
	far := clusters.Spec{Name: "far", KubeconfigSecret: &clusters.SecretRef{Name: "far", Key: "kubeconfig"}}
	_, err = conn.RESTConfig(ctx, far)
	var ce *clusters.ConnectError
	if !errors.As(err, &ce) || ce.Cluster != "far" || !strings.Contains(err.Error(), "Secret imgupd/far") {
		t.Errorf("Secret missing: %v", err)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error shows the token: %v", err)
	}
	// A key the Secret does not have.
	nokey := clusters.Spec{Name: "prod-us", KubeconfigSecret: &clusters.SecretRef{Name: "prod-us", Key: "config"}}
	if _, err := conn.RESTConfig(ctx, nokey); err == nil || !strings.Contains(err.Error(), `Secret imgupd/prod-us has no key "config"`) {
		t.Errorf("key missing: %v", err)
	}
}

func TestKubeconfigFromSecretRunsNothing(t *testing.T) {
	srv, ca := apiServer(t, "t")
	for _, tc := range []struct{ name, user, want string }{
		{"exec", "    exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: [-c, 'touch /tmp/pwned']}", "runs a command"},
		{"token file", "    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token", "names a file"},
		{"client cert file", "    client-certificate: /etc/ssl/key.pem", "names a file"},
		{"auth provider", "    auth-provider: {name: gcp}", "auth provider"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := clusters.FromKubeconfig(kubeconfig(srv.URL, ca, "", tc.user), "", "Secret imgupd/x")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := clusters.FromKubeconfig("{not yaml", "", "Secret imgupd/x"); err == nil || !strings.Contains(err.Error(), "not a kubeconfig") {
		t.Errorf("garbage: %v", err)
	}
}

func TestServerAndToken(t *testing.T) {
	srv, ca := apiServer(t, "tok-123")
	conn := clusters.Connector{Namespace: ownNS, Secrets: secretsOf(secretObj(ownNS, "staging", map[string]string{"token": "tok-123", "ca.crt": string(ca)}))}
	spec := clusters.Spec{Name: "staging", Server: srv.URL, TokenSecret: &clusters.SecretRef{Name: "staging", Key: "token"},
		CASecret: &clusters.SecretRef{Name: "staging", Key: "ca.crt"}}
	cfg, err := conn.RESTConfig(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := version(t, cfg); err != nil {
		t.Errorf("server + token + CA: %v", err)
	}
	if strings.Contains(fmt.Sprintf("%v %+v", cfg, cfg), "tok-123") {
		t.Error("the rest.Config prints the token")
	}
	// Without the CA: the system roots do not know the test server's.
	spec.CASecret = nil
	cfg, _ = conn.RESTConfig(context.Background(), spec)
	if err := version(t, cfg); err == nil {
		t.Error("no CA: the test server's certificate was trusted?")
	}
}

func TestKubeconfigFileAndInCluster(t *testing.T) {
	srv, ca := apiServer(t, "file-token")
	path := filepath.Join(t.TempDir(), "dev.kubeconfig")
	if err := os.WriteFile(path, []byte(kubeconfig(srv.URL, ca, "", "    token: file-token")), 0o600); err != nil {
		t.Fatal(err)
	}
	conn := clusters.Connector{Namespace: ownNS, InCluster: func() (*rest.Config, error) { return nil, rest.ErrNotInCluster }}
	cfg, err := conn.RESTConfig(context.Background(), clusters.Spec{Name: "dev", Kubeconfig: path, Context: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if err := version(t, cfg); err != nil {
		t.Errorf("kubeconfig file: %v", err)
	}
	_, err = conn.RESTConfig(context.Background(), clusters.Spec{Name: "dev", Kubeconfig: path + ".missing"})
	if err == nil || !strings.Contains(err.Error(), "cluster dev: kubeconfig") {
		t.Errorf("missing file: %v", err)
	}
	_, err = conn.RESTConfig(context.Background(), clusters.Spec{Name: "here", InCluster: true})
	if err == nil || !strings.Contains(err.Error(), "does not run in a cluster") {
		t.Errorf("not in a cluster: %v", err)
	}
}

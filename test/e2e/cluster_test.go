// Package e2e runs imgupd's diagnosis against a real kube-apiserver and etcd:
// CRD schemas and defaulting, RBAC with the shipped ClusterRole (by
// impersonating imgupd's ServiceAccount), and every built-in lab scenario
// loaded into the real server. `make e2e` builds and caches the binaries
// (scripts/e2e-deps.sh) and points IMGUPD_E2E_BIN at them.
package e2e

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/rest"
)

// apiServer is a running etcd + kube-apiserver pair.
type apiServer struct {
	config *rest.Config
	procs  []*exec.Cmd
	dir    string
	logs   *os.File
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startAPIServer starts etcd and kube-apiserver from binDir on free loopback
// ports and waits until the API server is ready.
func startAPIServer(binDir string) (*apiServer, error) {
	dir, err := os.MkdirTemp("", "imgupd-e2e-")
	if err != nil {
		return nil, err
	}
	s := &apiServer{dir: dir}
	s.logs, err = os.Create(filepath.Join(dir, "servers.log"))
	if err != nil {
		return nil, err
	}
	ports := make([]int, 3)
	for i := range ports {
		if ports[i], err = freePort(); err != nil {
			return nil, err
		}
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	etcd := exec.Command(filepath.Join(binDir, "etcd"), "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", "http://127.0.0.1:"+strconv.Itoa(ports[1]))
	etcd.Stdout, etcd.Stderr = s.logs, s.logs
	if err := etcd.Start(); err != nil {
		return nil, fmt.Errorf("starting etcd: %w", err)
	}
	s.procs = append(s.procs, etcd)

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	keyFile := filepath.Join(dir, "sa.key")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		return nil, err
	}
	tok := make([]byte, 16)
	rand.Read(tok)
	token := hex.EncodeToString(tok)
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(token+`,admin,1,"system:masters"`+"\n"), 0o600); err != nil {
		return nil, err
	}
	api := exec.Command(filepath.Join(binDir, "kube-apiserver"),
		"--etcd-servers="+etcdURL, "--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(ports[2]),
		"--cert-dir="+filepath.Join(dir, "certs"), "--token-auth-file="+tokens, "--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc", "--service-account-key-file="+keyFile,
		"--service-account-signing-key-file="+keyFile, "--service-cluster-ip-range=10.96.0.0/16",
		// No controller-manager runs: nothing creates default ServiceAccounts.
		"--disable-admission-plugins=ServiceAccount")
	api.Stdout, api.Stderr = s.logs, s.logs
	if err := api.Start(); err != nil {
		s.stop()
		return nil, fmt.Errorf("starting kube-apiserver: %w", err)
	}
	s.procs = append(s.procs, api)
	s.config = &rest.Config{Host: "https://127.0.0.1:" + strconv.Itoa(ports[2]), BearerToken: token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true}, QPS: 200, Burst: 400}
	if err := s.waitReady(5 * time.Minute); err != nil { // a loaded machine starts it slowly
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *apiServer) waitReady(limit time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.config.Host+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+s.config.BearerToken)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("kube-apiserver not ready after %s (logs in %s)", limit, s.logs.Name())
}

func (s *apiServer) stop() {
	for i := len(s.procs) - 1; i >= 0; i-- {
		p := s.procs[i]
		if p.Process != nil {
			p.Process.Kill()
			p.Wait()
		}
	}
	if s.logs != nil {
		s.logs.Close()
	}
	os.RemoveAll(s.dir)
}

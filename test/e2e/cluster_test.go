// Package e2e runs imgupd's diagnosis against a real kube-apiserver and etcd:
// CRD schemas and defaulting, RBAC with the shipped ClusterRole (by
// impersonating imgupd's ServiceAccount), and every built-in lab scenario
// loaded into the real server. `make e2e` builds and caches the binaries
// (scripts/e2e-deps.sh) and points IMGUPD_E2E_BIN at them.
package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// apiServer is a running etcd + kube-apiserver pair.
type apiServer struct {
	config *rest.Config
	procs  []*proc // etcd, then kube-apiserver
	dir    string
	logs   *os.File
	api    []string // kube-apiserver's command line, to start it again (restartAPI)
}

// proc is a started process; exited is closed when it has ended.
type proc struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

func startProc(cmd *exec.Cmd) (*proc, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(p.exited) }()
	return p, nil
}

func (p *proc) kill() {
	p.cmd.Process.Kill()
	<-p.exited
}

func (p *proc) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// freePort is a port nobody listened on a moment ago: another process may take it before etcd or
// kube-apiserver binds it (startAPIServer then starts again on other ports).
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startAPIServer starts etcd and kube-apiserver from binDir on free loopback
// ports and waits until the API server is ready. A port taken between
// freePort and the bind (another test binary, another server of this one)
// makes it start again on other ports, three times at most.
func startAPIServer(binDir string) (*apiServer, error) {
	var err error
	for range 3 {
		var s *apiServer
		if s, err = startAPIServerOnce(binDir); err == nil {
			return s, nil
		} else if !errors.Is(err, errPortTaken) {
			return nil, err
		}
	}
	return nil, err
}

var errPortTaken = errors.New("a port was taken before etcd or kube-apiserver bound it")

func startAPIServerOnce(binDir string) (*apiServer, error) {
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
	p, err := startProc(etcd)
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("starting etcd: %w", err)
	}
	s.procs = append(s.procs, p)

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
	s.api = []string{filepath.Join(binDir, "kube-apiserver"),
		"--etcd-servers=" + etcdURL, "--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(ports[2]),
		"--cert-dir=" + filepath.Join(dir, "certs"), "--token-auth-file=" + tokens, "--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc", "--service-account-key-file=" + keyFile,
		"--service-account-signing-key-file=" + keyFile, "--service-cluster-ip-range=10.96.0.0/16",
		// No controller-manager runs: nothing creates default ServiceAccounts.
		"--disable-admission-plugins=ServiceAccount"}
	s.config = &rest.Config{Host: "https://127.0.0.1:" + strconv.Itoa(ports[2]), BearerToken: token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true}, QPS: 200, Burst: 400}
	if err := s.startAPI(); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// startAPI starts kube-apiserver (again) and waits until it is ready.
func (s *apiServer) startAPI() error {
	api := exec.Command(s.api[0], s.api[1:]...)
	api.Stdout, api.Stderr = s.logs, s.logs
	p, err := startProc(api)
	if err != nil {
		return fmt.Errorf("starting kube-apiserver: %w", err)
	}
	s.procs = append(s.procs[:1], p)
	return s.waitReady(5 * time.Minute) // a loaded machine starts it slowly
}

// stopAPI kills kube-apiserver (etcd keeps its data): connections to it are refused until
// restartAPI.
func (s *apiServer) stopAPI() {
	if len(s.procs) > 1 {
		s.procs[1].kill()
		s.procs = s.procs[:1]
	}
}

// restartAPI starts kube-apiserver again after stopAPI, on the same port with the same data.
func (s *apiServer) restartAPI() error {
	if len(s.procs) > 1 {
		return nil
	}
	return s.startAPI()
}

// hang stops kube-apiserver with SIGSTOP: connections are accepted by the kernel and then nothing
// answers, as with a server that hangs or a network that drops packets. resume (SIGCONT) ends it.
func (s *apiServer) hang() (resume func(), err error) {
	if len(s.procs) < 2 {
		return nil, errors.New("kube-apiserver is not running")
	}
	p := s.procs[1].cmd.Process
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		return nil, err
	}
	var once sync.Once
	resume = func() { once.Do(func() { p.Signal(syscall.SIGCONT) }) }
	// The signal returns before the process stops: each thread stops on its own way back to user
	// space, and on a loaded machine one may still answer a request first (seen: 6 requests in 100
	// under stress-ng answered just after SIGSTOP). So it hangs once the kernel says every thread is
	// stopped; the net is for a machine that never schedules them, and fails as such.
	for deadline := time.Now().Add(time.Minute); !allStopped(p.Pid); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			resume()
			return nil, fmt.Errorf("kube-apiserver (pid %d) was not stopped a minute after SIGSTOP: machine too slow", p.Pid)
		}
	}
	return resume, nil
}

// allStopped: every thread of the process is in the stopped state ("T" in /proc/PID/task/TID/stat).
func allStopped(pid int) bool {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, t := range tasks {
		st, err := os.ReadFile(filepath.Join(dir, t.Name(), "stat"))
		if err != nil {
			return false
		}
		// pid (comm) state ...: comm may hold spaces and parentheses, the state follows the last ')'.
		f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:]))
		if len(f) == 0 || f[0] != "T" {
			return false
		}
	}
	return true
}

func (s *apiServer) waitReady(limit time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for ctx.Err() == nil {
		for _, p := range s.procs {
			if p.hasExited() {
				logs, _ := os.ReadFile(s.logs.Name())
				if strings.Contains(string(logs), "address already in use") {
					return fmt.Errorf("%w (logs in %s)", errPortTaken, s.logs.Name())
				}
				return fmt.Errorf("%s exited (logs in %s)", filepath.Base(p.cmd.Path), s.logs.Name())
			}
		}
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
		s.procs[i].kill()
	}
	s.procs = nil
	if s.logs != nil {
		s.logs.Close()
	}
	os.RemoveAll(s.dir)
}

// The second API server, for the tests that read two clusters (clusters_test.go): started by the
// first test that asks for it (secondAPIServer), with its own etcd data and ports and the CRDs
// the first gets in setup(), and stopped by TestMain. Its users hold use.RLock while they read
// it; a test that stops it or makes it hang holds use.Lock.
type lazyServer struct {
	bin  string
	once sync.Once
	s    *apiServer
	err  error
	use  sync.RWMutex
}

var second lazyServer

// secondAPIServer is the second API server, started (and its CRDs installed) on first use. A test
// that stops its kube-apiserver (stopAPI) starts it again (restartAPI) before it lets go of use.
func secondAPIServer(t *testing.T) *apiServer {
	t.Helper()
	second.once.Do(func() {
		began := time.Now()
		if second.s, second.err = startAPIServer(second.bin); second.err != nil {
			return
		}
		if second.err = installCRDs(second.s); second.err != nil {
			return
		}
		t.Logf("second API server started and its CRDs established in %s", time.Since(began).Round(time.Millisecond))
	})
	if second.err != nil {
		t.Fatalf("the second API server: %v", second.err)
	}
	return second.s
}

func (l *lazyServer) stop() {
	if l.s != nil {
		l.s.stop()
	}
}

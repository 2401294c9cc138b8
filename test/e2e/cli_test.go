package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/lab/loopback"
	"github.com/imgupd/imgupd/sources/cluster"
)

// TestDiagnoseCommand runs the real `imgupd diagnose` binary against the real
// API server with a kubeconfig that impersonates imgupd's ServiceAccount: the
// whole command path (kubeconfig, flags, JSON output, exit status).
func TestDiagnoseCommand(t *testing.T) {
	bin, kubeconfig := buildCLI(t)
	sc, ok := lab.Builtin("report-1-image-not-live")
	if !ok {
		t.Fatal("no report-1-image-not-live scenario")
	}
	_, cleanup := loadScenario(t, sc, nil)
	defer cleanup()

	cmd := exec.Command(bin, "diagnose", "web", "--kubeconfig", kubeconfig, "-o", "json", "--timeout", "30s")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("want exit status 1 (blocked), got %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "{\n  \"schemaVersion\": 1,\n") {
		t.Errorf("diagnose -o json does not open with schemaVersion: %.80q", out)
	}
	rep := parseReport(t, out)
	if rep.App.Namespace != "argocd" || rep.Verdict != "broken" || rep.State != "blocked" || rep.RootCause.Code != "LIVE_IMAGE_NOT_LIVE" {
		t.Fatalf("namespace %q verdict %q state %q root cause %q", rep.App.Namespace, rep.Verdict, rep.State, rep.RootCause.Code)
	}
	// A real API server without kubelets cannot serve pod logs: the
	// diagnosis says so, as not verified, instead of pretending they were read.
	if !strings.Contains(string(out), "HEALTH_LOGS_UNAVAILABLE") || len(rep.NotVerified) == 0 {
		t.Errorf("the missing logs should be listed as not verified:\n%s", out)
	}
}

// TestExitCodePerState: the exit status contract of `imgupd diagnose`, one
// state at a time, through the binary on the real API server (which serves
// no pod logs).
func TestExitCodePerState(t *testing.T) {
	bin, kubeconfig := buildCLI(t)
	cases := []struct {
		scenario, app, state string
		code                 int
	}{
		{"healthy-up-to-date", "web", "up-to-date", 0},
		{"healthy-kustomize-argocd", "web", "update-on-its-way", 0},
		{"report-1-image-not-live", "web", "blocked", 1},
		{"healthy-kustomize-argocd", "no-such-app", "unknown", 2},
		{"constraint-downgrade", "web", "wrong-update", 3},
		{"sync-off-update-due", "web", "not-deployed", 4},
		{"updater-v1-3-prerelease-ignored", "web", "held-back", 5},
	}
	for _, c := range cases {
		t.Run(c.state, func(t *testing.T) {
			sc, ok := lab.Builtin(c.scenario)
			if !ok {
				t.Fatalf("no scenario %s", c.scenario)
			}
			_, cleanup := loadScenario(t, sc, nil)
			defer cleanup()
			out, code, _ := diagnoseJSON(t, bin, c.app, kubeconfig)
			rep := parseReport(t, out)
			if code != c.code || rep.State != c.state {
				t.Fatalf("exit %d state %q, want exit %d state %q\n%s", code, rep.State, c.code, c.state, out)
			}
		})
	}
}

// TestUpdaterLogFromFile: on a cluster that serves no pod logs, the log
// given with --updater-log (here on stdin) is the evidence of the rejected
// push, as the pod's log would be.
func TestUpdaterLogFromFile(t *testing.T) {
	bin, kubeconfig := buildCLI(t)
	sc, ok := lab.Builtin("article-4-protected-branch")
	if !ok {
		t.Fatal("no article-4-protected-branch scenario")
	}
	env, cleanup := loadScenario(t, sc, nil)
	defer cleanup()
	logs, err := env.LogSource().Logs(context.Background(), "argocd", "any", "any", cluster.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "diagnose", "web", "--kubeconfig", kubeconfig, "-o", "json", "--timeout", "30s", "--updater-log", "-")
	cmd.Stdin = strings.NewReader(logs)
	out, _ := cmd.Output()
	rep := parseReport(t, out)
	if rep.State != "blocked" || rep.RootCause.Code != "WRITEBACK_COMMIT_FAILED_IN_LOGS" {
		t.Fatalf("state %q root cause %q, want blocked WRITEBACK_COMMIT_FAILED_IN_LOGS\n%s", rep.State, rep.RootCause.Code, out)
	}
	if strings.Contains(string(out), "HEALTH_LOGS_UNAVAILABLE") {
		t.Errorf("the given log was not used:\n%s", out)
	}
	file := filepath.Join(t.TempDir(), "iu.log")
	if err := os.WriteFile(file, []byte(logs), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ = exec.Command(bin, "diagnose", "web", "--kubeconfig", kubeconfig, "-o", "json", "--timeout", "30s", "--updater-log", file).Output()
	if rep := parseReport(t, out); rep.RootCause.Code != "WRITEBACK_COMMIT_FAILED_IN_LOGS" {
		t.Fatalf("from a file: root cause %q\n%s", rep.RootCause.Code, out)
	}
}

type cliReport struct {
	App         struct{ Namespace, Name string }
	State       string
	Verdict     string
	RootCause   struct{ Code string }
	NotVerified []struct{ What string }
}

// diagnoseJSON runs `imgupd diagnose APP -o json` with kubeconfig and returns its stdout, exit
// status and stderr; a failure to run it at all fails the test.
func diagnoseJSON(t *testing.T, bin, app, kubeconfig string) (out []byte, code int, stderr []byte) {
	t.Helper()
	out, err := exec.Command(bin, "diagnose", app, "--kubeconfig", kubeconfig, "-o", "json", "--timeout", "30s").Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out, ee.ExitCode(), ee.Stderr
	} else if err != nil {
		t.Fatal(err)
	}
	return out, 0, nil
}

func parseReport(t *testing.T, out []byte) cliReport {
	t.Helper()
	var rep cliReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("not a JSON report: %v\n%s", err, out)
	}
	return rep
}

// The imgupd binary, built once per test binary (a go build on a loaded 2-core machine takes
// seconds even with a warm cache); removed by TestMain.
var (
	cliOnce sync.Once
	cliDir  string
	cliBin  string
	cliErr  error
)

// buildCLI builds imgupd (once per test binary) and writes a kubeconfig, one per test, that
// impersonates its ServiceAccount.
func buildCLI(t *testing.T) (bin, kubeconfig string) {
	t.Helper()
	cliOnce.Do(func() {
		if cliDir, cliErr = os.MkdirTemp("", "imgupd-e2e-cli-"); cliErr != nil {
			return
		}
		cliBin = filepath.Join(cliDir, "imgupd")
		build := exec.Command("go", "build", "-o", cliBin, "./cmd/imgupd")
		build.Dir = filepath.Join("..", "..") // the main module, with its own go.sum
		if out, err := build.CombinedOutput(); err != nil {
			cliErr = fmt.Errorf("building imgupd: %v\n%s", err, out)
		}
	})
	if cliErr != nil {
		t.Fatal(cliErr)
	}
	return cliBin, kubeconfigFile(t, filepath.Join(t.TempDir(), "kubeconfig"), srv.config.Host, srv.config.BearerToken, "system:serviceaccount:imgupd:imgupd")
}

// removeCLI removes the binary buildCLI built, if any.
func removeCLI() {
	if cliDir != "" {
		os.RemoveAll(cliDir)
	}
}

// kubeconfigFile writes a kubeconfig at path whose one context, e2e (namespace argocd), reaches
// server with token, as the user as ("": the token's own).
func kubeconfigFile(t *testing.T, path, server, token, as string) string {
	t.Helper()
	user := `{token: "` + token + `"}`
	if as != "" {
		user = `{token: "` + token + `", as: "` + as + `"}`
	}
	cfg := `apiVersion: v1
kind: Config
clusters: [{name: e2e, cluster: {server: "` + server + `", insecure-skip-tls-verify: true}}]
users: [{name: imgupd, user: ` + user + `}]
contexts: [{name: e2e, context: {cluster: e2e, user: imgupd, namespace: argocd}}]
current-context: e2e
`
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestClusterProblemsHaveTheirOwnExit: what stops imgupd before it can diagnose — an API server
// that refuses connections, credentials it refuses (an expired token: 401), and a user RBAC gives
// no read of the Application (403) — each gets its own one-line message and exit status, none of
// them a state's (2 is unknown), and nothing is printed on stdout.
func TestClusterProblemsHaveTheirOwnExit(t *testing.T) {
	bin, _ := buildCLI(t)
	dir := t.TempDir()
	addr, err := loopback.ClosedAddr() // refused, and no test server can take it meanwhile
	if err != nil {
		t.Fatal(err)
	}
	closed := "https://" + addr
	kubeconfig := func(name, server, token, as string) string {
		return kubeconfigFile(t, filepath.Join(dir, name), server, token, as)
	}
	cases := []struct {
		name, kubeconfig string
		code             int
		want             string
	}{
		{"closed port", kubeconfig("closed", closed, srv.config.BearerToken, ""), 69,
			"imgupd: cannot reach the Kubernetes API server " + closed + ": connection refused or host unreachable"},
		{"expired token", kubeconfig("expired", srv.config.Host, "expired-token-0d1e", ""), 78,
			"imgupd: the Kubernetes API server " + srv.config.Host + " refused the kubeconfig's credentials (401 Unauthorized)"},
		{"no rights", kubeconfig("norights", srv.config.Host, srv.config.BearerToken, "system:serviceaccount:imgupd:nobody"), 77,
			"imgupd: RBAC forbids imgupd to get applications.argoproj.io in namespace argocd"},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, "diagnose", "web", "--kubeconfig", tc.kubeconfig, "--timeout", "30s")
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
				t.Errorf("exit %v, want %d\n%s", err, tc.code, stderr.String())
			}
			msg := stderr.String()
			if !strings.HasPrefix(msg, tc.want) || strings.Count(msg, "\n") != 1 || stdout.Len() != 0 {
				t.Errorf("stderr %q, want one line starting %q; stdout %q", msg, tc.want, stdout.String())
			}
			if seen[msg] {
				t.Errorf("the same message for another problem: %s", msg)
			}
			seen[msg] = true
		})
	}
}

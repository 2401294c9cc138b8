package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/lab"
)

// TestDiagnoseCommand runs the real `imgupd diagnose` binary against the real
// API server with a kubeconfig that impersonates imgupd's ServiceAccount: the
// whole command path (kubeconfig, flags, JSON output, exit status).
func TestDiagnoseCommand(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "imgupd")
	build := exec.Command("go", "build", "-o", bin, "./cmd/imgupd")
	build.Dir = filepath.Join("..", "..") // the main module, with its own go.sum
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building imgupd: %v\n%s", err, out)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
clusters: [{name: e2e, cluster: {server: "` + srv.config.Host + `", insecure-skip-tls-verify: true}}]
users: [{name: imgupd, user: {token: "` + srv.config.BearerToken + `", as: "system:serviceaccount:imgupd:imgupd"}}]
contexts: [{name: e2e, context: {cluster: e2e, user: imgupd, namespace: argocd}}]
current-context: e2e
`
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
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
		t.Fatalf("want exit status 1 (a failing finding), got %v\n%s", err, out)
	}
	var rep struct {
		App       struct{ Namespace, Name string }
		Verdict   string
		RootCause struct{ Code string }
		Stages    []struct {
			ID       string
			Findings []struct{ Code, Severity string }
		}
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("not a JSON report: %v\n%s", err, out)
	}
	if rep.App.Namespace != "argocd" || rep.Verdict != "broken" || rep.RootCause.Code != "LIVE_IMAGE_NOT_LIVE" {
		t.Fatalf("namespace %q verdict %q root cause %q", rep.App.Namespace, rep.Verdict, rep.RootCause.Code)
	}
	// A real API server without kubelets cannot serve pod logs: the
	// diagnosis says so instead of pretending the logs were read.
	if !strings.Contains(string(out), "HEALTH_LOGS_UNAVAILABLE") {
		t.Errorf("the missing logs should be reported:\n%s", out)
	}
}

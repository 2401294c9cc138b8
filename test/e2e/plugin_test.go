package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/lab"
)

// TestKubectlPlugin: installed as kubectl-imgupd on PATH, `kubectl imgupd diagnose web` runs with
// kubectl's conventions: KUBECONFIG, --kubeconfig, --context (the current context otherwise) and
// the context's namespace unless -n; its help says `kubectl imgupd`.
func TestKubectlPlugin(t *testing.T) {
	dir := t.TempDir()
	plugin := filepath.Join(dir, "kubectl-imgupd")
	build := exec.Command("go", "build", "-o", plugin, "./cmd/imgupd")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building kubectl-imgupd: %v\n%s", err, out)
	}
	// Two contexts: the current one points nowhere, e2e is imgupd's ServiceAccount on the test
	// API server, with namespace argocd.
	kubeconfig := filepath.Join(dir, "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
clusters:
- {name: e2e, cluster: {server: "` + srv.config.Host + `", insecure-skip-tls-verify: true}}
- {name: nowhere, cluster: {server: "https://127.0.0.1:1"}}
users: [{name: imgupd, user: {token: "` + srv.config.BearerToken + `", as: "system:serviceaccount:imgupd:imgupd"}}]
contexts:
- {name: e2e, context: {cluster: e2e, user: imgupd, namespace: argocd}}
- {name: elsewhere, context: {cluster: nowhere, user: imgupd, namespace: team}}
current-context: elsewhere
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

	kubectl, kerr := exec.LookPath("kubectl")
	run := func(env []string, viaKubectl bool, args ...string) (int, string, string) {
		t.Helper()
		var cmd *exec.Cmd
		if viaKubectl {
			cmd = exec.Command(kubectl, append([]string{"imgupd"}, args...)...)
		} else {
			cmd = exec.Command(plugin, args...)
		}
		// HOME too: no ~/.kube/config of this machine gets in.
		cmd.Env = append([]string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + dir}, env...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("%v: %v", cmd.Args, err)
		}
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	}
	ways := []bool{false}
	if kerr == nil {
		ways = append(ways, true)
	} else {
		t.Logf("kubectl is not on PATH: kubectl-imgupd is run directly only (%v)", kerr)
	}
	for _, viaKubectl := range ways {
		name := map[bool]string{false: "kubectl-imgupd", true: "kubectl imgupd"}[viaKubectl]
		t.Run(name, func(t *testing.T) {
			// KUBECONFIG and --context; the namespace is the context's.
			code, out, errOut := run([]string{"KUBECONFIG=" + kubeconfig}, viaKubectl, "diagnose", "web", "--context", "e2e", "-o", "json", "--timeout", "30s")
			rep := parseReport(t, []byte(out))
			if code != 1 || rep.App.Namespace != "argocd" || rep.RootCause.Code != "LIVE_IMAGE_NOT_LIVE" {
				t.Errorf("exit %d, namespace %q, root cause %q; want 1, argocd, LIVE_IMAGE_NOT_LIVE\n%s", code, rep.App.Namespace, rep.RootCause.Code, errOut)
			}
			// --kubeconfig and -n/--namespace, without KUBECONFIG.
			code, out, errOut = run(nil, viaKubectl, "diagnose", "web", "--kubeconfig", kubeconfig, "--context", "e2e", "--namespace", "argocd", "-o", "json", "--timeout", "30s")
			if rep := parseReport(t, []byte(out)); code != 1 || rep.App.Namespace != "argocd" {
				t.Errorf("--kubeconfig --namespace: exit %d, namespace %q\n%s", code, rep.App.Namespace, errOut)
			}
			// Without --context, the current context: its API server cannot be reached.
			code, _, errOut = run([]string{"KUBECONFIG=" + kubeconfig}, viaKubectl, "diagnose", "web", "-o", "json", "--timeout", "5s")
			if code != 69 || !strings.Contains(errOut, "cannot reach the Kubernetes API server") {
				t.Errorf("the current context (nowhere) gave exit %d, want 69 (the API server cannot be reached)\n%s", code, errOut)
			}
			code, out, _ = run(nil, viaKubectl, "diagnose", "--help")
			if code != 0 || !strings.Contains(out, "kubectl imgupd diagnose APP [flags]") || !strings.Contains(out, "kubectl imgupd diagnose guestbook -n argocd") {
				t.Errorf("help (exit %d) does not say kubectl imgupd:\n%s", code, out)
			}
		})
	}
}

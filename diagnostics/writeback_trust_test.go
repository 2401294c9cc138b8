package diagnostics_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"net"
	"net/url"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// Write-back trust (issue 24): a CA and an SSH host key Image Updater's git
// client does not accept have their own codes, fixed where that client
// reads its trust.

// patchOf is the step's patch as JSON.
func patchOf(t *testing.T, s *report.Step) string {
	t.Helper()
	if s == nil || s.Patch == nil {
		t.Fatalf("not a patch step: %+v", s)
	}
	b, err := json.Marshal(s.Patch)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteBackCANotMounted(t *testing.T) {
	t.Parallel() // its own lab
	r := diagnose(t, "writeback-private-ca", nil)
	if r.State != report.StateBlocked || r.RootCause == nil || r.RootCause.Code != report.CodeWriteBackCAUnknown {
		t.Fatalf("state %s, root cause %v; want blocked by WRITEBACK_GIT_CA_UNKNOWN\n%s", r.State, r.RootCause, dump(r))
	}
	fix := r.RootCause.Fix
	if argvWith(fix, "create", "configmap", "argocd-image-updater-git-ca") == nil {
		t.Errorf("the fix does not create a ConfigMap with the CA: %+v", fix)
	}
	p := argvWith(fix, "patch", "deployment")
	if got := patchOf(t, p); !strings.Contains(got, `"ARGOCD_TLS_DATA_PATH"`) || !strings.Contains(got, `"/app/config/git-tls"`) {
		t.Errorf("the fix does not mount the CA where ARGOCD_TLS_DATA_PATH points: %s", got)
	}
	if len(findingsOf(r, report.CodeWriteBackGitUnreachable)) != 0 {
		t.Errorf("a trust failure is still reported as unreachable")
	}
}

// caMounted mounts a ConfigMap of CAs at dir on Image Updater's container
// (pointing ARGOCD_TLS_DATA_PATH there unless dir is the default), holding
// key with the lab's CA (or a stand-in CA for another host).
func caMounted(dir, key string, ca bool) func(*lab.Scenario) {
	return func(sc *lab.Scenario) {
		env := ""
		if dir != "/app/config/tls" {
			env = "\n        env: [{name: ARGOCD_TLS_DATA_PATH, value: \"" + dir + "\"}]"
		}
		sc.Objects = strings.Replace(sc.Objects, "volumeMounts: [{name: image-updater-conf, mountPath: /app/config}]",
			"volumeMounts: [{name: image-updater-conf, mountPath: /app/config}, {name: git-tls, mountPath: "+dir+"}]"+env, 1)
		sc.Objects = strings.Replace(sc.Objects, "volumes: [{name: image-updater-conf, configMap: {name: argocd-image-updater-config}}]",
			"volumes: [{name: image-updater-conf, configMap: {name: argocd-image-updater-config}}, {name: git-tls, configMap: {name: updater-tls}}]", 1)
		value := "    -----BEGIN CERTIFICATE-----\n    MIIBstandin\n    -----END CERTIFICATE-----\n"
		if ca {
			value = "    ${GIT_CA_PEM}\n"
		}
		sc.Objects += "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: updater-tls, namespace: argocd}\ndata:\n  \"" + key + "\": |\n" + value
		sc.Logs = "" // the cycle after the change has not run yet
	}
}

func TestWriteBackCAMountedForAnotherHost(t *testing.T) {
	t.Parallel() // its own labs
	for _, dir := range []string{"/app/config/tls", "/etc/git-ca"} {
		r := diagnose(t, "writeback-private-ca", caMounted(dir, "git.other.example", false))
		if r.RootCause == nil || r.RootCause.Code != report.CodeWriteBackCAUnknown {
			t.Fatalf("%s: root cause %v; want WRITEBACK_GIT_CA_UNKNOWN\n%s", dir, r.RootCause, dump(r))
		}
		fix := r.RootCause.Fix
		if argvWith(fix, "--from-file=127.0.0.1=", "updater-tls") == nil || argvWith(fix, "patch", "deployment") != nil {
			t.Errorf("%s: the fix does not add the key 127.0.0.1 to the mounted ConfigMap (and only that): %+v", dir, fix)
		}
		if !strings.Contains(fix.Summary, dir) {
			t.Errorf("%s: the fix does not name where Image Updater reads: %q", dir, fix.Summary)
		}
	}
}

func TestWriteBackCAMountedForThisHost(t *testing.T) {
	t.Parallel() // its own labs
	for _, dir := range []string{"/app/config/tls", "/etc/git-ca"} {
		r := diagnose(t, "writeback-private-ca", caMounted(dir, "127.0.0.1", true))
		if len(findingsOf(r, report.CodeWriteBackCAUnknown)) != 0 || r.State == report.StateBlocked {
			t.Fatalf("%s: the CA is mounted where Image Updater reads it, but: state %s, root cause %v\n%s", dir, r.State, r.RootCause, dump(r))
		}
	}
}

func TestWriteBackHostKeyUnknown(t *testing.T) {
	t.Parallel() // its own lab
	r := diagnose(t, "writeback-ssh-host-key-unknown-before", nil)
	if r.State != report.StateBlocked || r.RootCause == nil || r.RootCause.Code != report.CodeWriteBackHostKeyUnknown {
		t.Fatalf("state %s, root cause %v; want blocked by WRITEBACK_GIT_HOST_KEY_UNKNOWN\n%s", r.State, r.RootCause, dump(r))
	}
	fix := r.RootCause.Fix
	if argvWith(fix, "ssh-keyscan", "--", "127.0.0.1") == nil || argvWith(fix, "ssh-keygen", "-l") == nil {
		t.Errorf("the reader does not run ssh-keyscan and see the fingerprints: %+v", fix)
	}
	got := patchOf(t, argvWith(fix, "patch", "configmap", "argocd-ssh-known-hosts-cm"))
	if !strings.Contains(got, `"op":"test"`) || !strings.Contains(got, "github.com ssh-ed25519") || !strings.Contains(got, "HOST_KEY_LINE") {
		t.Errorf("the patch does not keep the other hosts' lines and add the reader's: %s", got)
	}
	if strings.Contains(got, "AAAAC3NzaC1lZDI1NTE5AAAAI") && strings.Count(got, "ssh-ed25519") != 2 {
		t.Errorf("the patch carries a key imgupd saw, not the reader's: %s", got)
	}
}

// TestWriteBackHostKeyMismatch: the known_hosts Image Updater reads lists
// another key for the host; the fix replaces that line only with one the
// reader checked.
func TestWriteBackHostKeyMismatch(t *testing.T) {
	t.Parallel() // its own lab
	env := start(t, "writeback-ssh-host-key-unknown-before", nil)
	u, err := url.Parse(env.Vars["GIT_SSH"])
	if err != nil {
		t.Fatal(err)
	}
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	other := knownhosts.Line([]string{net.JoinHostPort(u.Hostname(), u.Port())}, k)
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-ssh-known-hosts-cm, namespace: argocd}\ndata:\n  ssh_known_hosts: |\n    github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n    " + other + "\n"
	if err := env.Apply(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	r := env.Diagnose(context.Background())
	if r.State != report.StateBlocked || r.RootCause == nil || r.RootCause.Code != report.CodeWriteBackHostKeyMismatch {
		t.Fatalf("state %s, root cause %v; want blocked by WRITEBACK_GIT_HOST_KEY_MISMATCH\n%s", r.State, r.RootCause, dump(r))
	}
	fix := r.RootCause.Fix
	if !strings.Contains(fix.Summary, "only if the key really changed") {
		t.Errorf("the fix does not ask to check before replacing: %q", fix.Summary)
	}
	s := argvWith(fix, "patch", "configmap")
	got := patchOf(t, s)
	var p struct {
		Ops []struct {
			Op    string `json:"op"`
			Value string `json:"value"`
		} `json:"ops"`
	}
	if err := json.Unmarshal([]byte(got), &p); err != nil || len(p.Ops) != 2 {
		t.Fatalf("not a test and a replace: %s", got)
	}
	if !strings.Contains(p.Ops[0].Value, other) || strings.Contains(p.Ops[1].Value, other) || !strings.Contains(p.Ops[1].Value, "github.com ssh-ed25519") {
		t.Errorf("the replace does not drop the old line and keep the others: %s", got)
	}
	if !strings.Contains(s.Say, "replace") {
		t.Errorf("the step does not say it replaces the host's line: %q", s.Say)
	}
}

// TestWriteBackHostKeyNotMounted: nothing is mounted where Image Updater
// reads known_hosts; Argo CD's ConfigMap in its namespace lists the host,
// so mounting it is the whole fix (after the cycle, the log's
// "Host key verification failed" agrees).
func TestWriteBackHostKeyNotMounted(t *testing.T) {
	t.Parallel() // its own lab
	r := diagnose(t, "writeback-ssh-host-key-not-mounted-after", nil)
	if r.State != report.StateBlocked || r.RootCause == nil || r.RootCause.Code != report.CodeWriteBackHostKeyUnknown {
		t.Fatalf("state %s, root cause %v; want blocked by WRITEBACK_GIT_HOST_KEY_UNKNOWN\n%s", r.State, r.RootCause, dump(r))
	}
	fix := r.RootCause.Fix
	if len(fix.Steps) != 1 {
		t.Fatalf("want the mount alone, got %+v", fix.Steps)
	}
	if got := patchOf(t, &fix.Steps[0]); !strings.Contains(got, `"mountPath":"/app/config/ssh"`) || !strings.Contains(got, `"name":"argocd-ssh-known-hosts-cm"`) {
		t.Errorf("the fix does not mount argocd-ssh-known-hosts-cm at /app/config/ssh: %s", got)
	}
	logged := findingsOf(r, report.CodeWriteBackCommitFailed)
	if len(logged) != 1 || !strings.Contains(logged[0].Title, "Host key verification failed") || logged[0].Fix != nil {
		t.Errorf("the logged failure is not shown as the root cause at work: %+v", logged)
	}
}

package labgit

import (
	"bytes"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func startT(t *testing.T, opts ...Option) *Server {
	t.Helper()
	s, err := Start(opts...)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

func sampleSpec() RepoSpec {
	return RepoSpec{
		DefaultBranch: "main",
		Branches: map[string]BranchSpec{
			"main": {
				Files: map[string]string{"README.md": "hello\n", "apps/web/values.yaml": "image:\n  tag: 1.0.0\n"},
				Commits: []CommitSpec{{
					AuthorName: "argocd-image-updater", AuthorEmail: "noreply@argoproj.io",
					Message: "build: automatic update of web",
					Files:   map[string]string{"apps/web/.argocd-source-web.yaml": "helm: {}\n"},
				}},
				Protected: true,
			},
			"dev": {Files: map[string]string{"README.md": "dev\n"}},
		},
	}
}

// gitCLI runs git in dir with an isolated configuration and returns the
// combined output.
func gitCLI(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	return gitCLIEnv(t, dir, nil, args...)
}

// gitCLIEnv is gitCLI with extra environment variables.
func gitCLIEnv(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append([]string{
		"HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH"),
		"GIT_TERMINAL_PROMPT=0", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
	}, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func withUser(raw, user, pass string) string {
	u, _ := url.Parse(raw)
	u.User = url.UserPassword(user, pass)
	return u.String()
}

func TestCreateRepoAndCloneWithGitCLI(t *testing.T) {
	t.Parallel()
	s := startT(t)
	if err := s.CreateRepo("team/app", sampleSpec()); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if out, err := gitCLI(t, dir, "clone", "--quiet", s.RepoURL("team/app"), "w"); err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	w := filepath.Join(dir, "w")
	if out, _ := gitCLI(t, w, "rev-parse", "--abbrev-ref", "HEAD"); strings.TrimSpace(out) != "main" {
		t.Errorf("HEAD = %q, want main", out)
	}
	if b, err := os.ReadFile(filepath.Join(w, "apps/web/values.yaml")); err != nil || string(b) != "image:\n  tag: 1.0.0\n" {
		t.Errorf("values.yaml = %q, %v", b, err)
	}
	out, _ := gitCLI(t, w, "log", "--format=%an <%ae> %aI %s", "main")
	want := "argocd-image-updater <noreply@argoproj.io> 2026-01-01T00:01:00+00:00 build: automatic update of web\n" +
		"Lab Admin <admin@lab.invalid> 2026-01-01T00:00:00+00:00 Initial commit\n"
	if out != want {
		t.Errorf("log:\n%s\nwant:\n%s", out, want)
	}
	// dev shares the root commit and has its own tree.
	out, _ = gitCLI(t, w, "log", "--format=%s", "origin/dev")
	if out != "Create branch dev\nInitial commit\n" {
		t.Errorf("dev log = %q", out)
	}
	h, err := s.BranchHash("team/app", "main")
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := gitCLI(t, w, "rev-parse", "origin/main"); strings.TrimSpace(out) != h {
		t.Errorf("BranchHash = %s, clone has %s", h, out)
	}
	c := s.Requests()
	if c.InfoRefs != 1 || c.UploadPack < 1 {
		t.Errorf("counts = %+v, want 1 info/refs and upload-pack", c)
	}
}

func TestCreateRepoErrors(t *testing.T) {
	t.Parallel()
	s := startT(t)
	if err := s.CreateRepo("a", RepoSpec{DefaultBranch: "main", Branches: map[string]BranchSpec{"dev": {}}}); err == nil {
		t.Error("default branch missing from Branches: want error")
	}
	if err := s.CreateRepo("../x", RepoSpec{}); err == nil {
		t.Error("name with ..: want error")
	}
	if err := s.CreateRepo("b", RepoSpec{Branches: map[string]BranchSpec{"main": {}, "bad..name": {}}}); err == nil {
		t.Error("invalid branch name: want error")
	}
	if err := s.CreateRepo("c", RepoSpec{}); err != nil {
		t.Errorf("empty repository: %v", err)
	}
	if err := s.CreateRepo("c", RepoSpec{}); err == nil {
		t.Error("existing repository: want error")
	}
}

func TestPushRules(t *testing.T) {
	t.Parallel()
	s := startT(t, WithBasicAuth("writer", "w-pass"), WithReadOnlyUser("reader", "r-pass"))
	if err := s.CreateRepo("app", sampleSpec()); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if out, err := gitCLI(t, dir, "clone", "--quiet", withUser(s.RepoURL("app"), "writer", "w-pass"), "w"); err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	w := filepath.Join(dir, "w")
	if out, err := gitCLI(t, w, "commit", "--allow-empty", "-m", "change"); err != nil {
		t.Fatalf("commit: %v\n%s", err, out)
	}

	tests := []struct {
		name, user, pass, refspec string
		wantOK                    bool
		wantOut                   string
	}{
		{"protected branch refused by hook", "writer", "w-pass", "HEAD:refs/heads/main", false, "GH006: Protected branch update failed for refs/heads/main"},
		{"unprotected branch accepted", "writer", "w-pass", "HEAD:refs/heads/dev", true, ""},
		{"new branch accepted", "writer", "w-pass", "HEAD:refs/heads/image-updater-x", true, ""},
		{"read-only user refused", "reader", "r-pass", "HEAD:refs/heads/feature", false, "403"},
		{"wrong password", "writer", "nope", "HEAD:refs/heads/feature", false, "Authentication failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := gitCLI(t, w, "push", "--force", withUser(s.RepoURL("app"), tc.user, tc.pass), tc.refspec)
			if (err == nil) != tc.wantOK {
				t.Fatalf("push err = %v, want ok=%v\n%s", err, tc.wantOK, out)
			}
			if tc.wantOut != "" && !strings.Contains(out, tc.wantOut) {
				t.Errorf("output lacks %q:\n%s", tc.wantOut, out)
			}
		})
	}
	c := s.Requests()
	if c.Forbidden == 0 || c.Unauthorized == 0 || c.ReceivePack == 0 || c.PushInfoRefs == 0 {
		t.Errorf("counts = %+v", c)
	}
}

func TestAuthAndTLS(t *testing.T) {
	t.Parallel()
	s := startT(t, WithTLS(), WithBasicAuth("u", "p"))
	if err := s.CreateRepo("app", sampleSpec()); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.URL, "https://127.0.0.1:") || len(s.CAPEM) == 0 {
		t.Fatalf("URL %q, CAPEM %d bytes", s.URL, len(s.CAPEM))
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, s.CAPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if out, err := gitCLI(t, dir, "-c", "http.sslCAInfo="+caFile, "ls-remote", withUser(s.RepoURL("app"), "u", "p")); err != nil || !strings.Contains(out, "refs/heads/main") {
		t.Fatalf("ls-remote with CA: %v\n%s", err, out)
	}
	if out, err := gitCLI(t, dir, "ls-remote", withUser(s.RepoURL("app"), "u", "p")); err == nil {
		t.Errorf("ls-remote without CA succeeded:\n%s", out)
	}

	// Raw HTTP: no credentials → 401 with a Basic challenge.
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConfigFor(t, s.CAPEM)}}
	res, err := client.Get(s.RepoURL("app") + "/info/refs?service=git-upload-pack")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Basic") {
		t.Errorf("anonymous: %d %q", res.StatusCode, res.Header.Get("WWW-Authenticate"))
	}
}

// TestRefusalText: 401 and 403 answers carry the configured text, as a
// forge's own message.
func TestRefusalText(t *testing.T) {
	t.Parallel()
	const text = "<!channel> this token was revoked: <https://evil.example|sign in>"
	s := startT(t, WithBasicAuth("u", "p"), WithReadOnlyUser("r", "q"), WithRefusalText(text))
	if err := s.CreateRepo("app", sampleSpec()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		user, pass, service string
		status              int
	}{
		{"u", "wrong", "git-upload-pack", http.StatusUnauthorized},
		{"r", "q", "git-receive-pack", http.StatusForbidden},
	} {
		req, _ := http.NewRequest(http.MethodGet, s.RepoURL("app")+"/info/refs?service="+c.service, nil)
		req.SetBasicAuth(c.user, c.pass)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		_, _ = body.ReadFrom(res.Body)
		res.Body.Close()
		if res.StatusCode != c.status || strings.TrimSpace(body.String()) != text {
			t.Errorf("%s as %s: %d %q", c.service, c.user, res.StatusCode, body.String())
		}
	}
}

func TestRepoURL(t *testing.T) {
	t.Parallel()
	s := &Server{URL: "http://127.0.0.1:1"}
	for in, want := range map[string]string{
		"app": "http://127.0.0.1:1/app.git", "app.git": "http://127.0.0.1:1/app.git", "/team/app/": "http://127.0.0.1:1/team/app.git",
	} {
		if got := s.RepoURL(in); got != want {
			t.Errorf("RepoURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHostilePaths: a path holds any byte but NUL, as git allows (a line
// break, a quote, a backslash, an escape sequence, a leading -): the
// repository has exactly that path, with its content.
func TestHostilePaths(t *testing.T) {
	t.Parallel()
	s := startT(t)
	odd := "apps/-x$(touch pwned)`id`'\"\\\nEOF\n\x1b[2J\r\u202e/kustomization.yaml"
	if err := s.CreateRepo("odd", RepoSpec{Branches: map[string]BranchSpec{"main": {Files: map[string]string{odd: "resources: []\n", `"quoted`: "q\n"}}}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if out, err := gitCLI(t, dir, "clone", "--quiet", s.RepoURL("odd"), "w"); err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	out, err := gitCLI(t, filepath.Join(dir, "w"), "ls-files", "-z")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	slices.Sort(got)
	if want := []string{`"quoted`, odd}; !slices.Equal(got, want) {
		t.Errorf("paths %q, want %q", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "w", filepath.FromSlash(odd))); err != nil || string(b) != "resources: []\n" {
		t.Errorf("content %q, %v", b, err)
	}
}

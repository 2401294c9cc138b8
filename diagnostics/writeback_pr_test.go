package diagnostics_test

import (
	"strings"
	"testing"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// Pull-request write-back (issue 24): the answer is "waiting for a merge",
// before Image Updater opens the request and while it is open; a request
// that cannot merge is the root cause; a refused one blocks; once merged,
// the normal path (Argo CD deploys the commit) takes over.

func notVerified(r *report.Report, c report.Code) (found, decides bool) {
	for _, nv := range r.NotVerified {
		if nv.Code == c {
			return true, nv.Decides
		}
	}
	return false, false
}

func TestPullRequestBeforeTheCycle(t *testing.T) {
	t.Parallel() // its own lab
	r := diagnose(t, "pull-request-github-before", nil)
	if r.State != report.StateWaitingForMerge || r.RootCause != nil {
		t.Fatalf("state %s, root cause %v; want waiting-for-merge without a root cause\n%s", r.State, r.RootCause, dump(r))
	}
	if !strings.Contains(r.Headline, "web 1.0.0 → 1.0.1") || !strings.Contains(r.Headline, "opens a pull request on its next cycle") || !strings.Contains(r.Headline, "merges it") {
		t.Errorf("the headline does not say a pull request will be opened and merged: %q", r.Headline)
	}
	if found, decides := notVerified(r, report.CodeWriteBackPRPermUnverified); !found || decides {
		t.Errorf("the token's right to open pull requests is not listed as not verified (without deciding): %+v", r.NotVerified)
	}
	if r.State.ExitCode() != 6 || r.State.Verdict() != report.VerdictBroken {
		t.Errorf("exit %d, verdict %s", r.State.ExitCode(), r.State.Verdict())
	}
}

// TestPullRequestClassicTokenScopes: a classic token lists its scopes
// (GitHub's X-OAuth-Scopes): without repo it cannot open the pull request,
// which blocks before the cycle; with repo it is verified.
func TestPullRequestClassicTokenScopes(t *testing.T) {
	t.Parallel() // its own labs
	r := diagnose(t, "pull-request-github-before", func(sc *lab.Scenario) { sc.Git.ForgeScopes = []string{"read:org", "workflow"} })
	if r.State != report.StateBlocked || r.RootCause == nil || r.RootCause.Code != report.CodeWriteBackPRRefused {
		t.Fatalf("state %s, root cause %v; want blocked by WRITEBACK_PULL_REQUEST_REFUSED\n%s", r.State, r.RootCause, dump(r))
	}
	if f := r.RootCause.Fix; f == nil || !strings.Contains(f.Summary, "Pull requests: Read and write") || !strings.Contains(f.Summary, "repo scope") {
		t.Errorf("the fix does not name the permission to add: %+v", f)
	}
	ok := diagnose(t, "pull-request-github-before", func(sc *lab.Scenario) { sc.Git.ForgeScopes = []string{"repo"} })
	if ok.State != report.StateWaitingForMerge {
		t.Fatalf("with repo: state %s\n%s", ok.State, dump(ok))
	}
	if found, _ := notVerified(ok, report.CodeWriteBackPRPermUnverified); found {
		t.Errorf("with repo the permission is verified, but: %+v", ok.NotVerified)
	}
}

func TestPullRequestOpenAndMergeable(t *testing.T) {
	t.Parallel() // its own lab
	r := diagnose(t, "pull-request-github-after", nil)
	if r.State != report.StateWaitingForMerge || r.RootCause != nil {
		t.Fatalf("state %s, root cause %v; want waiting-for-merge\n%s", r.State, r.RootCause, dump(r))
	}
	for _, want := range []string{"pull request #12", "https://github.example/acme/config/pull/12", "opened 2d 2h ago", "can be merged"} {
		if !strings.Contains(r.Headline, want) {
			t.Errorf("the headline does not say %q: %q", want, r.Headline)
		}
	}
	if strings.Contains(r.Headline, "Argo CD deploys it on its next sync") {
		t.Errorf("the headline says Argo CD deploys what waits for a merge: %q", r.Headline)
	}
	open := findingsOf(r, report.CodeWriteBackPROpen)
	if len(open) != 1 || open[0].Severity != report.Info {
		t.Fatalf("want one WRITEBACK_PULL_REQUEST_OPEN, got %+v", open)
	}
}

func TestPullRequestWithConflicts(t *testing.T) {
	t.Parallel() // its own labs
	conflict := func(sc *lab.Scenario) {
		repo := sc.Git.Repositories["acme/config"]
		repo.PullRequests[0].State = "dirty"
		sc.Git.Repositories["acme/config"] = repo
	}
	for _, name := range []string{"pull-request-github-after", "pull-request-gitlab-conflict-after"} {
		r := diagnose(t, name, conflict)
		if r.State != report.StateWaitingForMerge || r.RootCause == nil || r.RootCause.Code != report.CodeWriteBackPRNotMergeable {
			t.Fatalf("%s: state %s, root cause %v; want waiting-for-merge, WRITEBACK_PULL_REQUEST_NOT_MERGEABLE\n%s", name, r.State, r.RootCause, dump(r))
		}
		if !strings.Contains(r.RootCause.Title, "conflicts with main") {
			t.Errorf("%s: the root cause does not name the conflict: %q", name, r.RootCause.Title)
		}
		if argvWith(r.RootCause.Fix, "push", "origin", ":refs/heads/image-updater-web-5f1c0a") == nil {
			t.Errorf("%s: the fix does not delete Image Updater's branch: %+v", name, r.RootCause.Fix)
		}
		if strings.Contains(name, "gitlab") && !strings.Contains(r.RootCause.Fix.Summary, "Close merge request !7") {
			t.Errorf("%s: GitLab keeps the merge request open without its branch, the fix must close it: %q", name, r.RootCause.Fix.Summary)
		}
	}
	blocked := diagnose(t, "pull-request-github-after", func(sc *lab.Scenario) {
		repo := sc.Git.Repositories["acme/config"]
		repo.PullRequests[0].State = "blocked"
		sc.Git.Repositories["acme/config"] = repo
	})
	if blocked.RootCause == nil || blocked.RootCause.Code != report.CodeWriteBackPRNotMergeable || !strings.Contains(blocked.RootCause.Title, "required reviews") ||
		argvWith(blocked.RootCause.Fix, "push") != nil {
		t.Fatalf("a pull request waiting for reviews: root cause %+v (no branch to delete)\n%s", blocked.RootCause, dump(blocked))
	}
}

func TestPullRequestRefusedInTheLog(t *testing.T) {
	t.Parallel() // its own lab
	r := diagnose(t, "pull-request-github-refused-after", nil)
	if r.State != report.StateBlocked || r.RootCause == nil || r.RootCause.Code != report.CodeWriteBackPRRefused {
		t.Fatalf("state %s, root cause %v; want blocked by WRITEBACK_PULL_REQUEST_REFUSED\n%s", r.State, r.RootCause, dump(r))
	}
	logged := false
	for _, e := range r.RootCause.Evidence {
		logged = logged || strings.Contains(e.Value, "403 Resource not accessible by personal access token")
	}
	if !logged || !strings.Contains(r.RootCause.Fix.Summary, "Pull requests: Read and write") {
		t.Errorf("the root cause does not show the logged 403 and the permission: %+v", r.RootCause)
	}
}

// TestPullRequestMerged: once the request is merged, main holds Image
// Updater's commit and Argo CD deploys it: the normal path.
func TestPullRequestMerged(t *testing.T) {
	t.Parallel() // its own lab
	r := diagnose(t, "pull-request-github-after", func(sc *lab.Scenario) {
		repo := sc.Git.Repositories["acme/config"]
		repo.PullRequests = nil
		main := repo.Branches["main"]
		main.Commits = append(main.Commits, lab.Commit{Author: "argocd-image-updater", Email: "noreply@argoproj.io", Message: "build: automatic update of web",
			Files: map[string]string{"apps/web/kustomization.yaml": "resources:\n- deployment.yaml\nimages:\n- name: ${REGISTRY}/team/web\n  newTag: 1.0.1\n"}})
		repo.Branches["main"] = main
		sc.Git.Repositories["acme/config"] = repo
	})
	if r.State != report.StateOnItsWay || r.RootCause != nil {
		t.Fatalf("state %s, root cause %v; want update-on-its-way once merged\n%s", r.State, r.RootCause, dump(r))
	}
	if len(findingsOf(r, report.CodeWriteBackPROpen)) != 0 {
		t.Errorf("a merged pull request is reported open")
	}
}

// TestPullRequestWithSSHKey: Image Updater opens pull requests through the
// forge's API with a token; SSH key credentials fail every update.
func TestPullRequestWithSSHKey(t *testing.T) {
	t.Parallel() // its own lab
	r := diagnose(t, "writeback-ssh-host-key-not-mounted-after", func(sc *lab.Scenario) {
		sc.Objects = strings.Replace(sc.Objects, "gitConfig: {branch: main, writeBackTarget: \"kustomization:.\"}",
			"gitConfig: {branch: main, writeBackTarget: \"kustomization:.\", pullRequest: {github: {}}}", 1)
		sc.Objects = strings.Replace(sc.Objects, "volumeMounts: [{name: image-updater-conf, mountPath: /app/config}]",
			"volumeMounts: [{name: image-updater-conf, mountPath: /app/config}, {name: ssh-known-hosts, mountPath: /app/config/ssh}]", 1)
		sc.Objects = strings.Replace(sc.Objects, "volumes: [{name: image-updater-conf, configMap: {name: argocd-image-updater-config}}]",
			"volumes: [{name: image-updater-conf, configMap: {name: argocd-image-updater-config}}, {name: ssh-known-hosts, configMap: {name: argocd-ssh-known-hosts-cm}}]", 1)
		sc.Logs = ""
	})
	if r.State != report.StateBlocked || r.RootCause == nil || r.RootCause.Code != report.CodeWriteBackPRCredentials {
		t.Fatalf("state %s, root cause %v; want blocked by WRITEBACK_PULL_REQUEST_CREDENTIALS_UNSUPPORTED\n%s", r.State, r.RootCause, dump(r))
	}
}

package gitsource

import (
	"errors"
	"fmt"
	"testing"
	"time"

	labgit "github.com/imgupd/imgupd/lab/git"
	"github.com/imgupd/imgupd/model/advice"
)

const (
	writerUser = "writer"
	writerPass = "writer-pass-2f9c"
	readerUser = "reader"
	readerPass = "reader-pass-81ab"
)

// appSpec is the repository most tests read: main (protected, with an
// Image Updater commit), dev and a long branch of 25 commits.
func appSpec() labgit.RepoSpec {
	long := make([]labgit.CommitSpec, 25)
	for i := range long {
		long[i] = labgit.CommitSpec{Message: fmt.Sprintf("step %d", i), Files: map[string]string{"counter.txt": fmt.Sprint(i)}}
	}
	return labgit.RepoSpec{
		DefaultBranch: "main",
		Branches: map[string]labgit.BranchSpec{
			"main": {
				Files: map[string]string{
					"README.md":            "# app\n",
					"apps/web/values.yaml": "image:\n  tag: 1.0.0\n",
					"apps/api/values.yaml": "image:\n  tag: 2.0.0\n",
				},
				Commits: []labgit.CommitSpec{
					{AuthorName: "argocd-image-updater", AuthorEmail: "noreply@argoproj.io",
						Message: "build: automatic update of web\n\nupdates image web tag '1.0.0' to '1.1.0'",
						Files:   map[string]string{"apps/web/.argocd-source-web.yaml": "helm:\n  parameters: []\n"}},
					{AuthorName: "Dev", AuthorEmail: "dev@example.com", Message: "docs", Files: map[string]string{"README.md": "# app v2\n"},
						Delete: []string{"apps/api/values.yaml"}},
				},
				Protected: true,
			},
			"dev":  {Files: map[string]string{"README.md": "# dev\n"}},
			"long": {Files: map[string]string{"README.md": "# app\n"}, Commits: long},
		},
	}
}

// startLab starts a lab server with the app repository; it is closed when
// the test ends.
func startLab(t *testing.T, opts ...labgit.Option) *labgit.Server {
	t.Helper()
	s, err := labgit.Start(opts...)
	if err != nil {
		t.Fatalf("labgit.Start: %v", err)
	}
	t.Cleanup(s.Close)
	if err := s.CreateRepo("team/app", appSpec()); err != nil {
		t.Fatalf("CreateRepo: %v", err)
	}
	return s
}

func authedLab(t *testing.T, opts ...labgit.Option) *labgit.Server {
	t.Helper()
	return startLab(t, append([]labgit.Option{labgit.WithBasicAuth(writerUser, writerPass), labgit.WithReadOnlyUser(readerUser, readerPass)}, opts...)...)
}

func newClient() *Client { return New(WithTimeout(20 * time.Second)) }

// wantKind fails unless err is an *Error of kind k.
func wantKind(t *testing.T, err error, k Kind) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not *Error", err, err)
	}
	if e.Kind != k {
		t.Fatalf("kind = %s, want %s (%v)", e.Kind, k, e)
	}
	if adviceFor(e) == "" {
		t.Errorf("empty hint for %s", k)
	}
	return e
}

// adviceFor is the engine's advice for e, from the facts e reports.
func adviceFor(e *Error) string { return advice.ForGit(e.Facts()) }

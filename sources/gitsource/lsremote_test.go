package gitsource

import (
	"context"
	"net/http"
	"testing"

	labgit "github.com/imgupd/imgupd/lab/git"
)

func TestLsRemote(t *testing.T) {
	t.Parallel()
	open := startLab(t)
	locked := authedLab(t)
	ctx := context.Background()

	tests := []struct {
		name       string
		url        string
		auth       Auth
		wantKind   Kind // Other = success
		wantStatus int
	}{
		{"anonymous", open.RepoURL("team/app"), Auth{}, Other, 0},
		{"basic auth", locked.RepoURL("team/app"), Auth{Username: writerUser, Password: writerPass}, Other, 0},
		{"read-only user may list", locked.RepoURL("team/app"), Auth{Username: readerUser, Password: readerPass}, Other, 0},
		{"credentials in URL", "http://" + writerUser + ":" + writerPass + "@" + locked.Host + "/team/app.git", Auth{}, Other, 0},
		{"missing credentials", locked.RepoURL("team/app"), Auth{}, AuthRequired, http.StatusUnauthorized},
		{"wrong password", locked.RepoURL("team/app"), Auth{Username: writerUser, Password: "nope"}, AuthFailed, http.StatusUnauthorized},
		{"unknown repository", open.RepoURL("team/missing"), Auth{}, RepoNotFound, http.StatusNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := newClient().LsRemote(ctx, tc.url, tc.auth)
			if tc.wantKind != Other {
				e := wantKind(t, err, tc.wantKind)
				if e.Status != tc.wantStatus {
					t.Errorf("status = %d, want %d", e.Status, tc.wantStatus)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.DefaultBranch != "main" {
				t.Errorf("DefaultBranch = %q", r.DefaultBranch)
			}
			want := []string{"dev", "long", "main"}
			if len(r.Branches) != 3 || r.Branches[0] != want[0] || r.Branches[1] != want[1] || r.Branches[2] != want[2] {
				t.Errorf("Branches = %v, want %v", r.Branches, want)
			}
			if r.Refs["refs/heads/main"] == "" || r.Refs["HEAD"] != r.Refs["refs/heads/main"] {
				t.Errorf("Refs = %v", r.Refs)
			}
			if !r.HasBranch("dev") || r.HasBranch("nope") {
				t.Error("HasBranch")
			}
		})
	}
}

func TestLsRemoteDefaultBranchAndEmptyRepo(t *testing.T) {
	t.Parallel()
	s := startLab(t)
	if err := s.CreateRepo("develop-first", labgit.RepoSpec{DefaultBranch: "develop", Branches: map[string]labgit.BranchSpec{
		"develop": {Files: map[string]string{"a": "1"}}, "main": {Files: map[string]string{"a": "2"}},
	}}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRepo("empty", labgit.RepoSpec{}); err != nil {
		t.Fatal(err)
	}
	c := newClient()
	r, err := c.LsRemote(context.Background(), s.RepoURL("develop-first"), Auth{})
	if err != nil {
		t.Fatal(err)
	}
	if r.DefaultBranch != "develop" {
		t.Errorf("DefaultBranch = %q, want develop", r.DefaultBranch)
	}
	r, err = c.LsRemote(context.Background(), s.RepoURL("empty"), Auth{})
	if err != nil || len(r.Refs) != 0 || len(r.Branches) != 0 {
		t.Errorf("empty repo: %+v, %v", r, err)
	}
	if _, err := c.Snapshot(context.Background(), s.RepoURL("empty"), "main", Auth{}); err != nil {
		wantKind(t, err, BranchNotFound)
	} else {
		t.Error("snapshot of an empty repository: want BranchNotFound")
	}
	if st := c.Stats(); st.LsRemote != 2 || st.HTTPRequests < 3 {
		t.Errorf("stats = %s", st)
	}
}

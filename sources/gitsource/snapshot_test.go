package gitsource

import (
	"context"
	"errors"
	"io/fs"
	"reflect"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/imgupd/imgupd/internal/netclass"
	labgit "github.com/imgupd/imgupd/lab/git"
)

func TestSnapshotFiles(t *testing.T) {
	t.Parallel()
	s := authedLab(t)
	c := newClient()
	auth := Auth{Username: readerUser, Password: readerPass}
	snap, err := c.Snapshot(context.Background(), s.RepoURL("team/app"), "main", auth)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := s.BranchHash("team/app", "main")
	if snap.Head().Hash != head || snap.Branch != "main" {
		t.Fatalf("head = %s on %q, want %s", snap.Head().Hash, snap.Branch, head)
	}

	files := []struct {
		path, want string
		err        error
	}{
		{"README.md", "# app v2\n", nil},
		{"/apps/web/values.yaml", "image:\n  tag: 1.0.0\n", nil},
		{"./apps/web/.argocd-source-web.yaml", "helm:\n  parameters: []\n", nil},
		{"apps/api/values.yaml", "", fs.ErrNotExist}, // deleted by the last commit
		{"nope.yaml", "", fs.ErrNotExist},
		{"apps/web", "", ErrIsDir},
		{"/", "", ErrIsDir},
		{"README.md/x", "", fs.ErrNotExist},
		{"apps/web/values.yaml/x", "", fs.ErrNotExist},
		{"apps/nope/values.yaml", "", fs.ErrNotExist},
	}
	// Twice: the second time through the directories already decoded.
	for range 2 {
		checkSnapshotFiles(t, snap, files)
	}

	for p, want := range map[string]bool{"apps": true, "apps/web/values.yaml": true, "/": true, "apps/api": false, "x/y": false, "README.md/x": false, "apps/web/values.yaml/x": false} {
		if got := snap.Exists(p); got != want {
			t.Errorf("Exists(%q) = %v", p, got)
		}
	}

	dirs := []struct {
		path string
		want []string
		err  error
	}{
		{"", []string{"README.md", "apps/"}, nil},
		{"/apps", []string{"web/"}, nil},
		{"apps/web/", []string{".argocd-source-web.yaml", "values.yaml"}, nil},
		{"missing", nil, fs.ErrNotExist},
		{"README.md", nil, ErrNotDir},
		{"apps/web/values.yaml", nil, ErrNotDir},
		{"README.md/x", nil, fs.ErrNotExist},
	}
	for _, d := range dirs {
		got, err := snap.ListDir(d.path)
		if d.err != nil {
			if !errors.Is(err, d.err) {
				t.Errorf("ListDir(%q) err = %v, want %v", d.path, err, d.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, d.want) {
			t.Errorf("ListDir(%q) = %v, %v; want %v", d.path, got, err, d.want)
		}
	}
	checkSnapshotFiles(t, snap, files)

	// Other branches have their own trees.
	dev, err := c.Snapshot(context.Background(), s.RepoURL("team/app"), "refs/heads/dev", auth)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := dev.ReadFile("README.md"); string(b) != "# dev\n" || dev.Exists("apps") {
		t.Errorf("dev README = %q, apps exists = %v", b, dev.Exists("apps"))
	}
}

func checkSnapshotFiles(t *testing.T, snap *Snapshot, files []struct {
	path, want string
	err        error
}) {
	t.Helper()
	for _, f := range files {
		b, err := snap.ReadFile(f.path)
		if f.err != nil {
			var pe *fs.PathError
			if !errors.Is(err, f.err) || !errors.As(err, &pe) {
				t.Errorf("ReadFile(%q) err = %v, want %v as *fs.PathError", f.path, err, f.err)
			}
			continue
		}
		if err != nil || string(b) != f.want {
			t.Errorf("ReadFile(%q) = %q, %v; want %q", f.path, b, err, f.want)
		}
	}
}

func TestSnapshotHistory(t *testing.T) {
	t.Parallel()
	s := startLab(t)
	c := newClient()
	snap, err := c.Snapshot(context.Background(), s.RepoURL("team/app"), "", Auth{}) // "" = remote HEAD
	if err != nil {
		t.Fatal(err)
	}
	if snap.Branch != "main" || snap.Truncated() {
		t.Errorf("branch %q truncated %v", snap.Branch, snap.Truncated())
	}
	commits, err := snap.Commits(0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, cm := range commits {
		got = append(got, cm.Message)
	}
	want := []string{"docs", "build: automatic update of web\n\nupdates image web tag '1.0.0' to '1.1.0'", "Initial commit"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("messages = %q, want %q", got, want)
	}
	if f := commits[0].Files; !reflect.DeepEqual(f, []string{"README.md", "apps/api/values.yaml"}) {
		t.Errorf("docs commit Files = %v", f)
	}
	if f := commits[2].Files; len(f) != 3 {
		t.Errorf("root commit Files = %v, want every path", f)
	}
	if one, _ := snap.Commits(1); len(one) != 1 || one[0].Hash != snap.Head().Hash {
		t.Errorf("Commits(1) = %v", one)
	}

	iu, err := snap.LastCommitBy("NoReply@argoproj.io")
	if err != nil || iu == nil {
		t.Fatalf("LastCommitBy = %v, %v", iu, err)
	}
	if iu.AuthorName != "argocd-image-updater" || !reflect.DeepEqual(iu.Files, []string{"apps/web/.argocd-source-web.yaml"}) ||
		iu.When.IsZero() {
		t.Errorf("image updater commit = %+v", iu)
	}
	if none, err := snap.LastCommitBy("nobody@example.com"); none != nil || err != nil {
		t.Errorf("LastCommitBy(nobody) = %v, %v", none, err)
	}

	for h, want := range map[string]bool{
		iu.Hash: true, iu.Hash[:7]: true, iu.Hash[:6]: false, "zzzzzzz": false,
		"0123456789012345678901234567890123456789": false,
	} {
		if snap.Contains(h) != want {
			t.Errorf("Contains(%q) = %v", h, !want)
		}
	}

	long, err := c.Snapshot(context.Background(), s.RepoURL("team/app"), "long", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := long.Commits(0)
	if len(all) != SnapshotDepth || !long.Truncated() {
		t.Errorf("long: %d commits, truncated %v; want %d, true", len(all), long.Truncated(), SnapshotDepth)
	}
	if all[0].Message != "step 24" || all[len(all)-1].Files != nil {
		t.Errorf("long newest %q, oldest Files %v (want nil at the shallow boundary)", all[0].Message, all[len(all)-1].Files)
	}
}

func TestSnapshotMissingBranch(t *testing.T) {
	t.Parallel()
	s := startLab(t)
	_, err := newClient().Snapshot(context.Background(), s.RepoURL("team/app"), "release", Auth{})
	e := wantKind(t, err, BranchNotFound)
	if e.Branch != "release" || !errors.Is(err, plumbing.ErrReferenceNotFound) {
		t.Errorf("error = %v (branch %q)", e, e.Branch)
	}
}

// TestSnapshotIsTheBranchAsItIsNow: a Client keeps no snapshot: after a
// push, the next Snapshot has the new head and the new file; a Shared
// scope made before the push keeps what it read, a new scope reads anew.
func TestSnapshotIsTheBranchAsItIsNow(t *testing.T) {
	t.Parallel()
	s := startLab(t)
	c := newClient()
	ctx := context.Background()
	url := s.RepoURL("team/app")
	scope := c.Share()
	old, err := scope.Snapshot(ctx, url, "main", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	head, err := s.Commit("team/app", "main", labgit.CommitSpec{Message: "fix", Files: map[string]string{"apps/web/values.yaml": "image:\n  tag: 1.1.0\n"}})
	if err != nil {
		t.Fatal(err)
	}
	for name, get := range map[string]func() (*Snapshot, error){
		"client":    func() (*Snapshot, error) { return c.Snapshot(ctx, url, "main", Auth{}) },
		"new scope": func() (*Snapshot, error) { return c.Share().Snapshot(ctx, url, "main", Auth{}) },
	} {
		snap, err := get()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := snap.ReadFile("apps/web/values.yaml")
		if snap.Head().Hash != head || string(b) != "image:\n  tag: 1.1.0\n" {
			t.Errorf("%s: head %s, values %q; want the pushed %s", name, snap.Head().Hash, b, head)
		}
	}
	if again, err := scope.Snapshot(ctx, url, "main", Auth{}); err != nil || again != old {
		t.Errorf("the first scope read the branch again: %p %v, want its %p", again, err, old)
	}
}

// TestSharedSnapshot: within a scope a branch is fetched once for every
// spelling of its repository and the same credentials; other credentials
// are another fetch; a failure is shared (no second request), and a new
// scope tries again.
func TestSharedSnapshot(t *testing.T) {
	t.Parallel()
	s := authedLab(t)
	c := newClient()
	scope := c.Share()
	ctx := context.Background()
	url := s.RepoURL("team/app")
	auth := Auth{Username: writerUser, Password: writerPass}

	first, err := scope.Snapshot(ctx, url, "main", auth)
	if err != nil {
		t.Fatal(err)
	}
	before := s.Requests()
	// Same repository spelled differently, same credentials: shared.
	var wg sync.WaitGroup
	for _, u := range []string{url, url + "/", "http://" + s.Host + "/team/app"} {
		wg.Add(1)
		go func(u string) {
			defer wg.Done()
			again, err := scope.Snapshot(ctx, u, "refs/heads/main", auth)
			if err != nil || again != first {
				t.Errorf("Snapshot(%q) = %p, %v; want the shared %p", u, again, err, first)
			}
			// Concurrent reads of one snapshot are safe.
			if _, err := again.ReadFile("apps/web/values.yaml"); err != nil {
				t.Error(err)
			}
			_, _ = again.ListDir("apps")
		}(u)
	}
	wg.Wait()
	if after := s.Requests(); after != before {
		t.Errorf("a shared Snapshot made requests: before %+v after %+v", before, after)
	}
	if st := c.Stats(); st.Fetches != 1 || st.SnapshotCacheHits != 3 {
		t.Errorf("stats = %s", st)
	}

	// Other credentials are another fetch.
	if _, err := scope.Snapshot(ctx, url, "main", Auth{Username: readerUser, Password: readerPass}); err != nil {
		t.Fatal(err)
	}
	if got := s.Requests().UploadPack; got != before.UploadPack+1 {
		t.Errorf("upload-pack = %d, want %d", got, before.UploadPack+1)
	}
	// A failure is shared within the scope: the same error, no request.
	bad := Auth{Username: writerUser, Password: "bad"}
	_, err1 := scope.Snapshot(ctx, url, "main", bad)
	_, err2 := scope.Snapshot(ctx, url, "main", bad)
	e1 := wantKind(t, err1, AuthFailed)
	if e2 := wantKind(t, err2, AuthFailed); e1.Error() != e2.Error() {
		t.Errorf("the shared failure differs: %v / %v", e1, e2)
	}
	if st := c.Stats(); st.Fetches != 3 {
		t.Errorf("fetches = %d, want 3 (the failure fetched once)", st.Fetches)
	}
	if _, err := c.Share().Snapshot(ctx, url, "main", bad); err == nil {
		t.Fatal("want error")
	}
	if st := c.Stats(); st.Fetches != 4 {
		t.Errorf("fetches = %d, want 4 (a new scope tries again)", st.Fetches)
	}
}

// TestSharedCallerDeadlineIsNotKept: a fetch that failed because its
// caller ran out of time is not the repository's answer: the scope's next
// caller fetches.
func TestSharedCallerDeadlineIsNotKept(t *testing.T) {
	t.Parallel()
	s := startLab(t)
	c := newClient()
	scope := c.Share()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := scope.Snapshot(ctx, s.RepoURL("team/app"), "main", Auth{})
	wantKind(t, err, netclass.Canceled)
	if _, err := scope.Snapshot(context.Background(), s.RepoURL("team/app"), "main", Auth{}); err != nil {
		t.Errorf("after a canceled caller: %v", err)
	}
}

func TestSharedConcurrentFirstFetch(t *testing.T) {
	t.Parallel()
	s := startLab(t)
	c := newClient()
	scope := c.Share()
	const n = 8
	snaps := make([]*Snapshot, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if snaps[i], err = scope.Snapshot(context.Background(), s.RepoURL("team/app"), "main", Auth{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, sn := range snaps[1:] {
		if sn != snaps[0] {
			t.Fatal("concurrent calls returned different snapshots")
		}
	}
	if st := c.Stats(); st.Fetches != 1 || st.SnapshotCacheHits != n-1 {
		t.Errorf("stats = %s, want 1 fetch and %d shared", st, n-1)
	}
	if got := s.Requests().UploadPack; got != 1 {
		t.Errorf("upload-pack requests = %d, want 1", got)
	}
}

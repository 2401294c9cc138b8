package registry

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/internal/hostfail"
	"github.com/imgupd/imgupd/internal/netclass"
	labregistry "github.com/imgupd/imgupd/lab/registry"
)

// TestSharedHostFailure: within a scope, a registry host that refuses
// connections is tried once for all its repositories, each failing as its
// own request would (its own repository, the same kind); without a scope
// each is tried.
func TestSharedHostFailure(t *testing.T) {
	t.Parallel()
	addr := closedPort(t)
	c := New()
	memo := hostfail.New()
	ctx := hostfail.NewContext(testCtx(t), memo)
	for i := range 4 {
		repo := fmt.Sprintf("team/svc-%d", i)
		_, err := c.ListTags(ctx, Target{APIURL: "http://" + addr, Repository: repo})
		e := wantKind(t, err, netclass.Connect)
		if !strings.Contains(e.Error(), repo) {
			t.Errorf("%v does not name %s", e, repo)
		}
	}
	if got := memo.Shared.Load(); got != 3 {
		t.Errorf("%d requests answered from the scope's memory, want 3", got)
	}
	if n := c.Stats().Total(); n != 1 {
		t.Errorf("%d requests sent, want 1", n)
	}
	_, err := c.ListTags(context.Background(), Target{APIURL: "http://" + addr, Repository: "team/other"})
	wantKind(t, err, netclass.Connect)
	if n := c.Stats().Total(); n != 2 {
		t.Errorf("outside the scope: %d requests sent, want 2", n)
	}
}

// TestSessionsAreBounded: a Client that has talked to more targets than
// MaxSessions keeps MaxSessions of them.
func TestSessionsAreBounded(t *testing.T) {
	t.Parallel()
	s := startLab(t)
	push(t, s, "team/app", labregistry.Image{Tag: "1.0.0"})
	c := New()
	ctx := testCtx(t)
	for i := range MaxSessions + 50 {
		// Each Ping is a session of its own (other credentials).
		if err := c.Ping(ctx, Target{APIURL: s.URL, Repository: "team/app", Username: fmt.Sprint("u", i), CAData: s.CAPEM}); err != nil {
			t.Fatal(err)
		}
	}
	c.mu.Lock()
	n := c.sessions.Len()
	c.mu.Unlock()
	if n != MaxSessions {
		t.Errorf("%d sessions kept, want %d", n, MaxSessions)
	}
}

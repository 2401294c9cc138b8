package gitsource

import (
	"context"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/internal/hostfail"
	"github.com/imgupd/imgupd/internal/netclass"
)

// TestSharedHostFailure: in one scope, a git host that refuses
// connections is tried once, over HTTP and over SSH; every repository on
// it gets the error its own request would have got (its own URL, the
// same kind and hint); another scope tries again.
func TestSharedHostFailure(t *testing.T) {
	t.Parallel()
	key := testSSHKey(t)
	for _, tc := range []struct {
		name string
		url  func(addr, repo string) string
		auth Auth
	}{
		{"https", func(addr, repo string) string { return "https://" + addr + "/team/" + repo + ".git" }, Auth{}},
		{"ssh", func(addr, repo string) string { return "ssh://git@" + addr + "/team/" + repo + ".git" }, Auth{SSHPrivateKey: key, InsecureSkipTLS: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			addr := closedAddr(t)
			c := newClient()
			memo := hostfail.New()
			ctx := hostfail.NewContext(context.Background(), memo)
			scope := c.Share()
			var errs []*Error
			for _, repo := range []string{"a", "b", "c"} {
				_, err := scope.Snapshot(ctx, tc.url(addr, repo), "main", tc.auth)
				e := wantKind(t, err, netclass.Connect)
				if !strings.Contains(e.Error(), "/team/"+repo+".git") || e.Branch != "main" {
					t.Errorf("%s: %v does not name its own repository and branch", repo, e)
				}
				errs = append(errs, e)
			}
			_, err := scope.LsRemote(ctx, tc.url(addr, "d"), tc.auth)
			wantKind(t, err, netclass.Connect)
			if got := memo.Shared.Load(); got != 3 {
				t.Errorf("%d answered from the scope's memory, want 3 (b, c, d)", got)
			}
			if h := strings.ReplaceAll(adviceFor(errs[0]), "/a.git", "/b.git"); adviceFor(errs[1]) != h {
				t.Errorf("hints differ beyond the URL: %q / %q", adviceFor(errs[0]), adviceFor(errs[1]))
			}
			if tc.name == "https" {
				if st := c.Stats(); st.HTTPRequests != 1 {
					t.Errorf("%d HTTP requests, want 1", st.HTTPRequests)
				}
			}
			// A new scope tries the host again.
			memo2 := hostfail.New()
			_, err = c.Share().Snapshot(hostfail.NewContext(context.Background(), memo2), tc.url(addr, "a"), "main", tc.auth)
			wantKind(t, err, netclass.Connect)
			if memo2.Shared.Load() != 0 {
				t.Error("a new scope answered from another scope's memory")
			}
		})
	}
}

package helmchart

import (
	"context"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/internal/hostfail"
	"github.com/imgupd/imgupd/internal/netclass"
	"github.com/imgupd/imgupd/lab/loopback"
)

// TestSharedHostFailure: in one scope a Helm repository host that
// refuses connections is tried once; each chart on it gets the error its
// own read would have got.
func TestSharedHostFailure(t *testing.T) {
	t.Parallel()
	addr, err := loopback.ClosedAddr() // nothing listens there, nor can while the test runs
	if err != nil {
		t.Fatal(err)
	}
	memo := hostfail.New()
	ctx := hostfail.NewContext(context.Background(), memo)
	scope := New().Share()
	for _, repo := range []string{"team-a", "team-b", "team-c"} {
		_, err := scope.Values(ctx, Source{RepoURL: "http://" + addr + "/" + repo, Chart: "app", TargetRevision: "1.*"}, Auth{})
		e := wantKind(t, err, netclass.Connect)
		if !strings.Contains(e.Error(), repo) {
			t.Errorf("%v does not name its own repository %s", e, repo)
		}
	}
	if got := memo.Shared.Load(); got != 2 {
		t.Errorf("%d reads answered from the scope's memory, want 2", got)
	}
}

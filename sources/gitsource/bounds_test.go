package gitsource

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/internal/heapwatch"
	labgit "github.com/imgupd/imgupd/lab/git"
)

// TestReadsStopAtTheBound: a git host whose answers never end (an endless
// ref advertisement, an endless pack) or inflate without bound (a pack
// bomb) is read up to a bound, with bounded memory, and the failure is a
// TooLarge *Error naming the bound. Not parallel: the heap is the
// process's.
func TestReadsStopAtTheBound(t *testing.T) {
	for _, tc := range []struct {
		name  string
		mode  labgit.EndlessMode
		op    string
		what  string
		bound int64 // of the heap's growth
	}{
		{"endless refs, ls-remote", labgit.EndlessRefs, "ls-remote", "ref advertisement", 4 * MaxAdvertisementBytes},
		{"endless refs, snapshot", labgit.EndlessRefs, "fetch", "ref advertisement", 4 * MaxAdvertisementBytes},
		{"endless pack", labgit.EndlessPack, "fetch", "pack", 4 * MaxPackBytes},
		// The bomb is refused by its declared size, before it inflates.
		{"pack bomb", labgit.PackBomb, "fetch", "objects", 32 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(labgit.Endless{Mode: tc.mode})
			t.Cleanup(srv.Close)
			url := srv.URL + "/team/app.git"
			// The bounds are bytes; the deadlines (this one and the client's) are nets, far
			// beyond the seconds the reads take, so that only a machine too slow reaches them.
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			c := New(WithTimeout(3 * time.Minute))
			var err error
			grew := heapwatch.Measure(func() {
				if tc.op == "ls-remote" {
					_, err = c.LsRemote(ctx, url, Auth{})
				} else {
					_, err = c.Snapshot(ctx, url, "main", Auth{})
				}
			})
			var ge *Error
			if ctx.Err() != nil {
				t.Fatalf("machine too slow: the read did not reach its bound in 3 minutes: %v", err)
			}
			if !errors.As(err, &ge) || ge.Kind != TooLarge {
				t.Fatalf("error %v, want a TooLarge *Error", err)
			}
			if ge.Limit == nil || ge.Limit.What != tc.what || ge.Op != tc.op {
				t.Fatalf("%s: limit %+v, want the %s bound", ge.Op, ge.Limit, tc.what)
			}
			if uint64(tc.bound) < grew.Peak {
				t.Errorf("the heap grew by %.0f MiB, more than %d MiB", grew.MiB(), tc.bound>>20)
			}
			t.Logf("%s: heap +%.1f MiB (%.0f MiB allocated): %v", tc.name, grew.MiB(), float64(grew.Allocated)/(1<<20), ge)
			if msg := ge.Error(); !strings.Contains(msg, "past imgupd's read bound") || !strings.Contains(msg, tc.what) {
				t.Errorf("message %q", msg)
			}
			if h := adviceFor(ge); !strings.Contains(h, "clone with git to disk") {
				t.Errorf("hint %q", h)
			}
		})
	}
}

// TestCheckPackPassesRealPacks: a pack within the bounds, with deltas,
// passes checkPack and parses as before.
func TestCheckPackPassesRealPacks(t *testing.T) {
	t.Parallel()
	s := startLab(t)
	snap, err := newClient().Snapshot(context.Background(), s.URL+"/team/app.git", "long", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := snap.ReadFile("counter.txt"); err != nil || string(got) != "24" {
		t.Fatalf("counter.txt = %q, %v", got, err)
	}
}

// TestCheckPack: the declared sizes decide, deltas by their target.
func TestCheckPack(t *testing.T) {
	t.Parallel()
	if err := checkPack(strings.NewReader("PACK\x00\x00\x00\x02\x00\x00\x00\x00")); err != nil {
		t.Errorf("empty pack: %v", err)
	}
	for _, tc := range []struct {
		delta []byte
		want  int64
	}{
		{[]byte{0x05, 0x07}, 7},
		{[]byte{0x80, 0x01, 0x80, 0x80, 0x40}, 1 << 20},
		{[]byte{0x80}, 0},
		{nil, 0},
	} {
		if got := deltaTargetSize(tc.delta); got != tc.want {
			t.Errorf("deltaTargetSize(%x) = %d, want %d", tc.delta, got, tc.want)
		}
	}
}

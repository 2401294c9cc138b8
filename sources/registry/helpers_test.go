package registry

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	labregistry "github.com/imgupd/imgupd/lab/registry"
	"github.com/imgupd/imgupd/model/advice"
	"github.com/imgupd/imgupd/model/updater"

	"github.com/imgupd/imgupd/lab/loopback"
)

func startLab(t testing.TB, opts ...labregistry.Option) *labregistry.Server {
	t.Helper()
	s, err := labregistry.Start(opts...)
	if err != nil {
		t.Fatalf("lab registry: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

func push(t testing.TB, s *labregistry.Server, repo string, imgs ...labregistry.Image) {
	t.Helper()
	if err := s.Push(context.Background(), repo, imgs...); err != nil {
		t.Fatalf("push: %v", err)
	}
}

func targetOf(s *labregistry.Server, repo string) Target {
	return Target{APIURL: s.URL, Repository: repo, CAData: s.CAPEM}
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a net for a hang, not a timing
	t.Cleanup(cancel)
	return ctx
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t testing.TB) string {
	t.Helper()
	addr, err := loopback.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// wantKind fails unless err is an *Error of kind k.
func wantKind(t testing.TB, err error, k Kind) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *registry.Error", err, err)
	}
	if e.Kind != k {
		t.Fatalf("kind = %s, want %s; error: %v", e.Kind, k, e)
	}
	return e
}

func day(n int) time.Time { return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n) }

func wantsOf(platforms ...string) func(updater.Platform) bool {
	return updater.NewPlatformSet(platforms, updater.DefaultControllerPlatform).Wants
}

func tagNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

// adviceFor is the engine's advice for e, from the facts e reports.
func adviceFor(e *Error) string { return advice.ForRegistry(e.Facts()) }

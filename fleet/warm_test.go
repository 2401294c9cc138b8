package fleet_test

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/gitsource"
)

// crsAfterGit is a cluster whose CR list answers once git was asked for
// a source (or after a net of 30 s, for a machine too busy: the scan's
// answers are then the same, the test fails on the order).
type crsAfterGit struct {
	diagnostics.Cluster
	asked  chan struct{}
	waited atomic.Bool
}

func (c *crsAfterGit) ImageUpdaters(ctx context.Context, ns string) ([]updater.ImageUpdater, error) {
	select {
	case <-c.asked:
		c.waited.Store(true)
	case <-time.After(30 * time.Second):
	}
	return c.Cluster.ImageUpdaters(ctx, ns)
}

// gitAsked closes asked at the first read of a repository.
type gitAsked struct {
	diagnostics.Git
	once  sync.Once
	asked chan struct{}
}

func (g *gitAsked) LsRemote(ctx context.Context, url string, auth gitsource.Auth) (gitsource.Remote, error) {
	g.once.Do(func() { close(g.asked) })
	return g.Git.LsRemote(ctx, url, auth)
}

func (g *gitAsked) Snapshot(ctx context.Context, url, branch string, auth gitsource.Auth) (*gitsource.Snapshot, error) {
	g.once.Do(func() { close(g.asked) })
	return g.Git.Snapshot(ctx, url, branch, auth)
}

// TestScanWarmsWhileCRsAreListed: a scan reads its first app's source (and
// Argo CD's repository credentials) while it lists the CRs, which every
// diagnosis waits for, not after; its answers are those of a scan whose
// git reads come after the CRs.
func TestScanWarmsWhileCRsAreListed(t *testing.T) {
	env := startFleet(t, lab.FleetSpec{Apps: 12, Repos: 3, Due: 2, Broken: 4})
	asked := make(chan struct{})
	eng := *env.Engine()
	slow := &crsAfterGit{Cluster: eng.Cluster, asked: asked}
	eng.Cluster, eng.Git = slow, &gitAsked{Git: eng.Git, asked: asked}
	res, err := (&fleet.Scanner{Engine: &eng}).Scan(context.Background(), fleet.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if !slow.waited.Load() {
		t.Error("no git repository was read while the CRs were listed: the scan's first diagnoses wait for the source after the CRs")
	}
	want, err := (&fleet.Scanner{Engine: env.Engine()}).Scan(context.Background(), fleet.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Apps) != 12 || len(want.Apps) != 12 {
		t.Fatalf("%d and %d apps, want 12", len(res.Apps), len(want.Apps))
	}
	for i := range want.Apps {
		a, b := res.Apps[i], want.Apps[i]
		if a.App != b.App || a.State != b.State || a.Code != b.Code || a.Headline != b.Headline || !reflect.DeepEqual(a.Answer, b.Answer) {
			t.Errorf("%s: %s %s %q, without the warm-up %s %s %q", a.App, a.State, a.Code, a.Headline, b.State, b.Code, b.Headline)
		}
	}
}

// argoAfterApps is a cluster whose Applications, read by name, answer once
// Argo CD's repository Secrets were asked for (or after a net of 30 s, for
// a machine too busy: the answers are then the same, the test fails on
// the order).
type argoAfterApps struct {
	diagnostics.Cluster
	once  sync.Once
	asked chan struct{}
	// early counts the reads answered before the Secrets were asked for.
	early atomic.Int32
}

func (c *argoAfterApps) RepoCredentials(ctx context.Context, ns string) ([]cluster.RepoCred, error) {
	c.once.Do(func() { close(c.asked) })
	return c.Cluster.RepoCredentials(ctx, ns)
}

func (c *argoAfterApps) Application(ctx context.Context, ns, name string) (*argo.Application, error) {
	select {
	case <-c.asked:
	case <-time.After(30 * time.Second):
		c.early.Add(1)
	}
	return c.Cluster.Application(ctx, ns, name)
}

// TestWhereWarmsArgoWhileAppsAreRead: a "where" reads Argo CD's
// repository Secrets (and who Argo CD is, and whether it may read them)
// while it reads the apps that may use the repository, not after; its
// answers are those of a "where" whose Argo CD reads come after.
func TestWhereWarmsArgoWhileAppsAreRead(t *testing.T) {
	env := startWhereFleet(t)
	q, err := fleet.ParseImageQuery(env.Vars["REGISTRY"] + "/team/web:1.2.0")
	if err != nil {
		t.Fatal(err)
	}
	eng := *env.Engine()
	slow := &argoAfterApps{Cluster: eng.Cluster, asked: make(chan struct{})}
	eng.Cluster = slow
	got, err := (&fleet.Scanner{Engine: &eng}).Where(context.Background(), fleet.Query{}, q)
	if err != nil {
		t.Fatal(err)
	}
	if n := slow.early.Load(); n > 0 {
		t.Errorf("%d app(s) read before Argo CD's repository Secrets were: each diagnosis reads them after its app, not while the apps are read", n)
	}
	want, err := (&fleet.Scanner{Engine: env.Engine()}).Where(context.Background(), fleet.Query{}, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Apps) != 6 || len(want.Apps) != 6 {
		t.Fatalf("%d and %d answers, want 6", len(got.Apps), len(want.Apps))
	}
	for i := range want.Apps {
		a, b := got.Apps[i], want.Apps[i]
		if a.App != b.App || a.Answer != b.Answer || a.State != b.State || a.Code != b.Code || a.Pick != b.Pick {
			t.Errorf("%s: %s %s %s %q, without the warm-up %s %s %s %q", a.App, a.Answer, a.State, a.Code, a.Pick, b.Answer, b.State, b.Code, b.Pick)
		}
	}
}

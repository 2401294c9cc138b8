package fleet_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/crane"

	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

func startWhereFleet(t *testing.T) *lab.Env {
	t.Helper()
	sc, err := lab.Fleet("where-web")
	if err != nil {
		t.Fatal(err)
	}
	env, err := lab.Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	return env
}

func where(t *testing.T, env *lab.Env, scope fleet.Query, image string) *report.Where {
	t.Helper()
	q, err := fleet.ParseImageQuery(strings.ReplaceAll(image, "${REGISTRY}", env.Vars["REGISTRY"]))
	if err != nil {
		t.Fatal(err)
	}
	w, err := (&fleet.Scanner{Engine: env.Engine()}).Where(context.Background(), scope, q)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestWhereEachAppItsAnswer: one repository feeds six apps across two
// namespaces and two CRs; the pushed tag gets a different answer in each.
func TestWhereEachAppItsAnswer(t *testing.T) {
	env := startWhereFleet(t)
	w := where(t, env, fleet.Query{}, "${REGISTRY}/team/web:1.2.0")
	got := map[string]report.WhereLine{}
	for _, l := range w.Apps {
		got[l.App.String()] = l
		t.Logf("%s: %s pick=%q picked=%q written=%q running=%q state=%s code=%s", l.App, l.Answer, l.Pick, l.Picked, l.Written, l.Running, l.State, l.Code)
	}
	want := map[string]report.WhereAnswer{
		"argocd/web": report.WhereRunning, "team/web": report.WhereWritten, "argocd/web-next": report.WhereDue,
		"team/web-stable": report.WhereHeldBack, "argocd/web-private": report.WhereBlocked, "argocd/web-legacy": report.WhereWrongUpdate,
	}
	if len(w.Apps) != len(want) {
		t.Errorf("%d answers, want %d (team/api uses another repository)", len(w.Apps), len(want))
	}
	for app, a := range want {
		if got[app].Answer != a {
			t.Errorf("%s: %q, want %q", app, got[app].Answer, a)
		}
	}
	if r := got["argocd/web"]; r.Deployed == nil || !strings.Contains(r.Says(w.Tag), "deployed 2026-11-29 11:50Z or before") {
		t.Errorf("argocd/web runs 1.2.0 since its last deploy or before: %q", r.Says(w.Tag))
	}
	if r := got["team/web"]; !strings.Contains(r.Says(w.Tag), "2026-11-29 11:45Z") {
		t.Errorf("team/web: when Image Updater wrote 1.2.0: %q", r.Says(w.Tag))
	}
	if w.Listed == nil || !*w.Listed || w.TagFrom != "asked" {
		t.Errorf("tag 1.2.0 listed %v from %q", w.Listed, w.TagFrom)
	}
}

// TestWhereWithoutTag: no tag asked is the newest the registry has.
func TestWhereWithoutTag(t *testing.T) {
	env := startWhereFleet(t)
	w := where(t, env, fleet.Query{}, "${REGISTRY}/team/web")
	if w.Tag != "1.2.0" || w.TagFrom != "the newest tag in the registry" || w.Listed == nil || !*w.Listed {
		t.Errorf("tag %q from %q listed %v", w.Tag, w.TagFrom, w.Listed)
	}
	if len(w.Group(report.WhereRunning)) != 1 || len(w.Group(report.WhereDue)) != 1 {
		t.Errorf("running %v, due %v", w.Group(report.WhereRunning), w.Group(report.WhereDue))
	}
}

// TestWhereUnknownTagAndRepository: a tag the registry does not list and a
// repository no app uses are answered as such, with the nearest names.
func TestWhereUnknownTagAndRepository(t *testing.T) {
	env := startWhereFleet(t)
	w := where(t, env, fleet.Query{}, "${REGISTRY}/team/web:1.2.1")
	if w.Listed == nil || *w.Listed || len(w.Nearest) == 0 || w.Nearest[0] != "1.2.0" {
		t.Errorf("1.2.1: listed %v, nearest %v", w.Listed, w.Nearest)
	}
	if len(w.Apps) != 6 {
		t.Errorf("1.2.1: %d apps, want the 6 that use team/web", len(w.Apps))
	}
	for _, l := range w.Apps {
		if l.Answer == report.WhereRunning || l.Answer == report.WhereDue || l.Answer == report.WhereWritten {
			t.Errorf("%s: %s for a tag that does not exist", l.App, l.Answer)
		}
	}
	w = where(t, env, fleet.Query{}, "${REGISTRY}/team/wep:1.2.0")
	if len(w.Apps) != 0 || len(w.Repositories) == 0 || !strings.HasSuffix(w.Repositories[0], "/team/web") || w.Managed != 7 {
		t.Errorf("team/wep: %d apps, did you mean %v, %d managed", len(w.Apps), w.Repositories, w.Managed)
	}
	if w.Worst() != report.StateUnknown {
		t.Errorf("no app: worst %s", w.Worst())
	}
}

// TestWhereVisibility: an asker who may see only namespace argocd gets the
// answers there; team's apps are neither answered nor counted.
func TestWhereVisibility(t *testing.T) {
	env := startWhereFleet(t)
	scope := fleet.Query{Visible: func(ns, _ string) bool { return ns == "argocd" }}
	w := where(t, env, scope, "${REGISTRY}/team/web:1.2.0")
	for _, l := range w.Apps {
		if l.App.Namespace != "argocd" {
			t.Errorf("%s answered to an asker who may not see it", l.App)
		}
	}
	if len(w.Apps) != 4 || w.Managed != 4 {
		t.Errorf("%d answers, %d managed; want 4 and 4 (namespace argocd)", len(w.Apps), w.Managed)
	}
	w = where(t, env, scope, "${REGISTRY}/team/api")
	if len(w.Apps) != 0 || len(w.Repositories) != 1 {
		t.Errorf("team/api, used only in team: %d apps, nearest %v (the hidden app's repository must not be named either)", len(w.Apps), w.Repositories)
	}
}

// TestWhereByDigest: a digest is answered for the tags that point at it; the fleet's semver
// strategy read no manifest, so where reads the digests itself (anonymously).
func TestWhereByDigest(t *testing.T) {
	env := startWhereFleet(t)
	d, err := crane.Digest(env.Vars["REGISTRY"]+"/team/web:1.2.0", crane.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	w := where(t, env, fleet.Query{}, "${REGISTRY}/team/web@"+d)
	if len(w.DigestTags) != 1 || w.DigestTags[0] != "1.2.0" || w.Tag != "1.2.0" {
		t.Fatalf("digest of 1.2.0: tags %v, tag %q (%s)", w.DigestTags, w.Tag, w.DigestNote)
	}
	if len(w.Group(report.WhereRunning)) != 1 || len(w.Group(report.WhereDue)) != 1 {
		t.Errorf("running %d, due %d", len(w.Group(report.WhereRunning)), len(w.Group(report.WhereDue)))
	}
	w = where(t, env, fleet.Query{}, "${REGISTRY}/team/web@sha256:"+strings.Repeat("0", 64))
	if len(w.DigestTags) != 0 || w.Tag != "" || !strings.Contains(w.Head(), "no tag of") {
		t.Errorf("unknown digest: tags %v, tag %q, head %q", w.DigestTags, w.Tag, w.Head())
	}
	for _, l := range w.Apps {
		if l.Answer == report.WhereHeldBack && l.State != report.StateHeldBack {
			t.Errorf("%s: held back for a digest no tag has (its own state is %s)", l.App, l.State)
		}
	}
}

package fleet_test

import (
	"context"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/diagnostics/fleet"
	"github.com/imgupd/imgupd/diagnostics/report"
	"github.com/imgupd/imgupd/lab"
)

func startWhereFleet(t *testing.T) *lab.Env {
	t.Helper()
	all, err := lab.Fleets()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range all {
		if sc.Name == "where-web" {
			env, err := lab.Start(context.Background(), sc)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(env.Close)
			return env
		}
	}
	t.Fatal("no lab fleet where-web")
	return nil
}

func where(t *testing.T, env *lab.Env, scope report.Scope, image string) *report.Where {
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
	w := where(t, env, report.Scope{}, "${REGISTRY}/team/web:1.2.0")
	got := map[string]report.WhereLine{}
	for _, l := range w.Apps {
		got[l.App.String()] = l
		t.Logf("%s: %s pick=%q picked=%q written=%q running=%q state=%s code=%s", l.App, l.Answer, l.Pick, l.Picked, l.Written, l.Running, l.State, l.Code)
	}
	want := map[string]report.WhereAnswer{
		"argocd/web": report.WhereRunning, "team/web": report.WhereWritten, "argocd/web-canary": report.WhereDue,
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
	if w.Listed == nil || !*w.Listed || w.TagFrom != "asked" {
		t.Errorf("tag 1.2.0 listed %v from %q", w.Listed, w.TagFrom)
	}
}

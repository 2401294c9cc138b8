package e2e

import (
	"context"
	"testing"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

// TestWhereOnRealAPIServer: the lab fleet where-web (one repository feeding six Applications in
// two namespaces under two ImageUpdater CRs) stored in the real API server and read as imgupd's
// ServiceAccount with the shipped RBAC: `where` gives each app its answer, and its state and root
// cause are the ones `diagnose` gives for that app.
func TestWhereOnRealAPIServer(t *testing.T) {
	sc, err := lab.Fleet("where-web")
	if err != nil {
		t.Fatal(err)
	}
	env, cleanup := loadScenario(t, sc, nil)
	defer cleanup()
	reader, err := cluster.NewReader(asServiceAccount("imgupd", "imgupd"))
	if err != nil {
		t.Fatal(err)
	}
	reader.Logs = env.LogSource()
	env.UseCluster(reader)
	eng := env.Engine()
	q, err := fleet.ParseImageQuery(env.Vars["REGISTRY"] + "/team/web:1.2.0")
	if err != nil {
		t.Fatal(err)
	}
	w, err := (&fleet.Scanner{Engine: eng}).Where(context.Background(), fleet.Query{}, q)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]report.WhereAnswer{
		"argocd/web": report.WhereRunning, "team/web": report.WhereWritten, "argocd/web-next": report.WhereDue,
		"team/web-stable": report.WhereHeldBack, "argocd/web-private": report.WhereBlocked, "argocd/web-legacy": report.WhereWrongUpdate,
	}
	if len(w.Apps) != len(want) {
		t.Errorf("%d answers, want %d", len(w.Apps), len(want))
	}
	for _, l := range w.Apps {
		if l.Answer != want[l.App.String()] {
			t.Errorf("%s: %s, want %s", l.App, l.Answer, want[l.App.String()])
		}
		rep := eng.Diagnose(context.Background(), diagnostics.Request{App: l.App.Name, Namespace: l.App.Namespace})
		code := report.Code("")
		if rep.RootCause != nil {
			code = rep.RootCause.Code
		}
		if rep.State != l.State || code != l.Code {
			t.Errorf("%s: where says %s %s, diagnose says %s %s", l.App, l.State, l.Code, rep.State, code)
		}
	}
}

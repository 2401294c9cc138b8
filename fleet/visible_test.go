package fleet_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/lab/recorder"
	"github.com/imgupd/imgupd/report"
)

// recorded puts a recorder between the engine and the env's cluster, registry and git.
func recorded(env *lab.Env) (*diagnostics.Engine, *recorder.Log) {
	eng, _, rec := recorder.Wrap(env.Engine())
	return eng, rec
}

var fleetApp = regexp.MustCompile(`metadata: \{name: (app-(\d{4})-r\d{3}), namespace: argocd\}\nspec:\n  project: default`)

// teamFleet is a generated fleet of 9 apps over 3 repositories in which every third app
// (app-0000, app-0003, app-0006: all of repository team/svc-000, and nothing else of it) is
// in project vault; with hidden false, those Applications are left out of the cluster (the
// rest — CRs, repositories, images — is the same).
func teamFleet(t *testing.T, hidden bool) (*lab.Env, []string) {
	t.Helper()
	sc := lab.FleetScenario(lab.FleetSpec{Apps: 9, Repos: 3, Broken: 4, Due: 2})
	var vault []string
	docs := strings.Split(sc.Objects, "\n---\n")
	kept := docs[:0]
	for _, d := range docs {
		m := fleetApp.FindStringSubmatch(d)
		if m == nil {
			kept = append(kept, d)
			continue
		}
		if i, _ := strconv.Atoi(m[2]); i%3 == 0 {
			vault = append(vault, m[1])
			if !hidden {
				continue
			}
			d = strings.Replace(d, "project: default", "project: vault", 1)
		}
		kept = append(kept, d)
	}
	sc.Objects = strings.Join(kept, "\n---\n") + "\n---\napiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: vault, namespace: argocd}\nspec:\n  sourceRepos: [\"*\"]\n  destinations: [{server: \"*\", namespace: \"*\"}]\n"
	env, err := lab.Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	return env, vault
}

// unlab puts the lab's placeholders back (${REGISTRY}, ${GIT}, …) in place of its servers'
// addresses, which differ between two labs.
func unlab(env *lab.Env, s string) string {
	for k, v := range env.Vars {
		if v != "" {
			s = strings.ReplaceAll(s, v, "${"+k+"}")
		}
	}
	return s
}

// TestScanNeverReadsHiddenApps: a scan whose Visible filter leaves out project vault answers
// exactly as a scan of the cluster without vault's Applications, and nothing it reads is
// about them: not their Applications, their project, their repository's tags or metadata.
func TestScanNeverReadsHiddenApps(t *testing.T) {
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	notVault := func(_, project string) bool { return project != "vault" }
	scan := func(env *lab.Env, scope fleet.Query) (*fleet.Result, []string) {
		eng, s := recorded(env)
		res, err := (&fleet.Scanner{Engine: eng, Now: func() time.Time { return at }}).Scan(context.Background(), scope)
		if err != nil {
			t.Fatal(err)
		}
		return res, s.Reads()
	}
	withEnv, vault := teamFleet(t, true)
	withoutEnv, _ := teamFleet(t, false)
	got, reads := scan(withEnv, fleet.Query{Visible: notVault})
	want, wantReads := scan(withoutEnv, fleet.Query{})
	if len(got.Apps) != 6 || got.Unmanaged != want.Unmanaged || got.Partial {
		t.Errorf("%d apps, %d unmanaged (want 6, %d)", len(got.Apps), got.Unmanaged, want.Unmanaged)
	}
	for i := range want.Apps {
		g, w := got.Apps[i], want.Apps[i]
		if g.App != w.App || g.State != w.State || g.Code != w.Code || unlab(withEnv, g.Headline) != unlab(withoutEnv, w.Headline) {
			t.Errorf("app %d: %s %s %s, without the hidden apps %s %s %s", i, g.App, g.State, g.Code, w.App, w.State, w.Code)
		}
	}
	gs, ws := fleet.Summarize(got, nil), fleet.Summarize(want, nil)
	if gs.Hash != ws.Hash || gs.Total != ws.Total {
		t.Errorf("summaries differ: %s/%d and %s/%d", gs.Hash, gs.Total, ws.Hash, ws.Total)
	}
	for _, r := range reads {
		for _, name := range vault {
			if strings.Contains(r, name) {
				t.Errorf("read of a hidden app: %s", r)
			}
		}
		if strings.Contains(r, "vault") || strings.Contains(r, "team/svc-000") {
			t.Errorf("read for the hidden apps only: %s", r)
		}
	}
	// The two labs' servers listen on different ports.
	for i := range reads {
		reads[i] = unlab(withEnv, reads[i])
	}
	for i := range wantReads {
		wantReads[i] = unlab(withoutEnv, wantReads[i])
	}
	slices.Sort(reads)
	slices.Sort(wantReads)
	if !slices.Equal(reads, wantReads) {
		t.Errorf("the reads differ from those of the cluster without the hidden apps:\n%v\n%v", reads, wantReads)
	}

	// Visible only in argocd: only argocd is listed; in no namespace: nothing is.
	_, reads = scan(withEnv, fleet.Query{Visible: notVault, VisibleNamespaces: []string{"argocd"}})
	if !slices.Contains(reads, `applications "argocd"`) || slices.Contains(reads, `applications ""`) {
		t.Errorf("listings: %v", reads)
	}
	res, reads := scan(withEnv, fleet.Query{Scope: report.Scope{Namespaces: []string{"team-*"}}, Visible: notVault, VisibleNamespaces: []string{"argocd"}})
	if len(res.Apps) != 0 || slices.ContainsFunc(reads, func(r string) bool { return strings.HasPrefix(r, "applications") }) {
		t.Errorf("a scope outside the visible namespaces lists %v and finds %d apps", reads, len(res.Apps))
	}
}

// TestWhereNeverReadsHiddenApps: a "where" whose Visible filter leaves out project vault
// answers exactly as a "where" over the cluster without vault's Applications (Duration and
// Stats apart: the one lists the Applications whole, for their projects), and nothing it
// reads is about them: not their Applications, their project, their repository's tags. Asked
// for vault's repository, it offers the others; asked for another, it answers for its apps.
func TestWhereNeverReadsHiddenApps(t *testing.T) {
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	notVault := func(_, project string) bool { return project != "vault" }
	withEnv, vault := teamFleet(t, true)
	withoutEnv, _ := teamFleet(t, false)
	for _, repo := range []string{"team/svc-000", "team/svc-001"} {
		where := func(env *lab.Env, scope fleet.Query) (string, []string) {
			eng, s := recorded(env)
			q, err := fleet.ParseImageQuery(env.Vars["REGISTRY"] + "/" + repo)
			if err != nil {
				t.Fatal(err)
			}
			w, err := (&fleet.Scanner{Engine: eng, Now: func() time.Time { return at }}).Where(context.Background(), scope, q)
			if err != nil {
				t.Fatal(err)
			}
			w.Duration, w.Stats = 0, report.ScanStats{}
			b, err := json.Marshal(w)
			if err != nil {
				t.Fatal(err)
			}
			return unlab(env, string(b)), s.Reads()
		}
		got, reads := where(withEnv, fleet.Query{Visible: notVault})
		want, _ := where(withoutEnv, fleet.Query{})
		if got != want {
			t.Errorf("%s:\nwith vault hidden %s\nwithout vault     %s", repo, got, want)
		}
		for _, r := range reads {
			for _, name := range vault {
				if strings.Contains(r, name) {
					t.Errorf("%s: read of a hidden app: %s", repo, r)
				}
			}
			if strings.Contains(r, "vault") || strings.Contains(r, "team/svc-000") {
				t.Errorf("%s: read for the hidden apps only: %s", repo, r)
			}
		}
	}
}

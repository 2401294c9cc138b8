package fleet_test

import (
	"context"
	"testing"

	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
)

// The "where" benchmark (bench/where.sh, issue 18): `where` over the 500-app fleet side by side
// with the summary of the same fleet, in the same process on the same lab servers. fleet500 is
// the summary's 500-app fleet over 150 repositories of 50–400 tags (a few apps per repository);
// fleet500one is 500 apps over one repository, where every app uses the asked image.
var (
	fleet500    = lab.FleetSpec{Apps: 500, Repos: 150, MinTags: 50, MaxTags: 400, Due: 4, Broken: 25}
	fleet500one = lab.FleetSpec{Apps: 500, Repos: 1, MinTags: 400, MaxTags: 400, Due: 4, Broken: 25}
)

func benchFleet(b *testing.B, spec lab.FleetSpec) (*lab.Env, *fleet.Scanner) {
	b.Helper()
	env, err := lab.Start(context.Background(), lab.FleetScenario(spec))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(env.Close)
	return env, &fleet.Scanner{Engine: env.Engine()}
}

func benchScan(b *testing.B, spec lab.FleetSpec) {
	_, s := benchFleet(b, spec)
	for b.Loop() {
		res, err := s.Scan(context.Background(), fleet.Query{})
		if err != nil || len(res.Apps) != spec.Apps || res.Partial {
			b.Fatalf("%v, %d apps", err, len(res.Apps))
		}
	}
}

func benchWhere(b *testing.B, spec lab.FleetSpec, apps int) {
	env, s := benchFleet(b, spec)
	q, err := fleet.ParseImageQuery(env.Vars["REGISTRY"] + "/team/svc-000")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		w, err := s.Where(context.Background(), fleet.Query{}, q)
		if err != nil || len(w.Apps) != apps || w.Partial {
			b.Fatalf("%v, %d apps, want %d", err, len(w.Apps), apps)
		}
	}
}

// BenchmarkSummary500: the reference, the summary's whole-fleet scan.
func BenchmarkSummary500(b *testing.B) { benchScan(b, fleet500) }

// BenchmarkWhere500: where for one of the 150 repositories (4 of the 500 apps use it).
func BenchmarkWhere500(b *testing.B) { benchWhere(b, fleet500, 4) }

// BenchmarkSummary500OneRepo: the reference for the worst case below.
func BenchmarkSummary500OneRepo(b *testing.B) { benchScan(b, fleet500one) }

// BenchmarkWhere500OneRepo: where for the repository every one of the 500 apps uses.
func BenchmarkWhere500OneRepo(b *testing.B) { benchWhere(b, fleet500one, 500) }

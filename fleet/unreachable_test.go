package fleet_test

import (
	"context"
	"fmt"
	"net/http/httptrace"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// unreachableGitHost never resolves (.invalid, RFC 2606).
const unreachableGitHost = "git.fleet.invalid"

var fleetSource = regexp.MustCompile(`repoURL: "\$\{GIT\}/config\.git", path: (apps/[^,]+)`)

// gitUnreachable points a generated fleet's Applications at a git host that
// does not resolve, as for a bot without egress to git: all at one
// repository, or (perApp) each at a repository of its own on that host, so
// that only the host is common to them.
func gitUnreachable(sc *lab.Scenario, perApp bool) *lab.Scenario {
	if perApp {
		sc.Objects = fleetSource.ReplaceAllString(sc.Objects, `repoURL: "https://`+unreachableGitHost+`/$1.git", path: $1`)
	} else {
		sc.Objects = strings.ReplaceAll(sc.Objects, "${GIT}/config.git", "https://"+unreachableGitHost+"/config.git")
	}
	return sc
}

// lookups counts the DNS lookups of host made under the returned context.
func lookups(ctx context.Context, host string) (context.Context, *atomic.Int64) {
	var n atomic.Int64
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{DNSStart: func(i httptrace.DNSStartInfo) {
		if i.Host == host {
			n.Add(1)
		}
	}}), &n
}

// TestScanSharesAnUnreachableGitHost: a scan of apps whose git host does
// not resolve looks the host up once, whether the apps share a repository
// or each has its own; and every app's answer is the one a diagnosis of
// that app alone gives, down to the finding naming its own repository.
func TestScanSharesAnUnreachableGitHost(t *testing.T) {
	for _, perApp := range []bool{false, true} {
		t.Run(fmt.Sprintf("repository per app %v", perApp), func(t *testing.T) {
			env, err := lab.Start(context.Background(), gitUnreachable(lab.FleetScenario(lab.FleetSpec{Apps: 24, Repos: 4, MinTags: 3, MaxTags: 12, Due: 3}), perApp))
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			ctx, n := lookups(context.Background(), unreachableGitHost)
			res, err := (&fleet.Scanner{Engine: env.Engine()}).Scan(ctx, fleet.Query{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Apps) != 24 || res.Partial {
				t.Fatalf("%d apps, partial %v", len(res.Apps), res.Partial)
			}
			if got := n.Load(); got != 1 {
				t.Errorf("%d lookups of %s for 24 apps, want 1", got, unreachableGitHost)
			}
			for _, a := range res.Apps {
				alone := env.Engine().Diagnose(context.Background(), diagnostics.Request{App: a.App.Name, Namespace: a.App.Namespace})
				if got, want := answer(a), answer(fleet.ResultOf(alone, a.Project)); got != want {
					t.Errorf("%s: the scan's answer differs from a diagnosis of the app alone:\nscan:  %s\nalone: %s", a.App, got, want)
				}
				if !strings.Contains(findings(alone), unreachableGitHost) || perApp && !strings.Contains(a.Title+" "+findings(alone), a.App.Name+".git") {
					t.Errorf("%s: no finding names the unreachable repository: %s", a.App, findings(alone))
				}
			}
		})
	}
}

// answer is what a scan keeps of an app, as text.
func answer(a report.AppResult) string {
	return fmt.Sprintf("%s %s %s %s | %s", a.State, a.Code, a.Stage, a.Title, a.Headline)
}

// findings is a report's findings as text, in stage order.
func findings(r *report.Report) string {
	var b strings.Builder
	for _, f := range r.Findings() {
		fmt.Fprintf(&b, "[%s %s %s %s] ", f.Stage, f.Code, f.Severity, f.Title)
	}
	return b.String()
}

// BenchmarkScanGitUnreachable is issue 14's "one unreachable host slows
// every app", in process: the same 500-app fleet scanned with its git host
// reachable, unresolvable (one repository for all apps) and unresolvable
// with a repository per app, side by side; ratio is unreachable over
// reachable (the target is 1.5 or less).
//
//	go test ./fleet/ -run '^$' -bench ScanGitUnreachable -benchtime 3x
func BenchmarkScanGitUnreachable(b *testing.B) {
	spec := lab.FleetSpec{Apps: 500, Repos: 150, MinTags: 50, MaxTags: 500}
	envs := map[string]*lab.Env{}
	for name, sc := range map[string]*lab.Scenario{
		"reachable":   lab.FleetScenario(spec),
		"unreachable": gitUnreachable(lab.FleetScenario(spec), false),
		"per-app":     gitUnreachable(lab.FleetScenario(spec), true),
	} {
		env, err := lab.Start(context.Background(), sc)
		if err != nil {
			b.Fatal(err)
		}
		defer env.Close()
		envs[name] = env
		// Warm the lab's lazily pushed images, not the scan.
		if _, err := (&fleet.Scanner{Engine: env.Engine()}).Scan(context.Background(), fleet.Query{}); err != nil {
			b.Fatal(err)
		}
	}
	total := map[string]time.Duration{}
	b.ResetTimer()
	for range b.N {
		for _, name := range []string{"reachable", "unreachable", "per-app"} {
			t0 := time.Now()
			res, err := (&fleet.Scanner{Engine: envs[name].Engine()}).Scan(context.Background(), fleet.Query{})
			if err != nil || res.Partial {
				b.Fatalf("%s: %v, partial %v", name, err, res != nil && res.Partial)
			}
			total[name] += time.Since(t0)
		}
	}
	ms := func(name string) float64 { return float64(total[name].Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms("reachable"), "reachable-ms")
	b.ReportMetric(ms("unreachable"), "unreachable-ms")
	b.ReportMetric(ms("per-app"), "per-app-ms")
	b.ReportMetric(ms("unreachable")/ms("reachable"), "ratio")
	b.ReportMetric(ms("per-app")/ms("reachable"), "per-app-ratio")
}

// Package soak holds the soak benchmark of issue 14: thousands of
// diagnoses over hundreds of repositories through one long-lived engine,
// as imgupd serve holds it, with the heap sampled after GC. Run it with
// bench/soak.sh (IMGUPD_SOAK=1); bench/README.md has the figures.
package soak

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/lab/kubefake"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/gitsource"
	"github.com/imgupd/imgupd/sources/helmchart"
	"github.com/imgupd/imgupd/sources/registry"
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

var appSource = regexp.MustCompile(`repoURL: "\$\{GIT\}/config\.git", path: apps/([^,]+)`)

// soakScenario is a generated fleet in which every app has a git
// repository and an image repository of its own: apps apps, as many of
// each kind of repository. Each git repository also holds a file of
// fileKiB KiB (a real repository holds more than two small manifests), so
// that a snapshot kept is seen in the heap. It returns the apps' names too.
func soakScenario(apps, fileKiB int) (*lab.Scenario, []string) {
	sc := lab.FleetScenario(lab.FleetSpec{Apps: apps, Repos: apps, MinTags: 20, MaxTags: 200, Due: 4})
	cfg := sc.Git.Repositories["config"]
	files := cfg.Branches["main"].Files
	repos := map[string]lab.Repo{}
	var names []string
	for _, m := range appSource.FindAllStringSubmatch(sc.Objects, -1) {
		name := m[1]
		names = append(names, name)
		own := map[string]string{}
		for p, c := range files {
			if strings.HasPrefix(p, "apps/"+name+"/") {
				own[p] = c
			}
		}
		own["apps/"+name+"/data.yaml"] = filler(name, fileKiB)
		repos[name] = lab.Repo{DefaultBranch: "main", Branches: map[string]lab.Branch{"main": {Files: own}}}
	}
	sc.Git.Repositories = repos
	sc.Objects = appSource.ReplaceAllString(sc.Objects, `repoURL: "$${GIT}/$1.git", path: apps/$1`)
	return sc, names
}

// filler is about kib KiB of YAML of its own for an app.
func filler(app string, kib int) string {
	var b strings.Builder
	for i := 0; b.Len() < kib<<10; i++ {
		fmt.Fprintf(&b, "k%06d: %x\n", i, sha256.Sum256([]byte(fmt.Sprint(app, i))))
	}
	return b.String()
}

// clearLab drops what the lab itself piles up per request (client-go's
// fakes record every action), so that the heap shows what imgupd keeps.
func clearLab(env *lab.Env) {
	r, ok := env.Engine().Cluster.(*cluster.Reader)
	if !ok {
		return
	}
	if k, ok := r.Kube.(*kubefake.Clientset); ok {
		k.ClearActions()
	}
	if d, ok := r.Dynamic.(*dynamicfake.FakeDynamicClient); ok {
		d.ClearActions()
	}
	env.Registry.ResetRequests()
	env.Git.ResetRequests()
}

// heapMiB is the live heap after two GCs.
func heapMiB() float64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

// round diagnoses every app once, conc at a time, through engine (a
// fresh one per diagnosis when engine is nil) and returns how long it
// took. Every report must come back with an answer.
func round(t *testing.T, env *lab.Env, engine func() *diagnostics.Engine, apps []string, conc int) time.Duration {
	t.Helper()
	start := time.Now()
	work := make(chan string)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var bad []string
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for app := range work {
				rep := engine().Diagnose(context.Background(), diagnostics.Request{App: app, Namespace: "argocd"})
				if rep.State == report.StateUnknown {
					mu.Lock()
					bad = append(bad, app+": "+rep.Headline)
					mu.Unlock()
				}
			}
		}()
	}
	for _, a := range apps {
		work <- a
	}
	close(work)
	wg.Wait()
	if len(bad) > 0 {
		t.Fatalf("%d diagnoses without an answer, e.g. %s", len(bad), bad[0])
	}
	return time.Since(start)
}

// TestSoak runs IMGUPD_SOAK_ROUNDS rounds (default 10) over
// IMGUPD_SOAK_APPS apps (default 300, each with its own git repository,
// holding a file of IMGUPD_SOAK_FILE_KIB KiB, default 64, and its own
// image repository), 8 at a time: first through a fresh engine per
// diagnosis (the reference: nothing can be kept), then through one
// long-lived engine. It prints the live heap after each round and fails
// when the long-lived engine's heap grows after its first round by more
// than IMGUPD_SOAK_GROWTH_MIB (default 4), or stays above the reference's
// by more than IMGUPD_SOAK_KEPT_MIB (default 8: the bounded caches, far
// below their bounds at this size; a snapshot kept per repository is 19
// MiB here).
func TestSoak(t *testing.T) {
	if os.Getenv("IMGUPD_SOAK") == "" {
		t.Skip("the soak benchmark runs with IMGUPD_SOAK=1 (bench/soak.sh)")
	}
	apps, rounds, fileKiB := envInt("IMGUPD_SOAK_APPS", 300), envInt("IMGUPD_SOAK_ROUNDS", 10), envInt("IMGUPD_SOAK_FILE_KIB", 64)
	growthMax, keptMax := float64(envInt("IMGUPD_SOAK_GROWTH_MIB", 4)), float64(envInt("IMGUPD_SOAK_KEPT_MIB", 8))
	const conc = 8
	t0 := time.Now()
	sc, names := soakScenario(apps, fileKiB)
	if len(names) != apps {
		t.Fatalf("%d apps in the scenario, want %d", len(names), apps)
	}
	env, err := lab.Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	base := env.Engine()
	fresh := func() *diagnostics.Engine {
		return &diagnostics.Engine{Cluster: base.Cluster, Registry: registry.New(), Git: gitsource.New(), Forge: base.Forge,
			Charts: helmchart.New(), Options: base.Options}
	}
	t.Logf("lab: %d apps, %d git and %d image repositories, started in %s", apps, apps, apps, time.Since(t0).Round(time.Millisecond))
	// Warm the lab (its images are pushed when first pulled), not imgupd.
	round(t, env, fresh, names, conc)
	clearLab(env)
	t.Logf("after warming the lab: heap %.1f MiB", heapMiB())

	var ref, long []float64
	var refTime, longTime time.Duration
	for r := range rounds {
		refTime += round(t, env, fresh, names, conc)
		clearLab(env)
		ref = append(ref, heapMiB())
		t.Logf("reference round %2d: %5d diagnoses, heap %.1f MiB", r+1, (r+1)*apps, ref[r])
	}
	for r := range rounds {
		longTime += round(t, env, func() *diagnostics.Engine { return base }, names, conc)
		clearLab(env)
		long = append(long, heapMiB())
		t.Logf("long-lived round %2d: %5d diagnoses, heap %.1f MiB", r+1, (r+1)*apps, long[r])
	}
	n := rounds * apps
	growth := long[rounds-1] - long[0]
	kept := long[rounds-1] - ref[rounds-1]
	summary := fmt.Sprintf("%d diagnoses over %d apps (%d git repositories with a %d KiB file + %d image repositories), 8 at a time\n"+
		"reference (fresh engine each diagnosis): heap %.1f MiB after round 1, %.1f MiB after round %d; %.1f ms/diagnosis\n"+
		"long-lived engine (as serve holds it):   heap %.1f MiB after round 1, %.1f MiB after round %d; %.1f ms/diagnosis\n"+
		"growth after round 1: %+.1f MiB (limit %.0f); kept above the reference: %+.1f MiB (limit %.0f)",
		n, apps, apps, fileKiB, apps, ref[0], ref[rounds-1], rounds, float64(refTime.Microseconds())/1000/float64(n),
		long[0], long[rounds-1], rounds, float64(longTime.Microseconds())/1000/float64(n),
		growth, growthMax, kept, keptMax)
	t.Log("\n" + summary)
	if out := os.Getenv("IMGUPD_SOAK_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(summary+"\n"), 0o644); err != nil {
			t.Error(err)
		}
	}
	if growth > growthMax {
		t.Errorf("the long-lived engine's heap grew by %.1f MiB after its first round (limit %.0f)", growth, growthMax)
	}
	if kept > keptMax {
		t.Errorf("the long-lived engine keeps %.1f MiB more than fresh engines (limit %.0f)", kept, keptMax)
	}
}

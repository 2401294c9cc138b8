package diagnostics_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/internal/heapwatch"
	"github.com/imgupd/imgupd/lab"
	labgit "github.com/imgupd/imgupd/lab/git"
	"github.com/imgupd/imgupd/lab/helmrepo"
	labregistry "github.com/imgupd/imgupd/lab/registry"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/forge"
	"github.com/imgupd/imgupd/sources/registry"
)

// The diagnoses below run against loopback servers that answer without
// end: a registry whose tag list never ends, a git host whose pack never
// ends, a Helm repository whose index.yaml never ends. Each is read up to
// imgupd's bound, the heap stays within a few times that bound, and the
// report says where it stopped and what that leaves open. Not parallel:
// the heap is the process's.

// replaceAll swaps old for new in the scenario's objects and git files.
func replaceAll(sc *lab.Scenario, old, new string) {
	sc.Objects = strings.ReplaceAll(sc.Objects, old, new)
	for _, repo := range sc.Git.Repositories {
		for _, br := range repo.Branches {
			for p, f := range br.Files {
				br.Files[p] = strings.ReplaceAll(f, old, new)
			}
		}
	}
}

func finding(r *report.Report, c report.Code) *report.Finding {
	for _, f := range r.Findings() {
		if f.Code == c {
			return &f
		}
	}
	return nil
}

func TestEndlessTagList(t *testing.T) {
	for _, tc := range []struct {
		name       string
		endless    labregistry.Endless
		constraint string
		state      report.State
		decides    bool
	}{
		// 1.0.0 runs; 1.0.1… follow: an update is due whatever the tags
		// past the bound say.
		{"update due among the tags read", labregistry.Endless{}, "", report.StateOnItsWay, false},
		{"update due, endless Link pages", labregistry.Endless{Links: true}, "", report.StateOnItsWay, false},
		// No 1.0.x among the tags read: a candidate may follow them.
		{"no candidate among the tags read", labregistry.Endless{Tag: "0.9.%d"}, "", report.StateUnknown, true},
		// An exact pin below the running 1.0.0 admits one version: the
		// rollback is due whatever follows.
		{"rollback pin found among the tags read", labregistry.Endless{Tag: "0.9.%d"}, "0.9.5", report.StateOnItsWay, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.endless)
			t.Cleanup(srv.Close)
			host := strings.TrimPrefix(srv.URL, "http://")
			env := start(t, healthy, func(sc *lab.Scenario) {
				if tc.constraint != "" {
					replaceIn(t, &sc.Objects, "team/web:~1.0", "team/web:"+tc.constraint)
				}
				replaceAll(sc, "${REGISTRY}", host)
			})
			var r *report.Report
			grew := heapwatch.Measure(func() { r = env.Diagnose(context.Background()) })
			if grew.Peak > 4*registry.DefaultMaxTagListBytes {
				t.Errorf("the heap grew by %.0f MiB, more than 4× the %d MiB bound", grew.MiB(), registry.DefaultMaxTagListBytes>>20)
			}
			t.Logf("heap +%.1f MiB\n%s", grew.MiB(), dump(r))

			big := finding(r, report.CodeRegistryTagListTooLarge)
			if big == nil || big.Severity != report.Warn || !strings.Contains(big.Title, "more than 100000 tags") ||
				big.Fix == nil || !strings.Contains(big.Fix.Summary, "reads every page into memory") {
				t.Fatalf("registry finding %+v", big)
			}
			if r.HasCode(report.CodeRegistryOK) {
				t.Error("a list cut at the bound is not REGISTRY_REACHABLE with its count")
			}
			part := finding(r, report.CodeCandidatesPartialList)
			if part == nil || part.Severity != report.Unknown || part.Decides != tc.decides || part.Verify == "" {
				t.Fatalf("partial-list finding %+v", part)
			}
			if r.State != tc.state {
				t.Errorf("state %s, want %s", r.State, tc.state)
			}
			nv := false
			for _, n := range r.NotVerified {
				nv = nv || (n.Code == report.CodeCandidatesPartialList && n.Decides == tc.decides)
			}
			if !nv {
				t.Errorf("not verified %+v lacks the partial pick", r.NotVerified)
			}
			if tc.decides {
				if r.RootCause == nil || r.RootCause.Code != report.CodeCandidatesPartialList {
					t.Errorf("root cause %+v", r.RootCause)
				}
				// What the tags read say is a warning, never the answer.
				if f := finding(r, report.CodeCandidatesNone); f == nil || f.Severity != report.Warn || !strings.Contains(f.Title, "among the first 100000 tags") {
					t.Errorf("no-candidate finding %+v", f)
				}
			} else if f := finding(r, report.CodeCandidatesUpdate); f == nil || !strings.Contains(f.Title, "a tag past them may be picked instead") {
				t.Errorf("update finding %+v", f)
			}
		})
	}
}

func TestEndlessGit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		scenario string
		mode     labgit.EndlessMode
		codes    []report.Code
	}{
		{"endless pack, source", healthy, labgit.EndlessPack, []report.Code{report.CodeSourceTooLarge}},
		{"endless refs, source and write-back", "healthy-git-writeback", labgit.EndlessRefs,
			[]report.Code{report.CodeSourceTooLarge, report.CodeWriteBackGitTooLarge}},
		{"pack bomb, source and write-back", "healthy-git-writeback", labgit.PackBomb,
			[]report.Code{report.CodeSourceTooLarge, report.CodeWriteBackGitTooLarge}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(labgit.Endless{Mode: tc.mode})
			t.Cleanup(srv.Close)
			env := start(t, tc.scenario, func(sc *lab.Scenario) { replaceAll(sc, "${GIT}/config.git", srv.URL+"/config.git") })
			// The reads end at their byte bounds (32 MiB of refs, 64 MiB of pack), whatever the
			// machine's speed: the lab's deadlines (lab.Timeout) are far beyond them, so a
			// diagnosis that reaches one says the machine is too slow, not what imgupd answers.
			var r *report.Report
			t0 := time.Now()
			grew := heapwatch.Measure(func() { r = env.Diagnose(context.Background()) })
			if took := time.Since(t0); took >= lab.Timeout {
				t.Fatalf("machine too slow: the diagnosis took %s, the lab's deadline is %s; the byte bounds were not reached in time\n%s",
					took.Round(time.Second), lab.Timeout, dump(r))
			}
			t.Logf("heap +%.1f MiB\n%s", grew.MiB(), dump(r))
			if grew.Peak > 4*(64<<20) {
				t.Errorf("the heap grew by %.0f MiB, more than 4× the 64 MiB pack bound", grew.MiB())
			}
			for _, c := range tc.codes {
				f := finding(r, c)
				if f == nil || f.Severity != report.Unknown || f.Decides || !strings.Contains(f.Title, "imgupd stopped reading") || !strings.Contains(f.Title, "imgupd reads") || f.Verify == "" {
					t.Errorf("%s: %+v", c, f)
				}
			}
			// A source or write-back repository imgupd could not read
			// decides nothing: the update is still on its way.
			if r.State != report.StateOnItsWay {
				t.Errorf("state %s, want %s", r.State, report.StateOnItsWay)
			}
		})
	}
}

func TestEndlessHelmIndex(t *testing.T) {
	env := start(t, "helm-chart-from-oci-repo", func(sc *lab.Scenario) {
		sc.HelmRepo = &lab.HelmRepoSpec{Charts: []lab.Chart{{Name: "web", Version: "2.3.0", Values: "image:\n  repository: x\n"}}}
		sc.Objects = strings.ReplaceAll(sc.Objects, `enableOCI: "true", insecureOCIForceHttp: "true"`, `enableOCI: "false"`)
		sc.Objects = strings.ReplaceAll(sc.Objects, "${REGISTRY}/charts", "${HELM_REPO}")
	})
	u, err := url.Parse(env.HelmRepo.RepoURL)
	if err != nil {
		t.Fatal(err)
	}
	env.HelmRepo.Handle(strings.TrimSuffix(u.Path, "/")+"/index.yaml", helmrepo.EndlessIndex{})
	var r *report.Report
	grew := heapwatch.Measure(func() { r = env.Diagnose(context.Background()) })
	t.Logf("heap +%.1f MiB\n%s", grew.MiB(), dump(r))
	if grew.Peak > 4*(64<<20) {
		t.Errorf("the heap grew by %.0f MiB, more than 4× the 64 MiB bound", grew.MiB())
	}
	f := finding(r, report.CodeSourceTooLarge)
	if f == nil || !strings.Contains(f.Title, "index.yaml") || f.Decides || f.Fix == nil || !strings.Contains(f.Fix.Summary, "helm-registry-max-index-size") {
		t.Fatalf("finding %+v", f)
	}
	if r.HasCode(report.CodeHelmParamNotInValues) {
		t.Error("the values were not read: no mapping verdict")
	}
}

func TestEndlessForgeAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"name":"`))
		buf := []byte(strings.Repeat("a", 32<<10))
		for r.Context().Err() == nil {
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	env := start(t, "protected-branch-github-api", nil)
	u, err := url.Parse(env.Git.URL)
	if err != nil {
		t.Fatal(err)
	}
	fc, err := forge.New(forge.WithEndpoints(forge.Endpoint{Host: u.Host, Kind: forge.GitHub, APIURL: srv.URL + "/api/v3"}))
	if err != nil {
		t.Fatal(err)
	}
	env.Engine().Forge = fc
	var r *report.Report
	grew := heapwatch.Measure(func() { r = env.Diagnose(context.Background()) })
	t.Logf("heap +%.1f MiB\n%s", grew.MiB(), dump(r))
	if grew.Peak > 32<<20 {
		t.Errorf("the heap grew by %.0f MiB against a forge whose answers are cut at 1 MiB", grew.MiB())
	}
	f := finding(r, report.CodeWriteBackPushUnverified)
	if f == nil || !strings.Contains(f.Title, "larger than the response limit") || f.Decides {
		t.Fatalf("finding %+v", f)
	}
	if r.HasCode(report.CodeWriteBackProtected) || r.HasCode(report.CodeWriteBackOK) {
		t.Error("an answer cut at the bound is neither protected nor accepting")
	}
}

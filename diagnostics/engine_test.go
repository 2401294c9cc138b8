package diagnostics_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

// The broken and healthy setups live in lab/scenarios and are checked by
// lab's TestBuiltinScenarios (and against a real API server by test/e2e).
// The tests here need what a scenario file cannot say: injected API errors,
// deadlines, other requests, request counting.

const healthy = "healthy-kustomize-argocd"

// start brings up a built-in scenario, edited.
func start(tb testing.TB, name string, edit func(*lab.Scenario)) *lab.Env {
	tb.Helper()
	sc, ok := lab.Builtin(name)
	if !ok {
		tb.Fatalf("no built-in scenario %s", name)
	}
	if edit != nil {
		edit(sc)
	}
	env, err := lab.Start(context.Background(), sc)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(env.Close)
	return env
}

// argvWith is the fix's shell step whose commands' words contain each of
// want (a word equal to it, or holding it), read from the step's data.
func argvWith(fix *report.Fix, want ...string) *report.Step {
	if fix == nil {
		return nil
	}
	for i, s := range fix.Steps {
		var words []string
		for _, argv := range s.Run.Argvs(nil) {
			words = append(words, argv...)
		}
		ok := len(words) > 0
		for _, w := range want {
			ok = ok && slices.ContainsFunc(words, func(x string) bool { return strings.Contains(x, w) })
		}
		if ok {
			return &fix.Steps[i]
		}
	}
	return nil
}

// stepWith is the fix's step of language lang whose text contains all of
// want, or nil.
func stepWith(fix *report.Fix, lang report.StepLang, want ...string) *report.Step {
	if fix == nil {
		return nil
	}
	for i, s := range fix.Steps {
		if s.Lang != lang {
			continue
		}
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(s.Text, w)
		}
		if ok {
			return &fix.Steps[i]
		}
	}
	return nil
}

func dump(r *report.Report) string {
	var b strings.Builder
	render.Text(&b, r, render.TextOptions{Verbose: true})
	return b.String()
}

func TestAppNotFoundSuggestsNames(t *testing.T) {
	t.Parallel() // its own lab
	env := start(t, healthy, nil)
	r := env.Engine().Diagnose(context.Background(), diagnostics.Request{App: "wbe", Namespace: "argocd"})
	if r.RootCause == nil || r.RootCause.Code != report.CodeAppNotFound || !strings.Contains(r.RootCause.Title, "did you mean web?") {
		t.Fatalf("root cause %+v\n%s", r.RootCause, dump(r))
	}
	for _, s := range r.Stages[2:] {
		if s.Status != report.Skipped || s.SkipReason == "" {
			t.Errorf("stage %s should be skipped with a reason, got %s", s.ID, s.Status)
		}
	}
}

// TestForbiddenReadNamesRule: a read RBAC forbids becomes a finding that
// names the missing rule, never a pass.
func TestForbiddenReadNamesRule(t *testing.T) {
	t.Parallel() // its own lab
	env := start(t, healthy, nil)
	reader := env.Engine().Cluster.(*cluster.Reader)
	reader.Dynamic.(*dynamicfake.FakeDynamicClient).PrependReactor("list", "imageupdaters", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "argocd-image-updater.argoproj.io", Resource: "imageupdaters"}, "", errors.New("RBAC"))
	})
	r := env.Diagnose(context.Background())
	st := r.Stage(report.StageTarget)
	if st.Status != report.Unknown {
		t.Fatalf("target stage %s, want unknown\n%s", st.Status, dump(r))
	}
	f := st.Findings[0]
	if f.Code != report.CodeReadForbidden || !strings.Contains(f.Evidence[0].Value, "argocd-image-updater.argoproj.io") || !strings.Contains(f.Evidence[0].Value, "imageupdaters") {
		t.Fatalf("finding %+v", f)
	}
	if r.Verdict == report.VerdictHealthy {
		t.Error("a forbidden read must not end in a healthy verdict")
	}
}

// TestDeadline: a registry slower than the diagnosis's deadline does not
// hang it; the report says what was not finished. The registry holds the
// tag list until the client gives up (10 minutes), so only the diagnosis's
// deadline ends the read, however slow the machine. The deadline (20 s,
// imgupd's default) leaves the stages before the registry the time a loaded
// machine needs; a diagnosis that ran out of it before the registry says the
// machine is too slow, and the minute allowed after it is a net for a
// diagnosis that hangs, not a timing.
func TestDeadline(t *testing.T) {
	t.Parallel() // its own lab; it waits out its deadline
	env := start(t, healthy, func(sc *lab.Scenario) {
		sc.Registry.Behaviours = append(sc.Registry.Behaviours, lab.Behaviour{Repo: "team/web", Delay: "10m", Only: "tags"})
	})
	const deadline = 20 * time.Second
	env.Engine().Options.Timeout = deadline
	t0 := time.Now()
	r := env.Diagnose(context.Background())
	if d := time.Since(t0); d > deadline+time.Minute {
		t.Fatalf("the diagnosis hung: it took %s with a %s deadline", d.Round(time.Second), deadline)
	}
	for _, nv := range r.NotVerified {
		if nv.Stage == report.StageRegistry {
			break
		}
		if nv.Code == report.CodeCheckTimeout || strings.Contains(nv.What, "deadline") || strings.Contains(nv.What, "timed out") {
			t.Fatalf("machine too slow: the diagnosis ran out of its %s before the registry stage: %+v", deadline, nv)
		}
	}
	if r.State != report.StateUnknown || len(r.NotVerified) == 0 || !r.NotVerified[0].Decides {
		t.Fatalf("state %s, not verified %+v\n%s", r.State, r.NotVerified, dump(r))
	}
	if r.State.ExitCode() != 2 {
		t.Errorf("exit code %d for unknown", r.State.ExitCode())
	}
}

// TestLogSecretsRedacted: Image Updater's own log lines are evidence; the
// credentials they may carry never reach the report.
func TestLogSecretsRedacted(t *testing.T) {
	t.Parallel() // its own lab
	const pass, token = "CANARY-log-pass-51ab", "CANARY-log-token-9f02"
	env := start(t, healthy, func(sc *lab.Scenario) {
		sc.Logs += `time="2026-11-29T10:05:00Z" level=error msg="Could not update application spec: could not push to https://bot:` + pass +
			`@git.example.com/org/config.git: Authorization: Bearer ` + token + ` rejected" application=argocd/web` + "\n"
	})
	r := env.Diagnose(context.Background())
	if !r.HasCode(report.CodeUpdaterLogErrors) {
		t.Fatalf("the error line should be evidence\n%s", dump(r))
	}
	var b strings.Builder
	render.Text(&b, r, render.TextOptions{Verbose: true})
	render.Markdown(&b, r)
	j, _ := json.Marshal(r)
	b.Write(j)
	for _, s := range []string{pass, token} {
		if strings.Contains(b.String(), s) {
			t.Fatalf("log secret %q leaked", s)
		}
	}
	if !strings.Contains(b.String(), "git.example.com/org/config.git") {
		t.Error("the redacted line should still be shown")
	}
}

// threeImages is the healthy scenario with two more images: api (semver)
// and worker (newest-build over 200 single-platform tags).
func threeImages(sc *lab.Scenario) {
	sc.Registry.Repositories["team/api"] = []lab.Image{{Tag: "2.3.0"}, {Tag: "2.4.0"}}
	var builds []lab.Image
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 200; i++ {
		builds = append(builds, lab.Image{Tag: fmt.Sprintf("build-%03d", i), Created: base.Add(time.Duration(i) * time.Hour).Format(time.RFC3339)})
	}
	sc.Registry.Repositories["team/worker"] = builds
	repl := func(old, new string) {
		if !strings.Contains(sc.Objects, old) {
			panic("scenario text changed: " + old)
		}
		sc.Objects = strings.Replace(sc.Objects, old, new, 1)
	}
	repl(`summary: {images: ["${REGISTRY}/team/web:1.0.0"]}`,
		`summary: {images: ["${REGISTRY}/team/web:1.0.0", "${REGISTRY}/team/api:2.3.0", "${REGISTRY}/team/worker:build-100"]}`)
	repl(`      manifestTargets: {kustomize: {name: "${REGISTRY}/team/web"}}`, `      manifestTargets: {kustomize: {name: "${REGISTRY}/team/web"}}
    - alias: api
      imageName: "${REGISTRY}/team/api:2.x"
      manifestTargets: {kustomize: {name: "${REGISTRY}/team/api"}}
    - alias: worker
      imageName: "${REGISTRY}/team/worker"
      commonUpdateSettings: {updateStrategy: newest-build}
      manifestTargets: {kustomize: {name: "${REGISTRY}/team/worker"}}`)
	repo := sc.Git.Repositories["config"]
	files := repo.Branches["main"].Files
	files["apps/web/kustomization.yaml"] += "- name: ${REGISTRY}/team/api\n- name: ${REGISTRY}/team/worker\n"
}

// TestRegistryRequestsAreMinimal: one tag list per repository, one manifest
// per newest-build tag and one config per distinct image; a second
// diagnosis on the same engine fetches no config again.
func TestRegistryRequestsAreMinimal(t *testing.T) {
	t.Parallel() // its own lab
	env := start(t, healthy, threeImages)
	env.Registry.ResetRequests()
	r := env.Diagnose(context.Background())
	if r.Verdict != report.VerdictHealthy || len(r.Candidates) != 3 {
		t.Fatalf("verdict %s, %d candidate tables\n%s", r.Verdict, len(r.Candidates), dump(r))
	}
	got := env.Registry.Requests()
	if got.Tags != 3 || got.Manifest != 200 || got.Blob != 200 {
		t.Fatalf("requests %+v: want 3 tag lists, 200 manifests, 200 configs", got)
	}
	if r.RegistryRequests != int64(got.Total()) {
		t.Errorf("report counts %d registry requests, the registry saw %d", r.RegistryRequests, got.Total())
	}
	env.Registry.ResetRequests()
	env.Diagnose(context.Background())
	if got := env.Registry.Requests(); got.Blob != 0 || got.Manifest != 200 {
		t.Errorf("second diagnosis: %+v, want 200 manifests (tags may move) and no config", got)
	}
}

// BenchmarkDiagnoseThreeImages diagnoses the three-image app against the
// loopback registry and git server with a cold cache each time; it reports
// each stage's time and the registry requests per diagnosis.
func BenchmarkDiagnoseThreeImages(b *testing.B) {
	env := start(b, healthy, threeImages)
	eng := env.Engine()
	stageTotals := map[report.StageID]time.Duration{}
	var requests int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cold := *eng
		cold.Registry = newRegistryClient()
		cold.Git = newGitClient()
		r := cold.Diagnose(context.Background(), env.Request())
		if r.Verdict != report.VerdictHealthy {
			b.Fatalf("verdict %s", r.Verdict)
		}
		for _, s := range r.Stages {
			stageTotals[s.ID] += s.Duration
		}
		requests += r.RegistryRequests
	}
	for id, d := range stageTotals {
		b.ReportMetric(float64(d.Microseconds())/1000/float64(b.N), "ms-"+string(id)+"/op")
	}
	b.ReportMetric(float64(requests)/float64(b.N), "registry-requests/op")
}

// TestLogErrorsGroupRepeats: the same error every cycle is one piece of
// evidence with its count and the time of its latest occurrence, not five
// copies pushing older, different errors out.
func TestLogErrorsGroupRepeats(t *testing.T) {
	t.Parallel() // its own lab
	env := start(t, healthy, func(sc *lab.Scenario) {
		sc.Logs += `time="2026-11-29T09:58:00Z" level=warning msg="Could not fetch credentials: stale" application=argocd/web` + "\n"
		for _, ts := range []string{"10:00:01", "10:02:00", "10:04:00", "10:06:00", "10:08:00", "10:10:00"} {
			sc.Logs += `time="2026-11-29T` + ts + `Z" level=error msg="Could not get tags from registry: toomanyrequests: slow down" application=argocd/web` + "\n"
		}
	})
	r := env.Diagnose(context.Background())
	var ev []report.Evidence
	for _, st := range r.Stages {
		for _, f := range st.Findings {
			if f.Code == report.CodeUpdaterLogErrors {
				ev = f.Evidence
			}
		}
	}
	if len(ev) != 2 {
		t.Fatalf("want 2 distinct messages as evidence, got %+v\n%s", ev, dump(r))
	}
	if ev[0].Label != "09:58:00 warning" || !strings.Contains(ev[0].Value, "stale") || strings.Contains(ev[0].Value, "times") {
		t.Errorf("older distinct message: %+v", ev[0])
	}
	if ev[1].Label != "10:10:00 error" || !strings.HasSuffix(ev[1].Value, "slow down (6 times)") {
		t.Errorf("repeated message: %+v", ev[1])
	}
}

// TestV0WriteBackConfigErrorIsTheAnswer: with v0.x annotations, a write-back
// configuration that does not parse (a git-branch of two colons) makes
// Image Updater fail the app's cycle; the report names it, in the
// write-back stage, as the root cause (it had no finding at all, and the
// state was unknown).
func TestV0WriteBackConfigErrorIsTheAnswer(t *testing.T) {
	t.Parallel() // its own lab
	env := start(t, "updater-v0-18-pull-secret-in-kube-system", func(sc *lab.Scenario) {
		const pull = `argocd-image-updater.argoproj.io/web.pull-secret: "secret:kube-system/registry-admin#creds"`
		i := strings.Index(sc.Objects, pull)
		if i < 0 {
			t.Fatal("the scenario no longer sets the pull-secret annotation this test replaces")
		}
		indent := sc.Objects[strings.LastIndexByte(sc.Objects[:i], '\n')+1 : i]
		sc.Objects = strings.Replace(sc.Objects, pull, "argocd-image-updater.argoproj.io/write-back-method: git\n"+
			indent+`argocd-image-updater.argoproj.io/git-branch: "main:x:y"`, 1)
	})
	r := env.Engine().Diagnose(context.Background(), diagnostics.Request{App: "web", Namespace: "argocd"})
	if r.RootCause == nil || r.RootCause.Code != "WRITEBACK_CONFIG_ERROR" || r.RootCause.Stage != report.StageWriteBack ||
		!strings.Contains(r.RootCause.Title, `"main:x:y"`) || r.State != report.StateBlocked {
		t.Fatalf("root cause %+v, state %s\n%s", r.RootCause, r.State, dump(r))
	}
}

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/commands/demo"
	"github.com/imgupd/imgupd/report"
)

// sharedLab is the lab the demo tests of this test binary run on: each built-in scenario runs
// once, when a test first asks for it, and its report is shared by every test that reads it (the
// scenario list, the fleet summary, one scenario's report), so that the whole lab runs once per
// test binary, not once per test. The reports are only read (demo --summary renames a copy).
var sharedLab = sync.OnceValue(func() *onceLab {
	l := &onceLab{byName: map[string]command.Scenario{}}
	all, err := embeddedLab{}.Scenarios()
	l.err = err
	for _, sc := range all {
		o := &onceScenario{Scenario: sc}
		l.all = append(l.all, o)
		l.byName[sc.Info().Name] = o
	}
	return l
})

// onceLab is the embedded lab whose built-in scenarios each run once (sharedLab); scenario files
// and fleets are the embedded lab's, run each time.
type onceLab struct {
	embeddedLab
	all    []command.Scenario
	err    error
	byName map[string]command.Scenario
}

func (l *onceLab) Scenarios() ([]command.Scenario, error) { return l.all, l.err }

func (l *onceLab) Scenario(name string) (command.Scenario, bool) {
	sc, ok := l.byName[name]
	return sc, ok
}

// onceScenario is a scenario that runs once: every Run after the first returns its report.
type onceScenario struct {
	command.Scenario
	once sync.Once
	rep  *report.Report
	err  error
}

func (s *onceScenario) Run(ctx context.Context) (*report.Report, error) {
	s.once.Do(func() { s.rep, s.err = s.Scenario.Run(context.WithoutCancel(ctx)) })
	return s.rep, s.err
}

// runDemo is runCLI on the shared lab (sharedLab).
func runDemo(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCLIWith(t, withLab(sharedLab()), nil, args...)
}

func TestDemoJSON(t *testing.T) {
	t.Parallel()
	code, out, errOut := runDemo(t, "demo", "-o", "json", "--parallel", "8")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	if !strings.HasPrefix(out, schemaHead) {
		t.Errorf("the scenario list does not open with %q: %.80q", schemaHead, out)
	}
	var doc struct {
		Scenarios []struct {
			Name       string  `json:"name"`
			Expected   string  `json:"expected"`
			RootCause  *string `json:"rootCause"`
			Passed     bool    `json:"passed"`
			DurationMs *int64  `json:"durationMs"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Scenarios) == 0 {
		t.Fatal("no scenarios")
	}
	for _, s := range doc.Scenarios {
		if s.Name == "" || s.Expected == "" || !s.Passed || s.DurationMs == nil {
			t.Errorf("scenario %+v", s)
		}
	}
}

func TestDemoScenarioFile(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join("..", "..", "lab", "scenarios", "healthy-kustomize-argocd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// A hand-written file: the healthy setup, but expecting a failure it
	// does not have, so the demo must say it missed.
	missed := strings.Replace(string(src), "expect: healthy", "expect: REGISTRY_UNAUTHORIZED", 1)
	missed = strings.Replace(missed, "name: healthy-kustomize-argocd\n", "", 1) // named after the file
	path := filepath.Join(dir, "my-setup.yaml")
	if err := os.WriteFile(path, []byte(missed), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, nil, "demo", "--scenario", path)
	if code != 1 || !strings.Contains(errOut, "scenario my-setup expects REGISTRY_UNAUTHORIZED, the diagnosis names healthy") || !strings.Contains(out, "Scenario my-setup") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = runDemo(t, "demo", "--scenario", "healthy-kustomize-argocd", "-o", "markdown")
	if code != 0 || !strings.Contains(out, "## 🔵 argocd/web: update on its way") || !strings.Contains(out, "state `update-on-its-way`") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	code, _, errOut = runCLI(t, nil, "demo", "--scenario", "helthy-kustomize-argocd")
	if code != exitUsage || !strings.Contains(errOut, "did you mean healthy-kustomize-argocd?") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("expect: healthy\napp: {name: web}\nobjects: x\nregistyr: {}\n"), 0o600)
	code, _, errOut = runCLI(t, nil, "demo", "--scenario", bad)
	if code != 2 || !strings.Contains(errOut, "does not parse") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

func TestDemoBlockKit(t *testing.T) {
	t.Parallel()
	code, out, errOut := runDemo(t, "demo", "--scenario", "report-1-image-not-live", "-o", "blockkit")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p struct {
		Message struct {
			Text   string
			Blocks []map[string]any
		}
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("not a payload: %v\n%s", err, out)
	}
	if !strings.Contains(p.Message.Text, "argocd/web is blocked: the image is not live") || !strings.Contains(out, "LIVE_IMAGE_NOT_LIVE") || len(p.Message.Blocks) == 0 || p.Message.Blocks[0]["type"] != "header" {
		t.Fatalf("payload %+v", p.Message)
	}
	code, _, errOut = runCLI(t, nil, "demo", "-o", "blockkit")
	if code != exitUsage || !strings.Contains(errOut, "add --scenario") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// TestDemoTableFitsAHundredColumns: the scenario list a newcomer sees fits 100 columns, names each
// scenario whole (a long name on a line of its own), gives its state in words and its cause; the
// lab's own check (expected codes, ✔, time) only with --expected.
func TestDemoTableFitsAHundredColumns(t *testing.T) {
	t.Parallel()
	var all []command.Scenario
	for _, name := range []string{"healthy-kustomize-argocd", "article-3-registry-credentials", "article-2-allow-tags-match-nothing", "writeback-ssh-host-key-unknown-before"} {
		sc, ok := sharedLab().Scenario(name)
		if !ok {
			t.Fatalf("no scenario %s", name)
		}
		all = append(all, sc)
	}
	results := demo.RunScenarios(context.Background(), all, 2, nil)
	var b strings.Builder
	if err := writeScenarioTable(streams{Out: &b}, scenarioList{Results: results}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > demo.Width {
			t.Errorf("%d columns: %q", n, l)
		}
	}
	for _, want := range []string{"SCENARIO", "STATE", "CAUSE", "\nwriteback-ssh-host-key-unknown-before\n", "healthy-kustomize-argocd", "➜ update on its way",
		"✗ blocked", "the registry wants credentials", "⊘ held back by configuration", "Each gave the answer it expects (--expected shows the check)."} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "REGISTRY_UNAUTHORIZED") || strings.Contains(out, "EXPECTED") {
		t.Errorf("the lab's check shows without --expected:\n%s", out)
	}
	b.Reset()
	if err := writeScenarioTable(streams{Out: &b}, scenarioList{Results: results, Expected: true}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "EXPECTED") || !strings.Contains(out, "✔ blocked REGISTRY_UNAUTHORIZED") || !strings.Contains(out, "4 passed, 0 failed") {
		t.Errorf("--expected:\n%s", out)
	}
}

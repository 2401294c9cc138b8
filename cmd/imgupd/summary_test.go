package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/present/blockkit"
	"github.com/imgupd/imgupd/report"
)

// labFleet starts a generated lab fleet and is the option that points
// `imgupd summary` and `imgupd where` at it instead of a cluster.
func labFleet(t *testing.T, sc *lab.Scenario) rootOption {
	t.Helper()
	env, err := lab.Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	return withScanEngine(func(context.Context) (*diagnostics.Engine, error) { return env.Engine(), nil })
}

// thirtyApps: 30 apps over 5 repositories, every 4th with an update due
// (8), every 10th with its image not live (3 blocked), 19 up to date.
func thirtyApps() *lab.Scenario {
	return lab.FleetScenario(lab.FleetSpec{Apps: 30, Repos: 5, MinTags: 3, MaxTags: 30, Due: 4, Broken: 10})
}

func TestSummaryCommand(t *testing.T) {
	fleet := labFleet(t, thirtyApps())

	code, out, errOut := runCLIWith(t, fleet, nil, "summary")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (blocked)\n%s\n%s", code, out, errOut)
	}
	if errOut != "" {
		t.Errorf("stderr is not a terminal, yet has %q", errOut)
	}
	for _, want := range []string{
		"✗  Image Updater fleet · every Application · ", " · 30 app(s) in ",
		"\n\n   ✗ blocked              3\n   ➜ update on its way    8\n   ✔ up to date          19\n\n", // no empty count
		"3 app(s) need someone:\n\n✗ blocked · Live image (3)\n",
		"   argocd/app-0009-r004  LIVE_IMAGE_NOT_LIVE  the image is not live in the Application\n",
		"   argocd/app-0029-r004  LIVE_IMAGE_NOT_LIVE",
		"Next: imgupd diagnose APP -n NAMESPACE shows an app's full report and its fix, e.g. imgupd diagnose app-0009-r004 -n argocd\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}

	code, out, _ = runCLIWith(t, fleet, nil, "summary", "-o", "json")
	var s report.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != 1 {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	if s.Total != 30 || s.Worst != report.StateBlocked || s.NeedAttention() != 3 || len(s.Fine) != 27 || s.Hash == "" || s.Stats.TagLists != 5 {
		t.Errorf("JSON summary: total %d worst %s attention %d fine %d hash %q stats %+v", s.Total, s.Worst, s.NeedAttention(), len(s.Fine), s.Hash, s.Stats)
	}

	code, out, _ = runCLIWith(t, fleet, nil, "summary", "-o", "markdown")
	if code != 1 || !strings.Contains(out, "### ✗ blocked · Live image (3)") || !strings.Contains(out, "| `argocd/app-0019-r004` | `LIVE_IMAGE_NOT_LIVE` |") {
		t.Errorf("exit %d, markdown:\n%s", code, out)
	}

	code, out, _ = runCLIWith(t, fleet, nil, "summary", "-o", "blockkit")
	var p blockkit.Payload
	if err := json.Unmarshal([]byte(out), &p); err != nil || code != 1 {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	if errs := blockkit.Validate(p); len(errs) > 0 || len(p.Thread) != 1 || !strings.Contains(out, blockkit.ActionSummaryRerun) || !strings.Contains(p.Message.Text, "3 blocked") {
		t.Errorf("payload %v:\n%s", errs, out)
	}

	// The scope narrows the scan; with nobody blocked the exit status is 0.
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--name", "app-000[0-8]*"}, 0, "· names app-000[0-8]* · 2026"},
		{[]string{"--name", "app-000[0-8]*"}, 0, "Nothing needs anyone. imgupd diagnose APP -n NAMESPACE shows an app's full report."},
		{[]string{"-n", "argocd", "--name", "app-0009-*", "--name", "app-0019-*"}, 1, "✗ blocked · Live image (2)"},
		{[]string{"--project", "payments"}, 0, "· 0 app(s)"},
		{[]string{"-l", "team=checkout"}, 0, "· labels team=checkout · "},
		{[]string{"--namespace", "other-*"}, 0, "\n\n   no managed app in scope\n"},
	} {
		code, out, errOut := runCLIWith(t, fleet, nil, append([]string{"summary"}, tc.args...)...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("summary %s: exit %d (want %d), lacks %q:\n%s%s", strings.Join(tc.args, " "), code, tc.code, tc.want, out, errOut)
		}
	}
}

// TestSummaryExitStatus: the exit status is the worst state's; bad flags
// and no cluster are 2 with a one-line error.
func TestSummaryExitStatus(t *testing.T) {
	for st, want := range map[report.State]int{
		report.StateUpToDate: 0, report.StateOnItsWay: 0, report.StateBlocked: 1, report.StateUnknown: 2,
		report.StateWrongUpdate: 3, report.StateNotDeployed: 4, report.StateHeldBack: 5,
	} {
		got := 0
		if err := stateExit(st); err != nil {
			got = err.(*exitError).code
		}
		if got != want {
			t.Errorf("%s: exit %d, want %d", st, got, want)
		}
	}

	for _, tc := range []struct {
		name string
		args []string
		err  string
		code int
	}{
		{"unknown output", []string{"-o", "yaml"}, `--output "yaml": want text, json, markdown or blockkit`, exitUsage},
		{"bad selector", []string{"--selector", "a in (("}, `scope: selector "a in (("`, exitUsage},
		{"bad glob", []string{"--name", "app-["}, `scope: "app-[" is not a glob`, exitUsage},
		{"no concurrency", []string{"--concurrency", "0"}, "--concurrency 0: want at least 1", exitUsage},
		{"no deadline", []string{"--deadline", "0s"}, "--deadline 0s: want a positive duration", exitUsage},
		{"bad forge", []string{"--forge", "sourcehut:git.example"}, "sourcehut", exitUsage},
		{"no cluster", []string{"--kubeconfig", filepath.Join(t.TempDir(), "missing")}, "missing", exitConfig},
		{"an argument", []string{"web"}, "unknown command", exitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, append([]string{"summary"}, tc.args...)...)
			if code != tc.code || !strings.Contains(errOut, tc.err) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 || out != "" {
				t.Errorf("exit %d, stderr %q (want %d and one line with %q), stdout %q", code, errOut, tc.code, tc.err, out)
			}
		})
	}
}

// TestSummaryPartial: a scan that runs out of time prints what it has,
// says it is partial, and exits 2 (unknown) when nothing is worse.
func TestSummaryPartial(t *testing.T) {
	t.Parallel() // it waits for the scan's deadline
	sc := lab.FleetScenario(lab.FleetSpec{Apps: 6, Repos: 2})
	sc.Registry.Behaviours = []lab.Behaviour{{Repo: "team/svc-001", Delay: "10m", Only: "tags"}} // held until imgupd gives up
	fleet := labFleet(t, sc)
	code, out, errOut := runCLIWith(t, fleet, nil, "summary", "--deadline", "5s", "--concurrency", "2")
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, out, errOut)
	}
	// How long the scan took is the machine's (the deadline, then what it takes to stop).
	if !regexp.MustCompile(` · 6 app\(s\) in [0-9.]+s · partial\n`).MatchString(out) {
		t.Errorf("lacks \" · 6 app(s) in …s · partial\":\n%s", out)
	}
	for _, want := range []string{" · partial\n", "partial: the scan's deadline ended it", "? unknown · "} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
}

// TestSummaryConfig: the summary section of the config file is read as
// the other commands' (keys are flags, did you mean for a typo), and
// config check accepts it.
func TestSummaryConfig(t *testing.T) {
	fleet := labFleet(t, thirtyApps())
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte(serveConfig+"summary:\n  output: json\n  name: [\"app-000[0-8]*\", \"app-0019-*\"]\n  concurrency: 4\n  deadline: 1m\n"), 0o600)
	code, out, errOut := runCLIWith(t, fleet, nil, "--config", good, "summary")
	var s report.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != 1 || s.Total != 10 {
		t.Fatalf("exit %d, %v, %d apps: %s\n%s", code, err, s.Total, errOut, out)
	}
	// The environment wins over the file.
	code, out, _ = runCLIWith(t, fleet, map[string]string{"IMGUPD_OUTPUT": "markdown"}, "--config", good, "summary")
	if code != 1 || !strings.HasPrefix(out, "## ✗ Image Updater fleet") {
		t.Errorf("exit %d:\n%s", code, out)
	}

	code, out, errOut = runCLIWith(t, fleet, nil, "config", "check", "--config", good)
	if code != 0 || !strings.Contains(out, "summary: ") || !strings.Contains(out, "output=json") {
		t.Errorf("config check: exit %d\n%s\n%s", code, out, errOut)
	}

	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte(serveConfig+"summary:\n  outptu: json\n  concurrency: many\n"), 0o600)
	code, _, errOut = runCLIWith(t, fleet, nil, "--config", bad, "summary")
	if code != exitConfig || !strings.Contains(errOut, "summary.outptu is not a setting of \"summary\"; did you mean summary.output?") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	code, _, errOut = runCLIWith(t, fleet, nil, "config", "check", "--config", bad)
	if code != 2 || !strings.Contains(errOut, "summary.outptu: is not a setting of \"summary\"; did you mean summary.output?") ||
		!strings.Contains(errOut, "summary.concurrency: invalid argument \"many\"") {
		t.Errorf("config check: exit %d: %s", code, errOut)
	}
}

// TestSummaryAsKubectlPlugin: as kubectl imgupd, help and the next step say so.
func TestSummaryAsKubectlPlugin(t *testing.T) {
	fleet := labFleet(t, thirtyApps())
	runName := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := runAs(context.Background(), "kubectl imgupd", args, streams{In: strings.NewReader(""), Out: &out, Err: &errb},
			func(string) (string, bool) { return "", false }, fleet)
		return code, out.String(), errb.String()
	}
	code, out, _ := runName("summary", "--help")
	for _, want := range []string{"Usage:\n  kubectl imgupd summary [flags]", "  kubectl imgupd summary -n payments", "--context", "--kubeconfig", "-n, --namespace"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runName("summary")
	if code != 1 || !strings.Contains(out, "Next: kubectl imgupd diagnose APP -n NAMESPACE shows an app's full report and its fix, e.g. kubectl imgupd diagnose app-0009-r004 -n argocd") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestSummaryNoProgressOffATerminal: stderr that is a file gets no
// progress line.
func TestSummaryNoProgressOffATerminal(t *testing.T) {
	fleet := labFleet(t, thirtyApps())
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	code := run(context.Background(), []string{"summary"}, streams{In: strings.NewReader(""), Out: &out, Err: f}, func(string) (string, bool) { return "", false }, fleet)
	b, _ := os.ReadFile(f.Name())
	if code != 1 || len(b) != 0 {
		t.Errorf("exit %d, stderr %q", code, b)
	}
}

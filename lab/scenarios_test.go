package lab

import (
	"context"
	"encoding/json"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/imgupd/imgupd/present/blockkit"

	"github.com/imgupd/imgupd/model/updaterlog"
	"github.com/imgupd/imgupd/present/render"
	"github.com/imgupd/imgupd/report"
)

// builtinRun is one built-in scenario diagnosed once for the package's tests
// (TestBuiltinScenarios and TestBuiltinRootCauseFixes read the same report), with
// the secrets its environment held.
type builtinRun struct {
	once    sync.Once
	rep     *report.Report
	secrets []string
	// objects are the scenario's Kubernetes objects as the lab stored them
	// (the fixes' patches are applied to them).
	objects []*unstructured.Unstructured
	err     error
}

var builtinRuns sync.Map // scenario name → *builtinRun

func diagnoseBuiltin(sc *Scenario) *builtinRun {
	v, _ := builtinRuns.LoadOrStore(sc.Name, &builtinRun{})
	d := v.(*builtinRun)
	d.once.Do(func() {
		env, err := Start(context.Background(), sc)
		if err != nil {
			d.err = err
			return
		}
		defer env.Close()
		d.rep = env.Diagnose(context.Background())
		d.secrets = env.Secrets()
		d.objects, d.err = env.Objects()
	})
	return d
}

// TestBuiltinScenarios: every scenario shipped in the binary gives the code
// it expects, leaks none of its secrets, shows Image Updater's lines about
// the app (checkAppLogLines), writes its fixes as steps (checkFixSteps),
// each step, copied from each renderer and pasted into bash, runs what its
// data says and nothing else (checkPaste, subtest "paste"), and the terminal
// report shows what the cluster wrote without a terminal acting on it
// (checkTerminal, subtest "terminal").
func TestBuiltinScenarios(t *testing.T) {
	all, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no built-in scenarios")
	}
	for _, sc := range all {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			d := diagnoseBuiltin(sc)
			if d.err != nil {
				t.Fatal(d.err)
			}
			r := d.rep
			var b strings.Builder
			render.Text(&b, r, render.TextOptions{Verbose: true})
			if !sc.Matches(r) {
				t.Fatalf("got %s, want %s\n%s", Primary(r), sc.Expect, b.String())
			}
			render.Markdown(&b, r)
			j, _ := json.Marshal(r)
			b.Write(j)
			bk, _ := json.Marshal(blockkit.Report(r, blockkit.Options{Buttons: true}))
			b.Write(bk)
			for _, secret := range d.secrets {
				if strings.Contains(b.String(), secret) {
					t.Fatalf("secret value %q leaked into the report", secret)
				}
			}
			checkAppLogLines(t, sc, r)
			checkFixSteps(t, r, d.objects, scenarioInputs(t, sc))
			t.Run("paste", func(t *testing.T) { checkPaste(t, r, d.objects) })
			t.Run("terminal", func(t *testing.T) { checkTerminal(t, r) })
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		"unknown field": "name: x\nexpect: healthy\napp: {name: web}\nobjects: a\nregistyr: {}\n",
		"no app":        "expect: healthy\nobjects: a\n",
		"no expect":     "app: {name: web}\nobjects: a\n",
		"bad auth type": "expect: healthy\napp: {name: web}\nobjects: a\nregistry: {auth: {type: oauth, username: u, password: p}}\n",
		"no objects":    "expect: healthy\napp: {name: web}\n",
	}
	for name, doc := range cases {
		if _, err := Parse([]byte(doc), name+".yaml"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	sc, err := Parse([]byte("expect: healthy\napp: {name: web}\nobjects: a\n"), "dir/my-case.yaml")
	if err != nil || sc.Name != "my-case" || sc.App.Namespace != "argocd" {
		t.Fatalf("%+v %v", sc, err)
	}
}

// silentScenarios are the built-in scenarios in which Image Updater, at the
// version and default log level (info) the scenario runs, logs nothing about
// the Application, so their logs hold only generic cycle lines. Section
// numbers refer to the Image Updater reference (image-updater.md).
var silentScenarios = map[string]string{
	// v0.18 skips an Application without the image-list annotation at trace level only (§6).
	"article-1-annotation-key-typo": "v0.x logs the missing annotation at trace level",
	// No update is written yet and nothing fails; at info level Image Updater
	// logs per application only updates and errors (candidate and up-to-date lines are debug, §6).
	"healthy-git-writeback":    "the update is due on the next cycle; nothing logged per app yet",
	"healthy-kustomize-argocd": "the update is due on the next cycle; nothing logged per app yet",
	// Before the new tag's cycle neither CR has written anything yet (§1.4).
	"multi-cr-agree": "the update is due on the next cycle; nothing logged per app yet",
	"multi-cr-team-wide-overrides-constraint": "the writes are due on the next cycle; nothing logged per app yet",
	"multi-cr-team-wide-moves-held-image":     "the write is due on the next cycle; no candidate is logged at debug level only",
	// The Application objects show no override written yet, and nothing fails
	// before the write; a logged successful update would contradict them.
	"article-6-kustomize-name-not-used":       "no write in the objects yet; nothing fails before it",
	"crd-defaulted-strategy":                  "no write in the objects yet; nothing fails before it",
	"helm-annotation-alias-not-in-image-list": "no write in the objects yet; nothing fails before it",
	"helm-parameters-not-in-values":           "no write in the objects yet; nothing fails before it",
	"report-10-newest-build-tie":              "no write in the objects yet; nothing fails before it",

	// Issue 15, what Argo CD renders: the "before" forms, ahead of Image Updater's cycle.
	"helm-parameter-pin-overrides-values-writeback-before":          "before Image Updater's cycle: nothing written or logged yet",
	"helm-values-target-not-read-before":                            "before Image Updater's cycle: nothing written or logged yet",
	"helm-valuesobject-overrides-values-writeback-before":           "before Image Updater's cycle: nothing written or logged yet",
	"helm-values-target-in-valuefiles-before":                       "before Image Updater's cycle: nothing written or logged yet",
	"helm-values-target-chart-values-listed-before":                 "before Image Updater's cycle: nothing written or logged yet",
	"helm-two-images-same-parameters-before":                        "before Image Updater's cycle: nothing written or logged yet",
	"kustomize-two-images-same-name-before":                         "before Image Updater's cycle: nothing written or logged yet",
	"helm-default-parameters-chart-reads-repository-before":         "before Image Updater's cycle: nothing written or logged yet",
	"kustomize-images-pin-overrides-kustomization-writeback-before": "before Image Updater's cycle: nothing written or logged yet",
	"helm-value-file-missing":                                       "before Image Updater's cycle: nothing written or logged yet",
	"helm-annotation-alias-typo-defaults-render":                    "no write in the objects yet; nothing fails before it",
	// Issue 24, run mode: before the new tag's cycle a dry-run controller has nothing to (not) commit.
	"updater-dry-run-before": "before Image Updater's cycle: nothing picked, so no dry-run line yet",
	// Issue 24, Argo CD's ServiceAccount: a healthy setup whose update is due on the next cycle.
	"argocd-controller-other-serviceaccount": "the update is due on the next cycle; nothing logged per app yet",
	// Whether Image Updater fails without the proxy, and with which network
	// error (timeout, refused, DNS), depends on the network path; the
	// reference words only a wrong proxy and an unresolvable host (§10.13).
	"proxy-missing":                 "no referenced wording for a missing proxy; no line is invented",
	"hostile-no-proxy":              "no referenced wording for a missing proxy; no line is invented",
	"healthy-up-to-date":            "nothing to update: at info level nothing is logged per app",
	"healthy-through-updater-proxy": "the update is due on the next cycle; nothing logged per app yet",
	"sync-off-update-due":           "the update is due on the next cycle; nothing logged per app yet",
	"constraint-downgrade":          "the downgrade is due on the next cycle; nothing logged per app yet",
	// Before the cycle that meets the new tag: nothing is verified or fails yet.
	"signature-unsigned-pick": "the pick is checked on the next cycle; nothing logged per app yet",
	"signature-wrong-key":     "the pick is checked on the next cycle; nothing logged per app yet",
	"healthy-signed-pick":     "the pick is checked on the next cycle; nothing logged per app yet",
	// Issue 24: the pull request is opened on the next cycle.
	"pull-request-github-before": "before Image Updater's cycle: no pull request opened or logged yet",
	// Issue 24: the fetch that fails on the host key is the next cycle's.
	"writeback-ssh-host-key-unknown-before": "before Image Updater's cycle: no fetch has failed yet",
	"signature-key-not-ecdsa":               "the pick is checked on the next cycle; nothing logged per app yet",
	// The key is read when the image list is built: the next cycle logs the drop (see the -after form).
	"signature-key-secret-missing":       "no cycle since the CR named the Secret; the next one logs the drop",
	"source-ssh-known-hosts":             "no write in the objects yet; nothing fails before it",
	"source-private-ca":                  "no write in the objects yet; nothing fails before it",
	"source-insecure-true":               "no write in the objects yet; nothing fails before it",
	"source-github-app":                  "no write in the objects yet; nothing fails before it",
	"helm-chart-from-oci-repo":           "no write in the objects yet; nothing fails before it",
	"multi-source-image-in-other-source": "no write in the objects yet; nothing fails before it",
	"hostile-git":                        "no write in the objects yet; nothing fails before it",
	"hostile-source-path":                "no write in the objects yet; nothing fails before it",
	"hostile-kustomize-images":           "before Image Updater's cycle: nothing written or logged yet",
	"hostile-writeback-target":           "before Image Updater's cycle: nothing written or logged yet",
	"hostile-annotation-value":           "the update is due on the next cycle; nothing logged per app yet",
	// The scenario's point: Image Updater's logs cannot be read.
	"healthy-logs-and-source-unreadable": "pods/log is forbidden",
	"protected-branch-github-api":        "the node does not serve logs; the forge's API answers instead",
	"protected-branch-gitlab-api":        "the node does not serve logs; the forge's API answers instead",
	// An unknown key in registries.conf is fatal at start-up (§4.2): no cycle reaches the app.
	"registries-conf-invalid": "the controller cannot load registries.conf and processes nothing",
	// The not-live message is debug only (§5.1, §6).
	"report-1-image-not-live": "image not live is logged at debug level only",
	// A CR in a namespace the controller does not watch is never reconciled (§1.4, §10.11).
	"report-9-cr-in-unwatched-namespace": "the CR is never reconciled",
	// A crash-looping controller runs no cycle.
	"updater-crash-loop": "the controller crash-loops before any cycle",
	// No controller, no logs.
	"updater-not-installed": "Image Updater is not installed",
	// Up to v1.1 no tag left means the running tag is kept, logged at debug only (§3.2, §6).
	"updater-v1-1-no-tags-keeps-running-tag": "v1.1 keeps the running tag silently (debug only)",
	// v1.3 drops pre-releases without a constraint silently (§10.18).
	"updater-v1-3-prerelease-ignored": "pre-releases are ignored at debug level only",
	"hostile-ignore-tags":             "tags dropped by ignoreTags are logged at trace level only",
	// v1.x ignores annotations without a CR: no cycle for the app (§1.5, §10.11).
	"upgrade-v1-without-crs": "no ImageUpdater CR selects the app",
	// Before the first cycle of issue 15's "before" forms: nothing per app yet.
	"rollback-pin":                          "the rollback is due on the next cycle; nothing logged per app yet",
	"protected-branch-unknown-forge-before": "before the first push: nothing logged per app yet",

	// Issue 15, live images (helper live): the not-live skips are debug lines (§5.1);
	// before the write nothing is logged per app at info level.
	"live-multi-image-one-live":             "the update is due on the next cycle; the not-live skips are debug lines",
	"live-kustomize-port-overrides-collide": "no write in the objects yet; nothing fails before it",
	// Issue 24, registry permissions per operation and ext: credentials:
	// before Image Updater's cycle, nothing is logged yet.
	"registry-manifest-forbidden-before":     "before Image Updater's cycle: the refused manifests are logged when it runs",
	"registry-ext-script-not-mounted-before": "before Image Updater's cycle: could not stat is logged when it runs",
}

// isCycleLine reports whether a log line is a generic cycle line, which says
// nothing about one Application.
func isCycleLine(l report.LogLine) bool {
	switch l.Code {
	case updaterlog.CodeCycleStart, updaterlog.CodeCycleResults:
		return true
	}
	return strings.HasPrefix(l.Message, "Starting image update cycle") || strings.HasPrefix(l.Message, "Processing results:")
}

// TestSilentScenariosAreBuiltins: silentScenarios names only built-in
// scenarios.
func TestSilentScenariosAreBuiltins(t *testing.T) {
	all, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, sc := range all {
		names[sc.Name] = true
	}
	for name := range silentScenarios {
		if !names[name] {
			t.Errorf("silentScenarios lists %s, which is not a built-in scenario", name)
		}
	}
}

// checkAppLogLines: a built-in scenario in which Image Updater logs about the
// Application carries such lines, so the report's UpdaterLog (the bot's
// "Show updater log lines", the logs command) shows them; the scenarios
// where it logs nothing are listed in silentScenarios.
func checkAppLogLines(t *testing.T, sc *Scenario, r *report.Report) {
	t.Helper()
	var about []string
	for _, l := range r.UpdaterLog {
		if !isCycleLine(l) {
			about = append(about, l.Message)
		}
	}
	why, silent := silentScenarios[sc.Name]
	switch {
	case silent && len(about) > 0:
		t.Errorf("listed as silent (%s), but the report shows %d line(s) about the app, e.g. %q", why, len(about), about[0])
	case !silent && len(about) == 0:
		t.Errorf("the report's UpdaterLog has no line about %s beyond generic cycle lines (%d line(s)); add what Image Updater logs for this case, or list the scenario in silentScenarios with the reason", sc.App.Name, len(r.UpdaterLog))
	}
}

// TestBuiltinRootCauseFixes: every built-in scenario names its state, and
// the root cause of every one that has one says where to change what, with
// steps to run or paste: the object and field (Fix.Where) and the steps
// (Fix.Steps).
func TestBuiltinRootCauseFixes(t *testing.T) {
	all, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range all {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			if sc.ExpectState == "" {
				t.Fatal("built-in scenarios must name expectState")
			}
			d := diagnoseBuiltin(sc)
			if d.err != nil {
				t.Fatal(d.err)
			}
			rc := d.rep.RootCause
			if rc == nil {
				return
			}
			switch {
			case rc.Fix == nil || rc.Fix.Summary == "":
				t.Errorf("root cause %s has no fix", rc.Code)
			case len(rc.Fix.Steps) == 0:
				t.Errorf("root cause %s: the fix %q has no steps", rc.Code, rc.Fix.Summary)
			case rc.Fix.Where == "" && !strings.Contains(rc.Fix.Script(), "kubectl "):
				t.Errorf("root cause %s: the fix %q names no object (Where) and no kubectl command", rc.Code, rc.Fix.Summary)
			case d.rep.State != report.StateUnknown && !slices.ContainsFunc(rc.Fix.Steps, func(s report.Step) bool {
				return s.Lang == report.LangShell && len(s.Run) > 0 && s.Refused == ""
			}):
				// An on-call engineer can paste at least one step as it is
				// (after the step that sets the values only they know).
				t.Errorf("root cause %s: no step of the fix runs as it is:\n%s", rc.Code, rc.Fix.Script())
			}
		})
	}
}

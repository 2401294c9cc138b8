package diagnostics_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

// Image Updater's run mode: --dry-run on its command line (args or
// command, alone or =true, the last word winning; no environment variable
// sets it) blocks every write; --dry-run=false and a DRY_RUN variable do
// not. The fix removes exactly the words that set it: applied to the
// Deployment, the next diagnosis finds the update on its way.
func TestDryRunFromTheCommandLine(t *testing.T) {
	t.Parallel() // its own labs
	const container = "        args: [run, --dry-run]\n"
	for _, tc := range []struct {
		name, scenario, from, to string
		dry                      bool
		// removes are the JSON pointers the fix removes, below the container.
		removes []string
	}{
		{name: "args", scenario: "updater-dry-run-before", dry: true, removes: []string{"args/1"}},
		{name: "args =true", scenario: "updater-dry-run-before", from: container, to: "        args: [run, --dry-run=true]\n", dry: true, removes: []string{"args/1"}},
		{name: "args =1 before the subcommand", scenario: "updater-dry-run-before", from: container, to: "        args: [--dry-run=1, run]\n", dry: true, removes: []string{"args/0"}},
		{name: "args =false", scenario: "updater-dry-run-before", from: container, to: "        args: [run, --dry-run=false]\n"},
		{name: "last word wins: off", scenario: "updater-dry-run-before", from: container, to: "        args: [run, --dry-run, --dry-run=false]\n"},
		{name: "last word wins: on", scenario: "updater-dry-run-before", from: container, to: "        args: [--dry-run=false, run, --dry-run]\n", dry: true, removes: []string{"args/2", "args/0"}},
		{name: "value of another flag", scenario: "updater-dry-run-before", from: container, to: "        args: [run, --loglevel, debug, --dry-run]\n", dry: true, removes: []string{"args/3"}},
		{name: "after --", scenario: "updater-dry-run-before", from: container, to: "        args: [run, --, --dry-run]\n"},
		{name: "command", scenario: "updater-dry-run-before", from: container, to: "        command: [/usr/local/bin/argocd-image-updater, run, --dry-run]\n", dry: true, removes: []string{"command/2"}},
		{name: "command and args", scenario: "updater-dry-run-before", from: container, to: "        command: [/usr/local/bin/argocd-image-updater, --dry-run]\n        args: [run, --dry-run=true]\n", dry: true, removes: []string{"args/1", "command/1"}},
		{name: "from an env value", scenario: "updater-dry-run-before", from: container, to: "        args: [run, \"--dry-run=$(DRY)\"]\n        env: [{name: DRY, value: \"true\"}]\n", dry: true, removes: []string{"args/1"}},
		{name: "DRY_RUN env is not read", scenario: "updater-dry-run-before", from: container, to: "        args: [run]\n        env: [{name: DRY_RUN, value: \"true\"}, {name: IMAGE_UPDATER_DRY_RUN, value: \"true\"}]\n"},
		{name: "after the cycle", scenario: "updater-dry-run-after", dry: true, removes: []string{"args/1"}},
		{name: "v0.x Deployment", scenario: "updater-v0-18-pull-secret-in-kube-system", from: "        args: [run]\n", to: "        args: [run, --dry-run]\n", dry: true, removes: []string{"args/1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v0 := strings.HasPrefix(tc.scenario, "updater-v0")
			env := start(t, tc.scenario, func(sc *lab.Scenario) {
				if tc.from != "" {
					if !strings.Contains(sc.Objects, tc.from) {
						t.Fatalf("scenario %s has no %q", tc.scenario, tc.from)
					}
					sc.Objects = strings.Replace(sc.Objects, tc.from, tc.to, 1)
				}
				if v0 {
					// v0.x's install.yaml names the Deployment, its label and
					// its container argocd-image-updater.
					sc.Objects = strings.ReplaceAll(sc.Objects, "argocd-image-updater-controller", "argocd-image-updater")
				}
			})
			r := env.Diagnose(context.Background())
			dry := findingsOf(r, report.CodeUpdaterDryRun)
			if !tc.dry {
				if len(dry) != 0 || r.State != report.StateOnItsWay {
					t.Fatalf("not in dry run, but: state %s, %+v\n%s", r.State, dry, dump(r))
				}
				return
			}
			if len(dry) != 1 || r.State != report.StateBlocked || r.RootCause == nil || r.RootCause.Code != report.CodeUpdaterDryRun {
				t.Fatalf("want blocked by HEALTH_UPDATER_DRY_RUN, got state %s, root cause %v\n%s", r.State, r.RootCause, dump(r))
			}
			if !strings.Contains(r.Headline, "--dry-run") {
				t.Errorf("the headline does not name --dry-run: %q", r.Headline)
			}
			for _, f := range findingsOf(r, report.CodeHistoryWritten) {
				t.Errorf("a dry run's records taken as a write: %s", f.Title)
			}
			dep := "argocd-image-updater-controller"
			if v0 {
				dep = "argocd-image-updater"
			}
			fix := r.RootCause.Fix
			if fix == nil || len(fix.Steps) == 0 || fix.Steps[0].Patch == nil {
				t.Fatalf("no patch: %+v", fix)
			}
			p := fix.Steps[0].Patch
			if p.Kind != "Deployment" || p.Namespace != "argocd" || p.Name != dep || p.Type != report.PatchJSON {
				t.Fatalf("the patch is for %s, want Deployment argocd/%s", p.Object(), dep)
			}
			var removes []string
			for _, o := range p.Ops {
				if o.Op == "remove" {
					removes = append(removes, strings.TrimPrefix(o.Path, "/spec/template/spec/containers/0/"))
				}
			}
			if strings.Join(removes, " ") != strings.Join(tc.removes, " ") {
				t.Errorf("the patch removes %v, want %v", removes, tc.removes)
			}
			if p.Ops[0].Op != "test" || !strings.HasSuffix(p.Ops[0].Path, "/name") {
				t.Errorf("the patch does not test the container first: %+v", p.Ops[0])
			}

			// The fix, applied to the Deployment as the cluster holds it,
			// ends the dry run: the update is on its way.
			kube := env.Engine().Cluster.(*cluster.Reader).Kube
			d, err := kube.AppsV1().Deployments("argocd").Get(context.Background(), dep, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			d.APIVersion, d.Kind = "apps/v1", "Deployment"
			doc, _ := json.Marshal(d)
			ops, _ := json.Marshal(p.Ops)
			patch, err := jsonpatch.DecodePatch(ops)
			if err != nil {
				t.Fatal(err)
			}
			patched, err := patch.Apply(doc)
			if err != nil {
				t.Fatalf("the patch does not apply: %v", err)
			}
			if strings.Contains(string(patched), "dry-run") {
				t.Fatalf("the patched Deployment still sets --dry-run: %s", patched)
			}
			if err := env.Apply(context.Background(), string(patched)); err != nil {
				t.Fatal(err)
			}
			after := env.Diagnose(context.Background())
			if len(findingsOf(after, report.CodeUpdaterDryRun)) != 0 {
				t.Fatalf("still in dry run after the fix:\n%s", dump(after))
			}
			if !v0 && after.State != report.StateOnItsWay && tc.scenario == "updater-dry-run-before" {
				t.Errorf("after the fix: state %s, want update-on-its-way\n%s", after.State, dump(after))
			}
		})
	}
}

// After a dry-run cycle, its counters, its CR status and its log are named
// as a dry run's, never as a write that something reverted.
func TestDryRunRecordsAreNotWrites(t *testing.T) {
	t.Parallel() // its own lab
	r := diagnose(t, "updater-dry-run-after", nil)
	text := dump(r)
	for _, bad := range []string{"reverts the spec", "Image Updater wrote", "has written"} {
		if strings.Contains(text, bad) {
			t.Errorf("the report reads a dry run as a write (%q):\n%s", bad, text)
		}
	}
	dry := findingsOf(r, report.CodeUpdaterDryRun)
	if len(dry) != 1 {
		t.Fatalf("want HEALTH_UPDATER_DRY_RUN\n%s", text)
	}
	var log, counted bool
	for _, e := range dry[0].Evidence {
		log = log || strings.Contains(e.Value, "Dry run - not committing 1 changes")
		counted = counted || strings.Contains(e.Label, "images_updated") && strings.Contains(e.Value, "dry run")
	}
	if !log || !counted {
		t.Errorf("the finding does not show the dry run's log line and counter: %+v", dry[0].Evidence)
	}
	var none report.Finding
	for _, f := range findingsOf(r, report.CodeHistoryNone) {
		none = f
	}
	if !strings.Contains(none.Title, "--dry-run") || len(none.Evidence) == 0 || !strings.Contains(none.Evidence[0].Value, "counted by a dry run") {
		t.Errorf("the CR's recentUpdates are not named as a dry run's: %+v", none)
	}

	// Without the flag the same records are a write (the warm-up's own dry
	// run is no evidence of the run mode).
	r = diagnose(t, "updater-dry-run-after", func(sc *lab.Scenario) {
		sc.Objects = strings.Replace(sc.Objects, "args: [run, --dry-run]", "args: [run]", 1)
	})
	if len(findingsOf(r, report.CodeUpdaterDryRun)) != 0 {
		t.Errorf("dry run reported without the flag:\n%s", dump(r))
	}
}

// v0.x's --match-application-name and --match-application-label narrow the
// Applications it processes: one they leave out is blocked, with a fix that
// lets it through; one they let through is not.
func TestV0AppFilterFromTheCommandLine(t *testing.T) {
	t.Parallel() // its own labs
	const args = "        args: [run]\n"
	for _, tc := range []struct {
		name, args string
		labels     string // the Application's labels
		filtered   bool
		fixAdds    string // the value the fix's JSON patch adds
		fixLabels  map[string]any
	}{
		{name: "name matches", args: "        args: [run, --match-application-name=w*]\n"},
		{name: "name matches the second pattern", args: "        args: [run, --match-application-name, \"api,we?\"]\n"},
		{name: "names added up", args: "        args: [run, --match-application-name=api, --match-application-name=web]\n"},
		{name: "name left out", args: "        args: [run, --match-application-name=api-*]\n", filtered: true, fixAdds: "--match-application-name=web"},
		{name: "invalid pattern", args: "        args: [run, \"--match-application-name=[web\"]\n", filtered: true, fixAdds: "--match-application-name=web"},
		{name: "label matches", args: "        args: [run, --match-application-label=team=shop]\n", labels: "{team: shop}"},
		{name: "label left out", args: "        args: [run, --match-application-label, team=shop]\n", labels: "{team: billing}", filtered: true, fixLabels: map[string]any{"team": "shop"}},
		{name: "label set-based", args: "        args: [run, \"--match-application-label=tier in (a,b)\"]\n", filtered: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := diagnose(t, "updater-v0-18-pull-secret-in-kube-system", func(sc *lab.Scenario) {
				if !strings.Contains(sc.Objects, args) {
					t.Fatalf("no %q", args)
				}
				sc.Objects = strings.Replace(sc.Objects, args, tc.args, 1)
				if tc.labels != "" {
					sc.Objects = strings.Replace(sc.Objects, "  name: web\n  namespace: argocd\n  annotations:\n", "  name: web\n  namespace: argocd\n  labels: "+tc.labels+"\n  annotations:\n", 1)
				}
			})
			got := findingsOf(r, report.CodeUpdaterAppFiltered)
			if !tc.filtered {
				if len(got) != 0 {
					t.Fatalf("the app is let through, but: %+v", got)
				}
				return
			}
			if len(got) != 1 || r.RootCause == nil || r.RootCause.Code != report.CodeUpdaterAppFiltered || r.State != report.StateBlocked {
				t.Fatalf("want blocked by HEALTH_UPDATER_APP_FILTERED, got %s %v\n%s", r.State, r.RootCause, dump(r))
			}
			fix := got[0].Fix
			switch {
			case tc.fixAdds != "":
				p := fix.Steps[0].Patch
				last := p.Ops[len(p.Ops)-1]
				if p.Kind != "Deployment" || last.Op != "add" || last.Value != tc.fixAdds || !strings.HasSuffix(last.Path, "/args/-") {
					t.Errorf("the fix does not add %s to the args: %+v", tc.fixAdds, p)
				}
			case tc.fixLabels != nil:
				p := fix.Steps[0].Patch
				m, _ := p.Merge.(map[string]any)["metadata"].(map[string]any)
				l, _ := m["labels"].(map[string]any)
				if p.Kind != "Application" || p.Name != "web" || l["team"] != tc.fixLabels["team"] {
					t.Errorf("the fix does not label the Application: %+v", p)
				}
			default:
				if len(fix.Steps) != 0 || fix.Summary == "" {
					t.Errorf("a set-based selector has no label to set; want advice only: %+v", fix)
				}
			}
		})
	}
}

package diagnostics_test

import (
	"context"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

const twiceScenario = "helm-two-images-same-parameters-before"

const (
	twiceWeb    = "    - alias: web\n      imageName: \"${REGISTRY}/team/web:~1.0\"\n      manifestTargets: {helm: {name: image.repository, tag: image.tag}}\n"
	twiceWorker = "    - alias: worker\n      imageName: \"${REGISTRY}/team/worker:~2.0\"\n      manifestTargets: {helm: {name: image.repository, tag: image.tag}}\n"
)

// fixText is a finding's fix as a person reads it: the summary and every
// step's command or patch.
func fixText(f *report.Finding) string {
	if f == nil || f.Fix == nil {
		return ""
	}
	return f.Fix.Summary + "\n" + f.Fix.Script()
}

// TestWrittenTwice: two live images of one app written to the same Helm
// parameter (or Kustomize image) are a wrong update that names both
// images, the shared keys and the value that wins, and the fix gives one
// image the value paths its own container reads.
func TestWrittenTwice(t *testing.T) {
	for _, c := range []struct {
		name     string
		scenario string
		edit     func(t *testing.T, sc *lab.Scenario)
		// want: a written-twice finding whose title holds every string of
		// title and whose fix holds every string of fix; nil title: none.
		title, fix []string
		state      report.State
		warn       bool
		// rootFix: another finding may be the root cause; its fix must
		// then give the image the same value paths.
		rootFix bool
		// noSteps: the fix is in words only (nothing to run).
		noSteps bool
	}{
		{name: "name and tag", scenario: twiceScenario,
			title: []string{"images web and worker", "image.repository, image.tag", "worker last", "image.repository=${REGISTRY}/team/worker, image.tag=2.0.1 wins", "web's update is never deployed"},
			fix:   []string{"worker.image.repository", "worker.image.tag", "/images/1/alias", "patch imageupdater"}, state: report.StateWrongUpdate},
		{name: "only the tag key", scenario: twiceScenario, edit: func(t *testing.T, sc *lab.Scenario) {
			replaceIn(t, &sc.Objects, twiceWorker, strings.Replace(twiceWorker, "name: image.repository", "name: worker.image.repository", 1))
		}, title: []string{"Helm parameter image.tag:", "image.tag=2.0.1 wins"}, fix: []string{"worker.image.tag"}, state: report.StateWrongUpdate},
		{name: "spec key against tag key", scenario: twiceScenario, edit: func(t *testing.T, sc *lab.Scenario) {
			replaceIn(t, &sc.Objects, twiceWeb, strings.Replace(twiceWeb, "{name: image.repository, tag: image.tag}", "{spec: image.tag}", 1))
			replaceIn(t, &sc.Objects, twiceWorker, strings.Replace(twiceWorker, "name: image.repository", "name: worker.image.repository", 1))
		}, title: []string{"Helm parameter image.tag:", "image.tag=2.0.1 wins"}, fix: []string{"worker.image.tag"}},
		{name: "the other order", scenario: twiceScenario, edit: func(t *testing.T, sc *lab.Scenario) {
			replaceIn(t, &sc.Objects, twiceWeb+twiceWorker, twiceWorker+twiceWeb)
		}, title: []string{"images worker and web", "web last", "image.repository=${REGISTRY}/team/web, image.tag=1.0.1 wins", "worker's update is never deployed"},
			fix: []string{"give image worker its own Helm parameters", "/images/0/alias", "worker.image.repository"}, state: report.StateWrongUpdate},
		{name: "two CRs", scenario: twiceScenario, edit: func(t *testing.T, sc *lab.Scenario) {
			replaceIn(t, &sc.Objects, twiceWorker, "")
			sc.Objects += "\n---\napiVersion: argocd-image-updater.argoproj.io/v1alpha1\nkind: ImageUpdater\nmetadata: {name: worker, namespace: argocd}\nspec:\n" +
				"  writeBackConfig:\n    method: git\n    gitConfig: {branch: main, writeBackTarget: helmvalues}\n  applicationRefs:\n  - namePattern: web\n    images:\n" +
				twiceWorker
		}, title: []string{"images web and worker (ImageUpdater argocd/worker)", "each CR writes its own", "image.repository=${REGISTRY}/team/worker"},
			fix: []string{"worker.image.repository", "-- worker"}, state: report.StateWrongUpdate},
		{name: "annotations", scenario: twiceScenario, edit: func(t *testing.T, sc *lab.Scenario) {
			replaceIn(t, &sc.Objects, "    images:\n"+twiceWeb+twiceWorker, "    useAnnotations: true\n")
			replaceIn(t, &sc.Objects, "metadata: {name: web, namespace: argocd}\nspec:\n  project: default",
				"metadata:\n  name: web\n  namespace: argocd\n  annotations:\n"+
					"    argocd-image-updater.argoproj.io/image-list: \"web=${REGISTRY}/team/web:~1.0,worker=${REGISTRY}/team/worker:~2.0\"\n"+
					"    argocd-image-updater.argoproj.io/write-back-method: git\n"+
					"    argocd-image-updater.argoproj.io/git-branch: main\n"+
					"    argocd-image-updater.argoproj.io/write-back-target: helmvalues\n"+
					"    argocd-image-updater.argoproj.io/web.helm.image-name: image.repository\n"+
					"    argocd-image-updater.argoproj.io/web.helm.image-tag: image.tag\n"+
					"spec:\n  project: default")
		}, title: []string{"images web and worker", "Helm parameter image.tag:", "worker last", "image.tag=2.0.1 wins"},
			// worker has no annotations: it writes the default image.name
			// and image.tag, so only the tag is shared (the unread
			// image.name is a wrong update of its own).
			fix: []string{"kubectl -n argocd annotate application web --overwrite", "argocd-image-updater.argoproj.io/worker.helm.image-name=worker.image.repository", "argocd-image-updater.argoproj.io/worker.helm.image-tag=worker.image.tag"}, rootFix: true},
		{name: "annotations without aliases", scenario: twiceScenario, edit: func(t *testing.T, sc *lab.Scenario) {
			replaceIn(t, &sc.Objects, "    images:\n"+twiceWeb+twiceWorker, "    useAnnotations: true\n")
			replaceIn(t, &sc.Objects, "metadata: {name: web, namespace: argocd}\nspec:\n  project: default",
				"metadata:\n  name: web\n  namespace: argocd\n  annotations:\n"+
					"    argocd-image-updater.argoproj.io/image-list: \"${REGISTRY}/team/web:~1.0,${REGISTRY}/team/worker:~2.0\"\n"+
					"    argocd-image-updater.argoproj.io/write-back-method: git\n"+
					"    argocd-image-updater.argoproj.io/git-branch: main\n"+
					"    argocd-image-updater.argoproj.io/write-back-target: helmvalues\n"+
					"spec:\n  project: default")
		}, title: []string{"images ${REGISTRY}/team/web and ${REGISTRY}/team/worker", "image.name, image.tag"},
			fix: []string{"an alias in the image-list annotation (<alias>="}, noSteps: true},
		{name: "worker not live", scenario: twiceScenario, edit: func(t *testing.T, sc *lab.Scenario) {
			replaceIn(t, &sc.Objects, `, "${REGISTRY}/team/worker:2.0.0"]`, `]`)
		}},
		{name: "nothing due", scenario: twiceScenario, edit: func(t *testing.T, sc *lab.Scenario) {
			sc.Registry.Repositories["team/web"] = sc.Registry.Repositories["team/web"][:1]
			sc.Registry.Repositories["team/worker"] = sc.Registry.Repositories["team/worker"][:1]
		}, title: []string{"no update is due now"}, warn: true},
		{name: "kustomize", scenario: "healthy-kustomize-argocd", edit: func(t *testing.T, sc *lab.Scenario) {
			sc.Registry.Repositories["team/worker"] = sc.Registry.Repositories["team/web"]
			files := sc.Git.Repositories["config"].Branches["main"].Files
			files["apps/web/deployment.yaml"] += "      - name: worker\n        image: ${REGISTRY}/team/worker:1.0.0\n"
			replaceIn(t, &sc.Objects, `summary: {images: ["${REGISTRY}/team/web:1.0.0"]}`, `summary: {images: ["${REGISTRY}/team/web:1.0.0", "${REGISTRY}/team/worker:1.0.0"]}`)
			replaceIn(t, &sc.Objects, "      manifestTargets: {kustomize: {name: \"${REGISTRY}/team/web\"}}\n",
				"      manifestTargets: {kustomize: {name: \"${REGISTRY}/team/web\"}}\n"+
					"    - alias: worker\n      imageName: \"${REGISTRY}/team/worker:~1.0\"\n      manifestTargets: {kustomize: {name: \"${REGISTRY}/team/web\"}}\n")
		}, title: []string{"Kustomize image ${REGISTRY}/team/web:", "worker last", "the entry becomes ${REGISTRY}/team/web=${REGISTRY}/team/worker:1.0.1", "web's update is never deployed"},
			fix: []string{"give image worker its own Kustomize name", `"path":"/spec/applicationRefs/0/images/1/manifestTargets/kustomize/name","value":"${REGISTRY}/team/worker"`}, state: report.StateWrongUpdate},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // its own lab
			env := start(t, c.scenario, func(sc *lab.Scenario) {
				if c.edit != nil {
					c.edit(t, sc)
				}
			})
			r := env.Diagnose(context.Background())
			f := findingOf(r, report.CodeTargetWrittenTwice)
			reg := env.Vars["REGISTRY"]
			expand := func(s string) string { return strings.ReplaceAll(s, "${REGISTRY}", reg) }
			if c.title == nil {
				if f != nil {
					t.Fatalf("unexpected %s\n%s", f.Title, dump(r))
				}
				return
			}
			if f == nil {
				t.Fatalf("no %s\n%s", report.CodeTargetWrittenTwice, dump(r))
			}
			for _, s := range c.title {
				if !strings.Contains(f.Title, expand(s)) {
					t.Errorf("title lacks %q: %s", expand(s), f.Title)
				}
			}
			fix := fixText(f)
			for _, s := range c.fix {
				if !strings.Contains(fix, expand(s)) {
					t.Errorf("fix lacks %q:\n%s", expand(s), fix)
				}
			}
			if c.noSteps && f.Fix != nil && len(f.Fix.Steps) > 0 {
				t.Errorf("steps in a fix that has none to run:\n%s", fix)
			}
			if c.warn != (f.Severity == report.Warn) {
				t.Errorf("severity %s, warn %v", f.Severity, c.warn)
			}
			if c.state != "" && (r.State != c.state || r.RootCause == nil || r.RootCause.Code != report.CodeTargetWrittenTwice) {
				t.Errorf("state %s, root cause %v; want %s from %s", r.State, r.RootCause, c.state, report.CodeTargetWrittenTwice)
			}
			if c.rootFix {
				if r.State != report.StateWrongUpdate || r.RootCause == nil {
					t.Errorf("state %s, root cause %v; want a wrong update", r.State, r.RootCause)
				} else if root := fixText(r.RootCause); !strings.Contains(root, expand(c.fix[1])) {
					t.Errorf("the root cause's fix lacks %q:\n%s", expand(c.fix[1]), root)
				}
			}
			if t.Failed() {
				t.Log(dump(r))
			}
		})
	}
}

// TestWrittenTwiceAfterTheCycle: after Image Updater's cycle its commit
// holds the second image; the answer is still the wrong update, the
// rendered value is named, and the history of the first image says its
// logged write was overwritten in the same cycle.
func TestWrittenTwiceAfterTheCycle(t *testing.T) {
	t.Parallel() // its own lab
	env := start(t, "helm-two-images-same-parameters-after", nil)
	r := env.Diagnose(context.Background())
	reg := env.Vars["REGISTRY"]
	f := findingOf(r, report.CodeTargetWrittenTwice)
	if f == nil || r.State != report.StateWrongUpdate || r.RootCause == nil || r.RootCause.Code != report.CodeTargetWrittenTwice {
		t.Fatalf("state %s, root cause %v\n%s", r.State, r.RootCause, dump(r))
	}
	rendered := false
	for _, e := range f.Evidence {
		rendered = rendered || e.Value == "image.repository="+reg+"/team/worker (charts/web/values.yaml (the chart's values))"
	}
	if !rendered {
		t.Errorf("no evidence that the chart's values now render worker at image.repository: %+v", f.Evidence)
	}
	for _, h := range r.Findings() {
		if h.Code == report.CodeHistoryWritten && h.Image == "web" && !strings.Contains(h.Title, "worker was written to the same image.repository, image.tag after it") {
			t.Errorf("web's history does not say its write was overwritten: %s", h.Title)
		}
	}
}

package diagnostics_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/diagnostics"
	labregistry "github.com/imgupd/imgupd/lab/registry"
)

// threeImages sets up an app with three images on its own registry: web and
// api (semver) and worker (newest-build over 200 single-platform tags).
func threeImages(tb testing.TB) *world {
	w := newWorld(tb)
	w.useRegistry()
	reg := w.vars["REGISTRY"]
	repos := map[string]string{"web": w.vars["REPO"], "api": w.vars["REPO"] + "-api", "worker": w.vars["REPO"] + "-worker"}
	w.push(repos["api"], labregistry.Image{Tag: "2.3.0"}, labregistry.Image{Tag: "2.4.0"})
	var builds []labregistry.Image
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 200; i++ {
		builds = append(builds, labregistry.Image{Tag: fmt.Sprintf("build-%03d", i), Created: base.Add(time.Duration(i) * time.Hour)})
	}
	w.push(repos["worker"], builds...)
	var images, live, kust []string
	for _, alias := range []string{"web", "api", "worker"} {
		img := reg + "/" + repos[alias]
		settings, constraint, running := "", ":~1.0", ":1.0.0"
		switch alias {
		case "api":
			constraint, running = ":2.x", ":2.3.0"
		case "worker":
			settings, constraint, running = "\n      commonUpdateSettings: {updateStrategy: newest-build}", "", ":build-100"
		}
		images = append(images, fmt.Sprintf("    - alias: %s\n      imageName: %q%s\n      manifestTargets: {kustomize: {name: %q}}", alias, img+constraint, settings, img))
		live = append(live, fmt.Sprintf("%q", img+running))
		kust = append(kust, "- name: "+img)
	}
	w.dyn = []string{
		strings.Replace(webApp, `images: ["${IMAGE}:1.0.0"]`, "images: ["+strings.Join(live, ", ")+"]", 1),
		"apiVersion: argocd-image-updater.argoproj.io/v1alpha1\nkind: ImageUpdater\nmetadata: {name: web, namespace: argocd}\nspec:\n  applicationRefs:\n  - namePattern: web\n    images:\n" + strings.Join(images, "\n") + "\n",
		defaultProject,
	}
	repoMu.Lock()
	repoSeq++
	n := repoSeq
	repoMu.Unlock()
	w.vars["GITNAME"] = "three" + itoa(n)
	w.vars["GITREPO"] = w.git.RepoURL(w.vars["GITNAME"])
	w.gitRepo(w.vars["GITNAME"], "main", map[string]string{"apps/web/kustomization.yaml": "images:\n" + strings.Join(kust, "\n") + "\n"})
	return w
}

// TestRegistryRequestsAreMinimal: one tag list per repository, one manifest
// per newest-build tag and one config per distinct image; a second
// diagnosis on the same engine fetches no config again.
func TestRegistryRequestsAreMinimal(t *testing.T) {
	w := threeImages(t)
	eng := w.engine()
	w.reg.ResetRequests()
	r := eng.Diagnose(context.Background(), diagnostics.Request{App: "web", Namespace: "argocd"})
	if r.Verdict != diagnostics.VerdictHealthy || len(r.Candidates) != 3 {
		t.Fatalf("verdict %s, %d candidate tables\n%s", r.Verdict, len(r.Candidates), dumpReport(r))
	}
	got := w.reg.Requests()
	if got.Tags != 3 || got.Manifest != 200 || got.Blob != 200 {
		t.Fatalf("requests %+v: want 3 tag lists, 200 manifests, 200 configs", got)
	}
	if r.RegistryRequests != int64(got.Total()) {
		t.Errorf("report counts %d registry requests, the registry saw %d", r.RegistryRequests, got.Total())
	}
	w.reg.ResetRequests()
	eng.Diagnose(context.Background(), diagnostics.Request{App: "web", Namespace: "argocd"})
	if got := w.reg.Requests(); got.Blob != 0 || got.Manifest != 200 {
		t.Errorf("second diagnosis: %+v, want 200 manifests (tags may move) and no config", got)
	}
}

// BenchmarkDiagnoseThreeImages diagnoses the three-image app against the
// loopback registry and git server; it reports each stage's time and the
// registry requests per diagnosis (cold cache: a new engine each time).
func BenchmarkDiagnoseThreeImages(b *testing.B) {
	w := threeImages(b)
	stageTotals := map[diagnostics.StageID]time.Duration{}
	var requests int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := w.engine().Diagnose(context.Background(), diagnostics.Request{App: "web", Namespace: "argocd"})
		if r.Verdict != diagnostics.VerdictHealthy {
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

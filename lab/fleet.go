package lab

import (
	"fmt"
	"strings"
)

// FleetSpec shapes a generated fleet: Apps Applications over Repos image
// repositories (app i uses repository i mod Repos), each repository with
// between MinTags and MaxTags tags. Every Due-th app runs an older tag than
// the newest, so an update is due (0: none due); every Broken-th app's
// image is not live (0: none broken).
type FleetSpec struct {
	Apps, Repos      int
	MinTags, MaxTags int
	Due, Broken      int
}

// FleetScenario is one environment holding a whole fleet: one Image
// Updater v1.3.0, one ImageUpdater CR with a ref per repository, Apps
// Kustomize Applications in one git repository, Repos image repositories
// in the registry. It is what the fleet scan's tests and benchmark run on.
func FleetScenario(s FleetSpec) *Scenario {
	if s.Repos <= 0 {
		s.Repos = 1
	}
	if s.MinTags <= 0 {
		s.MinTags = 2
	}
	if s.MaxTags < s.MinTags {
		s.MaxTags = s.MinTags
	}
	sc := &Scenario{Name: fmt.Sprintf("fleet-%d-apps-%d-repos", s.Apps, s.Repos), Expect: Healthy, App: AppRef{Name: "app-0000", Namespace: "argocd"},
		Now: "2026-11-29T12:00:00Z", Registry: RegistrySpec{Repositories: map[string][]Image{}, Lazy: true}}
	tagsOf := make([]int, s.Repos)
	for r := 0; r < s.Repos; r++ {
		n := s.MinTags
		if s.Repos > 1 {
			n += (s.MaxTags - s.MinTags) * r / (s.Repos - 1)
		}
		tagsOf[r] = n
		imgs := make([]Image, n)
		for t := 0; t < n; t++ {
			imgs[t] = Image{Tag: fmt.Sprintf("1.%d.%d", t/100, t%100), Created: fmt.Sprintf("2026-%02d-%02dT%02d:%02d:00Z", 1+t/600%12, 1+t/24%28, t%24, t%60)}
		}
		sc.Registry.Repositories[repoName(r)] = imgs
	}
	files := map[string]string{}
	var objs strings.Builder
	objs.WriteString(fleetUpdater)
	objs.WriteString("---\napiVersion: argocd-image-updater.argoproj.io/v1alpha1\nkind: ImageUpdater\nmetadata: {name: fleet, namespace: argocd}\nspec:\n  applicationRefs:\n")
	for r := 0; r < s.Repos; r++ {
		fmt.Fprintf(&objs, "  - namePattern: \"app-*-r%03d\"\n    images:\n    - alias: app\n      imageName: \"${REGISTRY}/%s\"\n      manifestTargets: {kustomize: {name: \"${REGISTRY}/%s\"}}\n", r, repoName(r), repoName(r))
	}
	for i := 0; i < s.Apps; i++ {
		r := i % s.Repos
		name := fmt.Sprintf("app-%04d-r%03d", i, r)
		n := tagsOf[r]
		running := fmt.Sprintf("1.%d.%d", (n-1)/100, (n-1)%100)
		if s.Due > 0 && i%s.Due == 0 && n > 1 {
			running = fmt.Sprintf("1.%d.%d", (n-2)/100, (n-2)%100)
		}
		live := "${REGISTRY}/" + repoName(r) + ":" + running
		if s.Broken > 0 && i%s.Broken == s.Broken-1 {
			live = "${REGISTRY}/other/" + repoName(r) + ":" + running
		}
		dir := "apps/" + name
		files[dir+"/kustomization.yaml"] = "resources:\n- deployment.yaml\nimages:\n- name: ${REGISTRY}/" + repoName(r) + "\n"
		files[dir+"/deployment.yaml"] = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: ${REGISTRY}/" + repoName(r) + ":" + running + "\n"
		fmt.Fprintf(&objs, "---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: %s, namespace: argocd}\nspec:\n  project: default\n  source: {repoURL: \"${GIT}/config.git\", path: %s, targetRevision: main, kustomize: {}}\n  destination: {server: \"https://kubernetes.default.svc\", namespace: %s}\n  syncPolicy: {automated: {prune: true, selfHeal: true}}\nstatus:\n  sourceType: Kustomize\n  summary: {images: [\"%s\"]}\n  sync: {status: Synced, revision: abc123}\n  health: {status: Healthy}\n",
			name, dir, name, live)
	}
	objs.WriteString("---\napiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: default, namespace: argocd}\nspec:\n  sourceRepos: [\"*\"]\n  destinations: [{server: \"*\", namespace: \"*\"}]\n")
	sc.Objects = objs.String()
	sc.Git = GitSpec{Repositories: map[string]Repo{"config": {DefaultBranch: "main", Branches: map[string]Branch{"main": {Files: files}}}}}
	sc.Logs = fmt.Sprintf("time=\"2026-11-29T11:58:00Z\" level=info msg=\"Starting image update cycle, considering %d application(s) for update\" imageUpdater_name=fleet imageUpdater_namespace=argocd\n"+
		"time=\"2026-11-29T11:58:30Z\" level=info msg=\"Processing results: applications=%d images_considered=%d images_skipped=0 images_updated=0 errors=0\" imageUpdater_name=fleet imageUpdater_namespace=argocd\n", s.Apps, s.Apps, s.Apps)
	return sc
}

func repoName(r int) string { return fmt.Sprintf("team/svc-%03d", r) }

const fleetUpdater = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: argocd-image-updater-controller
  namespace: argocd
  labels: {app.kubernetes.io/name: argocd-image-updater-controller}
spec:
  replicas: 1
  selector: {matchLabels: {app.kubernetes.io/name: argocd-image-updater}}
  template:
    metadata: {labels: {app.kubernetes.io/name: argocd-image-updater}}
    spec:
      serviceAccountName: argocd-image-updater
      containers:
      - name: argocd-image-updater-controller
        image: quay.io/argoprojlabs/argocd-image-updater:v1.3.0
        args: [run]
        volumeMounts: [{name: image-updater-conf, mountPath: /app/config}]
      volumes: [{name: image-updater-conf, configMap: {name: argocd-image-updater-config}}]
status: {replicas: 1, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 1}
---
apiVersion: v1
kind: Pod
metadata:
  name: argocd-image-updater-controller-7d9f-abcde
  namespace: argocd
  labels: {app.kubernetes.io/name: argocd-image-updater}
spec:
  containers: [{name: argocd-image-updater-controller, image: "quay.io/argoprojlabs/argocd-image-updater:v1.3.0"}]
status:
  phase: Running
  conditions: [{type: Ready, status: "True"}]
  containerStatuses: [{name: argocd-image-updater-controller, ready: true, restartCount: 0, image: "x", imageID: "sha256:abc"}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-image-updater-config, namespace: argocd}
data:
  registries.conf: |
    registries:
    - name: lab
      api_url: http://${REGISTRY}
      prefix: ${REGISTRY}
`

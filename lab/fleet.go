package lab

import (
	"fmt"
	"strings"
)

// FleetSpec shapes a generated fleet: Apps Applications over Repos image
// repositories (app i uses repository i mod Repos), each repository with
// between MinTags and MaxTags tags. Every Due-th app runs an older tag than
// the newest, so an update is due (0: none due); every Broken-th app's
// image is not live (0: none broken). With GitUnreachable the
// Applications' repoURL names a host that does not resolve
// (UnreachableGitHost): a fleet whose bot has no egress to git. CRs is
// how ImageUpdater CRs select the apps (FleetOneCR when empty).
type FleetSpec struct {
	Apps, Repos      int
	MinTags, MaxTags int
	Due, Broken      int
	GitUnreachable   bool
	CRs              FleetCRShape
}

// FleetCRShape is how a generated fleet's ImageUpdater CRs select its
// apps. Every shape selects each app by exactly one ref whose image is the
// app's repository, so every shape gives the same answers.
type FleetCRShape string

const (
	// FleetOneCR: one CR, fleet, with a ref per repository
	// (namePattern "app-*-rNNN"): the refs grow with the repositories.
	FleetOneCR FleetCRShape = "one-cr"
	// FleetCRPerApp: one CR per app, named as the app, with one ref whose
	// namePattern is the app's name, as an ApplicationSet generates them:
	// the CRs and refs grow with the apps.
	FleetCRPerApp FleetCRShape = "cr-per-app"
	// FleetGlobCRs: FleetGlobCRCount CRs (fleet-0…), the repositories
	// dealt to them in turn, a ref per repository whose namePattern is a
	// glob with character sets ("app-[0-9][0-9][0-9][0-9]-rNNN"), and
	// first in each CR's specificity order a catch-all "*" ref with a
	// label selector no app matches.
	FleetGlobCRs FleetCRShape = "glob-crs"
)

// FleetGlobCRCount is the number of CRs of a FleetGlobCRs fleet.
const FleetGlobCRCount = 4

// FleetCRShapes are the shapes, in the benchmark's order.
func FleetCRShapes() []FleetCRShape { return []FleetCRShape{FleetOneCR, FleetCRPerApp, FleetGlobCRs} }

// ParseFleetCRShape reads a shape's name.
func ParseFleetCRShape(s string) (FleetCRShape, error) {
	for _, sh := range FleetCRShapes() {
		if string(sh) == s {
			return sh, nil
		}
	}
	return "", fmt.Errorf("unknown CR shape %q (want one of %v)", s, FleetCRShapes())
}

// UnreachableGitHost is the git host of a FleetSpec with GitUnreachable:
// .invalid never resolves (RFC 2606).
const UnreachableGitHost = "git.fleet.invalid"

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
	if s.CRs == "" {
		s.CRs = FleetOneCR
	}
	name := fmt.Sprintf("fleet-%d-apps-%d-repos", s.Apps, s.Repos)
	if s.CRs != FleetOneCR {
		name += "-" + string(s.CRs)
	}
	gitURL := "${GIT}/config.git"
	if s.GitUnreachable {
		name += "-git-unreachable"
		gitURL = "https://" + UnreachableGitHost + "/config.git"
	}
	sc := &Scenario{Name: name, Expect: Healthy, App: AppRef{Name: "app-0000", Namespace: "argocd"},
		Now: "2026-11-29T12:00:00Z", Registry: RegistrySpec{Repositories: map[string][]Image{}, Lazy: true}}
	// The tag counts run evenly from MinTags to MaxTags, dealt to the
	// repositories in a golden-ratio order (repository r gets the
	// (r·k mod Repos)-th count, k ≈ 0.618·Repos and prime to it): a fleet
	// of fewer apps than repositories uses the first ones, and they carry
	// the same mix of small and large tag lists as all of them, so the
	// cost per app of fleets of every size compares like with like.
	step := spreadStep(s.Repos)
	tagsOf := make([]int, s.Repos)
	for r := 0; r < s.Repos; r++ {
		n := s.MinTags
		if s.Repos > 1 {
			n += (s.MaxTags - s.MinTags) * (r * step % s.Repos) / (s.Repos - 1)
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
	crNames := fleetCRs(&objs, s)
	for i := 0; i < s.Apps; i++ {
		r := i % s.Repos
		name := fleetAppName(i, s.Repos)
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
		fmt.Fprintf(&objs, "---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: %s, namespace: argocd}\nspec:\n  project: default\n  source: {repoURL: \"%s\", path: %s, targetRevision: main, kustomize: {}}\n  destination: {server: \"https://kubernetes.default.svc\", namespace: %s}\n  syncPolicy: {automated: {prune: true, selfHeal: true}}\nstatus:\n  sourceType: Kustomize\n  summary: {images: [\"%s\"]}\n  sync: {status: Synced, revision: abc123}\n  health: {status: Healthy}\n",
			name, gitURL, dir, name, live)
	}
	objs.WriteString("---\napiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: default, namespace: argocd}\nspec:\n  sourceRepos: [\"*\"]\n  destinations: [{server: \"*\", namespace: \"*\"}]\n")
	sc.Objects = objs.String()
	sc.Git = GitSpec{Repositories: map[string]Repo{"config": {DefaultBranch: "main", Branches: map[string]Branch{"main": {Files: files}}}}}
	var logs strings.Builder
	for _, cr := range crNames {
		fmt.Fprintf(&logs, "time=\"2026-11-29T11:58:00Z\" level=info msg=\"Starting image update cycle, considering %d application(s) for update\" imageUpdater_name=%s imageUpdater_namespace=argocd\n", cr.apps, cr.name)
	}
	for _, cr := range crNames {
		fmt.Fprintf(&logs, "time=\"2026-11-29T11:58:30Z\" level=info msg=\"Processing results: applications=%d images_considered=%d images_skipped=0 images_updated=0 errors=0\" imageUpdater_name=%s imageUpdater_namespace=argocd\n", cr.apps, cr.apps, cr.name)
	}
	sc.Logs = logs.String()
	return sc
}

// fleetCR is one generated CR: its name and how many apps it selects.
type fleetCR struct {
	name string
	apps int
}

// fleetCRs writes the fleet's ImageUpdater CRs in s.CRs's shape and
// returns their names.
func fleetCRs(objs *strings.Builder, s FleetSpec) []fleetCR {
	const head = "---\napiVersion: argocd-image-updater.argoproj.io/v1alpha1\nkind: ImageUpdater\nmetadata: {name: %s, namespace: argocd}\nspec:\n  applicationRefs:\n"
	ref := func(pattern string, r int) {
		fmt.Fprintf(objs, "  - namePattern: \"%s\"\n    images:\n    - alias: app\n      imageName: \"${REGISTRY}/%s\"\n      manifestTargets: {kustomize: {name: \"${REGISTRY}/%s\"}}\n", pattern, repoName(r), repoName(r))
	}
	switch s.CRs {
	case FleetCRPerApp:
		out := make([]fleetCR, 0, s.Apps)
		for i := 0; i < s.Apps; i++ {
			name := fleetAppName(i, s.Repos)
			fmt.Fprintf(objs, head, name)
			ref(name, i%s.Repos)
			out = append(out, fleetCR{name: name, apps: 1})
		}
		return out
	case FleetGlobCRs:
		var out []fleetCR
		for k := 0; k < FleetGlobCRCount; k++ {
			name := fmt.Sprintf("fleet-%d", k)
			fmt.Fprintf(objs, head, name)
			fmt.Fprintf(objs, "  - namePattern: \"*\"\n    labelSelectors: {matchLabels: {fleet.imgupd.dev/catch-all: \"%d\"}}\n    images:\n    - alias: app\n      imageName: \"${REGISTRY}/%s\"\n", k, repoName(0))
			n := 0
			for r := k; r < s.Repos; r += FleetGlobCRCount {
				ref(fmt.Sprintf("app-[0-9][0-9][0-9][0-9]-r%03d", r), r)
				for i := r; i < s.Apps; i += s.Repos {
					n++
				}
			}
			out = append(out, fleetCR{name: name, apps: n})
		}
		return out
	}
	fmt.Fprintf(objs, head, "fleet")
	for r := 0; r < s.Repos; r++ {
		ref(fmt.Sprintf("app-*-r%03d", r), r)
	}
	return []fleetCR{{name: "fleet", apps: s.Apps}}
}

// fleetAppName is the name of app i of a fleet over repos repositories.
func fleetAppName(i, repos int) string { return fmt.Sprintf("app-%04d-r%03d", i, i%repos) }

func repoName(r int) string { return fmt.Sprintf("team/svc-%03d", r) }

// spreadStep is the step of FleetScenario's golden-ratio order over n
// repositories: about 0.618·n and prime to n, so that r·step mod n visits
// every index once and any prefix spreads over the whole range.
func spreadStep(n int) int {
	if n <= 2 {
		return 1
	}
	k := max(1, (n*618+500)/1000)
	for gcd(k, n) != 1 {
		k++
	}
	return k
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

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

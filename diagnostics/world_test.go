package diagnostics_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/diagnostics/argo"
	"github.com/imgupd/imgupd/diagnostics/cluster"
	"github.com/imgupd/imgupd/diagnostics/gitsource"
	"github.com/imgupd/imgupd/diagnostics/registry"
	"github.com/imgupd/imgupd/diagnostics/updater"
	labgit "github.com/imgupd/imgupd/lab/git"
	labregistry "github.com/imgupd/imgupd/lab/registry"
)

// Shared loopback servers: one registry and one git server for every
// scenario (each scenario uses its own repositories).
var (
	labOnce sync.Once
	labReg  *labregistry.Server
	labGit  *labgit.Server
	labErr  error
	repoSeq int
	repoMu  sync.Mutex
)

const (
	gitUser, gitPass = "CANARY-git-user-4411", "CANARY-git-pass-8e21"
	regUser, regPass = "CANARY-reg-user-6c0d", "CANARY-reg-pass-3b77"
)

func lab(t testing.TB) (*labregistry.Server, *labgit.Server) {
	t.Helper()
	labOnce.Do(func() {
		labReg, labErr = labregistry.Start()
		if labErr != nil {
			return
		}
		labGit, labErr = labgit.Start()
	})
	if labErr != nil {
		t.Fatal(labErr)
	}
	return labReg, labGit
}

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

// world is one scenario's environment: cluster objects as YAML (with
// placeholders), registry repositories, git repositories, updater logs.
type world struct {
	t       testing.TB
	vars    map[string]string
	kube    []string // typed objects (Deployment, Pod, Secret, ConfigMap, Event)
	dyn     []string // Applications, AppProjects, ImageUpdaters
	logs    string
	reg     *labregistry.Server
	git     *labgit.Server
	regOpts []labregistry.Option
	now     time.Time
}

// newWorld is a healthy setup: Image Updater v1.3.0 in argocd, an ImageUpdater
// CR selecting Application "web" (Kustomize, argocd write-back), registry
// repository team/web with 1.0.0 (running) and 1.0.1, the app's manifests in git.
func newWorld(t testing.TB) *world {
	reg, git := lab(t)
	repoMu.Lock()
	repoSeq++
	n := repoSeq
	repoMu.Unlock()
	w := &world{t: t, reg: reg, git: git, now: time.Now()}
	img := reg.Host + "/team" + itoa(n) + "/web"
	w.vars = map[string]string{
		"REGISTRY": reg.Host, "IMAGE": img, "REPO": "team" + itoa(n) + "/web",
		"GITREPO": git.RepoURL("config" + itoa(n)), "GITNAME": "config" + itoa(n), "N": itoa(n),
	}
	w.push(w.vars["REPO"], labregistry.Image{Tag: "1.0.0", Created: day("2026-01-01")}, labregistry.Image{Tag: "1.0.1", Created: day("2026-02-01")})
	w.kube = append(w.kube, updaterDeployment, updaterPod, updaterConfig)
	w.dyn = append(w.dyn, webApp, webCR, defaultProject)
	w.logs = `time="2026-11-29T10:00:00Z" level=info msg="Starting image update cycle, considering 1 application(s) for update" imageUpdater_name=web imageUpdater_namespace=argocd
time="2026-11-29T10:00:01Z" level=info msg="Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=0" imageUpdater_name=web imageUpdater_namespace=argocd
time="2026-11-29T10:02:00Z" level=info msg="Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=0" imageUpdater_name=web imageUpdater_namespace=argocd
`
	w.gitRepo(w.vars["GITNAME"], "main", map[string]string{
		"apps/web/kustomization.yaml": "resources:\n- deployment.yaml\nimages:\n- name: " + img + "\n",
		"apps/web/deployment.yaml":    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: " + img + ":1.0.0\n",
	})
	return w
}

func itoa(n int) string { return strconv.Itoa(n) }

func (w *world) push(repo string, imgs ...labregistry.Image) {
	w.t.Helper()
	if err := w.reg.Push(context.Background(), repo, imgs...); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) gitRepo(name, branch string, files map[string]string) {
	w.t.Helper()
	if err := w.git.CreateRepo(name, labgit.RepoSpec{DefaultBranch: branch, Branches: map[string]labgit.BranchSpec{branch: {Files: files}}}); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) expand(s string) string {
	w.vars["GITREPO_B64"] = base64.StdEncoding.EncodeToString([]byte(w.vars["GITREPO"]))
	for k, v := range w.vars {
		s = strings.ReplaceAll(s, "${"+k+"}", v)
	}
	return s
}

// replace swaps one object (matched by its text) for another.
func (w *world) replace(old, new string) {
	for i, s := range w.dyn {
		if s == old {
			w.dyn[i] = new
			return
		}
	}
	for i, s := range w.kube {
		if s == old {
			w.kube[i] = new
			return
		}
	}
	w.t.Fatalf("no object to replace")
}

// remove drops an object.
func (w *world) remove(doc string) {
	for i, s := range w.dyn {
		if s == doc {
			w.dyn = append(w.dyn[:i:i], w.dyn[i+1:]...)
			return
		}
	}
	w.t.Fatalf("no object to remove")
}

// edit applies a text substitution to the object that contains marker.
func (w *world) edit(marker, from, to string) {
	w.t.Helper()
	for _, list := range []*[]string{&w.dyn, &w.kube} {
		for i, s := range *list {
			if strings.Contains(s, marker) {
				if !strings.Contains(s, from) {
					w.t.Fatalf("object with %q does not contain %q", marker, from)
				}
				(*list)[i] = strings.Replace(s, from, to, 1)
				return
			}
		}
	}
	w.t.Fatalf("no object contains %q", marker)
}

type staticLogs string

func (s staticLogs) Logs(ctx context.Context, ns, pod, container string, o cluster.LogOptions) (string, error) {
	return string(s), nil
}

func (w *world) engine() *diagnostics.Engine {
	w.t.Helper()
	var typed []runtime.Object
	for _, doc := range w.kube {
		o, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(w.expand(doc)), nil, nil)
		if err != nil {
			w.t.Fatalf("decoding %s: %v", doc, err)
		}
		typed = append(typed, o)
	}
	var dyn []runtime.Object
	for _, doc := range w.dyn {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(w.expand(doc)), &m); err != nil {
			w.t.Fatalf("decoding %s: %v", doc, err)
		}
		dyn = append(dyn, &unstructured.Unstructured{Object: m})
	}
	kube := fake.NewClientset(typed...)
	reader := &cluster.Reader{
		Kube:    kube,
		Dynamic: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), argo.ListKinds(), dyn...),
		Logs:    staticLogs(w.logs),
	}
	return &diagnostics.Engine{
		Cluster:  reader,
		Registry: registry.New(),
		Git:      gitsource.New(),
		Options: diagnostics.Options{
			Now:                func() time.Time { return w.now },
			ControllerPlatform: updater.DefaultControllerPlatform,
			OwnProxy:           func(*http.Request) (*url.URL, error) { return nil, nil },
		},
	}
}

func (w *world) diagnose() *diagnostics.Report {
	return w.engine().Diagnose(context.Background(), diagnostics.Request{App: "web", Namespace: "argocd"})
}

const updaterDeployment = `apiVersion: apps/v1
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
`

const updaterPod = `apiVersion: v1
kind: Pod
metadata:
  name: argocd-image-updater-controller-7d9f-abcde
  namespace: argocd
  labels: {app.kubernetes.io/name: argocd-image-updater}
spec:
  containers: [{name: argocd-image-updater-controller, image: quay.io/argoprojlabs/argocd-image-updater:v1.3.0}]
status:
  phase: Running
  conditions: [{type: Ready, status: "True"}]
  containerStatuses: [{name: argocd-image-updater-controller, ready: true, restartCount: 0, image: "x", imageID: "sha256:abc"}]
`

const updaterConfig = `apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-image-updater-config, namespace: argocd}
data:
  registries.conf: |
    registries:
    - name: lab
      api_url: http://${REGISTRY}
      prefix: ${REGISTRY}
`

const webApp = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web, namespace: argocd}
spec:
  project: default
  source: {repoURL: "${GITREPO}", path: apps/web, targetRevision: main, kustomize: {}}
  destination: {server: "https://kubernetes.default.svc", namespace: web}
  syncPolicy: {automated: {prune: true, selfHeal: true}}
status:
  sourceType: Kustomize
  summary: {images: ["${IMAGE}:1.0.0"]}
  sync: {status: Synced, revision: abc123}
  health: {status: Healthy}
`

const webCR = `apiVersion: argocd-image-updater.argoproj.io/v1alpha1
kind: ImageUpdater
metadata: {name: web, namespace: argocd}
spec:
  applicationRefs:
  - namePattern: web
    images:
    - alias: web
      imageName: "${IMAGE}:~1.0"
      manifestTargets: {kustomize: {name: "${IMAGE}"}}
`

const defaultProject = `apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: default, namespace: argocd}
spec:
  sourceRepos: ["*"]
  destinations: [{server: "*", namespace: "*"}]
`

// useRegistry moves the scenario to its own registry (for auth and failure
// behaviours), with team/web pushed again.
func (w *world) useRegistry(opts ...labregistry.Option) {
	w.t.Helper()
	srv, err := labregistry.Start(opts...)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(srv.Close)
	w.reg = srv
	w.vars["REGISTRY"] = srv.Host
	w.vars["IMAGE"] = srv.Host + "/" + w.vars["REPO"]
	w.push(w.vars["REPO"], labregistry.Image{Tag: "1.0.0", Created: day("2026-01-01")}, labregistry.Image{Tag: "1.0.1", Created: day("2026-02-01")})
	w.manifests(w.vars["IMAGE"])
}

// manifests moves the app's source to a new git repository whose
// kustomization and Deployment use img.
func (w *world) manifests(img string) {
	w.t.Helper()
	repoMu.Lock()
	repoSeq++
	n := repoSeq
	repoMu.Unlock()
	w.vars["GITNAME"] = "config" + itoa(n) + "b"
	w.vars["GITREPO"] = w.git.RepoURL(w.vars["GITNAME"])
	w.gitRepo(w.vars["GITNAME"], "main", map[string]string{
		"apps/web/kustomization.yaml": "resources:\n- deployment.yaml\nimages:\n- name: " + img + "\n",
		"apps/web/deployment.yaml":    "kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: " + img + ":1.0.0\n",
	})
}

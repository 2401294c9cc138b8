package diagnostics_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/diagnostics/cluster"
	"github.com/imgupd/imgupd/diagnostics/render"
	"github.com/imgupd/imgupd/diagnostics/updater"
	labgit "github.com/imgupd/imgupd/lab/git"
	labregistry "github.com/imgupd/imgupd/lab/registry"
)

// primary is the code a user is pointed at: the root cause, or when nothing
// fails, the first warning.
func primary(r *diagnostics.Report) diagnostics.Code {
	if r.RootCause != nil {
		return r.RootCause.Code
	}
	for _, f := range r.Findings() {
		if f.Severity == diagnostics.Warn {
			return f.Code
		}
	}
	return ""
}

func dumpReport(r *diagnostics.Report) string {
	var b strings.Builder
	render.Text(&b, r, render.TextOptions{Verbose: true})
	return b.String()
}

func TestHealthyApp(t *testing.T) {
	w := newWorld(t)
	r := w.diagnose()
	if r.Verdict != diagnostics.VerdictHealthy || r.RootCause != nil {
		t.Fatalf("want healthy, got %s\n%s", r.Verdict, dumpReport(r))
	}
	if !r.HasCode(diagnostics.CodeCandidatesUpdate) {
		t.Errorf("an update 1.0.0 → 1.0.1 should be due\n%s", dumpReport(r))
	}
	b, _ := json.Marshal(r)
	if !strings.Contains(string(b), `"verdict":"healthy"`) {
		t.Error("JSON lacks the verdict")
	}
}

// scenario is one broken (or healthy) setup and the code it must produce.
type scenario struct {
	name  string
	setup func(w *world)
	want  diagnostics.Code
}

const crWithSettings = `apiVersion: argocd-image-updater.argoproj.io/v1alpha1
kind: ImageUpdater
metadata: {name: web, namespace: argocd}
spec:
  applicationRefs:
  - namePattern: web
    images:
    - alias: web
      imageName: "${IMAGE}:~1.0"
      commonUpdateSettings: SETTINGS
      manifestTargets: {kustomize: {name: "${IMAGE}"}}
`

func crWith(settings string) string { return strings.Replace(crWithSettings, "SETTINGS", settings, 1) }

var repoSecret = `apiVersion: v1
kind: Secret
metadata:
  name: repo-config
  namespace: argocd
  labels: {argocd.argoproj.io/secret-type: repository}
data: {url: "${GITREPO_B64}", username: ` + b64(gitUser) + `, password: ` + b64(gitPass) + `}
`

func gitWriteBack(branch string) string {
	return strings.Replace(webCR, "  applicationRefs:", "  writeBackConfig:\n    method: git\n    gitConfig: {branch: "+branch+"}\n  applicationRefs:", 1)
}

// The seven causes of the source article and the ten report classes of
// image-updater.md §8, each with the root cause imgupd must name.
var scenarios = []scenario{
	// Article 1: annotation / alias typos skip the app.
	{"article-1 annotation key typo (v0.18)", func(w *world) {
		w.edit("kind: Deployment", "argocd-image-updater:v1.3.0", "argocd-image-updater:v0.18.1")
		w.edit("kind: Application", "metadata: {name: web, namespace: argocd}",
			"metadata:\n  name: web\n  namespace: argocd\n  annotations: {argocd-image-updater.argoproj.io/image-lis: \"web=${IMAGE}\"}")
	}, "TARGET_IMAGE_LIST_MISSING"},
	// Article 2: filters leave no candidate.
	{"article-2 allow-tags matches nothing", func(w *world) {
		w.replace(webCR, crWith(`{allowTags: "regexp:^v[0-9]+\\.[0-9]+\\.[0-9]+$"}`))
	}, diagnostics.CodeCandidatesNone},
	// Article 3: registry authentication.
	{"article-3 registry wants credentials", func(w *world) {
		w.useRegistry(labregistry.WithBasicAuth(regUser, regPass))
	}, diagnostics.CodeRegistryUnauthorized},
	// Article 4: git write-back branch mismatch.
	{"article-4 write-back branch does not exist", func(w *world) {
		w.replace(webCR, gitWriteBack("master"))
		w.kube = append(w.kube, repoSecret)
	}, diagnostics.CodeWriteBackBranchMissing},
	// Article 4 (protected branch): only Image Updater's own push can tell; its log says so.
	{"article-4 protected branch rejects Image Updater's push", func(w *world) {
		w.replace(webCR, gitWriteBack("main"))
		w.kube = append(w.kube, repoSecret)
		w.logs += `time="2026-11-29T10:04:00Z" level=error msg="Could not update application spec: could not push to remote: remote: error: GH006: Protected branch update failed for refs/heads/main." application=argocd/web imageUpdater_name=web imageUpdater_namespace=argocd` + "\n"
	}, diagnostics.CodeWriteBackCommitFailed},
	// Article 5: the update is written but Argo CD does not sync.
	{"article-5 automated sync off with an update in the spec", func(w *world) {
		w.edit("kind: Application", "kustomize: {}", `kustomize: {images: ["${IMAGE}:1.0.1"]}`)
		w.edit("kind: Application", "  syncPolicy: {automated: {prune: true, selfHeal: true}}\n", "")
	}, diagnostics.CodeSyncManual},
	// Article 6: the manifest mapping is wrong.
	{"article-6 kustomize name not used by the manifests", func(w *world) {
		w.edit("kind: ImageUpdater", `manifestTargets: {kustomize: {name: "${IMAGE}"}}`, `manifestTargets: {kustomize: {name: "${REGISTRY}/team/other"}}`)
	}, diagnostics.CodeKustomizeNameNotUsed},
	// Article 7: network / DNS.
	{"article-7 registry host does not resolve", func(w *world) {
		w.edit("kind: ImageUpdater", `imageName: "${IMAGE}:~1.0"`, `imageName: "registry.invalid/team/web:~1.0"`)
		w.edit("kind: ImageUpdater", `manifestTargets: {kustomize: {name: "${IMAGE}"}}`, `manifestTargets: {kustomize: {name: "registry.invalid/team/web"}}`)
		w.edit("kind: Application", `images: ["${IMAGE}:1.0.0"]`, `images: ["registry.invalid/team/web:1.0.0"]`)
		w.manifests("registry.invalid/team/web")
	}, diagnostics.CodeRegistryDNS},

	// §8.1 image not live.
	{"report-1 image not live", func(w *world) {
		w.edit("kind: Application", `images: ["${IMAGE}:1.0.0"]`, `images: ["${REGISTRY}/other/web:1.0.0"]`)
	}, diagnostics.CodeLiveNotLive},
	// §8.2 unsupported source type.
	{"report-2 directory source", func(w *world) {
		w.edit("kind: Application", ", kustomize: {}}", "}")
		w.edit("kind: Application", "sourceType: Kustomize", "sourceType: Directory")
	}, diagnostics.CodeSourceUnsupported},
	// §8.3 semver vs non-semver: latest as a constraint.
	{"report-3 latest used as a semver constraint", func(w *world) {
		w.edit("kind: ImageUpdater", `imageName: "${IMAGE}:~1.0"`, `imageName: "${IMAGE}:latest"`)
	}, diagnostics.CodeCandidatesConstraint},
	// §8.4 pull secret keyed for another registry.
	{"report-4 pull secret auths key mismatch", func(w *world) {
		w.useRegistry(labregistry.WithBasicAuth(regUser, regPass))
		w.replace(webCR, crWith(`{pullSecret: "pullsecret:argocd/regcred"}`))
		w.kube = append(w.kube, dockerSecret("https://index.docker.io/v1/"))
	}, diagnostics.CodeRegistryPullSecretKey},
	// §8.5 argocd write-back reverted by an ApplicationSet.
	{"report-5 argocd write-back under an ApplicationSet", func(w *world) {
		w.edit("kind: Application", "metadata: {name: web, namespace: argocd}",
			"metadata:\n  name: web\n  namespace: argocd\n  ownerReferences: [{apiVersion: argoproj.io/v1alpha1, kind: ApplicationSet, name: webs, uid: u1, controller: true}]")
	}, diagnostics.CodeWriteBackParentReverts},
	// §8.6 platform mismatch for newest-build.
	{"report-6 newest-build finds no linux/amd64 image", func(w *world) {
		w.push(w.vars["REPO"]+"-arm", labregistry.Image{Tag: "2.0.0", Created: day("2026-03-01"), Platforms: []updater.Platform{{OS: "linux", Arch: "arm64"}}})
		w.edit("kind: ImageUpdater", `imageName: "${IMAGE}:~1.0"`, `imageName: "${IMAGE}-arm"`)
		w.edit("kind: ImageUpdater", `manifestTargets: {kustomize: {name: "${IMAGE}"}}`, "commonUpdateSettings: {updateStrategy: newest-build}\n      manifestTargets: {kustomize: {name: \"${IMAGE}\"}}")
	}, diagnostics.CodeCandidatesNone},
	// §8.7 rate limits.
	{"report-7 registry rate limit", func(w *world) {
		w.useRegistry(labregistry.WithRepoBehaviour(w.vars["REPO"], labregistry.Behaviour{Status: 429, RetryAfter: 60 * time.Second, Only: "tags"}))
	}, diagnostics.CodeRegistryRateLimited},
	// §8.8 git write-back credentials missing.
	{"report-8 no repository credentials for git write-back", func(w *world) {
		w.replace(webCR, gitWriteBack("main"))
	}, diagnostics.CodeWriteBackCredsMissing},
	// §8.9 namespace scoping: the CR lives in a namespace the controller does not watch.
	{"report-9 CR in an unwatched namespace", func(w *world) {
		w.edit("kind: ImageUpdater", "metadata: {name: web, namespace: argocd}", "metadata: {name: web, namespace: team}")
	}, "TARGET_CR_NAMESPACE_NOT_WATCHED"},
	// §8.10 newest-build picks latest on a build-time tie.
	{"report-10 newest-build tie goes to latest", func(w *world) {
		w.push(w.vars["REPO"], labregistry.Image{Tag: "latest", SameAs: "1.0.1"})
		w.edit("kind: ImageUpdater", `imageName: "${IMAGE}:~1.0"`, `imageName: "${IMAGE}"`)
		w.edit("kind: ImageUpdater", `manifestTargets: {kustomize: {name: "${IMAGE}"}}`, "commonUpdateSettings: {updateStrategy: newest-build}\n      manifestTargets: {kustomize: {name: \"${IMAGE}\"}}")
	}, diagnostics.CodeCandidatesTie},
}

// helmApp turns the app into a Helm chart in git whose values use
// image.repository / image.tag.
func helmApp(w *world) {
	w.manifests(w.vars["IMAGE"])
	w.gitRepo(w.vars["GITNAME"]+"h", "main", map[string]string{
		"charts/web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"charts/web/values.yaml": "image:\n  repository: " + w.vars["IMAGE"] + "\n  tag: 1.0.0\nreplicas: 1\n",
	})
	w.vars["GITREPO"] = w.git.RepoURL(w.vars["GITNAME"] + "h")
	w.edit("kind: Application", "path: apps/web, targetRevision: main, kustomize: {}", "path: charts/web, targetRevision: main, helm: {}")
	w.edit("kind: Application", "sourceType: Kustomize", "sourceType: Helm")
}

var moreScenarios = []scenario{
	{"helm parameters the chart does not read", func(w *world) {
		helmApp(w)
		w.edit("kind: ImageUpdater", `manifestTargets: {kustomize: {name: "${IMAGE}"}}`, `manifestTargets: {helm: {name: image.name, tag: image.tag}}`)
	}, diagnostics.CodeHelmParamNotInValues},
	{"annotation for an alias not in image-list (useAnnotations)", func(w *world) {
		helmApp(w)
		w.replace(webCR, "apiVersion: argocd-image-updater.argoproj.io/v1alpha1\nkind: ImageUpdater\nmetadata: {name: web, namespace: argocd}\nspec:\n  applicationRefs:\n  - namePattern: web\n    useAnnotations: true\n")
		w.edit("kind: Application", "metadata: {name: web, namespace: argocd}",
			"metadata:\n  name: web\n  namespace: argocd\n  annotations:\n    argocd-image-updater.argoproj.io/image-list: \"web=${IMAGE}:~1.0\"\n    argocd-image-updater.argoproj.io/app.helm.image-name: image.repository\n    argocd-image-updater.argoproj.io/app.helm.image-tag: image.tag")
	}, diagnostics.CodeHelmParamNotInValues},
	{"upgrade to v1.x without CRs ignores the annotations", func(w *world) {
		w.remove(webCR)
		w.edit("kind: Application", "metadata: {name: web, namespace: argocd}",
			"metadata:\n  name: web\n  namespace: argocd\n  annotations: {argocd-image-updater.argoproj.io/image-list: \"web=${IMAGE}:~1.0\"}")
	}, "TARGET_ANNOTATIONS_IGNORED"},
	{"CRD-defaulted semver overrides a CR-wide newest-build", func(w *world) {
		w.replace(webCR, strings.Replace(crWith(`{allowTags: any, updateStrategy: semver, forceUpdate: false}`), "spec:\n", "spec:\n  commonUpdateSettings: {updateStrategy: newest-build}\n", 1))
	}, "TARGET_CRD_DEFAULTED_STRATEGY"},
	{"Image Updater crash-loops", func(w *world) {
		w.edit("kind: Deployment", "readyReplicas: 1, availableReplicas: 1", "readyReplicas: 0, availableReplicas: 0")
		w.edit("kind: Pod", `conditions: [{type: Ready, status: "True"}]`, `conditions: [{type: Ready, status: "False"}]`)
		w.edit("kind: Pod", "ready: true, restartCount: 0", "ready: false, restartCount: 12")
	}, diagnostics.CodeUpdaterNotReady},
	{"registries.conf Image Updater cannot load", func(w *world) {
		w.edit("kind: ConfigMap", "prefix: ${REGISTRY}", "prefix: ${REGISTRY}\n      credentialz: env:X")
	}, diagnostics.CodeRegistriesConfInvalid},
	{"git write-back committed but automated sync is off", func(w *world) {
		w.replace(webCR, gitWriteBack("main"))
		w.kube = append(w.kube, repoSecret)
		img := w.vars["IMAGE"]
		w.vars["GITNAME"] += "c"
		w.vars["GITREPO"] = w.git.RepoURL(w.vars["GITNAME"])
		err := w.git.CreateRepo(w.vars["GITNAME"], labgit.RepoSpec{DefaultBranch: "main", Branches: map[string]labgit.BranchSpec{"main": {
			Files: map[string]string{"apps/web/kustomization.yaml": "images:\n- name: " + img + "\n"},
			Commits: []labgit.CommitSpec{{AuthorName: "argocd-image-updater", AuthorEmail: "noreply@argoproj.io",
				Message: "build: automatic update of web", Files: map[string]string{"apps/web/.argocd-source-web.yaml": "kustomize:\n  images:\n  - " + img + ":1.0.1\n"}}},
		}}})
		if err != nil {
			w.t.Fatal(err)
		}
		w.edit("kind: Application", "  syncPolicy: {automated: {prune: true, selfHeal: true}}\n", "")
	}, diagnostics.CodeSyncManual},
	{"Image Updater not installed", func(w *world) {
		w.kube = []string{}
	}, diagnostics.CodeUpdaterNotFound},
}

func TestHealthyGitWriteBack(t *testing.T) {
	w := newWorld(t)
	w.replace(webCR, gitWriteBack("main"))
	w.kube = append(w.kube, repoSecret)
	r := w.diagnose()
	if r.Verdict != diagnostics.VerdictHealthy {
		t.Fatalf("verdict %s\n%s", r.Verdict, dumpReport(r))
	}
	if !r.HasCode(diagnostics.CodeWriteBackOK) {
		t.Errorf("git write-back should pass\n%s", dumpReport(r))
	}
	assertNoSecrets(t, r)
}

// TestProxyMissing: imgupd reaches the registry through a proxy, the
// updater's pod has none for it.
func TestProxyMissing(t *testing.T) {
	w := newWorld(t)
	eng := w.engine()
	proxy, _ := url.Parse("http://proxy.corp.example:3128")
	eng.Options.OwnProxy = func(*http.Request) (*url.URL, error) { return proxy, nil }
	r := eng.Diagnose(context.Background(), diagnostics.Request{App: "web", Namespace: "argocd"})
	if r.RootCause == nil || r.RootCause.Code != diagnostics.CodeRegistryProxyMissing || !strings.Contains(r.RootCause.Fix.Snippet, "HTTP_PROXY=http://proxy.corp.example:3128") {
		t.Fatalf("root cause %+v\n%s", r.RootCause, dumpReport(r))
	}
}

func dockerSecret(key string) string {
	auth := b64(regUser + ":" + regPass)
	return `apiVersion: v1
kind: Secret
type: kubernetes.io/dockerconfigjson
metadata: {name: regcred, namespace: argocd}
data:
  .dockerconfigjson: ` + b64(`{"auths":{"`+key+`":{"auth":"`+auth+`"}}}`) + `
`
}

func TestScenarios(t *testing.T) {
	for _, sc := range append(scenarios, moreScenarios...) {
		t.Run(sc.name, func(t *testing.T) {
			w := newWorld(t)
			sc.setup(w)
			r := w.diagnose()
			if got := primary(r); got != sc.want {
				t.Fatalf("primary finding %q, want %q\n%s", got, sc.want, dumpReport(r))
			}
			if sc.want != diagnostics.CodeCandidatesTie && sc.want != "TARGET_CRD_DEFAULTED_STRATEGY" && r.Verdict != diagnostics.VerdictBroken {
				t.Errorf("verdict %s, want broken", r.Verdict)
			}
			assertNoSecrets(t, r)
		})
	}
}

// assertNoSecrets renders the report every way and looks for the canaries.
func assertNoSecrets(t *testing.T, r *diagnostics.Report) {
	t.Helper()
	var b strings.Builder
	render.Text(&b, r, render.TextOptions{Verbose: true})
	render.Markdown(&b, r)
	j, _ := json.Marshal(r)
	b.Write(j)
	out := b.String()
	for _, s := range []string{gitPass, regPass, base64.StdEncoding.EncodeToString([]byte(regUser + ":" + regPass))} {
		if strings.Contains(out, s) {
			t.Fatalf("a secret leaked into the report: %q", s)
		}
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestAppNotFoundSuggestsNames(t *testing.T) {
	w := newWorld(t)
	r := w.engine().Diagnose(context.Background(), diagnostics.Request{App: "wbe", Namespace: "argocd"})
	if r.RootCause == nil || r.RootCause.Code != diagnostics.CodeAppNotFound || !strings.Contains(r.RootCause.Title, "did you mean web?") {
		t.Fatalf("root cause %+v\n%s", r.RootCause, dumpReport(r))
	}
	for _, s := range r.Stages[2:] {
		if s.Status != diagnostics.Skipped || s.SkipReason == "" {
			t.Errorf("stage %s should be skipped with a reason, got %s", s.ID, s.Status)
		}
	}
}

// TestForbiddenReadNamesRule: a read RBAC forbids becomes a finding that
// names the missing rule, never a pass.
func TestForbiddenReadNamesRule(t *testing.T) {
	w := newWorld(t)
	eng := w.engine()
	reader := eng.Cluster.(*cluster.Reader)
	reader.Dynamic.(*dynamicfake.FakeDynamicClient).PrependReactor("list", "imageupdaters", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "argocd-image-updater.argoproj.io", Resource: "imageupdaters"}, "", errors.New("RBAC"))
	})
	r := eng.Diagnose(context.Background(), diagnostics.Request{App: "web", Namespace: "argocd"})
	st := r.Stage(diagnostics.StageTarget)
	if st.Status != diagnostics.Unknown {
		t.Fatalf("target stage %s, want unknown\n%s", st.Status, dumpReport(r))
	}
	f := st.Findings[0]
	if f.Code != diagnostics.CodeReadForbidden || !strings.Contains(f.Evidence[0].Value, `argocd-image-updater.argoproj.io`) || !strings.Contains(f.Evidence[0].Value, "imageupdaters") {
		t.Fatalf("finding %+v", f)
	}
	if r.Verdict == diagnostics.VerdictHealthy {
		t.Error("a forbidden read must not end in a healthy verdict")
	}
}

// TestDeadline: a registry slower than the whole diagnosis's deadline does
// not hang it; the report says what was not finished.
func TestDeadline(t *testing.T) {
	w := newWorld(t)
	w.useRegistry(labregistry.WithRepoBehaviour(w.vars["REPO"], labregistry.Behaviour{Delay: 5 * time.Second, Only: "tags"}))
	eng := w.engine()
	eng.Options.Timeout = 1500 * time.Millisecond
	start := time.Now()
	r := eng.Diagnose(context.Background(), diagnostics.Request{App: "web", Namespace: "argocd"})
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("diagnosis took %s with a 1.5 s deadline", d)
	}
	if r.Verdict == diagnostics.VerdictHealthy || len(r.Unchecked) == 0 {
		t.Fatalf("verdict %s, unchecked %v\n%s", r.Verdict, r.Unchecked, dumpReport(r))
	}
}

// TestLogSecretsRedacted: Image Updater's own log lines are evidence; the
// credentials they may carry never reach the report.
func TestLogSecretsRedacted(t *testing.T) {
	const pass, token = "CANARY-log-pass-51ab", "CANARY-log-token-9f02"
	w := newWorld(t)
	w.logs += `time="2026-11-29T10:05:00Z" level=error msg="Could not update application spec: could not push to https://bot:` + pass + `@git.example.com/org/config.git: Authorization: Bearer ` + token + ` rejected" application=argocd/web` + "\n"
	r := w.diagnose()
	if !r.HasCode(diagnostics.CodeUpdaterLogErrors) {
		t.Fatalf("the error line should be evidence\n%s", dumpReport(r))
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

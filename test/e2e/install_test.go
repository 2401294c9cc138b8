package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// The install tests: the Helm chart (deploy/helm/imgupd), the Kustomize base and variant
// (deploy/kustomize) and the plain manifests generated from the chart (deploy/rbac.yaml,
// deploy/imgupd.yaml), rendered with the real helm and kustomize (scripts/e2e-deps.sh installs
// them next to kube-apiserver) and created on the real API server with strict field validation.

const (
	chartDir     = "../../deploy/helm/imgupd"
	repoRoot     = "../.."
	fieldManager = "imgupd-e2e"
)

// chartRelease is one way to install the chart: a release of its own, in a namespace of its own,
// so that its ClusterRoles and ServiceAccount do not meet deploy/rbac.yaml's.
type chartRelease struct {
	what      string   // how it differs from the defaults, for messages
	name, ns  string   // the release and its namespace; the ServiceAccount is named like the release
	set       []string // --set values
	secretsOK bool     // its RBAC lets imgupd read Secrets (everywhere it needs)
}

// The chart's RBAC variants, each installed for real (RBAC objects created) by installChart.
var (
	chartDefault   = chartRelease{what: "default values", name: "imgupd-chart", ns: "imgupd-chart", secretsOK: true}
	chartNoSecrets = chartRelease{what: "rbac.secrets.read=false", name: "imgupd-nosecrets", ns: "imgupd-nosecrets",
		set: []string{"rbac.secrets.read=false"}}
	chartSecretNamespaces = chartRelease{what: "rbac.secrets.namespaces={team}", name: "imgupd-secretns", ns: "imgupd-secretns",
		set: []string{"rbac.secrets.namespaces={team}"}}
	chartVariants = []chartRelease{chartDefault, chartNoSecrets, chartSecretNamespaces}

	// chartEverything turns every optional object on: validated (dry run), not installed. The
	// monitoring objects too: the PrometheusRule (its CRD from testdata), the dashboard's ConfigMap
	// in Grafana's namespace.
	chartEverything = chartRelease{what: "every optional object", name: "imgupd-full", ns: "imgupd-full", secretsOK: true,
		set: []string{"slack.secret.create=true", "slack.botToken=xoxb-e2e", "slack.appToken=xapp-e2e", "serviceMonitor.enabled=true",
			"prometheusRule.enabled=true", "prometheusRule.labels.release=kube-prometheus-stack", "prometheusRule.appStuckAfterSeconds=7200",
			"grafanaDashboard.enabled=true", "grafanaDashboard.namespace=monitoring", "grafanaDashboard.annotations.grafana_folder=imgupd",
			"networkPolicy.enabled=true", "networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.name=monitoring",
			"config.serve.cluster=e2e", "config.serve.forge={github:ghe.example.com}", "image.digest=sha256:" + strings.Repeat("ab", 32)}}
)

// installTool is a binary scripts/e2e-deps.sh installed next to kube-apiserver.
func installTool(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(os.Getenv("IMGUPD_E2E_BIN"), name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not in IMGUPD_E2E_BIN (%v): run `make e2e`, which installs it with scripts/e2e-deps.sh", name, err)
	}
	return p
}

// runTool runs a tool and returns its stdout; a failure shows stderr.
func runTool(t *testing.T, dir, bin string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

func (r chartRelease) templateArgs() []string {
	args := []string{"template", r.name, chartDir, "--namespace", r.ns}
	for _, s := range r.set {
		args = append(args, "--set", s)
	}
	return args
}

// render is `helm template` of the release, as objects.
func (r chartRelease) render(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	return parseObjects(t, runTool(t, ".", installTool(t, "helm"), r.templateArgs()...))
}

// kustomizeBuild is `kustomize build` of a directory under deploy/kustomize, as objects.
func kustomizeBuild(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	return parseObjects(t, runTool(t, ".", installTool(t, "kustomize"), "build", filepath.Join(repoRoot, "deploy", "kustomize", dir)))
}

// parseObjects splits a YAML stream into its objects (comment-only documents dropped).
func parseObjects(t *testing.T, stream []byte) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split("\n"+string(stream), "\n---") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatalf("%v\n%s", err, doc)
		}
		if len(m) > 0 {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
	if len(out) == 0 {
		t.Fatal("nothing rendered")
	}
	return out
}

// isRBACObject: the ServiceAccount, its RBAC, and the two objects the RBAC names for imgupd to
// write (it creates neither): the leader Lease and the summaries' ConfigMap.
func isRBACObject(u *unstructured.Unstructured) bool {
	switch u.GetKind() {
	case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Lease":
		return true
	case "ConfigMap":
		return strings.HasSuffix(u.GetName(), "-summaries")
	}
	return false
}

// apply creates or updates an object with server-side apply and strict field validation (an
// unknown or misspelt field is an error), for real or as a dry run; its namespace is made first.
func (c *client) apply(ctx context.Context, u *unstructured.Unstructured, dryRun bool) error {
	if ns := u.GetNamespace(); ns != "" {
		n := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
		if _, err := c.dyn.Resource(nsGVR).Create(ctx, n, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	ri, err := c.resource(u)
	if err != nil {
		return err
	}
	data, err := json.Marshal(u.Object)
	if err != nil {
		return err
	}
	force := true
	opts := metav1.PatchOptions{FieldManager: fieldManager, Force: &force, FieldValidation: "Strict"}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	if _, err := ri.Patch(ctx, u.GetName(), types.ApplyPatchType, data, opts); err != nil {
		return fmt.Errorf("%s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	return nil
}

var (
	installOnce sync.Map // release name → error of its installation
	crdMu       sync.Mutex
	crdDone     = map[string]error{} // CRD file → error of its installation
)

// operatorCRDs are the Prometheus Operator's CRDs of the chart's optional objects, by kind
// (testdata/install/README.md).
var operatorCRDs = map[string]string{
	"ServiceMonitor": "servicemonitors-v0.85.0.crd.yaml",
	"PrometheusRule": "prometheusrules-v0.85.0.crd.yaml",
}

// installOperatorCRD creates the Prometheus Operator's CRD of a kind once, so that the chart's
// object of that kind is validated against the real schema.
func installOperatorCRD(t *testing.T, admin *client, kind string) {
	t.Helper()
	file := operatorCRDs[kind]
	crdMu.Lock()
	defer crdMu.Unlock()
	crdErr, done := crdDone[file]
	if !done {
		crdErr = createCRDs(admin, file)
		crdDone[file] = crdErr
	}
	if crdErr != nil {
		t.Fatal(crdErr)
	}
}

func createCRDs(admin *client, file string) error {
	objs, err := readYAMLDocs(filepath.Join("testdata", "install", file))
	if err != nil {
		return err
	}
	crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	ctx := context.Background()
	for _, o := range objs {
		if _, err := admin.dyn.Resource(crdGVR).Create(ctx, o, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		deadline := time.Now().Add(3 * time.Minute) // a net: a loaded API server establishes CRDs slowly
		for {
			crd, err := admin.dyn.Resource(crdGVR).Get(ctx, o.GetName(), metav1.GetOptions{})
			if err == nil && established(crd) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("CRD %s not established", o.GetName())
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	return nil
}

// installChart renders a release and puts it on the API server with strict validation: its
// ServiceAccount and RBAC for real (the scenarios are read as that ServiceAccount), everything
// else as a dry run (no controller runs pods here). Once per release per test binary.
func installChart(t *testing.T, r chartRelease) {
	t.Helper()
	if v, ok := installOnce.Load(r.name); ok {
		if v != nil {
			t.Fatalf("installing %s: %v", r.what, v)
		}
		return
	}
	admin, err := newClient(srv.config)
	if err != nil {
		t.Fatal(err)
	}
	objs := r.render(t)
	for _, o := range objs {
		if _, ok := operatorCRDs[o.GetKind()]; ok {
			installOperatorCRD(t, admin, o.GetKind())
		}
	}
	var errs []string
	for _, o := range objs {
		if err := admin.apply(context.Background(), o, !isRBACObject(o)); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		installOnce.Store(r.name, strings.Join(errs, "; "))
		t.Fatalf("the chart with %s is not valid on the API server:\n%s", r.what, strings.Join(errs, "\n"))
	}
	installOnce.Store(r.name, nil)
}

// TestHelmLint: the chart passes `helm lint --strict` with its defaults and each variant.
func TestHelmLint(t *testing.T) {
	helm := installTool(t, "helm")
	for _, r := range append(append([]chartRelease{}, chartVariants...), chartEverything, chartRBACOnly, chartClusters) {
		args := []string{"lint", "--strict", chartDir}
		for _, s := range r.set {
			args = append(args, "--set", s)
		}
		out := runTool(t, ".", helm, args...)
		if !strings.Contains(string(out), "1 chart(s) linted, 0 chart(s) failed") {
			t.Errorf("helm lint with %s:\n%s", r.what, out)
		}
	}
}

// TestChartOnAPIServer: the chart rendered with its defaults, each RBAC variant and every optional
// object is accepted by the API server with strict field validation, and holds what a platform
// team's reviewer looks for.
func TestChartOnAPIServer(t *testing.T) {
	for _, r := range append(append([]chartRelease{}, chartVariants...), chartEverything) {
		t.Run(r.name, func(t *testing.T) {
			installChart(t, r)
			objs := r.render(t)
			byKind := map[string][]*unstructured.Unstructured{}
			for _, o := range objs {
				byKind[o.GetKind()] = append(byKind[o.GetKind()], o)
				for _, k := range []string{"app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/version", "app.kubernetes.io/managed-by", "helm.sh/chart"} {
					if o.GetLabels()[k] == "" {
						t.Errorf("%s %s has no label %s", o.GetKind(), o.GetName(), k)
					}
				}
			}
			deps := byKind["Deployment"]
			if len(deps) != 1 {
				t.Fatalf("%d Deployments", len(deps))
			}
			checkDeployment(t, deps[0], r)
			want := map[string]bool{"ServiceMonitor": r.name == chartEverything.name, "NetworkPolicy": r.name == chartEverything.name,
				"Secret": r.name == chartEverything.name, "PodDisruptionBudget": true, "Service": true, "Lease": true,
				"PrometheusRule": r.name == chartEverything.name}
			for kind, on := range want {
				if got := len(byKind[kind]) == 1; got != on {
					t.Errorf("%s rendered: %v, want %v", kind, got, on)
				}
			}
			// The configuration and the summaries' state, which imgupd may not create; with
			// grafanaDashboard.enabled, the dashboard for Grafana's sidecar.
			cms := byKind["ConfigMap"]
			wantCMs := 2
			if r.name == chartEverything.name {
				wantCMs = 3
				checkMonitoring(t, r, byKind["PrometheusRule"], cms)
			}
			if len(cms) != wantCMs || !slices.ContainsFunc(cms, func(o *unstructured.Unstructured) bool { return o.GetName() == r.name+"-summaries" }) {
				t.Errorf("%d ConfigMaps, want the configuration and %s-summaries (and the dashboard with every object)", len(cms), r.name)
			}
		})
	}
}

// checkMonitoring: the PrometheusRule has the alerts docs/install.md lists, each selecting the
// release's job, with the thresholds given; the dashboard's ConfigMap carries the sidecar's label,
// goes where grafanaDashboard.namespace says, and holds the dashboard shipped in deploy/grafana.
func checkMonitoring(t *testing.T, r chartRelease, rules, cms []*unstructured.Unstructured) {
	t.Helper()
	if len(rules) != 1 {
		t.Fatalf("%d PrometheusRules", len(rules))
	}
	if rules[0].GetLabels()["release"] != "kube-prometheus-stack" {
		t.Errorf("PrometheusRule labels %v lack prometheusRule.labels", rules[0].GetLabels())
	}
	groups, _, _ := unstructured.NestedSlice(rules[0].Object, "spec", "groups")
	alerts := map[string]string{}
	for _, g := range groups {
		rs, _ := g.(map[string]any)["rules"].([]any)
		for _, x := range rs {
			m := x.(map[string]any)
			alerts[fmt.Sprint(m["alert"])] = fmt.Sprint(m["expr"])
		}
	}
	for _, a := range []string{"ImgupdDown", "ImgupdSlackSocketDown", "ImgupdAppStuck", "ImgupdScheduledSummaryFailing", "ImgupdScanSlow",
		"ImgupdScanIncomplete", "ImgupdAppStateSeriesCapped"} {
		expr, ok := alerts[a]
		if !ok {
			t.Errorf("no alert %s", a)
			continue
		}
		if !strings.Contains(expr, `job="`+r.name+`"`) {
			t.Errorf("%s does not select the release's job: %s", a, expr)
		}
	}
	if !strings.Contains(alerts["ImgupdAppStuck"], `state=~"blocked|not-deployed"`) || !strings.HasSuffix(alerts["ImgupdAppStuck"], "> 7200") {
		t.Errorf("ImgupdAppStuck: %s", alerts["ImgupdAppStuck"])
	}
	shipped, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "grafana", "imgupd-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range cms {
		if cm.GetName() != r.name+"-dashboard" {
			continue
		}
		if cm.GetNamespace() != "monitoring" || cm.GetLabels()["grafana_dashboard"] != "1" || cm.GetAnnotations()["grafana_folder"] != "imgupd" {
			t.Errorf("dashboard ConfigMap in %q, labels %v, annotations %v", cm.GetNamespace(), cm.GetLabels(), cm.GetAnnotations())
		}
		data, _, _ := unstructured.NestedString(cm.Object, "data", "imgupd.json")
		var a, b any
		if err := json.Unmarshal([]byte(data), &a); err != nil {
			t.Fatalf("the dashboard in the ConfigMap: %v", err)
		}
		_ = json.Unmarshal(shipped, &b)
		if !reflect.DeepEqual(a, b) {
			t.Error("the dashboard in the ConfigMap is not deploy/grafana/imgupd-dashboard.json")
		}
		return
	}
	t.Errorf("no ConfigMap %s-dashboard", r.name)
}

// checkDeployment: two replicas with leader election, probes, resources, a locked-down security
// context, the tokens from the Secret and a checksum of the configuration.
func checkDeployment(t *testing.T, d *unstructured.Unstructured, r chartRelease) {
	t.Helper()
	get := func(path ...string) any {
		v, _, _ := unstructured.NestedFieldNoCopy(d.Object, path...)
		return v
	}
	if fmt.Sprint(get("spec", "replicas")) != "2" {
		t.Errorf("replicas %v, want 2", get("spec", "replicas"))
	}
	ann, _ := get("spec", "template", "metadata", "annotations").(map[string]any)
	if ann["checksum/config"] == nil {
		t.Error("no checksum/config annotation: a change of the configuration would not roll the pods")
	}
	if (ann["checksum/slack"] != nil) != (r.name == chartEverything.name) {
		t.Errorf("checksum/slack annotation %v (only when the chart makes the Secret)", ann["checksum/slack"])
	}
	pod := map[string]any{}
	if m, ok := get("spec", "template", "spec", "securityContext").(map[string]any); ok {
		pod = m
	}
	if pod["runAsNonRoot"] != true || fmt.Sprint(pod["runAsUser"]) != "65532" || fmt.Sprint(pod["seccompProfile"]) != "map[type:RuntimeDefault]" {
		t.Errorf("pod securityContext %v", pod)
	}
	cs, _ := get("spec", "template", "spec", "containers").([]any)
	if len(cs) != 1 {
		t.Fatalf("%d containers", len(cs))
	}
	c := cs[0].(map[string]any)
	sc, _ := c["securityContext"].(map[string]any)
	if sc["readOnlyRootFilesystem"] != true || sc["allowPrivilegeEscalation"] != false || fmt.Sprint(sc["capabilities"]) != "map[drop:[ALL]]" {
		t.Errorf("container securityContext %v", sc)
	}
	args := fmt.Sprint(c["args"])
	if !strings.Contains(args, "--leader-elect") || !strings.Contains(args, "--config=/etc/imgupd/imgupd.yaml") {
		t.Errorf("args %s", args)
	}
	for _, p := range []string{"livenessProbe", "readinessProbe"} {
		path, _, _ := unstructured.NestedString(c, p, "httpGet", "path")
		if want := map[string]string{"livenessProbe": "/healthz", "readinessProbe": "/readyz"}[p]; path != want {
			t.Errorf("%s on %q, want %s", p, path, want)
		}
	}
	if _, ok, _ := unstructured.NestedMap(c, "resources", "requests"); !ok {
		t.Error("no resource requests")
	}
	env := fmt.Sprint(c["env"])
	for _, want := range []string{"IMGUPD_SLACK_BOT_TOKEN", "IMGUPD_SLACK_APP_TOKEN", "secretKeyRef", "POD_NAMESPACE"} {
		if !strings.Contains(env, want) {
			t.Errorf("env lacks %s: %s", want, env)
		}
	}
	if strings.Contains(env, "xoxb-") || strings.Contains(fmt.Sprint(d.Object), "xapp-e2e") {
		t.Error("a token is in the Deployment itself")
	}
}

// TestKustomizeOnAPIServer: the Kustomize base and its no-Secret-reads variant build and are
// accepted by the API server with strict field validation (a dry run: the base is release imgupd,
// whose RBAC setup() installed from deploy/rbac.yaml).
func TestKustomizeOnAPIServer(t *testing.T) {
	admin, err := newClient(srv.config)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("rbac-only", func(t *testing.T) {
		for _, o := range kustomizeBuild(t, "rbac-only") {
			if err := admin.apply(context.Background(), o, true); err != nil {
				t.Error(err)
			}
			if k := o.GetKind(); k == "Deployment" || k == "ConfigMap" || k == "Service" || k == "Lease" {
				t.Errorf("rbac-only builds %s %s", k, o.GetName())
			}
		}
	})
	for _, dir := range []string{"base", "no-secret-reads"} {
		t.Run(dir, func(t *testing.T) {
			objs := kustomizeBuild(t, dir)
			var cm string
			for _, o := range objs {
				if err := admin.apply(context.Background(), o, true); err != nil {
					t.Error(err)
				}
				if o.GetKind() == "ConfigMap" && strings.HasPrefix(o.GetName(), "imgupd-config") {
					cm = o.GetName()
				}
			}
			// The generated ConfigMap's name carries a hash of its content, and the Deployment
			// mounts that name: a change of the configuration rolls the pods.
			if !strings.HasPrefix(cm, "imgupd-config-") {
				t.Errorf("ConfigMap %q, want imgupd-config-<hash>", cm)
			}
			for _, o := range objs {
				if o.GetKind() == "Deployment" && !strings.Contains(fmt.Sprint(o.Object), "name:"+cm) {
					t.Errorf("the Deployment does not mount %s", cm)
				}
			}
		})
	}
}

// TestManifestsAreTheChart: the generated files are what the chart renders now (deploy/render
// --check), and the RBAC is one: deploy/rbac.yaml, the Kustomize base and the chart with its
// default values have the same objects and rules; the no-Secret-reads variant and the chart with
// rbac.secrets.read=false too.
func TestManifestsAreTheChart(t *testing.T) {
	cmd := exec.Command("go", "run", "./deploy/render", "--check", "--helm", installTool(t, "helm"))
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the generated manifests are stale: %v\n%s", err, out)
	}

	asImgupd := func(set ...string) []*unstructured.Unstructured {
		return chartRelease{name: "imgupd", ns: "imgupd", set: set}.render(t)
	}
	shipped, err := readYAMLDocs(filepath.Join(repoRoot, "deploy", "rbac.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	same := func(what string, a, b []*unstructured.Unstructured) {
		t.Helper()
		ka, kb := rbacByKey(a), rbacByKey(b)
		if !reflect.DeepEqual(sortedKeys(ka), sortedKeys(kb)) {
			t.Errorf("%s: objects differ:\n %v\n %v", what, sortedKeys(ka), sortedKeys(kb))
			return
		}
		for k, x := range ka {
			if !reflect.DeepEqual(x, kb[k]) {
				t.Errorf("%s: %s differs:\n %v\n %v", what, k, x, kb[k])
			}
		}
	}
	chart := asImgupd()
	same("deploy/rbac.yaml and the chart", shipped, chart)
	same("the Kustomize base and the chart", kustomizeBuild(t, "base"), chart)
	same("deploy/kustomize/no-secret-reads and the chart with rbac.secrets.read=false", kustomizeBuild(t, "no-secret-reads"), asImgupd("rbac.secrets.read=false"))
	rbacOnly := asImgupd("rbacOnly=true")
	overlay := kustomizeBuild(t, "rbac-only")
	same("deploy/kustomize/rbac-only and the chart with rbacOnly=true", overlay, rbacOnly)
	for _, objs := range [][]*unstructured.Unstructured{overlay, rbacOnly} {
		if !slices.ContainsFunc(objs, func(o *unstructured.Unstructured) bool {
			return o.GetKind() == "Secret" && o.GetName() == "imgupd-token" && o.Object["type"] == "kubernetes.io/service-account-token"
		}) {
			t.Error("rbacOnly: no service-account-token Secret imgupd-token")
		}
	}
	// The same rules as deploy/rbac.yaml, without what lives where imgupd runs.
	full := rbacByKey(chart)
	for k, v := range rbacByKey(rbacOnly) {
		if !reflect.DeepEqual(full[k], v) {
			t.Errorf("rbacOnly: %s differs from the chart's defaults: %v", k, v)
		}
	}
	for k := range full {
		if _, ok := rbacByKey(rbacOnly)[k]; !ok && !strings.Contains(k, "summaries") && !strings.Contains(k, "leader-election") && !strings.HasPrefix(k, "Lease ") {
			t.Errorf("rbacOnly lacks %s", k)
		}
	}
	for k := range rbacByKey(asImgupd("rbac.secrets.read=false")) {
		if strings.Contains(k, "secret") {
			t.Errorf("rbac.secrets.read=false still renders %s", k)
		}
	}
}

// rbacByKey are the RBAC objects by kind/namespace/name, reduced to what grants: rules, subjects,
// roleRef (labels and Helm's bookkeeping left out).
func rbacByKey(objs []*unstructured.Unstructured) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, o := range objs {
		if !isRBACObject(o) {
			continue
		}
		m := map[string]any{}
		for _, f := range []string{"rules", "subjects", "roleRef"} {
			if v, ok := o.Object[f]; ok {
				m[f] = v
			}
		}
		out[o.GetKind()+" "+o.GetNamespace()+"/"+o.GetName()] = m
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestHelmInstallNotes: `helm install --dry-run=server` against the API server (it renders
// NOTES.txt and checks every object there): the notes say how to create the Slack Secret and give
// the first command to try in Slack.
func TestHelmInstallNotes(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
clusters: [{name: e2e, cluster: {server: "` + srv.config.Host + `", insecure-skip-tls-verify: true}}]
users: [{name: admin, user: {token: "` + srv.config.BearerToken + `"}}]
contexts: [{name: e2e, context: {cluster: e2e, user: admin}}]
current-context: e2e
`
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		set  []string
		want []string
	}{
		{nil, []string{"kubectl -n imgupd-notes create secret generic imgupd-notes-slack", "/invite @imgupd            (in #imgupd)",
			"/imgupd diagnose APP -n argocd", "set config.serve.cluster"}},
		{[]string{"rbac.secrets.read=false", "config.serve.cluster=prod", "config.access.rules[0].name=a", "config.access.rules[0].channels[0]=#deploys"},
			[]string{"(in #deploys)", "reports each credential check", "not verified"}},
		{[]string{"rbacOnly=true"}, []string{"Nothing runs here", "get secret imgupd-notes-token -o jsonpath='{.data.token}'", "--kubeconfig remote.kubeconfig"}},
		{[]string{"config.clusters[0].name=here", "config.clusters[0].inCluster=true", "config.clusters[1].name=there",
			"config.clusters[1].server=https://there.example:6443", "config.clusters[1].tokenSecret.name=imgupd-there"},
			[]string{"imgupd reads 2 Argo CD installation(s)", "Secrets of namespace imgupd-notes, which\nyou create", ": imgupd-there."}},
	} {
		args := []string{"install", "imgupd-notes", chartDir, "--namespace", "imgupd-notes", "--create-namespace", "--dry-run=server", "--kubeconfig", kubeconfig}
		for _, s := range tc.set {
			args = append(args, "--set", s)
		}
		out := string(runTool(t, ".", installTool(t, "helm"), args...))
		notes := out[strings.Index(out, "NOTES:"):]
		for _, w := range tc.want {
			if !strings.Contains(notes, w) {
				t.Errorf("NOTES with %v lack %q:\n%s", tc.set, w, notes)
			}
		}
	}
}

package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

var srv *apiServer

func TestMain(m *testing.M) {
	bin := os.Getenv("IMGUPD_E2E_BIN")
	if bin == "" {
		fmt.Fprintln(os.Stderr, "IMGUPD_E2E_BIN is not set: run `make e2e` (scripts/e2e-deps.sh builds and caches etcd and kube-apiserver)")
		os.Exit(1)
	}
	s, err := startAPIServer(bin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	srv = s
	second.bin = bin
	if err := setup(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e setup:", err)
		s.stop()
		os.Exit(1)
	}
	code := m.Run()
	removeCLI()
	closeTwoClusters()
	second.stop()
	s.stop()
	os.Exit(code)
}

// client applies objects of any kind as the admin.
type client struct {
	dyn    dynamic.Interface
	mapper meta.RESTMapper
}

func newClient(cfg *rest.Config) (*client, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &client{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}, nil
}

func (c *client) resource(u *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	gvk := u.GroupVersionKind()
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		c.mapper.(*restmapper.DeferredDiscoveryRESTMapper).Reset()
		if m, err = c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			return nil, fmt.Errorf("%s: %w", gvk, err)
		}
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return c.dyn.Resource(m.Resource).Namespace(u.GetNamespace()), nil
	}
	return c.dyn.Resource(m.Resource), nil
}

var nsGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// create makes the object (and its namespace), then writes its status
// through the status subresource where the resource has one.
func (c *client) create(ctx context.Context, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if ns := u.GetNamespace(); ns != "" {
		n := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
		if _, err := c.dyn.Resource(nsGVR).Create(ctx, n, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, err
		}
	}
	created, err := c.createOne(ctx, u)
	if err != nil {
		return nil, err
	}
	return created, nil
}

// createOne is create without the namespace: the object, then its status
// through the status subresource where the resource has one. On a failed
// status write it returns the created object with the error.
func (c *client) createOne(ctx context.Context, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ri, err := c.resource(u)
	if err != nil {
		return nil, err
	}
	// Strict, as kubectl apply is by default: a field the CRD does not know
	// (a lab scenario with a misplaced key) is an error, not silently pruned.
	created, err := ri.Create(ctx, u, metav1.CreateOptions{FieldValidation: "Strict"})
	if err != nil {
		return nil, fmt.Errorf("creating %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	if status, ok := u.Object["status"]; ok {
		if _, has := created.Object["status"]; !has || !equalJSON(created.Object["status"], status) {
			created.Object["status"] = status
			if updated, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err == nil {
				created = updated
			} else if !apierrors.IsNotFound(err) && !apierrors.IsMethodNotSupported(err) {
				return created, fmt.Errorf("status of %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
			}
		}
	}
	return created, nil
}

func equalJSON(a, b any) bool {
	x, _ := yaml.Marshal(a)
	y, _ := yaml.Marshal(b)
	return string(x) == string(y)
}

// delete deletes the object and waits until the watch cache no longer
// has it (settle).
func (c *client) delete(ctx context.Context, u *unstructured.Unstructured) {
	ri, err := c.resource(u)
	if err != nil {
		return
	}
	zero := int64(0)
	if err := ri.Delete(ctx, u.GetName(), metav1.DeleteOptions{GracePeriodSeconds: &zero}); err == nil {
		_ = c.settle(ctx, []*unstructured.Unstructured{u}, true)
	}
}

// listedFromCache are the kinds imgupd's fleet scan lists from the API
// server's watch cache (cluster.Reader.ListsFromCache).
var listedFromCache = map[string]bool{"Application": true, "ApplicationSet": true, "ImageUpdater": true}

// settle waits until the API server's watch cache, which a fleet scan's
// lists of the kinds listedFromCache read, holds objs as their writes
// returned them (with gone: no longer holds them): the API server
// acknowledges a write before its cache has it, and a test that writes
// then scans would otherwise race the cache. The cache takes each
// resource's changes in order, so for writes it waits for the newest
// object of each resource; for deletes, for each object. It asks by
// name at resourceVersion=0 (what the cache holds) every few
// milliseconds, for at most a minute.
func (c *client) settle(ctx context.Context, objs []*unstructured.Unstructured, gone bool) error {
	type target struct {
		ri dynamic.ResourceInterface
		o  *unstructured.Unstructured
	}
	var targets []target
	newest := map[string]int{} // kind → index in targets
	for _, o := range objs {
		if !listedFromCache[o.GetKind()] {
			continue
		}
		ri, err := c.resource(o)
		if err != nil {
			return err
		}
		if gone {
			targets = append(targets, target{ri, o})
			continue
		}
		if i, ok := newest[o.GetKind()]; ok {
			if rvNumber(o.GetResourceVersion()) > rvNumber(targets[i].o.GetResourceVersion()) {
				targets[i] = target{ri, o}
			}
			continue
		}
		newest[o.GetKind()] = len(targets)
		targets = append(targets, target{ri, o})
	}
	deadline := time.Now().Add(time.Minute)
	for _, t := range targets {
		for {
			got, err := t.ri.Get(ctx, t.o.GetName(), metav1.GetOptions{ResourceVersion: "0"})
			switch {
			case gone && apierrors.IsNotFound(err),
				!gone && err == nil && rvNumber(got.GetResourceVersion()) >= rvNumber(t.o.GetResourceVersion()):
			case err != nil && !apierrors.IsNotFound(err):
				return err
			case time.Now().After(deadline):
				return fmt.Errorf("the API server's watch cache has not caught up with %s %s/%s (resourceVersion %s) in a minute", t.o.GetKind(), t.o.GetNamespace(), t.o.GetName(), t.o.GetResourceVersion())
			default:
				time.Sleep(5 * time.Millisecond)
				continue
			}
			break
		}
	}
	return nil
}

// rvNumber is a resourceVersion as a number: opaque to clients, an etcd
// revision on every API server this tier runs.
func rvNumber(rv string) uint64 {
	n, _ := strconv.ParseUint(rv, 10, 64)
	return n
}

func readYAMLDocs(path string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(string(data), "\n---") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(m) > 0 {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
	return out, nil
}

// setup installs the upstream CRDs and imgupd's shipped RBAC.
func setup() error {
	if err := installCRDs(srv); err != nil {
		return err
	}
	c, err := newClient(srv.config)
	if err != nil {
		return err
	}
	rbac, err := readYAMLDocs(filepath.Join("..", "..", "deploy", "rbac.yaml"))
	if err != nil {
		return err
	}
	for _, o := range rbac {
		if _, err := c.create(context.Background(), o); err != nil {
			return err
		}
	}
	return nil
}

// installCRDs installs Argo CD's and Image Updater's upstream CRDs (testdata/crds) in an API
// server and waits until they are established.
func installCRDs(s *apiServer) error {
	ctx := context.Background()
	c, err := newClient(s.config)
	if err != nil {
		return err
	}
	crds, _ := filepath.Glob("testdata/crds/*.crd.yaml")
	crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	for _, f := range crds {
		objs, err := readYAMLDocs(f)
		if err != nil {
			return err
		}
		for _, o := range objs {
			if o.GetName() == "imageupdaters.argocd-image-updater.argoproj.io" {
				if err := keepSpecNamespace(o); err != nil {
					return err
				}
			}
			if _, err := c.dyn.Resource(crdGVR).Create(ctx, o, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("CRD %s: %w", f, err)
			}
		}
	}
	deadline := time.Now().Add(3 * time.Minute) // a net: a loaded API server establishes CRDs slowly
	for _, name := range []string{"applications.argoproj.io", "appprojects.argoproj.io", "imageupdaters.argocd-image-updater.argoproj.io"} {
		for {
			crd, err := c.dyn.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
			if err == nil && established(crd) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("CRD %s not established", name)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	return nil
}

// keepSpecNamespace adds the optional spec.namespace that the v1.0 and v1.1
// CRDs have and v1.2 removed, so scenarios of those versions store what
// their own CRDs would; without it the server prunes the field.
func keepSpecNamespace(crd *unstructured.Unstructured) error {
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for i := range versions {
		v := versions[i].(map[string]any)
		if err := unstructured.SetNestedField(v, map[string]any{"type": "string"},
			"schema", "openAPIV3Schema", "properties", "spec", "properties", "namespace"); err != nil {
			return err
		}
	}
	return unstructured.SetNestedSlice(crd.Object, versions, "spec", "versions")
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// asServiceAccount is the admin config of the first API server impersonating a ServiceAccount.
func asServiceAccount(ns, name string) *rest.Config { return asServiceAccountOn(srv, ns, name) }

// asServiceAccountOn is the admin config of s impersonating a ServiceAccount.
func asServiceAccountOn(s *apiServer, ns, name string) *rest.Config {
	cfg := rest.CopyConfig(s.config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":" + name}
	return cfg
}

// loadScenario starts a scenario's registry and git server and creates its
// objects in the API server; the returned function removes them again.
func loadScenario(t *testing.T, sc *lab.Scenario, edit func([]*unstructured.Unstructured)) (*lab.Env, func()) {
	t.Helper()
	return loadScenarioObjects(t, sc, func(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
		if edit != nil {
			edit(objs)
		}
		return objs
	})
}

// loadScenarioObjects is loadScenario with the objects replaced by what
// objects returns (objects may add and drop some).
func loadScenarioObjects(t *testing.T, sc *lab.Scenario, objects func([]*unstructured.Unstructured) []*unstructured.Unstructured) (*lab.Env, func()) {
	t.Helper()
	return loadScenarioOn(t, srv, sc, objects)
}

// loadScenarioOn is loadScenarioObjects into the API server s.
func loadScenarioOn(t *testing.T, s *apiServer, sc *lab.Scenario, objects func([]*unstructured.Unstructured) []*unstructured.Unstructured) (*lab.Env, func()) {
	t.Helper()
	ctx := context.Background()
	env, err := lab.StartServers(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := env.Objects()
	if err != nil {
		env.Close()
		t.Fatal(err)
	}
	remove, err := createObjects(ctx, s, objects(objs))
	if err != nil {
		env.Close()
		t.Fatal(err)
	}
	return env, func() { remove(); env.Close() }
}

// createObjects creates objects (a scenario's, or some of them) in the API server s as the
// admin; remove deletes them again. On an error the ones created are deleted.
func createObjects(ctx context.Context, s *apiServer, objs []*unstructured.Unstructured) (remove func(), err error) {
	admin, err := newClient(s.config)
	if err != nil {
		return nil, err
	}
	var created []*unstructured.Unstructured
	remove = func() {
		for i := len(created) - 1; i >= 0; i-- {
			admin.delete(ctx, created[i])
		}
	}
	for _, o := range objs {
		c, err := admin.create(ctx, o.DeepCopy())
		if err != nil {
			remove()
			return nil, err
		}
		created = append(created, c)
	}
	if err := admin.settle(ctx, created, false); err != nil {
		remove()
		return nil, err
	}
	return remove, nil
}

// diagnoseOnServer loads a scenario into the API server, diagnoses it as the
// given ServiceAccount and removes the objects again.
func diagnoseOnServer(t *testing.T, sc *lab.Scenario, saNS, saName string, edit func([]*unstructured.Unstructured)) *report.Report {
	t.Helper()
	env, cleanup := loadScenario(t, sc, edit)
	defer cleanup()
	reader, err := cluster.NewReader(asServiceAccount(saNS, saName))
	if err != nil {
		t.Fatal(err)
	}
	reader.Logs = env.LogSource()
	env.UseCluster(reader)
	return env.Diagnose(context.Background())
}

// TestBuiltinScenariosOnRealAPIServer: every built-in scenario, stored
// through the real API server (CRD validation and defaulting), is loaded once
// and read three ways: with the shipped ClusterRole (deploy/rbac.yaml) it
// gives the state and code it gives on the fakes; without pod logs (a real API
// server has no kubelet) it gives the same unless its evidence is the log
// (checkWithoutPodLogs); and as each of the chart's ServiceAccounts it gives
// what the shipped RBAC gives, or no less (checkChartRBAC).
func TestBuiltinScenariosOnRealAPIServer(t *testing.T) {
	for _, r := range chartVariants {
		installChart(t, r)
	}
	all, err := lab.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range all {
		// Every built-in scenario names its state and code, and the unit
		// tier's lab tests hold the fakes to them (TestBuiltinScenarios,
		// TestBuiltinRootCauseFixes): the same answer here is the same
		// answer as on the fakes, without diagnosing each scenario twice.
		if sc.ExpectState == "" {
			t.Fatalf("%s names no state", sc.Name)
		}
		t.Run(sc.Name, func(t *testing.T) {
			env, cleanup := loadScenario(t, sc, nil)
			defer cleanup()
			reader, baseCalls := readAs(t, env, "imgupd", "imgupd") // deploy/rbac.yaml
			env.UseCluster(reader)
			base := env.Diagnose(context.Background())
			if !sc.Matches(base) {
				t.Errorf("real API server: %s, the scenario (and the fakes) %s %s\n%s", answer(base), sc.ExpectState, sc.Expect, findings(base))
			}
			checkWithoutPodLogs(t, sc, env)
			checkChartRBAC(t, sc, env, base, baseCalls)
		})
	}
}

// answer is what a report says: its state and the code it names.
func answer(r *report.Report) string { return string(r.State) + " " + lab.Primary(r) }

// logsChangeTheAnswer are the built-in scenarios whose answer rests on
// Image Updater's own log lines, with what the diagnosis says without them.
// A real API server has no kubelet, so it serves no pod logs at all.
var logsChangeTheAnswer = map[string]string{
	// The push rejection (GH006) shows only in Image Updater's log: the
	// lab's git server is no forge imgupd can ask, so without the log the
	// write-back is "not verified" and the app is on its way.
	"article-4-protected-branch": "the rejected push is only in the log; without it the push is not verified",
	// GitHub refused to open the pull request (403) in Image Updater's
	// log; a fine-grained token does not list its permissions, so without
	// the log the update waits for a merge with the permission not verified.
	"pull-request-github-refused-after": "the refused pull request is only in the log; without it the update waits for a merge",
	// The mounted script failed when Image Updater ran it; imgupd does not
	// run it, so without the log the credentials are not verified.
	"registry-ext-script-mounted-after": "the script's failure is only in the log; without it the credentials are not checked",
}

// checkWithoutPodLogs: the scenario, read with the real API server's
// pods/log (no kubelet: nothing serves them), gives the answer it gives with
// its logs, unless it is listed in logsChangeTheAnswer; missing logs never make
// an answer unknown and are listed as not verified.
func checkWithoutPodLogs(t *testing.T, sc *lab.Scenario, env *lab.Env) {
	t.Helper()
	reader, err := cluster.NewReader(asServiceAccount("imgupd", "imgupd"))
	if err != nil {
		t.Fatal(err)
	}
	env.UseCluster(reader) // pods/log through the API server: nothing to serve them
	rep := env.Diagnose(context.Background())
	why, changes := logsChangeTheAnswer[sc.Name]
	matches := sc.Matches(rep)
	switch {
	case changes && matches:
		t.Errorf("listed in logsChangeTheAnswer (%s), but the answer is the same without the logs: %s", why, answer(rep))
	case !changes && !matches:
		t.Errorf("without pod logs: %s, scenario expects %s %s; if the logs are the evidence, list it in logsChangeTheAnswer\n%s", answer(rep), sc.ExpectState, sc.Expect, findings(rep))
	}
	// A scenario listed above may be unknown without its logs for a
	// reason of its own (a credentials script imgupd does not run):
	// its root cause then names that reason, not the missing logs.
	ownReason := changes && rep.RootCause != nil && rep.RootCause.Code != report.CodeUpdaterLogsUnavailable
	if rep.State == report.StateUnknown && sc.ExpectState != string(report.StateUnknown) && !ownReason {
		t.Errorf("missing logs made the answer unknown\n%s", findings(rep))
	}
	if rep.HasCode(report.CodeUpdaterRunning) && !rep.HasCode(report.CodeUpdaterLogsUnavailable) {
		t.Errorf("the unreadable logs should be listed as not verified\n%s", findings(rep))
	}
}

// TestCRDDefaultingIsTheCause: a CR that sets newest-build CR-wide and only
// allowTags on the image is stored with updateStrategy: semver in the image
// block (the v1.0–v1.3 CRD default); the diagnosis names it. On fakes, which
// do not default, the same manifest gives no such warning.
func TestCRDDefaultingIsTheCause(t *testing.T) {
	sc, ok := lab.Builtin("healthy-kustomize-argocd")
	if !ok {
		t.Fatal("no healthy-kustomize-argocd scenario")
	}
	edit := func(objs []*unstructured.Unstructured) {
		for _, o := range objs {
			if o.GetKind() != "ImageUpdater" {
				continue
			}
			_ = unstructured.SetNestedField(o.Object, "newest-build", "spec", "commonUpdateSettings", "updateStrategy")
			refs, _, _ := unstructured.NestedSlice(o.Object, "spec", "applicationRefs")
			ref := refs[0].(map[string]any)
			imgs := ref["images"].([]any)
			img := imgs[0].(map[string]any)
			img["commonUpdateSettings"] = map[string]any{"allowTags": "any"}
			_ = unstructured.SetNestedSlice(o.Object, refs, "spec", "applicationRefs")
		}
	}
	// The API server writes the default into the image block the user left
	// without a strategy.
	env, err := lab.StartServers(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := env.Objects()
	env.Close()
	if err != nil {
		t.Fatal(err)
	}
	edit(objs)
	admin, err := newClient(srv.config)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.GetKind() != "ImageUpdater" {
			continue
		}
		o.SetNamespace("defaulting")
		stored, err := admin.create(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.delete(context.Background(), stored)
		refs, _, _ := unstructured.NestedSlice(stored.Object, "spec", "applicationRefs")
		img := refs[0].(map[string]any)["images"].([]any)[0].(map[string]any)
		if got := img["commonUpdateSettings"].(map[string]any)["updateStrategy"]; got != "semver" {
			t.Fatalf("stored image updateStrategy = %v, want the CRD default semver", got)
		}
	}

	rep := diagnoseOnServer(t, sc, "imgupd", "imgupd", edit)
	if !rep.HasCode("TARGET_CRD_DEFAULTED_STRATEGY") {
		t.Fatalf("the stored CRD default should be reported\n%s", findings(rep))
	}
}

// TestMissingRBACRuleIsAFinding: a ServiceAccount whose role cannot list
// ImageUpdater CRs gets a finding naming that rule, not a verdict.
func TestMissingRBACRuleIsAFinding(t *testing.T) {
	ctx := context.Background()
	admin, err := newClient(srv.config)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := readYAMLDocs(filepath.Join("..", "..", "deploy", "rbac.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		o.SetName(strings.Replace(o.GetName(), "imgupd", "imgupd-limited", 1))
		switch o.GetKind() {
		case "ClusterRole":
			rules, _, _ := unstructured.NestedSlice(o.Object, "rules")
			var kept []any
			for _, r := range rules {
				if !strings.Contains(fmt.Sprint(r), "imageupdaters") {
					kept = append(kept, r)
				}
			}
			_ = unstructured.SetNestedSlice(o.Object, kept, "rules")
		case "ClusterRoleBinding":
			_ = unstructured.SetNestedField(o.Object, "imgupd-limited-reader", "roleRef", "name")
			subs, _, _ := unstructured.NestedSlice(o.Object, "subjects")
			subs[0].(map[string]any)["name"] = "imgupd-limited"
			_ = unstructured.SetNestedSlice(o.Object, subs, "subjects")
		}
		if _, err := admin.create(ctx, o); err != nil && !apierrors.IsAlreadyExists(errors.Unwrap(err)) {
			t.Fatal(err)
		}
	}
	sc, _ := lab.Builtin("healthy-kustomize-argocd")
	rep := diagnoseOnServer(t, sc, "imgupd", "imgupd-limited", nil)
	st := rep.Stage(report.StageTarget)
	if st == nil || st.Status != report.Unknown || len(st.Findings) == 0 || st.Findings[0].Code != report.CodeReadForbidden {
		t.Fatalf("target stage should be unknown with READ_FORBIDDEN\n%s", findings(rep))
	}
	if !strings.Contains(st.Findings[0].Evidence[0].Value, "imageupdaters") {
		t.Errorf("the finding should name the rule: %+v", st.Findings[0].Evidence)
	}
	if rep.Verdict == report.VerdictHealthy {
		t.Error("a forbidden read must not give a healthy verdict")
	}
}

func findings(r *report.Report) string {
	var b strings.Builder
	for _, s := range r.Stages {
		fmt.Fprintf(&b, "%s %s %s\n", s.Status, s.ID, s.SkipReason)
		for _, f := range s.Findings {
			fmt.Fprintf(&b, "   %s %s %s\n", f.Severity, f.Code, f.Title)
		}
	}
	return b.String()
}

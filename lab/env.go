package lab

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/diagnostics"
	labforge "github.com/imgupd/imgupd/lab/forge"
	labgit "github.com/imgupd/imgupd/lab/git"
	"github.com/imgupd/imgupd/lab/helmrepo"
	"github.com/imgupd/imgupd/lab/kubefake"
	labregistry "github.com/imgupd/imgupd/lab/registry"
	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/forge"
	"github.com/imgupd/imgupd/sources/gitsource"
	"github.com/imgupd/imgupd/sources/helmchart"
	"github.com/imgupd/imgupd/sources/registry"
)

// unreachableHost stands in for ${REGISTRY} when the scenario's registry
// must not resolve.
const unreachableHost = "registry.invalid"

// Env is a running scenario.
type Env struct {
	Scenario *Scenario
	Registry *labregistry.Server
	Git      *labgit.Server
	// SSH, Forge, HelmRepo and Proxy run when the scenario asks for them.
	SSH *labgit.SSHServer
	// Forge is the fake forge API the git server serves on its own host.
	Forge    *labforge.Handler
	HelmRepo *helmrepo.Server
	Proxy    *labgit.Proxy
	// Vars are the placeholder values (REGISTRY, GIT, ...).
	Vars   map[string]string
	engine *diagnostics.Engine
}

// Start brings a scenario up: its registry and git server on loopback, the
// cluster objects in client-go fakes, the logs, and an engine wired to them.
// Close releases everything.
func Start(ctx context.Context, sc *Scenario) (*Env, error) {
	env, err := StartServers(ctx, sc)
	if err != nil {
		return nil, err
	}
	reader, err := env.fakeCluster()
	if err != nil {
		env.Close()
		return nil, err
	}
	env.UseCluster(reader)
	return env, nil
}

// StartServers starts the scenario's registry and git server and prepares an
// engine, but no cluster: give it one with UseCluster (the real-API-server
// tier loads Objects into a real kube-apiserver and passes its reader).
func StartServers(ctx context.Context, sc *Scenario) (env *Env, err error) {
	env = &Env{Scenario: sc, Vars: map[string]string{}}
	defer func() {
		if err != nil {
			env.Close()
		}
	}()
	if err := env.startRegistry(ctx); err != nil {
		return nil, err
	}
	if err := env.startGit(); err != nil {
		return nil, err
	}
	if err := env.startExtras(ctx); err != nil {
		return nil, err
	}
	opts := diagnostics.Options{ControllerPlatform: updater.DefaultControllerPlatform,
		OwnProxy: func(*http.Request) (*url.URL, error) { return nil, nil },
		Timeout:  Timeout, StageTimeout: Timeout}
	if sc.Now != "" {
		now, err := time.Parse(time.RFC3339, sc.Now)
		if err != nil {
			return nil, &ScenarioError{File: sc.Name, Field: "now", Reason: "want RFC 3339", Err: err}
		}
		opts.Now = func() time.Time { return now }
	}
	if sc.ImgupdProxy != "" {
		p, err := url.Parse(sc.ImgupdProxy)
		if err != nil {
			return nil, &ScenarioError{File: sc.Name, Field: "imgupdProxy", Reason: "not a URL", Err: err}
		}
		opts.OwnProxy = func(*http.Request) (*url.URL, error) { return p, nil }
	}
	fc, err := forge.New(forge.WithRequestTimeout(Timeout))
	if err != nil {
		return nil, err
	}
	env.engine = &diagnostics.Engine{Registry: registry.New(), Git: gitsource.New(gitsource.WithTimeout(Timeout)), Forge: fc,
		Charts: helmchart.New(helmchart.WithTimeout(Timeout)), Options: opts}
	return env, nil
}

// Timeout is the lab engine's deadline for a diagnosis, for each of its stages and for each git,
// chart or forge request, where imgupd's defaults are 20 s, 10 s, 60 s, 30 s and 10 s. The lab's
// servers are on loopback and answer (those that never end are cut by imgupd's byte bounds, not by
// time), so a deadline there would measure only the machine: on a loaded one, the defaults turned
// answers into CHECK_TIMEOUT. A test of a deadline sets its own (Engine().Options).
const Timeout = 3 * time.Minute

// UseCluster points the engine at a cluster.
func (e *Env) UseCluster(c diagnostics.Cluster) { e.engine.Cluster = c }

// LogSource serves the scenario's Image Updater logs for every pod (a real
// API server has no kubelet to serve them), or fails as the scenario's
// logsUnavailable says.
func (e *Env) LogSource() cluster.LogSource {
	return staticLogs{text: e.expand(e.Scenario.Logs), unavailable: e.Scenario.LogsUnavailable}
}

// Engine is the diagnosis engine wired to the scenario.
func (e *Env) Engine() *diagnostics.Engine { return e.engine }

// Request is the diagnosis the scenario asks for.
func (e *Env) Request() diagnostics.Request {
	return diagnostics.Request{App: e.Scenario.App.Name, Namespace: e.Scenario.App.Namespace, UpdaterNamespace: e.Scenario.UpdaterNamespace}
}

// Diagnose runs the scenario's diagnosis.
func (e *Env) Diagnose(ctx context.Context) *report.Report {
	return e.engine.Diagnose(ctx, e.Request())
}

// Close stops the scenario's servers.
func (e *Env) Close() {
	if e.Registry != nil {
		e.Registry.Close()
	}
	if e.Git != nil {
		e.Git.Close() // and its SSH server
	}
	if e.HelmRepo != nil {
		e.HelmRepo.Close()
	}
	if e.Proxy != nil {
		e.Proxy.Close()
	}
}

// Run starts a scenario, diagnoses it and stops it.
func Run(ctx context.Context, sc *Scenario) (*report.Report, error) {
	env, err := Start(ctx, sc)
	if err != nil {
		return nil, err
	}
	defer env.Close()
	return env.Diagnose(ctx), nil
}

// expand replaces the ${VAR} placeholders. A multi-line value (a PEM
// certificate, a key) standing alone on its line is indented like the
// placeholder, so it can sit in a YAML block scalar.
func (e *Env) expand(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "${") || !strings.HasSuffix(t, "}") {
			continue
		}
		v, ok := e.Vars[t[2:len(t)-1]]
		if !ok || !strings.Contains(strings.TrimRight(v, "\n"), "\n") {
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		var b strings.Builder
		for j, vl := range strings.Split(strings.TrimRight(v, "\n"), "\n") {
			if j > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(indent + vl)
		}
		lines[i] = b.String()
	}
	s = strings.Join(lines, "\n")
	for k, v := range e.Vars {
		s = strings.ReplaceAll(s, "${"+k+"}", v)
	}
	return s
}

func (e *Env) startRegistry(ctx context.Context) error {
	rs := e.Scenario.Registry
	var opts []labregistry.Option
	if a := rs.Auth; a != nil {
		if a.Type == "token" {
			opts = append(opts, labregistry.WithTokenAuth(a.Username, a.Password))
		} else {
			opts = append(opts, labregistry.WithBasicAuth(a.Username, a.Password))
		}
	}
	if rs.TLS {
		opts = append(opts, labregistry.WithTLS())
	}
	if rs.PageSize > 0 {
		opts = append(opts, labregistry.WithPageSize(rs.PageSize))
	}
	for i, b := range rs.Behaviours {
		beh := labregistry.Behaviour{Status: b.Status, Only: b.Only, Tags: b.Tags, Message: b.Message, ExtraTags: b.ExtraTags}
		switch b.Only {
		case "", "all", "tags", "manifests", "blobs", "referrers":
		default:
			return &ScenarioError{File: e.Scenario.Name, Field: fmt.Sprintf("registry.behaviours[%d].only", i), Reason: "want tags, manifests, blobs, referrers or all"}
		}
		var err error
		if beh.RetryAfter, err = optDuration(b.RetryAfter); err != nil {
			return &ScenarioError{File: e.Scenario.Name, Field: fmt.Sprintf("registry.behaviours[%d].retryAfter", i), Reason: "want a duration like 60s", Err: err}
		}
		if beh.Delay, err = optDuration(b.Delay); err != nil {
			return &ScenarioError{File: e.Scenario.Name, Field: fmt.Sprintf("registry.behaviours[%d].delay", i), Reason: "want a duration like 2s", Err: err}
		}
		opts = append(opts, labregistry.WithRepoBehaviour(b.Repo, beh))
	}
	srv, err := labregistry.Start(opts...)
	if err != nil {
		return fmt.Errorf("starting the lab registry: %w", err)
	}
	e.Registry = srv
	e.Vars["REGISTRY"] = srv.Host
	if rs.Hostname != "" {
		e.Vars["REGISTRY"] = rs.Hostname + ":" + portOf(srv.Host)
	}
	if rs.Unreachable {
		e.Vars["REGISTRY"] = unreachableHost
	}
	for repo, images := range rs.Repositories {
		var imgs []labregistry.Image
		for i, im := range images {
			li := labregistry.Image{Tag: im.Tag, SameAs: im.SameAs}
			if im.Created != "" {
				t, err := parseWhen(im.Created)
				if err != nil {
					return &ScenarioError{File: e.Scenario.Name, Field: fmt.Sprintf("registry.repositories[%s][%d].created", repo, i), Reason: "want 2026-01-02 or RFC 3339", Err: err}
				}
				li.Created = t
			}
			for _, p := range im.Platforms {
				pl, err := updater.ParsePlatform(p)
				if err != nil {
					return &ScenarioError{File: e.Scenario.Name, Field: fmt.Sprintf("registry.repositories[%s][%d].platforms", repo, i), Reason: "want os/arch[/variant]", Err: err}
				}
				li.Platforms = append(li.Platforms, pl)
			}
			imgs = append(imgs, li)
		}
		push := srv.Push
		if rs.Lazy {
			push = srv.PushLazy
		}
		if err := push(ctx, repo, imgs...); err != nil {
			return fmt.Errorf("pushing %s: %w", repo, err)
		}
	}
	return e.signImages(ctx, srv)
}

func (e *Env) startGit() error {
	gs := e.Scenario.Git
	var opts []labgit.Option
	if gs.TLS {
		opts = append(opts, labgit.WithPrivateCA())
	}
	if gs.Forge != "" || gs.GitHubApp != nil {
		h, err := e.forgeHandler()
		if err != nil {
			return err
		}
		opts = append(opts, labgit.WithAPI(h))
		if gs.GitHubApp != nil {
			opts = append(opts, labgit.WithTokenCheck(func(user, pass string) bool { return user == "x-access-token" && h.Minted(pass) }))
		}
	}
	if gs.Auth != nil {
		opts = append(opts, labgit.WithBasicAuth(gs.Auth.Username, gs.Auth.Password))
	}
	if gs.ReadOnly != nil {
		opts = append(opts, labgit.WithReadOnlyUser(gs.ReadOnly.Username, gs.ReadOnly.Password))
	}
	if gs.RefusalText != "" {
		opts = append(opts, labgit.WithRefusalText(gs.RefusalText))
	}
	srv, err := labgit.Start(opts...)
	if err != nil {
		return fmt.Errorf("starting the lab git server: %w", err)
	}
	e.Git = srv
	e.Vars["GIT"] = strings.TrimSuffix(srv.URL, "/")
	if gs.GitHubApp != nil {
		e.Vars["GITHUB_API"] = e.Vars["GIT"] + "/api/v3"
	}
	if gs.TLS {
		e.Vars["GIT_CA_PEM"] = string(srv.CAPEM)
	}
	for name, repo := range gs.Repositories {
		spec := labgit.RepoSpec{DefaultBranch: repo.DefaultBranch, Branches: map[string]labgit.BranchSpec{}}
		for bn, b := range repo.Branches {
			bs := labgit.BranchSpec{Files: e.expandFiles(b.Files), Protected: b.Protected}
			for _, c := range b.Commits {
				bs.Commits = append(bs.Commits, labgit.CommitSpec{AuthorName: c.Author, AuthorEmail: c.Email, Message: c.Message, Files: e.expandFiles(c.Files), Delete: c.Delete})
			}
			spec.Branches[bn] = bs
		}
		if err := srv.CreateRepo(name, spec); err != nil {
			return &ScenarioError{File: e.Scenario.Name, Field: "git.repositories." + name, Reason: "cannot be created", Err: err}
		}
	}
	return nil
}

func (e *Env) expandFiles(files map[string]string) map[string]string {
	out := make(map[string]string, len(files))
	for p, c := range files {
		out[p] = e.expand(c)
	}
	return out
}

// staticLogs serves the scenario's Image Updater logs for every pod, or
// fails as a cluster without pods/log or without an answering kubelet does.
type staticLogs struct {
	text, unavailable string
}

func (s staticLogs) Logs(ctx context.Context, ns, pod, container string, o cluster.LogOptions) (string, error) {
	switch s.unavailable {
	case "forbidden":
		return "", apierrors.NewForbidden(schema.GroupResource{Resource: "pods/log"}, pod,
			fmt.Errorf("User \"system:serviceaccount:imgupd:imgupd\" cannot get resource \"pods/log\" in API group \"\" in the namespace %q", ns))
	case "unreachable":
		return "", apierrors.NewInternalError(fmt.Errorf("Get \"https://10.0.0.12:10250/containerLogs/%s/%s/%s\": dial tcp 10.0.0.12:10250: connect: no route to host", ns, pod, container))
	}
	return s.text, nil
}

// Objects returns the scenario's Kubernetes objects with the placeholders
// expanded, Secrets' stringData folded into data as the API server does,
// and, when the scenario brings no RBAC objects, the usual RBAC of Image
// Updater and Argo CD (defaultRBAC).
func (e *Env) Objects() ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for i, doc := range splitDocs(e.expand(e.Scenario.Objects)) {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			return nil, &ScenarioError{File: e.Scenario.Name, Field: fmt.Sprintf("objects[%d]", i), Reason: "is not YAML", Err: err}
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetKind() == "" || u.GetAPIVersion() == "" {
			return nil, &ScenarioError{File: e.Scenario.Name, Field: fmt.Sprintf("objects[%d]", i), Reason: "has no apiVersion or kind"}
		}
		if u.GetKind() == "Secret" {
			if sd, ok := m["stringData"].(map[string]any); ok {
				data, _ := m["data"].(map[string]any)
				if data == nil {
					data = map[string]any{}
				}
				for k, v := range sd {
					data[k] = base64.StdEncoding.EncodeToString([]byte(fmt.Sprint(v)))
				}
				m["data"] = data
				delete(m, "stringData")
			}
		}
		out = append(out, u)
	}
	return append(out, defaultRBAC(out)...), nil
}

// fakeCluster puts the objects into client-go fakes: Argo CD and Image
// Updater kinds into the dynamic client, everything else typed; the typed
// fake answers SubjectAccessReviews from its RBAC objects (rbacAuthorizer).
func (e *Env) fakeCluster() (*cluster.Reader, error) {
	objs, err := e.Objects()
	if err != nil {
		return nil, err
	}
	var typed, dyn []runtime.Object
	for i, u := range objs {
		gv := u.GetAPIVersion()
		if strings.HasPrefix(gv, argo.Group+"/") || strings.HasPrefix(gv, argo.UpdaterGroup+"/") {
			dyn = append(dyn, u)
			continue
		}
		data, err := u.MarshalJSON()
		if err != nil {
			return nil, err
		}
		obj, _, err := kubefake.Codecs().UniversalDeserializer().Decode(data, nil, nil)
		if err != nil {
			return nil, &ScenarioError{File: e.Scenario.Name, Field: fmt.Sprintf("objects[%d] (%s)", i, u.GetKind()), Reason: "does not decode", Err: err}
		}
		typed = append(typed, obj)
	}
	kube := kubefake.NewClientset(typed...)
	kube.PrependReactor("create", "subjectaccessreviews", rbacAuthorizer{tracker: kube.Tracker()}.react)
	d, err := newDynamic(dyn)
	if err != nil {
		return nil, &ScenarioError{File: e.Scenario.Name, Field: "objects", Reason: "Argo CD or Image Updater objects conflict", Err: err}
	}
	return &cluster.Reader{Kube: kube, Dynamic: d, Logs: e.LogSource()}, nil
}

// newDynamic builds the dynamic fake, turning its panic on duplicate
// objects into an error.
func newDynamic(objs []runtime.Object) (d *dynamicfake.FakeDynamicClient, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New(fmt.Sprint(r))
		}
	}()
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), argo.ListKinds(), objs...), nil
}

// splitDocs splits multi-document YAML on "---" lines, dropping empty documents.
func splitDocs(s string) []string {
	var docs []string
	var cur strings.Builder
	flush := func() {
		if strings.TrimSpace(cur.String()) != "" {
			docs = append(docs, cur.String())
		}
		cur.Reset()
	}
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimRight(line, " \t") == "---" {
			flush()
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
	}
	flush()
	return docs
}

func optDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	return time.ParseDuration(s)
}

func parseWhen(s string) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	return time.Parse(time.RFC3339, s)
}

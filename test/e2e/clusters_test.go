package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/lab"
)

// Two Argo CD installations, each its own real API server: cluster "a" is the tier's first API
// server (srv), read as imgupd's ServiceAccount with deploy/rbac.yaml (impersonated); cluster "b"
// is the second (secondAPIServer), read with the token of the chart's rbacOnly rendering installed
// there, as on a remote cluster. The lab fleet where-web (one image repository, seven
// Applications in two namespaces, two ImageUpdater CRs) is split between them, its registry and git
// server shared: argocd/web and team/web are in both, argocd/web-next, argocd/web-private and
// team/api only in a, argocd/web-legacy and team/web-stable only in b. One imgupd reads both from a
// configuration file listing them (kubeconfig files), the interface of issue 26:
//
//	clusters:
//	- {name: a, kubeconfig: …}
//	- {name: b, kubeconfig: …}
//
// (the bot's test reaches b through server, tokenSecret and caSecret instead, as the chart's
// values do). The tests are parallel with each other, so they run after the tier's sequential tests (which
// load the lab's scenarios, most of them argocd/web, into srv) and share one loading of the fleet.

var (
	onlyInA = []string{"argocd/web-next", "argocd/web-private", "team/api"}
	onlyInB = []string{"argocd/web-legacy", "team/web-stable"}
	inBoth  = []string{"argocd/web", "team/web"}
)

// twoClusters is the fleet loaded into both API servers, and how to read each.
type twoClusters struct {
	image        string // the fleet's image, $REGISTRY/team/web:1.2.0
	kubeA, kubeB string // kubeconfig files of a (imgupd's ServiceAccount, impersonated) and b (the rbacOnly token)
	tokenB       string // the rbacOnly token of b
	config       string // a configuration file listing both clusters
	dir          string
	close        func() // the lab's servers and the files
}

var (
	twoOnce sync.Once
	two     *twoClusters
	twoErr  error
)

// closeTwoClusters ends what twoClustersFixture started (TestMain, before the API servers stop).
func closeTwoClusters() {
	if two != nil {
		two.close()
	}
}

// twoClustersFixture loads the fleet into both API servers, once per test binary.
func twoClustersFixture(t *testing.T) *twoClusters {
	t.Helper()
	twoOnce.Do(func() {
		twoErr = errors.New("loading the fleet into the two API servers failed in the first test that asked")
		began := time.Now()
		two = loadTwoClusters(t)
		twoErr = nil
		t.Logf("the fleet loaded into two API servers in %s", time.Since(began).Round(time.Millisecond))
	})
	if twoErr != nil {
		t.Fatal(twoErr)
	}
	return two
}

func loadTwoClusters(t *testing.T) *twoClusters {
	ctx := context.Background()
	b := secondAPIServer(t)
	token := installRBACOnly(t, b)

	sc, err := lab.Fleet("where-web")
	if err != nil {
		t.Fatal(err)
	}
	env, err := lab.StartServers(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	tc := &twoClusters{image: env.Vars["REGISTRY"] + "/team/web:1.2.0"}
	var removes []func()
	tc.close = func() {
		for _, r := range removes {
			r()
		}
		env.Close()
		if tc.dir != "" {
			os.RemoveAll(tc.dir)
		}
	}
	objs, err := env.Objects()
	if err != nil {
		tc.close()
		t.Fatal(err)
	}
	without := func(apps []string) []*unstructured.Unstructured {
		var out []*unstructured.Unstructured
		for _, o := range objs {
			if o.GetKind() != "Application" || !slices.Contains(apps, o.GetNamespace()+"/"+o.GetName()) {
				out = append(out, o)
			}
		}
		return out
	}
	for _, load := range []struct {
		s    *apiServer
		objs []*unstructured.Unstructured
	}{{srv, without(onlyInB)}, {b, without(onlyInA)}} {
		remove, err := createObjects(ctx, load.s, load.objs)
		if err != nil {
			tc.close()
			t.Fatal(err)
		}
		removes = append(removes, remove)
	}
	// Files that outlive the test that made them: every test of this file uses them.
	if tc.dir, err = os.MkdirTemp("", "imgupd-e2e-clusters-"); err != nil {
		tc.close()
		t.Fatal(err)
	}
	tc.kubeA = kubeconfigFile(t, filepath.Join(tc.dir, "a.kubeconfig"), srv.config.Host, srv.config.BearerToken, "system:serviceaccount:imgupd:imgupd")
	tc.kubeB = kubeconfigFile(t, filepath.Join(tc.dir, "b.kubeconfig"), b.config.Host, token, "")
	tc.tokenB = token
	tc.config = tc.writeConfig(t, "clusters.yaml", "")
	return tc
}

// writeConfig writes a configuration file listing both clusters, and more (access rules).
func (tc *twoClusters) writeConfig(t *testing.T, name, more string) string {
	t.Helper()
	cfg := fmt.Sprintf("clusters:\n- name: a\n  kubeconfig: %q\n- name: b\n  kubeconfig: %q\n%s", tc.kubeA, tc.kubeB, more)
	p := filepath.Join(tc.dir, name)
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// installRBACOnly applies the chart's rbacOnly rendering to s for real and returns the token of
// its ServiceAccount, read from its token Secret (TestRBACOnlyOnRemoteCluster checks the rendering).
func installRBACOnly(t *testing.T, s *apiServer) string {
	t.Helper()
	admin, err := newClient(s.config)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range chartRBACOnly.render(t) {
		if err := admin.apply(context.Background(), o, false); err != nil {
			t.Fatal(err)
		}
	}
	return tokenFromSecret(t, s, chartRBACOnly.ns, chartRBACOnly.name, chartRBACOnly.name+"-token")
}

// needClusters fails the test at once when the binary has no clusters (summary without --cluster):
// the feature of issue 26 this file tests, said in one line instead of every answer's.
func needClusters(t *testing.T, bin string) {
	t.Helper()
	out, err := exec.Command(bin, "summary", "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("imgupd summary --help: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--cluster") {
		t.Fatal("`imgupd summary --help` has no --cluster: this binary has no clusters: section (issue 26)")
	}
}

// cliRun is one run of the binary: stdout, exit status, stderr and how long it took.
type cliRun struct {
	out, stderr []byte
	code        int
	took        time.Duration
}

func runCLI(t *testing.T, bin string, args ...string) cliRun {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	err := cmd.Run()
	r := cliRun{out: stdout.Bytes(), stderr: stderr.Bytes(), took: time.Since(began)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("imgupd %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// appLine is one app of a summary or a where answer, as its JSON names it: the cluster (a field of
// the line or of its app), the app, its state and root cause, where's answer.
type appLine struct {
	Cluster, App, State, Code, Answer string
}

func (l appLine) String() string {
	return fmt.Sprintf("%s:%s %s %s %s", l.Cluster, l.App, l.State, l.Code, l.Answer)
}

// lineOf reads one app line of summary's or where's JSON.
func lineOf(m map[string]any) appLine {
	app, _ := m["app"].(map[string]any)
	cluster, _ := m["cluster"].(string)
	if c, ok := app["cluster"].(string); ok && cluster == "" {
		cluster = c
	}
	str := func(v any) string { s, _ := v.(string); return s }
	return appLine{Cluster: cluster, App: str(app["namespace"]) + "/" + str(app["name"]), State: str(m["state"]), Code: str(m["code"]), Answer: str(m["answer"])}
}

// summaryLines are the apps of `summary -o json`: those that need someone and the fine ones.
func summaryLines(t *testing.T, out []byte) (lines []appLine, doc map[string]any) {
	t.Helper()
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("summary -o json: %v\n%s", err, out)
	}
	add := func(v any) {
		list, _ := v.([]any)
		for _, x := range list {
			if m, ok := x.(map[string]any); ok {
				l := lineOf(m)
				l.Answer = "" // summary's is a sentence, which may name the cluster; where's is a word
				lines = append(lines, l)
			}
		}
	}
	groups, _ := doc["attention"].([]any)
	for _, g := range groups {
		if m, ok := g.(map[string]any); ok {
			add(m["apps"])
		}
	}
	add(doc["fine"])
	return sortLines(lines), doc
}

// whereLines are the apps of `where -o json`.
func whereLines(t *testing.T, out []byte) []appLine {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("where -o json: %v\n%s", err, out)
	}
	var lines []appLine
	list, _ := doc["apps"].([]any)
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			lines = append(lines, lineOf(m))
		}
	}
	return sortLines(lines)
}

func sortLines(l []appLine) []appLine {
	sort.Slice(l, func(i, j int) bool { return l[i].String() < l[j].String() })
	return l
}

// inCluster are lines of one cluster, those that name none named cluster: a run with one
// kubeconfig names none, and one with --cluster need not.
func inCluster(lines []appLine, cluster string) []appLine {
	out := make([]appLine, len(lines))
	for i, l := range lines {
		if l.Cluster == "" {
			l.Cluster = cluster
		}
		out[i] = l
	}
	return out
}

func appsOf(lines []appLine, cluster string) []string {
	var out []string
	for _, l := range lines {
		if l.Cluster == cluster {
			out = append(out, l.App)
		}
	}
	sort.Strings(out)
	return out
}

func sorted(parts ...[]string) []string {
	out := slices.Concat(parts...)
	sort.Strings(out)
	return out
}

// singleCluster are the answers of one cluster read alone (the kubeconfig, no configuration
// file): what the clusters' answers are held to.
type singleCluster struct {
	summary, where []appLine
	diagnose       map[string]cliReport // by app name, in namespace argocd
}

var (
	aloneMu sync.Mutex
	alone   = map[string]*singleCluster{}
)

// aloneAnswers runs summary, where and diagnose of each argocd app with one cluster's kubeconfig,
// once per cluster (before any test stops or hangs b: the caller holds second.use).
func aloneAnswers(t *testing.T, bin string, tc *twoClusters, cluster string) *singleCluster {
	t.Helper()
	aloneMu.Lock()
	defer aloneMu.Unlock()
	if a, ok := alone[cluster]; ok {
		return a
	}
	kube := map[string]string{"a": tc.kubeA, "b": tc.kubeB}[cluster]
	sum := runCLI(t, bin, "summary", "--kubeconfig", kube, "-o", "json", "--deadline", "2m")
	if !bytes.HasPrefix(bytes.TrimSpace(sum.out), []byte("{")) {
		t.Fatalf("summary of %s alone: exit %d\n%s\n%s", cluster, sum.code, sum.out, sum.stderr)
	}
	lines, _ := summaryLines(t, sum.out)
	where := runCLI(t, bin, "where", tc.image, "--kubeconfig", kube, "-o", "json", "--deadline", "2m")
	a := &singleCluster{summary: inCluster(lines, cluster), where: inCluster(whereLines(t, where.out), cluster), diagnose: map[string]cliReport{}}
	for _, app := range sorted(inBoth, map[string][]string{"a": onlyInA, "b": onlyInB}[cluster]) {
		ns, name, _ := strings.Cut(app, "/")
		if ns != "argocd" {
			continue
		}
		out, _, _ := diagnoseJSON(t, bin, name, kube)
		a.diagnose[name] = parseReport(t, out)
	}
	alone[cluster] = a
	return a
}

// TestClustersFromTheTerminal: one imgupd binary, one configuration file listing both clusters.
// summary names every app of both with its cluster, and each app's state and root cause are those
// its cluster alone gives; --cluster b gives b's only; diagnose APP --cluster a answers as a's
// kubeconfig alone does, an app in one cluster is found there without --cluster, and one in both
// asks for --cluster (exit 64); where IMAGE answers for the apps of both, each as its cluster alone.
func TestClustersFromTheTerminal(t *testing.T) {
	t.Parallel()
	bin, _ := buildCLI(t)
	needClusters(t, bin)
	tc := twoClustersFixture(t)
	second.use.RLock()
	defer second.use.RUnlock()
	a, b := aloneAnswers(t, bin, tc, "a"), aloneAnswers(t, bin, tc, "b")

	t.Run("summary", func(t *testing.T) {
		r := runCLI(t, bin, "summary", "--config", tc.config, "-o", "json", "--deadline", "2m")
		lines, _ := summaryLines(t, r.out)
		if got, want := appsOf(lines, "a"), sorted(inBoth, onlyInA); !slices.Equal(got, want) {
			t.Errorf("summary: cluster a's apps %v, want %v\n%s", got, want, r.out)
		}
		if got, want := appsOf(lines, "b"), sorted(inBoth, onlyInB); !slices.Equal(got, want) {
			t.Errorf("summary: cluster b's apps %v, want %v\n%s", got, want, r.out)
		}
		if want := sortLines(slices.Concat(a.summary, b.summary)); !slices.Equal(lines, want) {
			t.Errorf("summary across clusters:\n %v\nwant each cluster's own answers:\n %v", lines, want)
		}
		r = runCLI(t, bin, "summary", "--config", tc.config, "--cluster", "b", "-o", "json", "--deadline", "2m")
		if lines, _ := summaryLines(t, r.out); !slices.Equal(inCluster(lines, "b"), b.summary) {
			t.Errorf("summary --cluster b:\n %v\nwant b's alone:\n %v", lines, b.summary)
		}
	})

	t.Run("diagnose", func(t *testing.T) {
		r := diagnoseWith(t, bin, "web-next", "--config", tc.config, "--cluster", "a")
		if rep := reportOf(t, r); r.code == 64 || !sameAnswer(rep, a.diagnose["web-next"]) {
			t.Errorf("diagnose web-next --cluster a: exit %d, %s; a alone: %s\n%s", r.code, answerOf(rep), answerOf(a.diagnose["web-next"]), r.stderr)
		}
		r = diagnoseWith(t, bin, "web", "--config", tc.config, "--cluster", "b")
		if rep := reportOf(t, r); !sameAnswer(rep, b.diagnose["web"]) {
			t.Errorf("diagnose web --cluster b: %s, b alone: %s", answerOf(rep), answerOf(b.diagnose["web"]))
		}
	})

	t.Run("diagnose finds the app", func(t *testing.T) {
		// In b only: found there without --cluster.
		r := diagnoseWith(t, bin, "web-legacy", "--config", tc.config)
		if rep := reportOf(t, r); r.code == 64 || !sameAnswer(rep, b.diagnose["web-legacy"]) {
			t.Errorf("diagnose web-legacy (in b only): exit %d, %s; b alone: %s\n%s", r.code, answerOf(rep), answerOf(b.diagnose["web-legacy"]), r.stderr)
		}
		// In both: which one is meant?
		r = runCLI(t, bin, "diagnose", "web", "--config", tc.config, "-o", "json", "--timeout", "30s")
		if r.code != 64 || !strings.Contains(string(r.stderr), "--cluster") || len(r.out) != 0 {
			t.Errorf("diagnose web (in a and b) without --cluster: exit %d, want 64 and a message naming --cluster\nstdout %s\nstderr %s", r.code, r.out, r.stderr)
		}
	})

	t.Run("where", func(t *testing.T) {
		r := runCLI(t, bin, "where", tc.image, "--config", tc.config, "-o", "json", "--deadline", "2m")
		lines := whereLines(t, r.out)
		// team/api runs another image.
		if got, want := appsOf(lines, "a"), sorted(inBoth, []string{"argocd/web-next", "argocd/web-private"}); !slices.Equal(got, want) {
			t.Errorf("where: cluster a's apps %v, want %v\n%s", got, want, r.out)
		}
		if got, want := appsOf(lines, "b"), sorted(inBoth, onlyInB); !slices.Equal(got, want) {
			t.Errorf("where: cluster b's apps %v, want %v\n%s", got, want, r.out)
		}
		if want := sortLines(slices.Concat(a.where, b.where)); !slices.Equal(lines, want) {
			t.Errorf("where across clusters:\n %v\nwant each cluster's own answers:\n %v", lines, want)
		}
	})
}

// diagnoseWith runs `imgupd diagnose APP -o json` with more arguments.
func diagnoseWith(t *testing.T, bin, app string, args ...string) cliRun {
	t.Helper()
	return runCLI(t, bin, append([]string{"diagnose", app, "-o", "json", "--timeout", "60s"}, args...)...)
}

// reportOf is the report a diagnose run printed; none fails the test with its exit and stderr.
func reportOf(t *testing.T, r cliRun) cliReport {
	t.Helper()
	var rep cliReport
	if err := json.Unmarshal(r.out, &rep); err != nil {
		t.Fatalf("not a JSON report (%v): exit %d\nstdout %s\nstderr %s", err, r.code, r.out, r.stderr)
	}
	return rep
}

func sameAnswer(a, b cliReport) bool {
	return a.App == b.App && a.State == b.State && a.Verdict == b.Verdict && a.RootCause.Code == b.RootCause.Code
}

func answerOf(r cliReport) string {
	return fmt.Sprintf("%s/%s %s %s %s", r.App.Namespace, r.App.Name, r.State, r.Verdict, r.RootCause.Code)
}

// TestClustersInSlack: one bot (the imgupd binary's serve, against bot/slacklab) for both
// clusters, b reached as the chart's config.clusters would: server, tokenSecret and caSecret, the
// Secret in imgupd's namespace read by serve as the chart's ServiceAccount (chartClusters, its Role
// on the clusters' Secrets installed for real). A user in a channel whose rule grants cluster a only never sees b's apps: diagnose of
// an app only in b is answered exactly as the same bot answers for an app that exists nowhere (the
// bot reading a alone), and neither summary nor where names an app of b; in a channel whose rule
// grants every cluster, the same diagnose is answered with b's app.
func TestClustersInSlack(t *testing.T) {
	t.Parallel()
	bin, _ := buildCLI(t)
	needClusters(t, bin)
	tc := twoClustersFixture(t)
	second.use.RLock()
	defer second.use.RUnlock()

	// b's token and CA in the Secret chartClusters' Role names, in its namespace on srv.
	installChart(t, chartClusters)
	b := secondAPIServer(t)
	ca, err := os.ReadFile(filepath.Join(b.dir, "certs", "apiserver.crt")) // kube-apiserver's self-signed certificate and its CA
	if err != nil {
		t.Fatal(err)
	}
	const secretName = "imgupd-staging" // one of clusterSecrets
	own := kubeconfigFile(t, filepath.Join(t.TempDir(), "own.kubeconfig"), srv.config.Host, srv.config.BearerToken,
		"system:serviceaccount:"+chartClusters.ns+":"+chartClusters.name)

	const onlyA, every = "C0ONLYA001", "C0EVERY001"
	rules := fmt.Sprintf(`access:
  rules:
  - name: only-a
    channels: [%s]
    clusters: [a]
  - name: every
    channels: [%s]
`, onlyA, every)
	both := filepath.Join(tc.dir, "slack-both.yaml")
	if err := os.WriteFile(both, fmt.Appendf(nil, `clusters:
- name: a
  kubeconfig: %q
- name: b
  server: %q
  tokenSecret: {name: %s, key: token}
  caSecret: {name: %s, key: ca.crt}
%s`, tc.kubeA, b.config.Host, secretName, secretName, rules), 0o600); err != nil {
		t.Fatal(err)
	}
	// The bot with cluster a alone, as a configuration of clusters too: what "no such app" says.
	aOnly := filepath.Join(tc.dir, "slack-a.yaml")
	if err := os.WriteFile(aOnly, fmt.Appendf(nil, "clusters:\n- name: a\n  kubeconfig: %q\n%s", tc.kubeA, rules), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a net for what never happens, not a timing
	defer cancel()
	multi, alone := startServe(ctx, t, bin, both, own, onlyA, every), startServe(ctx, t, bin, aOnly, own, onlyA, every)

	// b's Secret is created only now, after the bot started without it (b down, its apps unknown):
	// the first command tries b again and reads it, with no restart.
	if !strings.Contains(multi.stderr.String(), "a cluster cannot be read") {
		t.Errorf("the bot started with b's Secret missing and did not say b cannot be read:\n%s", multi.stderr.String())
	}
	remove, err := createObjects(context.Background(), srv, []*unstructured.Unstructured{{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": secretName, "namespace": chartClusters.ns},
		"stringData": map[string]any{"token": tc.tokenB, "ca.crt": string(ca)}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)

	// The app in b only, asked where only a is granted, and asked of a bot that reads a alone:
	// answered once either names the app (a report, or why there is none).
	namesIt := func(m slacklab.Message) bool { return strings.Contains(shown(m), "web-legacy") }
	hidden := shownAll(multi.ask(ctx, t, onlyA, "diagnose web-legacy", namesIt))
	missing := shownAll(alone.ask(ctx, t, onlyA, "diagnose web-legacy", namesIt))
	if hidden != missing {
		t.Errorf("diagnose of b's app where only a is granted:\n%s\nnot what the bot says of an app that does not exist:\n%s", hidden, missing)
	}
	t.Logf("diagnose web-legacy where only a is granted:\n%s", hidden)
	// The same app where every cluster is granted: its report, in the channel.
	multi.ask(ctx, t, every, "diagnose web-legacy", func(m slacklab.Message) bool {
		return m.Via == "chat.postMessage" && strings.Contains(shown(m), "web-legacy")
	})
	if !strings.Contains(multi.stderr.String(), "a cluster that could not be read connects now") {
		t.Errorf("b's Secret created after the start: the bot did not say b connects:\n%s", multi.stderr.String())
	}

	for _, cmd := range []string{"summary", "where " + tc.image} {
		// web-private (blocked, in a only) is named by both answers.
		msgs := multi.ask(ctx, t, onlyA, cmd, func(m slacklab.Message) bool { return strings.Contains(shown(m), "web-private") })
		for _, m := range msgs {
			for _, app := range onlyInB {
				if _, name, _ := strings.Cut(app, "/"); strings.Contains(shown(m), name) {
					t.Errorf("%s where only a is granted names %s, an app of b:\n%s", cmd, app, shown(m))
				}
			}
		}
	}
	multi.stop(t)
	alone.stop(t)
}

// serveRun is `imgupd serve --config …` against its own fake Slack.
type serveRun struct {
	slack  *slacklab.Server
	cmd    *exec.Cmd
	stderr *lockedBuf
	seq    int
}

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuf) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// startServe starts `imgupd serve --config config` against a fake Slack of its own with the
// channels; own is its kubeconfig (its own namespace's Secrets), its namespace chartClusters'.
func startServe(ctx context.Context, t *testing.T, bin, config, own string, channels ...string) *serveRun {
	t.Helper()
	const bt, at = "xoxb-e2e-clusters", "xapp-e2e-clusters"
	var chs []slacklab.Channel
	for _, c := range channels {
		chs = append(chs, slacklab.Channel{ID: c, Name: strings.ToLower(c), IsMember: true})
	}
	s := &serveRun{slack: slacklab.Start(slacklab.Config{BotToken: bt, AppToken: at, Channels: chs}), stderr: &lockedBuf{}}
	t.Cleanup(s.slack.Close)
	s.cmd = exec.Command(bin, "serve", "--config", config, "--kubeconfig", own, "--listen", "127.0.0.1:0", "--log-format", "json")
	s.cmd.Env = append(os.Environ(), "IMGUPD_SLACK_BOT_TOKEN="+bt, "IMGUPD_SLACK_APP_TOKEN="+at, "IMGUPD_SLACK_API_URL="+s.slack.APIURL(),
		"POD_NAMESPACE="+chartClusters.ns)
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	if err := s.slack.WaitConnections(ctx, 1); err != nil {
		t.Fatalf("imgupd serve --config %s did not connect to Slack: %v\n%s", filepath.Base(config), err, s.stderr.String())
	}
	return s
}

// ask sends a slash command and waits until a reply to it (its response URL) or a message posted
// in the channel since satisfies done. It returns every reply to it and every message posted in
// the channel since.
func (s *serveRun) ask(ctx context.Context, t *testing.T, channel, text string, done func(slacklab.Message) bool) []slacklab.Message {
	t.Helper()
	s.seq++
	id := fmt.Sprintf("r%d", s.seq)
	before := len(s.slack.Messages())
	if err := s.slack.Send(ctx, slacklab.SlashCommand("e"+id, slacklab.Slash{User: "U0ALICE001", Channel: channel, ChannelName: strings.ToLower(channel),
		Text: text, ResponseURL: s.slack.ResponseURL(id)})); err != nil {
		t.Fatal(err)
	}
	for {
		var msgs []slacklab.Message
		finished := false
		for i, m := range s.slack.Messages() {
			if m.ResponseID != id && (i < before || m.Channel != channel) {
				continue
			}
			msgs = append(msgs, m)
			finished = finished || done(m)
		}
		if finished {
			return msgs
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no answer to %q in %s:\n%s\n%s", text, channel, shownAll(msgs), s.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (s *serveRun) stop(t *testing.T) {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("imgupd serve: %v\n%s", err, s.stderr.String())
		}
	case <-time.After(time.Minute): // a net: serve stops within its shutdown-timeout
		t.Errorf("imgupd serve did not stop on SIGTERM\n%s", s.stderr.String())
	}
}

// TestClustersOneUnreachable: b's kube-apiserver hung (SIGSTOP: connections accepted, nothing
// answers), then stopped (connections refused). Each time summary and where answer a's apps
// completely, as a alone does, and b's (if they name any) as unknown, never a failed answer (no
// exit 69); while b hangs, diagnose --cluster a and summary --cluster a answer as a alone does,
// without waiting for b: well before the 60 s deadline they are given (their times are logged);
// with b stopped, config check says a is reachable and b not, and why.
func TestClustersOneUnreachable(t *testing.T) {
	t.Parallel()
	bin, _ := buildCLI(t)
	needClusters(t, bin)
	tc := twoClustersFixture(t)
	second.use.Lock() // nobody else reads b while it is down
	defer second.use.Unlock()
	a := aloneAnswers(t, bin, tc, "a")
	aloneAnswers(t, bin, tc, "b") // before b goes away, for the tests that compare with it
	b := secondAPIServer(t)

	check := func(t *testing.T, how string, deadline time.Duration) {
		t.Helper()
		dl := deadline.String()
		r := runCLI(t, bin, "summary", "--config", tc.config, "-o", "json", "--deadline", dl)
		if r.code == 64 || r.code == 69 || r.code == 77 || r.code == 78 {
			t.Fatalf("summary with b %s: exit %d, a failed answer\n%s", how, r.code, r.stderr)
		}
		lines, doc := summaryLines(t, r.out)
		checkUnreachable(t, "summary with b "+how, lines, a.summary)
		if !slices.ContainsFunc(lines, func(l appLine) bool { return l.Cluster == "b" }) && !namesB(doc) {
			t.Errorf("summary with b %s says nothing of b: its apps unknown, or b named as not answering\n%s", how, r.out)
		}
		r = runCLI(t, bin, "where", tc.image, "--config", tc.config, "-o", "json", "--deadline", dl)
		if r.code == 64 || r.code == 69 || r.code == 77 || r.code == 78 {
			t.Fatalf("where with b %s: exit %d, a failed answer\n%s", how, r.code, r.stderr)
		}
		checkUnreachable(t, "where with b "+how, whereLines(t, r.out), a.where)
	}

	t.Run("hung", func(t *testing.T) {
		bUp := runCLI(t, bin, "diagnose", "web-next", "--config", tc.config, "--cluster", "a", "-o", "json", "--timeout", "60s")
		resume, err := b.hang()
		if err != nil {
			t.Fatal(err)
		}
		defer resume()
		if err := probe(b, 5*time.Second); err == nil {
			t.Fatal("b answers while its kube-apiserver is stopped with SIGSTOP")
		}
		const deadline = 60 * time.Second
		r := runCLI(t, bin, "diagnose", "web-next", "--config", tc.config, "--cluster", "a", "-o", "json", "--timeout", deadline.String())
		if rep := reportOf(t, r); !sameAnswer(rep, a.diagnose["web-next"]) {
			t.Errorf("diagnose web-next --cluster a with b hung: exit %d, %s; a alone: %s\n%s", r.code, answerOf(rep), answerOf(a.diagnose["web-next"]), r.stderr)
		}
		// Held back by b, it would take the whole deadline: half of it is "without waiting for b"
		// on any machine.
		if r.took > deadline/2 {
			t.Errorf("diagnose --cluster a took %s with b hung (%s with b up): it waited for b", r.took, bUp.took)
		}
		t.Logf("diagnose web-next --cluster a: %s with b hung, %s with b up", r.took.Round(time.Millisecond), bUp.took.Round(time.Millisecond))
		r = runCLI(t, bin, "summary", "--config", tc.config, "--cluster", "a", "-o", "json", "--deadline", deadline.String())
		if lines, _ := summaryLines(t, r.out); !slices.Equal(inCluster(lines, "a"), a.summary) || r.took > deadline/2 {
			t.Errorf("summary --cluster a with b hung, in %s (deadline %s):\n %v\nwant a's alone:\n %v\n%s", r.took, deadline, lines, a.summary, r.stderr)
		}
		t.Logf("summary --cluster a: %s with b hung", r.took.Round(time.Millisecond))
		// summary and where wait for b until their deadline: a short one.
		check(t, "hung", 20*time.Second)
	})

	t.Run("stopped", func(t *testing.T) {
		b.stopAPI()
		defer func() {
			if err := b.restartAPI(); err != nil {
				t.Errorf("starting b's kube-apiserver again: %v", err)
			}
		}()
		if err := probe(b, time.Minute); err == nil || !strings.Contains(err.Error(), "connection refused") {
			t.Fatalf("b with its kube-apiserver killed: %v, want connection refused", err)
		}
		check(t, "stopped", 2*time.Minute)
		// config check tries each cluster: a reachable, b not, and says why.
		r := runCLI(t, bin, "config", "check", "--config", tc.config, "-o", "json")
		var checked struct {
			Clusters []struct {
				Name      string
				Reachable bool
				Reason    string
			}
		}
		if err := json.Unmarshal(r.out, &checked); err != nil {
			t.Fatalf("config check -o json: exit %d, %v\n%s\n%s", r.code, err, r.out, r.stderr)
		}
		reach := map[string]bool{}
		for _, c := range checked.Clusters {
			reach[c.Name] = c.Reachable
			if !c.Reachable && c.Reason == "" {
				t.Errorf("config check: %s not reachable, and no reason", c.Name)
			}
		}
		if len(checked.Clusters) != 2 || !reach["a"] || reach["b"] {
			t.Errorf("config check with b stopped: %+v, want a reachable and b not", checked.Clusters)
		}
		r = runCLI(t, bin, "diagnose", "web-next", "--config", tc.config, "--cluster", "a", "-o", "json", "--timeout", "60s")
		if rep := reportOf(t, r); !sameAnswer(rep, a.diagnose["web-next"]) {
			t.Errorf("diagnose web-next --cluster a with b stopped: exit %d, %s\n%s", r.code, answerOf(rep), r.stderr)
		}
	})
}

// checkUnreachable: a's lines are those a alone gives, and every line of b is unknown.
func checkUnreachable(t *testing.T, what string, lines, aAlone []appLine) {
	t.Helper()
	var gotA []appLine
	for _, l := range lines {
		switch l.Cluster {
		case "a":
			gotA = append(gotA, l)
		case "b":
			if l.State != "unknown" {
				t.Errorf("%s: %s, want unknown", what, l)
			}
		default:
			t.Errorf("%s: a line of no cluster: %s", what, l)
		}
	}
	if !slices.Equal(gotA, aAlone) {
		t.Errorf("%s: cluster a\n %v\nwant what a alone gives\n %v", what, gotA, aAlone)
	}
}

// probe lists namespaces in s as the admin, giving up after limit.
func probe(s *apiServer, limit time.Duration) error {
	cfg := rest.CopyConfig(s.config)
	cfg.Timeout = limit
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	_, err = kc.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{Limit: 1})
	return err
}

// namesB: the JSON document has the string "b" somewhere (a cluster named as not answering).
func namesB(v any) bool {
	switch x := v.(type) {
	case string:
		return x == "b"
	case []any:
		return slices.ContainsFunc(x, namesB)
	case map[string]any:
		for _, y := range x {
			if namesB(y) {
				return true
			}
		}
	}
	return false
}

// shown is a message's text and blocks, as sent.
func shown(m slacklab.Message) string { return m.Text + "\n" + string(m.Blocks) }

// shownAll is the messages' text and blocks, one after the other.
func shownAll(msgs []slacklab.Message) string {
	var parts []string
	for _, m := range msgs {
		parts = append(parts, m.Via+" "+m.ResponseType+"\n"+shown(m))
	}
	return strings.Join(parts, "\n----\n")
}

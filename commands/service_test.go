package commands

import (
	"context"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

// extraApps are Applications in other namespaces and projects, added to a
// built-in scenario so the service has something to find, refuse and
// suggest.
const extraApps = `
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web, namespace: team-a}
spec:
  project: default
  source: {repoURL: "https://git.invalid/x.git", path: ., targetRevision: main}
  destination: {server: "https://kubernetes.default.svc", namespace: shop}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: payments-api, namespace: team-b}
spec:
  project: payments
  source: {repoURL: "https://git.invalid/x.git", path: ., targetRevision: main}
  destination: {server: "https://kubernetes.default.svc", namespace: payments}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: webshop, namespace: team-a}
spec:
  project: default
  source: {repoURL: "https://git.invalid/x.git", path: ., targetRevision: main}
  destination: {server: "https://kubernetes.default.svc", namespace: shop}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: api, namespace: team-a}
spec:
  project: default
  source: {repoURL: "https://git.invalid/x.git", path: ., targetRevision: main}
  destination: {server: "https://kubernetes.default.svc", namespace: shop}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: api, namespace: team-c}
spec:
  project: default
  source: {repoURL: "https://git.invalid/x.git", path: ., targetRevision: main}
  destination: {server: "https://kubernetes.default.svc", namespace: shop}
`

func newService(t *testing.T, p *Policy) *Service {
	t.Helper()
	return newServiceWith(t, p, extraApps)
}

// newServiceWith is a service on the healthy scenario with these objects added.
func newServiceWith(t *testing.T, p *Policy, objects string) *Service {
	t.Helper()
	sc, ok := lab.Builtin("healthy-kustomize-argocd")
	if !ok {
		t.Fatal("builtin scenario missing")
	}
	cp := *sc
	cp.Objects += objects
	env, err := lab.Start(context.Background(), &cp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	eng := env.Engine()
	return &Service{Apps: eng.Cluster, Engine: eng, Policy: p, Cluster: "lab"}
}

var (
	alice    = Principal{User: "U0ALICE001", Channel: "C0DEPLOYS1", ChannelName: "deploys"}
	everyone = &Policy{Rules: []Rule{{Name: "all", Channels: []string{"*"}}}}
)

func TestServiceDiagnose(t *testing.T) {
	s := newService(t, everyone)
	res := s.Handle(context.Background(), alice, Diagnose{App: "web"})
	if res.Kind != KindReport || res.Report == nil || res.Report.Verdict != report.VerdictHealthy || res.Rule != "all" {
		t.Fatalf("diagnose web: %+v", res)
	}
	if res.Outcome() != "healthy" || res.App.String() != "argocd/web" {
		t.Errorf("outcome %q app %q", res.Outcome(), res.App)
	}
	tags := s.Handle(context.Background(), alice, Tags{App: "web", Alias: "web"})
	if tags.Kind != KindTags || len(tags.Report.Candidates) == 0 {
		t.Errorf("tags web web: %+v", tags)
	}
	noAlias := s.Handle(context.Background(), alice, Tags{App: "web", Alias: "worker"})
	if noAlias.Kind != KindNotFound || !strings.Contains(noAlias.Text, "it has `web`") {
		t.Errorf("tags web worker: %+v", noAlias)
	}
	other := s.Handle(context.Background(), alice, Diagnose{App: "web", Cluster: "prod"})
	if other.Kind != KindNotFound || other.Text != "no cluster `prod` here; you may read cluster `lab`" {
		t.Errorf("--cluster prod: %+v", other)
	}
	if same := s.Handle(context.Background(), alice, Diagnose{App: "web", Cluster: "lab"}); same.Kind != KindReport {
		t.Errorf("--cluster lab: %+v", same)
	}
	s.Cluster = ""
	if unnamed := s.Handle(context.Background(), alice, Diagnose{App: "web", Cluster: "prod"}); unnamed.Kind != KindError || !strings.Contains(unnamed.Text, "has no name") {
		t.Errorf("--cluster prod on an unnamed imgupd: %+v", unnamed)
	}
}

func TestServiceFindsAppsElsewhere(t *testing.T) {
	s := newService(t, everyone)
	ctx := context.Background()
	// Not in argocd, but in exactly one namespace: found there.
	res := s.Handle(ctx, alice, Diagnose{App: "webshop"})
	if res.Kind != KindReport || res.App.String() != "team-a/webshop" {
		t.Errorf("webshop: %+v", res)
	}
	// In two namespaces: ask which.
	res = s.Handle(ctx, alice, Diagnose{App: "api"})
	if res.Kind != KindNotFound || !strings.Contains(res.Text, "`team-a`, `team-c`") {
		t.Errorf("api: %+v", res)
	}
	// Nowhere: the closest names.
	res = s.Handle(ctx, alice, Diagnose{App: "webb"})
	if res.Kind != KindNotFound || len(res.Suggestions) == 0 || res.Suggestions[0] != "argocd/web" {
		t.Errorf("webb: %+v", res)
	}
	res = s.Handle(ctx, alice, Diagnose{App: "webshop", Namespace: "team-c"})
	if res.Kind != KindNotFound || !strings.Contains(res.Text, "no Application `webshop` in namespace `team-c`") {
		t.Errorf("webshop -n team-c: %+v", res)
	}
}

func TestServiceAccess(t *testing.T) {
	p := &Policy{Rules: []Rule{{Name: "team-a", Channels: []string{"#deploys"}, Namespaces: []string{"team-a", "argocd"}, Projects: []string{"default"}}}}
	s := newService(t, p)
	ctx := context.Background()
	// Suggestions only name what the asker may see.
	res := s.Handle(ctx, alice, Diagnose{App: "payments"})
	if res.Kind != KindNotFound || strings.Contains(res.Text, "payments-api") {
		t.Errorf("payments: suggestions leak an app the asker may not see: %+v", res)
	}
	stranger := Principal{User: "U0EVE00001", Channel: "C0RANDOM01"}
	for _, cmd := range []Command{Help{}, Explain{Code: "LIVE_IMAGE_NOT_LIVE"}, Diagnose{App: "web"}, Summary{}, Logs{App: "web"}} {
		if res := s.Handle(ctx, stranger, cmd); res.Kind != KindDenied || res.Report != nil {
			t.Errorf("%T from a stranger: %+v", cmd, res)
		}
	}
}

// TestHiddenAppIsAMissingApp: an Application the asker may not see is answered exactly as in
// a cluster where it does not exist — named with its namespace or not, for every command that
// reads an app — and the refusal that does not depend on an app (not admitted here) stays.
func TestHiddenAppIsAMissingApp(t *testing.T) {
	p := &Policy{Rules: []Rule{{Name: "team-a", Channels: []string{"#deploys"}, Namespaces: []string{"team-a", "argocd"}, Projects: []string{"default"}}}}
	with := newService(t, p)
	without := newServiceWith(t, p, strings.Replace(extraApps, "name: payments-api, namespace: team-b", "name: billing, namespace: team-b", 1))
	ctx := context.Background()
	for _, cmd := range []Command{
		Diagnose{App: "payments-api", Namespace: "team-b"},
		Diagnose{App: "payments-api"},
		Tags{App: "payments-api", Namespace: "team-b", Alias: "web"},
		Logs{App: "payments-api", Namespace: "team-b"},
		Diagnose{App: "payments-apj", Namespace: "team-b"},
		Logs{App: "payments-ap"},
	} {
		got, want := with.Handle(ctx, alice, cmd), without.Handle(ctx, alice, cmd)
		if got.Kind != KindNotFound || got.Report != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%T %+v: hidden answers\n%+v\nmissing answers\n%+v", cmd, cmd, got, want)
		}
	}
	// In the default namespace, hidden there and nowhere else visible: not found too.
	argo := newServiceWith(t, &Policy{Rules: []Rule{{Name: "team-a", Channels: []string{"*"}, Namespaces: []string{"team-a"}}}}, "")
	if res := argo.Handle(ctx, alice, Diagnose{App: "web"}); res.Kind != KindNotFound ||
		res.Text != "no Application `web` in namespace `argocd`, nor in another namespace you may see" {
		t.Errorf("web hidden in argocd: %+v", res)
	}
	if res := with.Handle(ctx, Principal{User: "U0EVE00001", Channel: "C0RANDOM01"}, Diagnose{App: "payments-api", Namespace: "team-b"}); res.Kind != KindDenied {
		t.Errorf("not admitted here at all: %+v", res)
	}
}

// TestPersonalGrantIsPrivate: what only a rule naming the asker grants is answered for them
// alone, saying which rule; what a channel rule grants too is public; in a DM nothing is
// marked private (it is); suggestions naming a personally granted app make the answer private.
func TestPersonalGrantIsPrivate(t *testing.T) {
	p := &Policy{AllowDMs: true, Rules: []Rule{
		{Name: "deploys", Channels: []string{"#deploys"}, Namespaces: []string{"argocd"}},
		{Name: "bob-payments", Users: []string{"U0BOB00001"}, Channels: []string{"*", "dm"}, Projects: []string{"payments"}},
		{Name: "bob-argocd", Users: []string{"U0BOB00001"}, Channels: []string{"*"}, Namespaces: []string{"argocd"}},
	}}
	s := newService(t, p)
	ctx := context.Background()
	bob := Principal{User: "U0BOB00001", Channel: "C0DEPLOYS1", ChannelName: "deploys"}
	res := s.Handle(ctx, bob, Diagnose{App: "payments-api"})
	if res.Kind != KindReport || res.Rule != "bob-payments" || res.Private != ":lock: Only you can see this: the access rule `bob-payments` grants you `team-b/payments-api`, not this channel." {
		t.Errorf("payments-api for bob in #deploys: kind %s rule %q private %q", res.Kind, res.Rule, res.Private)
	}
	// argocd/web: bob's own rule grants it, and so does #deploys' rule: public, under the channel's rule.
	if res := s.Handle(ctx, bob, Diagnose{App: "web"}); res.Kind != KindReport || res.Private != "" || res.Rule != "deploys" {
		t.Errorf("web for bob in #deploys: kind %s rule %q private %q", res.Kind, res.Rule, res.Private)
	}
	if res := s.Handle(ctx, bob, Diagnose{App: "payments-apx"}); res.Kind != KindNotFound || !strings.Contains(res.Text, "team-b/payments-api") || !strings.Contains(res.Private, "Applications this answer names") {
		t.Errorf("a suggestion of bob's own: %+v", res)
	}
	dm := Principal{User: "U0BOB00001", Channel: "D0BOB00001", DM: true}
	if res := s.Handle(ctx, dm, Diagnose{App: "payments-api"}); res.Kind != KindReport || res.Private != "" {
		t.Errorf("payments-api for bob in a DM: kind %s private %q", res.Kind, res.Private)
	}
	alice := Principal{User: "U0ALICE001", Channel: "C0DEPLOYS1", ChannelName: "deploys"}
	if res := s.Handle(ctx, alice, Diagnose{App: "payments-api"}); res.Kind != KindNotFound {
		t.Errorf("payments-api for alice: %+v", res)
	}
}

func TestServicePrefersTheAppTheAskerMaySee(t *testing.T) {
	// web exists in argocd (the default namespace) and team-a; a channel
	// that may see team-a only gets team-a/web, not a refusal.
	p := &Policy{Rules: []Rule{{Name: "team-a", Channels: []string{"*"}, Namespaces: []string{"team-a"}}}}
	s := newService(t, p)
	res := s.Handle(context.Background(), alice, Tags{App: "web"})
	if res.Kind != KindTags || res.App.String() != "team-a/web" {
		t.Errorf("tags web: %+v", res)
	}
	// Named explicitly, the one in argocd is not there for this asker.
	res = s.Handle(context.Background(), alice, Tags{App: "web", Namespace: "argocd"})
	if res.Kind != KindNotFound || res.Report != nil {
		t.Errorf("tags argocd/web: %+v", res)
	}
}

func TestServiceExplain(t *testing.T) {
	s := newService(t, everyone)
	res := s.Handle(context.Background(), alice, Explain{Code: "LIVE_IMAGE_NOT_LIVE"})
	if res.Kind != KindExplain || res.Entry == nil || res.Entry.Code != "LIVE_IMAGE_NOT_LIVE" {
		t.Errorf("explain: %+v", res)
	}
	res = s.Handle(context.Background(), alice, Explain{Code: "LIVE_IMAGE_NOT_LIV"})
	if res.Kind != KindNotFound || !strings.Contains(res.Text, "did you mean `LIVE_IMAGE_NOT_LIVE`") {
		t.Errorf("explain typo: %+v", res)
	}
}

// deleting is the engine, except that the Application is deleted just before it is diagnosed
// (a race between the look-up and the diagnosis).
type deleting struct {
	Diagnoser
	reader *cluster.Reader
}

func (d deleting) Diagnose(ctx context.Context, req diagnostics.Request) *report.Report {
	gvr := schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}
	_ = d.reader.Dynamic.Resource(gvr).Namespace(req.Namespace).Delete(ctx, req.App, metav1.DeleteOptions{})
	return d.Diagnoser.Diagnose(ctx, req)
}

// TestAppDeletedBeforeItsDiagnosis: the engine's "does not exist" lists the namespace's other
// Applications; the asker gets the service's "not found" instead, which names only what they
// may see.
func TestAppDeletedBeforeItsDiagnosis(t *testing.T) {
	p := &Policy{Rules: []Rule{{Name: "team-a", Channels: []string{"#deploys"}, Namespaces: []string{"team-a"}, Projects: []string{"default"}}}}
	s := newServiceWith(t, p, extraApps+`---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: vault-keeper, namespace: team-a}
spec:
  project: vault
  source: {repoURL: "https://git.invalid/x.git", path: ., targetRevision: main}
  destination: {server: "https://kubernetes.default.svc", namespace: shop}
`)
	s.Engine = deleting{Diagnoser: s.Engine, reader: s.Apps.(*cluster.Reader)}
	res := s.Handle(context.Background(), alice, Diagnose{App: "webshop", Namespace: "team-a"})
	if res.Kind != KindNotFound || res.Report != nil || !strings.HasPrefix(res.Text, "no Application `webshop` in namespace `team-a`") || strings.Contains(res.Text, "vault-keeper") {
		t.Errorf("an app deleted before its diagnosis: %+v", res)
	}
}

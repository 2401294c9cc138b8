package e2e

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

// secretCalls records the Secret requests one reader makes and the API server's answers.
type secretCalls struct {
	mu    sync.Mutex
	calls []string // "GET /api/v1/namespaces/argocd/secrets/regcred 200"
}

var secretPath = regexp.MustCompile(`^/api/v1/(namespaces/[^/]+/)?secrets(/|$)`)

func (s *secretCalls) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if secretPath.MatchString(req.URL.Path) {
			status := "error"
			if resp != nil {
				status = fmt.Sprint(resp.StatusCode)
			}
			s.mu.Lock()
			s.calls = append(s.calls, req.Method+" "+req.URL.Path+" "+status)
			s.mu.Unlock()
		}
		return resp, err
	})
}

// answered is how many Secret requests got an answer other than 403 (the data, or 404).
func (s *secretCalls) answered() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, c := range s.calls {
		if !strings.HasSuffix(c, " 403") {
			out = append(out, c)
		}
	}
	return out
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// readAs is a cluster reader as a ServiceAccount, its Secret requests recorded.
func readAs(t *testing.T, env *lab.Env, ns, name string) (*cluster.Reader, *secretCalls) {
	t.Helper()
	cfg := asServiceAccount(ns, name)
	calls := &secretCalls{}
	cfg.WrapTransport = calls.wrap
	reader, err := cluster.NewReader(cfg)
	if err != nil {
		t.Fatal(err)
	}
	reader.Logs = env.LogSource()
	return reader, calls
}

func healthy(s report.State) bool {
	return s == report.StateUpToDate || s == report.StateOnItsWay
}

// checkChartRBAC: the scenario, stored in the real API server, read as each of the chart's
// ServiceAccounts gives the same answer (state and code) as read with deploy/rbac.yaml (base,
// baseCalls). With Secret reads off (rbac.secrets.read=false), and with named Secrets only in
// listed namespaces, no scenario turns healthy that was not, no failure appears that the full
// RBAC does not give, and a Secret imgupd could read before is now reported as not verified.
// The chart's releases are installed by TestBuiltinScenariosOnRealAPIServer.
func checkChartRBAC(t *testing.T, sc *lab.Scenario, env *lab.Env, base *report.Report, baseCalls *secretCalls) {
	t.Helper()
	for _, r := range chartVariants {
		reader, calls := readAs(t, env, r.ns, r.name)
		env.UseCluster(reader)
		rep := env.Diagnose(context.Background())
		if r.secretsOK {
			if got, want := answer(rep), answer(base); got != want {
				t.Errorf("chart (%s): %s, deploy/rbac.yaml: %s\n%s", r.what, got, want, findings(rep))
			}
			continue
		}
		gap, listed := secretsOffGaps[sc.Name]
		turnsHealthy := healthy(rep.State) && !healthy(base.State)
		switch {
		case turnsHealthy && !(listed && r.name == chartNoSecrets.name):
			t.Errorf("chart (%s): %s, healthy, but %s with the Secrets readable\n%s", r.what, answer(rep), answer(base), findings(rep))
		case turnsHealthy:
			t.Logf("known engine gap (secretsOffGaps): %s: %s, deploy/rbac.yaml: %s", gap, answer(rep), answer(base))
		case listed && r.name == chartNoSecrets.name:
			t.Errorf("listed in secretsOffGaps (%s), but with Secret reads off it is %s (deploy/rbac.yaml: %s): remove it", gap, answer(rep), answer(base))
		}
		for _, f := range rep.Findings() {
			if f.Severity == report.Fail && !hasFailure(base, f.Code) {
				t.Errorf("chart (%s): a Secret that may not be read made a failure, %s %q; it should be not verified\n%s", r.what, f.Code, f.Title, findings(rep))
			}
		}
		if r.name == chartNoSecrets.name && len(calls.answered()) > 0 {
			t.Errorf("chart (%s) read Secrets: %v", r.what, calls.answered())
		}
		if forbidden := forbiddenSecretReads(baseCalls, calls); len(forbidden) > 0 && !notVerifiedSecrets(rep) {
			t.Errorf("chart (%s): the Secret reads %v were refused, but the report lists no Secret read as not verified\n%s", r.what, forbidden, findings(rep))
		}
		if answer(rep) != answer(base) {
			t.Logf("chart (%s): %s (deploy/rbac.yaml: %s)", r.what, answer(rep), answer(base))
		}
	}
}

// secretsOffGaps are the built-in scenarios that the engine, today, answers healthy (update on its
// way) when imgupd may read no Secret, although the full RBAC finds what stops the tag. The
// unreadable check is listed as not verified (this test checks that), but it does not decide the
// state: without Argo CD's repository Secrets the source is not read at all, so the mapping checks
// are not made. The issue asks for "no scenario turns healthy that was not": these are the engine
// owner's to fix (the check should decide the state: unknown), and each must still be a gap, so
// that the fix removes its entry.
var secretsOffGaps = map[string]string{}

func hasFailure(r *report.Report, code report.Code) bool {
	for _, f := range r.Findings() {
		if f.Code == code && f.Severity == report.Fail {
			return true
		}
	}
	return false
}

// forbiddenSecretReads are the Secret requests the full RBAC answered and the variant's refused.
func forbiddenSecretReads(full, variant *secretCalls) []string {
	answered := full.answered()
	var out []string
	variant.mu.Lock()
	defer variant.mu.Unlock()
	for _, c := range variant.calls {
		req := strings.TrimSuffix(c, " 403")
		if req == c {
			continue
		}
		for _, a := range answered {
			if strings.HasPrefix(a, req+" ") && !slices.Contains(out, req) {
				out = append(out, req)
			}
		}
	}
	return out
}

// notVerifiedSecrets: the report says a Secret read was refused: an unknown finding naming the
// missing rule on secrets, listed in NotVerified.
func notVerifiedSecrets(r *report.Report) bool {
	mentionsSecrets := func(s string) bool { return strings.Contains(s, "secrets") }
	for _, f := range r.Findings() {
		if f.Severity != report.Unknown {
			continue
		}
		text := f.Title + " " + f.Verify
		for _, e := range f.Evidence {
			text += " " + e.Value
		}
		if f.Code == report.CodeReadForbidden && mentionsSecrets(text) || mentionsSecrets(f.Verify) {
			for _, nv := range r.NotVerified {
				if nv.Code == f.Code && nv.Stage == f.Stage {
					return true
				}
			}
		}
	}
	return false
}

// rulesReview is what a ServiceAccount may do in a namespace, as the API server says
// (SelfSubjectRulesReview, asked as the ServiceAccount).
func rulesReview(t *testing.T, cfg *rest.Config, ns string) []authorizationv1.ResourceRule {
	t.Helper()
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := kc.AuthorizationV1().SelfSubjectRulesReviews().Create(context.Background(),
		&authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: ns}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rev.Status.Incomplete {
		t.Fatalf("rules review in %s incomplete: %s", ns, rev.Status.EvaluationError)
	}
	return rev.Status.ResourceRules
}

// grantedToEveryone are the rules Kubernetes itself gives every ServiceAccount in ns (its
// system:basic-user, system:discovery… roles: asking what one may do, reading cluster trust
// bundles): those of a ServiceAccount nothing is bound to. They are no rules of imgupd's.
func grantedToEveryone(t *testing.T, ns string) []authorizationv1.ResourceRule {
	t.Helper()
	return rulesReview(t, asServiceAccount("imgupd-e2e-nobody", "nobody"), ns)
}

// TestChartRBACIsLeastPrivilege: asked as each ServiceAccount (the chart's variants and
// deploy/rbac.yaml's), the API server grants in every namespace no wildcard, no Secret list or
// watch outside Argo CD's namespace (and no Secret at all with rbac.secrets.read=false), named
// Secrets only in Argo CD's and Image Updater's namespace (argocd) and those the variant lists,
// never cluster-wide, and no write but the Lease and the scheduled summaries' ConfigMap (update,
// by name; no create: the chart creates both) in imgupd's own namespace, and the creation of
// SubjectAccessReviews (which writes nothing: it asks whether Image Updater may read a Secret).
func TestChartRBACIsLeastPrivilege(t *testing.T) {
	for _, r := range chartVariants {
		installChart(t, r)
	}
	type account struct {
		chartRelease
		shipped bool
	}
	accounts := []account{{chartRelease{what: "deploy/rbac.yaml", name: "imgupd", ns: "imgupd", secretsOK: true}, true}}
	for _, r := range chartVariants {
		accounts = append(accounts, account{chartRelease: r})
	}
	writeVerbs := []string{"create", "update", "patch", "delete", "deletecollection", "escalate", "bind", "impersonate", "approve", "sign"}
	for _, a := range accounts {
		t.Run(a.name, func(t *testing.T) {
			cfg := asServiceAccount(a.ns, a.name)
			for _, ns := range []string{a.ns, "argocd", "team", "kube-system", "default"} {
				var leaseWrites, summaryWrites, reviews bool
				everyone := grantedToEveryone(t, ns)
				for _, rule := range rulesReview(t, cfg, ns) {
					if slices.ContainsFunc(everyone, func(e authorizationv1.ResourceRule) bool { return reflect.DeepEqual(e, rule) }) {
						continue
					}
					what := fmt.Sprintf("in %s: %v %v of %v", ns, rule.Verbs, rule.Resources, rule.APIGroups)
					for _, list := range [][]string{rule.Verbs, rule.Resources, rule.APIGroups} {
						if slices.Contains(list, "*") {
							t.Errorf("a wildcard %s", what)
						}
					}
					if slices.Contains(rule.Verbs, "watch") {
						t.Errorf("watch %s: imgupd watches nothing", what)
					}
					for _, v := range writeVerbs {
						if !slices.Contains(rule.Verbs, v) {
							continue
						}
						// The leader Lease and the summaries' ConfigMap: updated by name only, never
						// created (a create cannot name its object in RBAC: the chart creates both).
						if ns == a.ns && v == "update" && slices.Equal(rule.Resources, []string{"leases"}) && slices.Equal(rule.APIGroups, []string{"coordination.k8s.io"}) &&
							slices.Equal(rule.ResourceNames, []string{"imgupd"}) {
							leaseWrites = true
							continue
						}
						if ns == a.ns && v == "update" && slices.Equal(rule.Resources, []string{"configmaps"}) && slices.Equal(rule.APIGroups, []string{""}) &&
							slices.Equal(rule.ResourceNames, []string{a.name + "-summaries"}) {
							summaryWrites = true
							continue
						}
						// Asking the API server who may read a Secret: a review is answered, never stored.
						if v == "create" && slices.Equal(rule.Resources, []string{"subjectaccessreviews"}) && slices.Equal(rule.APIGroups, []string{"authorization.k8s.io"}) &&
							slices.Equal(rule.Verbs, []string{"create"}) {
							reviews = true
							continue
						}
						t.Errorf("write verb %s %s (names %v): imgupd writes only its Lease and its summaries' ConfigMap, by name", v, what, rule.ResourceNames)
					}
					if !slices.Contains(rule.Resources, "secrets") {
						continue
					}
					switch {
					case a.name == chartNoSecrets.name:
						t.Errorf("rbac.secrets.read=false still grants %s", what)
					case slices.Contains(rule.Verbs, "list") && ns != "argocd":
						t.Errorf("Secret list %s: only Argo CD's repository Secrets, in its namespace, are listed", what)
					case a.name == chartSecretNamespaces.name && !slices.Contains([]string{"argocd", "team"}, ns):
						t.Errorf("named Secrets %s: rbac.secrets.namespaces lists team (and argocd is always there)", what)
					case a.name != chartSecretNamespaces.name && ns != "argocd":
						t.Errorf("named Secrets %s: only in Argo CD's and Image Updater's namespace (argocd) unless rbac.secrets.namespaces lists more", what)
					}
				}
				if !leaseWrites && ns == a.ns {
					t.Errorf("no Lease rule in %s: leader election cannot work", ns)
				}
				if ns == a.ns && !summaryWrites {
					t.Errorf("in %s: no update of ConfigMap %s-summaries: the schedules cannot keep their state", ns, a.name)
				}
				if !reviews {
					t.Errorf("in %s: no create on subjectaccessreviews: imgupd cannot ask whether Image Updater may read a Secret, so it reads none", ns)
				}
			}
		})
	}
}

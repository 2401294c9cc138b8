package e2e

import (
	"context"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// chartClusters is the chart reading several Argo CD installations (config.clusters, one of each
// kind: in-cluster, a kubeconfig Secret, server with token and CA Secrets, a kubeconfig file), the
// access rules and a schedule naming clusters, with the monitoring objects on: its RBAC installed
// for real (the Role on the clusters' Secrets is asked about below), the rest as a dry run.
var chartClusters = chartRelease{what: "config.clusters with the monitoring objects", name: "imgupd-multi", ns: "imgupd-multi", secretsOK: true,
	set: []string{
		"config.clusters[0].name=prod-eu", "config.clusters[0].inCluster=true", "config.clusters[0].namespace=argocd", "config.clusters[0].updaterNamespace=argocd",
		"config.clusters[1].name=prod-us", "config.clusters[1].kubeconfigSecret.name=imgupd-cluster-prod-us", "config.clusters[1].kubeconfigSecret.key=kubeconfig",
		"config.clusters[2].name=staging", "config.clusters[2].server=https://staging.example:6443",
		"config.clusters[2].tokenSecret.name=imgupd-staging", "config.clusters[2].tokenSecret.key=token",
		"config.clusters[2].caSecret.name=imgupd-staging", "config.clusters[2].caSecret.key=ca.crt",
		"config.clusters[3].name=dev", "config.clusters[3].kubeconfig=/etc/imgupd/dev.kubeconfig", "config.clusters[3].context=dev",
		"config.access.rules[0].name=payments", "config.access.rules[0].channels[0]=#payments-deploys",
		"config.access.rules[0].clusters={prod-eu,staging*}", "config.access.rules[0].defaultCluster=prod-eu",
		"config.schedules[0].name=payments-daily", "config.schedules[0].cron=0 9 * * 1-5", "config.schedules[0].channel=#payments-deploys",
		"config.schedules[0].clusters={prod-eu,prod-us}",
		"serviceMonitor.enabled=true", "prometheusRule.enabled=true", "grafanaDashboard.enabled=true", "grafanaDashboard.namespace=monitoring",
	}}

// clusterSecrets are the Secrets chartClusters names, all in its release namespace.
var clusterSecrets = []string{"imgupd-cluster-prod-us", "imgupd-staging"}

// TestChartWithClusters: the chart with config.clusters (and the monitoring objects) is accepted by
// the API server with strict validation; its configuration file holds the clusters, the rules' and
// the schedule's clusters as given; and imgupd's ServiceAccount may get exactly the Secrets the
// clusters name, in its own namespace — no other Secret there, no list or watch, not elsewhere —
// asked of the API server as that ServiceAccount (SelfSubjectAccessReview). Without clusters naming
// a Secret (the defaults, or only inCluster), no such Role is rendered.
func TestChartWithClusters(t *testing.T) {
	t.Parallel() // its own release and namespace; helm runs while the API servers serve others
	installChart(t, chartClusters)
	objs := chartClusters.render(t)

	var config map[string]any
	var roles []*unstructured.Unstructured
	for _, o := range objs {
		switch {
		case o.GetKind() == "ConfigMap" && o.GetName() == chartClusters.name+"-config":
			data, _, _ := unstructured.NestedString(o.Object, "data", "imgupd.yaml")
			if err := yaml.Unmarshal([]byte(data), &config); err != nil {
				t.Fatalf("the configuration file: %v\n%s", err, data)
			}
		case o.GetKind() == "Role" && o.GetNamespace() == chartClusters.ns:
			if rules, _, _ := unstructured.NestedSlice(o.Object, "rules"); strings.Contains(yamlOf(rules), "secrets") {
				roles = append(roles, o)
			}
		}
	}
	wantClusters := []any{
		map[string]any{"name": "prod-eu", "inCluster": true, "namespace": "argocd", "updaterNamespace": "argocd"},
		map[string]any{"name": "prod-us", "kubeconfigSecret": map[string]any{"name": "imgupd-cluster-prod-us", "key": "kubeconfig"}},
		map[string]any{"name": "staging", "server": "https://staging.example:6443",
			"tokenSecret": map[string]any{"name": "imgupd-staging", "key": "token"}, "caSecret": map[string]any{"name": "imgupd-staging", "key": "ca.crt"}},
		map[string]any{"name": "dev", "kubeconfig": "/etc/imgupd/dev.kubeconfig", "context": "dev"},
	}
	if !reflect.DeepEqual(config["clusters"], wantClusters) {
		t.Errorf("clusters in the configuration file:\n%s\nwant\n%s", yamlOf(config["clusters"]), yamlOf(wantClusters))
	}
	rule, _, _ := unstructured.NestedSlice(config, "access", "rules")
	if len(rule) != 1 || yamlOf(rule[0].(map[string]any)["clusters"]) != yamlOf([]any{"prod-eu", "staging*"}) || rule[0].(map[string]any)["defaultCluster"] != "prod-eu" {
		t.Errorf("access rules: %s", yamlOf(rule))
	}
	sched, _ := config["schedules"].([]any)
	if len(sched) != 1 || yamlOf(sched[0].(map[string]any)["clusters"]) != yamlOf([]any{"prod-eu", "prod-us"}) {
		t.Errorf("schedules: %s", yamlOf(sched))
	}

	if len(roles) != 1 || roles[0].GetName() != chartClusters.name+"-cluster-credentials" {
		t.Fatalf("%d Roles on Secrets in the release namespace, want one, %s-cluster-credentials", len(roles), chartClusters.name)
	}
	rules, _, _ := unstructured.NestedSlice(roles[0].Object, "rules")
	want := []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"secrets"}, "resourceNames": []any{clusterSecrets[0], clusterSecrets[1]}, "verbs": []any{"get"}}}
	if !reflect.DeepEqual(rules, want) {
		t.Errorf("the Role's rules:\n%s\nwant\n%s", yamlOf(rules), yamlOf(want))
	}

	// What the API server grants the ServiceAccount.
	kc, err := kubernetes.NewForConfig(asServiceAccount(chartClusters.ns, chartClusters.name))
	if err != nil {
		t.Fatal(err)
	}
	may := func(verb, ns, name string) bool {
		t.Helper()
		rev, err := kc.AuthorizationV1().SelfSubjectAccessReviews().Create(context.Background(), &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: ns, Verb: verb, Resource: "secrets", Name: name}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return rev.Status.Allowed
	}
	for _, name := range clusterSecrets {
		if !may("get", chartClusters.ns, name) {
			t.Errorf("the ServiceAccount may not get Secret %s/%s, which config.clusters names", chartClusters.ns, name)
		}
		if may("get", "default", name) {
			t.Errorf("the ServiceAccount may get Secret default/%s: only its own namespace's", name)
		}
	}
	for _, c := range []struct{ verb, name string }{{"get", "imgupd-multi-slack"}, {"get", "another"}, {"list", ""}, {"watch", ""},
		{"update", clusterSecrets[0]}, {"delete", clusterSecrets[0]}} {
		if may(c.verb, chartClusters.ns, c.name) {
			t.Errorf("the ServiceAccount may %s Secret %q in its namespace: only get on the clusters' Secrets", c.verb, c.name)
		}
	}

	// No cluster naming a Secret, no Role.
	for _, r := range []chartRelease{chartDefault, {what: "only an in-cluster cluster", name: "imgupd-incluster", ns: "imgupd-incluster",
		set: []string{"config.clusters[0].name=here", "config.clusters[0].inCluster=true"}}} {
		for _, o := range r.render(t) {
			if strings.HasSuffix(o.GetName(), "-cluster-credentials") {
				t.Errorf("the chart with %s renders %s %s", r.what, o.GetKind(), o.GetName())
			}
		}
	}
}

// TestChartRejectsBadClusters: values.schema.json refuses a cluster with no way to reach it, two
// ways, an unknown key, a name that is no DNS label, and a CA or context without what it goes with,
// before anything is rendered, and the chart config.serve.cluster beside config.clusters (imgupd
// serve would refuse to start); helm's message names the value.
func TestChartRejectsBadClusters(t *testing.T) {
	t.Parallel()
	helm := installTool(t, "helm")
	for _, tc := range []struct {
		what string
		set  []string
		want string
	}{
		{"no way to reach it", []string{"config.clusters[0].name=a"}, "missing property 'inCluster'"},
		{"two ways", []string{"config.clusters[0].name=a", "config.clusters[0].inCluster=true", "config.clusters[0].kubeconfig=/k"}, "'oneOf' failed"},
		{"an unknown key", []string{"config.clusters[0].name=a", "config.clusters[0].inCluster=true", "config.clusters[0].kubeconfigSecrets.name=k"}, "'kubeconfigSecrets' not allowed"},
		{"a name that is no DNS label", []string{"config.clusters[0].name=Prod_EU", "config.clusters[0].inCluster=true"}, "/config/clusters/0/name"},
		{"a CA without a server", []string{"config.clusters[0].name=a", "config.clusters[0].kubeconfigSecret.name=k", "config.clusters[0].caSecret.name=c"}, "'server' required"},
		{"a context without a kubeconfig", []string{"config.clusters[0].name=a", "config.clusters[0].inCluster=true", "config.clusters[0].context=x"}, "/config/clusters/0"},
		{"config.serve.cluster with clusters", []string{"config.clusters[0].name=a", "config.clusters[0].inCluster=true", "config.serve.cluster=a"}, "leave config.serve.cluster empty"},
		{"a rule's default cluster that is no DNS label", []string{"config.access.rules[0].name=r", "config.access.rules[0].defaultCluster=A B"}, "defaultCluster"},
	} {
		args := []string{"template", "x", chartDir}
		for _, s := range tc.set {
			args = append(args, "--set", s)
		}
		out, err := exec.Command(helm, args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: helm template %v: %v, want an error with %q\n%s", tc.what, tc.set, err, tc.want, out)
		}
	}
}

func yamlOf(v any) string {
	b, _ := yaml.Marshal(v)
	return string(b)
}

package clusters_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/clusters"
)

// decodeYAML reads a clusters section as the configuration file holds it, keys lower-cased as
// viper gives them.
func decodeYAML(t testing.TB, doc string) ([]clusters.Spec, []clusters.Problem) {
	t.Helper()
	var raw any
	if err := yaml.Unmarshal([]byte(doc), &raw); err != nil {
		t.Fatalf("test YAML: %v", err)
	}
	return clusters.Decode(lower(raw))
}

func lower(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[strings.ToLower(k)] = lower(e)
		}
		return out
	case []any:
		for i := range x {
			x[i] = lower(x[i])
		}
	}
	return v
}

const agreed = `
- name: prod-eu
  inCluster: true
  namespace: argocd
  updaterNamespace: argocd
- name: prod-us
  kubeconfigSecret:
    name: imgupd-cluster-prod-us
    key: kubeconfig
  context: ""
- name: staging
  server: https://staging.example:6443
  tokenSecret: {name: imgupd-staging, key: token}
  caSecret: {name: imgupd-staging, key: ca.crt}
- name: dev
  kubeconfig: /etc/imgupd/dev.kubeconfig
  context: dev
`

func TestDecodeAgreedFormat(t *testing.T) {
	specs, problems := decodeYAML(t, agreed)
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	if got := strings.Join(clusters.Names(specs), ","); got != "prod-eu,prod-us,staging,dev" {
		t.Fatalf("names %s", got)
	}
	ways := []clusters.Way{clusters.WayInCluster, clusters.WayKubeconfigSecret, clusters.WayServer, clusters.WayKubeconfig}
	for i, s := range specs {
		if s.Way() != ways[i] {
			t.Errorf("%s: way %s, want %s", s.Name, s.Way(), ways[i])
		}
		if s.Namespace != "argocd" || s.UpdaterNamespace != "argocd" {
			t.Errorf("%s: namespaces %q %q, want the argocd defaults", s.Name, s.Namespace, s.UpdaterNamespace)
		}
	}
	if specs[2].CASecret.Key != "ca.crt" || specs[2].TokenSecret.Name != "imgupd-staging" || specs[3].Context != "dev" {
		t.Errorf("staging/dev decoded as %+v %+v", specs[2], specs[3])
	}
	// Defaults of the Secret keys.
	specs, problems = decodeYAML(t, "- name: a\n  kubeconfigSecret: {name: s}\n- name: b\n  server: https://b:6443\n  tokenSecret: {name: t}\n  caSecret: {name: t}\n")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if specs[0].KubeconfigSecret.Key != "kubeconfig" || specs[1].TokenSecret.Key != "token" || specs[1].CASecret.Key != "ca.crt" {
		t.Errorf("default keys: %+v %+v %+v", specs[0].KubeconfigSecret, specs[1].TokenSecret, specs[1].CASecret)
	}
}

func TestDecodeProblems(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []string // "key: part of the message"
	}{
		{"not a list", "name: a", []string{"clusters: a list of clusters"}},
		{"not a map", "- a", []string{"clusters[0]: a cluster is a map"}},
		{"typo", "- name: a\n  inclustr: true", []string{"clusters[0].inclustr: not a key of a cluster; did you mean inCluster?"}},
		{"typo in a Secret", "- name: a\n  kubeconfigSecret: {nmae: s}", []string{"clusters[0].kubeconfigsecret.nmae: not a key of a Secret reference; did you mean name?"}},
		{"Secret not a map", "- name: a\n  tokenSecret: s", []string{"clusters[0].tokensecret: a map of name and key"}},
		{"no way", "- name: a", []string{"clusters[0]: says no way to reach it"}},
		{"two ways", "- name: a\n  inCluster: true\n  kubeconfig: /k", []string{"clusters[0]: sets inCluster and kubeconfig: set exactly one way"}},
		{"server without token", "- name: a\n  server: https://a:6443", []string{"clusters[0].tokenSecret: missing: server needs tokenSecret"}},
		{"token without server", "- name: a\n  tokenSecret: {name: t}", []string{"clusters[0].server: missing: tokenSecret needs"}},
		{"clear text server", "- name: a\n  server: http://a:6443\n  tokenSecret: {name: t}", []string{"clusters[0].server: \"http://a:6443\": want an https:// URL"}},
		{"CA without server", "- name: a\n  inCluster: true\n  caSecret: {name: c}", []string{"clusters[0].caSecret: only with server"}},
		{"context without kubeconfig", "- name: a\n  inCluster: true\n  context: x", []string{"clusters[0].context: only with kubeconfig"}},
		{"no name", "- inCluster: true", []string{"clusters[0].name: missing"}},
		{"bad name", "- name: Prod_EU\n  inCluster: true", []string{"clusters[0].name: \"Prod_EU\" is not a DNS label"}},
		{"dotted name", "- name: prod.eu\n  inCluster: true", []string{"clusters[0].name: \"prod.eu\" is not a DNS label"}},
		{"bad Secret", "- name: a\n  kubeconfigSecret: {name: Bad_Name, key: \"a b\"}", []string{"clusters[0].kubeconfigSecret.name: \"Bad_Name\" is not a Secret name", "clusters[0].kubeconfigSecret.key: \"a b\" is not a key of a Secret"}},
		{"bad namespace", "- name: a\n  inCluster: true\n  namespace: Argo", []string{"clusters[0].namespace: \"Argo\" is not a namespace name"}},
		{"duplicate", "- name: a\n  inCluster: true\n- name: a\n  kubeconfig: /k", []string{"clusters[1].name: \"a\" is the name of clusters[0] too"}},
		{"two in-cluster", "- name: a\n  inCluster: true\n- name: b\n  inCluster: true", []string{"clusters[1].inCluster: clusters[0] is the cluster imgupd runs in already"}},
		{"wrong type", "- name: a\n  inCluster: yes please", []string{"clusters[0].inCluster: want true or false, not string"}},
		{"wrong type of a name", "- name: [a]\n  inCluster: true", []string{"clusters[0].name: want a string"}},
		{"wrong type in a Secret", "- name: a\n  kubeconfigSecret: {name: 3}", []string{"clusters[0].kubeconfigSecret.name: want a string"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, problems := decodeYAML(t, tc.doc)
			if len(problems) != len(tc.want) {
				t.Fatalf("problems %v, want %d: %v", problems, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				key, msg, _ := strings.Cut(w, ": ")
				if problems[i].Key != key || !strings.Contains(problems[i].Message, msg) {
					t.Errorf("problem %q: %q, want %q: …%q…", problems[i].Key, problems[i].Message, key, msg)
				}
			}
		})
	}
}

func TestDecodeNothing(t *testing.T) {
	if specs, problems := clusters.Decode(nil); specs != nil || problems != nil {
		t.Errorf("no section: %v %v", specs, problems)
	}
}

// FuzzDecode: any YAML as the clusters section is Specs and problems, never a panic, and every
// Spec returned is valid.
func FuzzDecode(f *testing.F) {
	f.Add(agreed)
	f.Add("- name: a\n  inclustr: true")
	f.Add("- {name: a, server: https://a, tokenSecret: {name: t, key: k}, caSecret: 3}")
	f.Fuzz(func(t *testing.T, doc string) {
		var raw any
		if yaml.Unmarshal([]byte(doc), &raw) != nil {
			return
		}
		specs, _ := clusters.Decode(lower(raw))
		for _, s := range specs {
			if p := s.Validate(); len(p) > 0 {
				t.Fatalf("%+v returned with problems %v", s, p)
			}
			if !clusters.ValidName(s.Name) {
				t.Fatalf("invalid name %q returned", s.Name)
			}
		}
	})
}

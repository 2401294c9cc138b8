// Package argocd holds the Argo CD Application and ApplicationSet that install imgupd's chart
// (docs/install.md, "Install with Argo CD"); its test keeps them pointing at the chart and its
// values.
package argocd_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const chartPath = "deploy/helm/imgupd"

type source struct {
	RepoURL        string `json:"repoURL"`
	TargetRevision string `json:"targetRevision"`
	Path           string `json:"path"`
	Helm           struct {
		ReleaseName  string         `json:"releaseName"`
		ValuesObject map[string]any `json:"valuesObject"`
		Values       string         `json:"values"`
	} `json:"helm"`
}

type appSpec struct {
	Project     string `json:"project"`
	Source      source `json:"source"`
	Destination struct {
		Server, Namespace string
	} `json:"destination"`
	SyncPolicy struct {
		Automated   *struct{ Prune, SelfHeal bool } `json:"automated"`
		SyncOptions []string                        `json:"syncOptions"`
	} `json:"syncPolicy"`
	IgnoreDifferences []struct {
		Group, Kind, Name string
		JSONPointers      []string `json:"jsonPointers"`
	} `json:"ignoreDifferences"`
}

func read(t *testing.T, name string, into any) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// chartValues are the chart's default values.
func chartValues(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "helm", "imgupd", "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// unknownKeys are the keys of given that the chart's values do not have, as dotted paths. Below
// a value that is not a map in the chart (a list, or a map of free keys such as labels: {}),
// anything goes: the schema checks it when Argo CD renders.
func unknownKeys(given, chart map[string]any, prefix string) []string {
	var out []string
	for k, v := range given {
		cv, ok := chart[k]
		if !ok {
			out = append(out, prefix+k)
			continue
		}
		gm, gok := v.(map[string]any)
		cm, cok := cv.(map[string]any)
		if gok && cok && len(cm) > 0 {
			out = append(out, unknownKeys(gm, cm, prefix+k+".")...)
		}
	}
	sort.Strings(out)
	return out
}

func checkSource(t *testing.T, what string, s source, chart map[string]any) {
	t.Helper()
	if s.Path != chartPath {
		t.Errorf("%s: path %q, want the chart %s", what, s.Path, chartPath)
	}
	if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(s.Path), "Chart.yaml")); err != nil {
		t.Errorf("%s: no chart at %s: %v", what, s.Path, err)
	}
	if !strings.Contains(s.RepoURL, "example.com") || s.TargetRevision == "" {
		t.Errorf("%s: repoURL %q (a placeholder the reader replaces) and targetRevision %q", what, s.RepoURL, s.TargetRevision)
	}
	if s.Helm.ReleaseName != "imgupd" {
		t.Errorf("%s: release %q, want imgupd (the names docs/install.md uses)", what, s.Helm.ReleaseName)
	}
	if len(s.Helm.ValuesObject) == 0 || s.Helm.Values != "" {
		t.Errorf("%s: want the values inline as valuesObject", what)
	}
	if bad := unknownKeys(s.Helm.ValuesObject, chart, ""); len(bad) > 0 {
		t.Errorf("%s: values the chart does not have: %v", what, bad)
	}
}

// TestApplication: the Application installs the chart from this repository, with values the
// chart has, automated sync, into namespace imgupd of the cluster Argo CD runs in.
func TestApplication(t *testing.T) {
	chart := chartValues(t)
	var app struct {
		APIVersion, Kind string
		Metadata         struct {
			Name, Namespace string
			Finalizers      []string
		}
		Spec appSpec `json:"spec"`
	}
	read(t, "application.yaml", &app)
	if app.APIVersion != "argoproj.io/v1alpha1" || app.Kind != "Application" || app.Metadata.Namespace != "argocd" {
		t.Errorf("%s %s in %q", app.APIVersion, app.Kind, app.Metadata.Namespace)
	}
	checkSource(t, "application.yaml", app.Spec.Source, chart)
	if d := app.Spec.Destination; d.Server != "https://kubernetes.default.svc" || d.Namespace != "imgupd" {
		t.Errorf("destination %+v", d)
	}
	if app.Spec.SyncPolicy.Automated == nil || !strings.Contains(strings.Join(app.Spec.SyncPolicy.SyncOptions, " "), "CreateNamespace=true") {
		t.Errorf("syncPolicy %+v", app.Spec.SyncPolicy)
	}
	// The Lease and the summaries' ConfigMap are imgupd's to write: Argo CD must not undo it.
	ignored := map[string]bool{}
	for _, d := range app.Spec.IgnoreDifferences {
		ignored[d.Kind+" "+d.Name+" "+strings.Join(d.JSONPointers, ",")] = true
	}
	if !ignored["Lease  /spec"] || !ignored["ConfigMap imgupd-summaries /data"] ||
		!strings.Contains(strings.Join(app.Spec.SyncPolicy.SyncOptions, " "), "RespectIgnoreDifferences=true") {
		t.Errorf("ignoreDifferences %+v, syncOptions %v: the Lease's spec and the summaries' data must be left to imgupd", app.Spec.IgnoreDifferences, app.Spec.SyncPolicy.SyncOptions)
	}
	if v, _ := app.Spec.Source.Helm.ValuesObject["rbacOnly"].(bool); v {
		t.Error("the Application installs the bot, not the RBAC alone")
	}
}

// TestApplicationSetInstallsRBACOnly: the ApplicationSet's cluster generator installs the chart
// with rbacOnly=true on each selected cluster, with values the chart has.
func TestApplicationSetInstallsRBACOnly(t *testing.T) {
	chart := chartValues(t)
	var set struct {
		APIVersion, Kind string
		Metadata         struct{ Name, Namespace string }
		Spec             struct {
			GoTemplate        bool     `json:"goTemplate"`
			GoTemplateOptions []string `json:"goTemplateOptions"`
			Generators        []struct {
				Clusters *struct {
					Selector map[string]any `json:"selector"`
				} `json:"clusters"`
			} `json:"generators"`
			Template struct {
				Metadata struct{ Name string }
				Spec     appSpec `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	read(t, "applicationset-rbac.yaml", &set)
	if set.APIVersion != "argoproj.io/v1alpha1" || set.Kind != "ApplicationSet" {
		t.Errorf("%s %s", set.APIVersion, set.Kind)
	}
	if len(set.Spec.Generators) != 1 || set.Spec.Generators[0].Clusters == nil {
		t.Fatalf("want one cluster generator: %+v", set.Spec.Generators)
	}
	tpl := set.Spec.Template
	if !strings.Contains(tpl.Metadata.Name, "{{ .name }}") || tpl.Spec.Destination.Server != "{{ .server }}" || !set.Spec.GoTemplate {
		t.Errorf("the template must name each Application and target each cluster from the generator: %q, %q", tpl.Metadata.Name, tpl.Spec.Destination.Server)
	}
	checkSource(t, "applicationset-rbac.yaml", tpl.Spec.Source, chart)
	if v, _ := tpl.Spec.Source.Helm.ValuesObject["rbacOnly"].(bool); !v {
		t.Error("the ApplicationSet must install the RBAC alone (rbacOnly: true)")
	}
}

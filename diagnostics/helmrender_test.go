package diagnostics

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/model/updater"
)

// The .argocd-source files are merge patches: a list they set replaces the
// Application's whole list (Argo CD's mergeSourceParameters).
func TestMergeHelmOverridesReplacesLists(t *testing.T) {
	spec := &argo.ApplicationSourceHelm{
		ValueFiles: []string{"values-prod.yaml"},
		Parameters: []argo.HelmParameter{{Name: "replicas", Value: "2"}, {Name: "image.tag", Value: "1.0.0"}},
		Values:     "image:\n  tag: 0.9.0\n",
	}
	files := []overrideFile{
		{path: "apps/web/.argocd-source.yaml", data: []byte("helm:\n  parameters:\n  - name: image.tag\n    value: 1.0.1\n    forcestring: true\n")},
		{path: "apps/web/.argocd-source-web.yaml", data: []byte("helm:\n  valueFiles: [values-staging.yaml]\n")},
	}
	m, err := mergeHelmOverrides(spec, files)
	if err != nil {
		t.Fatal(err)
	}
	if want := []argo.HelmParameter{{Name: "image.tag", Value: "1.0.1", ForceString: true}}; !reflect.DeepEqual(m.helm.Parameters, want) {
		t.Errorf("parameters = %+v, want %+v (the file's list replaces the spec's)", m.helm.Parameters, want)
	}
	if want := []string{"values-staging.yaml"}; !reflect.DeepEqual(m.helm.ValueFiles, want) {
		t.Errorf("valueFiles = %v, want %v", m.helm.ValueFiles, want)
	}
	if m.helm.Values != spec.Values {
		t.Errorf("values = %q, want the spec's %q (no file sets it)", m.helm.Values, spec.Values)
	}
	if m.from["parameters"] != "apps/web/.argocd-source.yaml" || m.from["valueFiles"] != "apps/web/.argocd-source-web.yaml" || m.from["values"] != "" {
		t.Errorf("from = %v", m.from)
	}
	if spec.Parameters[1].Value != "1.0.0" {
		t.Error("the Application's own helm block was changed")
	}
}

func TestMergeHelmOverridesInvalidYAML(t *testing.T) {
	if _, err := mergeHelmOverrides(nil, []overrideFile{{path: ".argocd-source.yaml", data: []byte("helm: [unclosed")}}); err == nil {
		t.Error("an override file that is not YAML fails Argo CD's render; want an error")
	}
}

func TestHelmOverrideFilesInstanceName(t *testing.T) {
	got := helmOverrideFiles("apps/web", "web", "team", "argocd")
	want := []string{"apps/web/.argocd-source.yaml", "apps/web/.argocd-source-team_web.yaml"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("outside Argo CD's namespace: %v, want %v", got, want)
	}
	if got := helmOverrideFiles("apps/web", "web", "argocd", "argocd"); got[1] != "apps/web/.argocd-source-web.yaml" {
		t.Errorf("in Argo CD's namespace: %v", got)
	}
}

func TestInlineValuesPrefersValuesObject(t *testing.T) {
	h := argo.ApplicationSourceHelm{Values: "image:\n  tag: from-values\n", ValuesObject: json.RawMessage(`{"image":{"tag":"from-object"}}`)}
	m, from := inlineValues(h)
	if v, _ := valueAt(m, "image.tag"); v != "from-object" || from != "valuesObject" {
		t.Errorf("got %v from %s, want from-object from valuesObject", v, from)
	}
	h.ValuesObject = nil
	m, from = inlineValues(h)
	if v, _ := valueAt(m, "image.tag"); v != "from-values" || from != "values" {
		t.Errorf("got %v from %s, want from-values from values", v, from)
	}
	if m, _ := inlineValues(argo.ApplicationSourceHelm{}); m != nil {
		t.Errorf("no inline values: got %v", m)
	}
}

func TestOverriddenAbove(t *testing.T) {
	chart := helmLayer{kind: layerChart, where: "chart", values: map[string]any{"image": map[string]any{"tag": "1.0.0", "repository": "r/web"}}}
	prod := helmLayer{kind: layerValueFile, where: "prod", values: map[string]any{"image": map[string]any{"tag": "1.0.0"}}}
	inline := helmLayer{kind: layerInline, where: "valuesObject", values: map[string]any{"image": map[string]any{"tag": "0.9.0"}}}
	pin := helmLayer{kind: layerParameter, where: "parameters", params: []argo.HelmParameter{{Name: "image.tag", Value: "1.0.0"}}}
	file := helmLayer{kind: layerFileParameter, where: "fileParameters", fileParams: []argo.HelmFileParameter{{Name: "image.tag", Path: "tag.txt"}}}
	never := func(string) bool { return false }
	cases := []struct {
		name   string
		layers []helmLayer
		w      helmWrite
		want   string // where of the overriding layer, "" for none
	}{
		{"values.yaml under a parameter pin", []helmLayer{chart, pin}, helmWrite{kind: layerChart, index: 0, above: 1}, "parameters"},
		{"values.yaml under a later value file", []helmLayer{chart, prod}, helmWrite{kind: layerChart, index: 0, above: 1}, "prod"},
		{"the last value file", []helmLayer{chart, prod}, helmWrite{kind: layerValueFile, index: 1, above: 2}, ""},
		{"a value file under valuesObject", []helmLayer{chart, prod, inline}, helmWrite{kind: layerValueFile, index: 1, above: 2}, "valuesObject"},
		{"the highest layer wins the report", []helmLayer{chart, prod, inline, pin}, helmWrite{kind: layerValueFile, index: 1, above: 2}, "parameters"},
		{"a parameter write over values and pins", []helmLayer{chart, prod, inline, pin}, helmWrite{kind: layerParameter, index: -1, above: 4}, ""},
		{"a parameter write under --set-file", []helmLayer{chart, pin, file}, helmWrite{kind: layerParameter, index: -1, above: 2}, "fileParameters"},
		{"a file to be created among the value files", []helmLayer{chart, prod}, helmWrite{kind: layerValueFile, index: -1, above: 1}, "prod"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, _, ok := overriddenAbove(c.layers, c.w, "image.tag", never)
			if got := map[bool]string{true: l.where}[ok]; got != c.want {
				t.Errorf("overridden by %q, want %q", got, c.want)
			}
		})
	}
	// A pin to the value Image Updater writes changes nothing.
	if _, _, ok := overriddenAbove([]helmLayer{chart, pin}, helmWrite{kind: layerChart, index: 0, above: 1}, "image.tag", func(v string) bool { return v == "1.0.0" }); ok {
		t.Error("a layer setting the same value is not an override")
	}
}

func TestDefinedInAndSiblingRepository(t *testing.T) {
	layers := []helmLayer{
		{kind: layerChart, values: map[string]any{"image": map[string]any{"registry": "ghcr.io/", "repository": "acme/web", "tag": "1.0.0"}}},
		{kind: layerParameter, params: []argo.HelmParameter{{Name: "image.name", Value: "x"}}},
	}
	if !definedIn(layers, "image.tag", -1) {
		t.Error("image.tag is in the chart's values")
	}
	if definedIn(layers, "image.name", -1) {
		t.Error("a parameter alone does not show that the chart reads a path")
	}
	if definedIn(layers, "image.tag", 0) {
		t.Error("the skipped layer was read")
	}
	repo, _, ok := siblingRepository(layers, "image.tag")
	if !ok || repo != "ghcr.io/acme/web" {
		t.Errorf("sibling repository = %q %v, want ghcr.io/acme/web (registry + repository)", repo, ok)
	}
	if _, _, ok := siblingRepository(layers, "other.tag"); ok {
		t.Error("no repository beside other.tag")
	}
}

func TestRelPath(t *testing.T) {
	for _, c := range []struct{ base, target, want string }{
		{"charts/web", "charts/web/values-prod.yaml", "values-prod.yaml"},
		{"charts/web", "envs/prod/values.yaml", "../../envs/prod/values.yaml"},
		{"charts/web", "charts/values.yaml", "../values.yaml"},
		{"", "values.yaml", "values.yaml"},
		{".", "a/values.yaml", "a/values.yaml"},
	} {
		if got := relPath(c.base, c.target); got != c.want {
			t.Errorf("relPath(%q, %q) = %q, want %q", c.base, c.target, got, c.want)
		}
	}
}

// FuzzMergeHelmOverrides: an .argocd-source file is text from git (not
// trusted); merging it must never panic, and a merge that succeeds gives a
// helm block that marshals.
func FuzzMergeHelmOverrides(f *testing.F) {
	f.Add([]byte("helm:\n  parameters:\n  - name: image.tag\n    value: 1.0.1\n    forcestring: true\n"))
	f.Add([]byte("helm: null\n"))
	f.Add([]byte("helm:\n  valuesObject: {image: {tag: 1}}\n  valueFiles: [a.yaml, b.yaml]\n"))
	f.Add([]byte("kustomize:\n  images: [a:1]\n"))
	f.Add([]byte("- a\n- b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		spec := &argo.ApplicationSourceHelm{Parameters: []argo.HelmParameter{{Name: "image.tag", Value: "1.0.0"}}, ValueFiles: []string{"v.yaml"}}
		m, err := mergeHelmOverrides(spec, []overrideFile{{path: ".argocd-source-web.yaml", data: data}})
		if err != nil {
			return
		}
		if _, err := json.Marshal(m.helm); err != nil {
			t.Fatalf("merged helm block does not marshal: %v", err)
		}
		_, _ = inlineValues(m.helm)
	})
}

func TestSameRepository(t *testing.T) {
	img := updater.ParseImageRef("ghcr.io/acme/web", updater.Latest)
	for v, want := range map[string]bool{
		"ghcr.io/acme/web":   true,
		"acme/web":           true, // the registry comes from another value
		"ghcr.io/acme/api":   false,
		"quay.io/acme/web":   false,
		"docker.io/acme/web": false,
	} {
		if got := sameRepository(updater.ParseImageRef(v, updater.Latest), img); got != want {
			t.Errorf("sameRepository(%q) = %v, want %v", v, got, want)
		}
	}
}

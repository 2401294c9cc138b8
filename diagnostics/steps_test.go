package diagnostics

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/imgupd/imgupd/model/updater"
)

// TestMergeRegistriesConf: an entry for a new prefix is appended, one for a
// prefix already listed gets the fields set, comments and the other entries
// stay, and what the fix writes parses as Image Updater parses it (strict).
func TestMergeRegistriesConf(t *testing.T) {
	current := []byte(`# registries Image Updater knows
registries:
- name: lab   # the lab registry
  api_url: http://10.0.0.5:5000
  prefix: 10.0.0.5:5000
`)
	add := confEntry{name: "ghcr", apiURL: "https://ghcr.io", prefix: "ghcr.io", fields: []kv{{"limit", 5}, {"credentials", "pullsecret:argocd/registry-ghcr-io"}}}
	got, err := mergeRegistriesConf(current, add)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# registries Image Updater knows", "# the lab registry", "prefix: 10.0.0.5:5000", "- name: ghcr\n    api_url: https://ghcr.io\n    prefix: ghcr.io\n    limit: 5\n    credentials: pullsecret:argocd/registry-ghcr-io"} {
		if !strings.Contains(got, want) {
			t.Errorf("merged lacks %q:\n%s", want, got)
		}
	}
	conf, err := updater.ParseRegistriesConf([]byte(got))
	if err != nil || len(conf.Registries) != 2 || conf.Registries[1].Limit != 5 {
		t.Fatalf("the merged file does not parse as Image Updater reads it: %v\n%s", err, got)
	}

	upd := confEntry{name: "other-name", apiURL: "http://10.0.0.5:5000", prefix: "10.0.0.5:5000", fields: []kv{{"insecure", true}}}
	got, err = mergeRegistriesConf(current, upd)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(got, "- name:") != 1 || !strings.Contains(got, "insecure: true") || !strings.Contains(got, "name: lab") {
		t.Errorf("the entry for the prefix was not updated in place:\n%s", got)
	}

	// A hostile value stays one YAML string: no second key, no second entry.
	hostile := confEntry{name: "x", apiURL: "https://x", prefix: "x\n  insecure: true\n- name: evil", fields: []kv{{"credentials", "pullsecret:argocd/a\nb"}}}
	got, err = mergeRegistriesConf(nil, hostile)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Registries []map[string]any `yaml:"registries"`
	}
	if err := yaml.Unmarshal([]byte(got), &back); err != nil || len(back.Registries) != 1 || back.Registries[0]["prefix"] != hostile.prefix || back.Registries[0]["insecure"] != nil {
		t.Errorf("a hostile value changed the entry's shape: %v\n%s", err, got)
	}
	if _, err := mergeRegistriesConf([]byte("registries: [\n"), add); err == nil {
		t.Error("a file that does not parse was merged")
	}
}

// TestYAMLWithout: the key is removed from inline values, the rest kept.
func TestYAMLWithout(t *testing.T) {
	got, ok := yamlWithout("image:\n  repository: a  # the repo\n  tag: 1.0.0\nreplicas: 2\n", []string{"image", "tag"})
	if !ok || strings.Contains(got, "tag:") || !strings.Contains(got, "repository: a") || !strings.Contains(got, "# the repo") || !strings.Contains(got, "replicas: 2") {
		t.Errorf("%v:\n%s", ok, got)
	}
	if _, ok := yamlWithout("image: {}\n", []string{"image", "tag"}); ok {
		t.Error("a key that is not there was removed")
	}
}

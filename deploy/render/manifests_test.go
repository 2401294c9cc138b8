package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// helm's output shape: a comment-only document (a template that rendered nothing but its
// comments), then objects with Helm's labels.
const helmOutput = `---
# Source: imgupd/templates/empty.yaml
# nothing rendered here
---
# Source: imgupd/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: imgupd
  namespace: imgupd
  labels:
    helm.sh/chart: imgupd-0.1.0
    app.kubernetes.io/name: imgupd
    app.kubernetes.io/managed-by: Helm
---
# Source: imgupd/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: imgupd-config
  namespace: imgupd
data:
  imgupd.yaml: |
    access:
      rules: []
`

func TestSplitDocs(t *testing.T) {
	docs, err := SplitDocs(helmOutput)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Kind != "ServiceAccount" || docs[1].Kind != "ConfigMap" || docs[0].Namespace != "imgupd" {
		t.Fatalf("docs %+v", docs)
	}
	sa := docs[0].Text
	if strings.Contains(sa, "helm.sh/chart") || strings.Contains(sa, "managed-by: Helm") {
		t.Errorf("Helm's labels kept:\n%s", sa)
	}
	if !strings.Contains(sa, "# Source: imgupd/templates/serviceaccount.yaml") || !strings.Contains(sa, "app.kubernetes.io/name: imgupd") {
		t.Errorf("the object lost its source line or its own labels:\n%s", sa)
	}
	cfg, err := configData(docs[1])
	if err != nil || cfg != "access:\n  rules: []\n" {
		t.Errorf("configData = %q, %v", cfg, err)
	}
	if _, err := SplitDocs("---\nkind: [unclosed\n"); err == nil {
		t.Error("a document that does not parse was accepted")
	}
}

// TestStale: --check names the missing and the changed file, with the first line that differs.
func TestStale(t *testing.T) {
	root := t.TempDir()
	files := []File{{"deploy/a.yaml", []byte("one\ntwo\n")}, {"deploy/b.yaml", []byte("x\n")}, {"deploy/c.yaml", []byte("same\n")}}
	if err := Write(root, files[2:]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "deploy", "a.yaml"), []byte("one\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stale, err := Stale(root, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) != 2 || stale[0].Path != "deploy/a.yaml" || stale[1] != (StaleFile{"deploy/b.yaml", "missing"}) {
		t.Fatalf("stale %+v", stale)
	}
	if want := `line 2 is "three", the chart gives "two"`; stale[0].Why != want {
		t.Errorf("why %q, want %q", stale[0].Why, want)
	}
}

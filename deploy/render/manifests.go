package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// The release every generated file is rendered as: objects named imgupd… in namespace imgupd,
// the names docs/install.md and deploy/kustomize use.
const (
	releaseName      = "imgupd"
	releaseNamespace = "imgupd"
	// configMapName is the chart's ConfigMap name for release imgupd; the Kustomize base generates
	// a ConfigMap of that name (with a content hash) instead of the chart's.
	configMapName = "imgupd-config"
	// summariesConfigMapName is the scheduled summaries' ConfigMap of release imgupd.
	summariesConfigMapName = "imgupd-summaries"
	configKey              = "imgupd.yaml"
)

func chartDir(root string) string { return filepath.Join(root, "deploy", "helm", "imgupd") }

// Helm renders the chart.
type Helm struct {
	Bin   string // the helm binary
	Chart string // the chart directory
}

// Template is `helm template` of release imgupd in namespace imgupd with the chart's defaults and
// the given --set values, split into its objects.
func (h Helm) Template(ctx context.Context, set ...string) ([]Doc, error) {
	args := []string{"template", releaseName, h.Chart, "--namespace", releaseNamespace}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	cmd := exec.CommandContext(ctx, h.Bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("%s not found: install Helm (scripts/e2e-deps.sh does) or give --helm", h.Bin)
		}
		return nil, fmt.Errorf("%s: %w: %s", strings.Join(cmd.Args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return SplitDocs(stdout.String())
}

// Doc is one object of helm's output: its text (with helm's "# Source:" line and the template's
// comments) and what it is.
type Doc struct {
	Text                  string
	Kind, Name, Namespace string
}

// SplitDocs splits a multi-document stream at its "---" lines, dropping documents without an
// object (helm emits comment-only documents for templates that render nothing).
func SplitDocs(s string) ([]Doc, error) {
	var out []Doc
	for _, part := range strings.Split("\n"+s, "\n---\n") {
		text := strings.Trim(part, "\n")
		var meta struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(text), &meta); err != nil {
			return nil, fmt.Errorf("helm output: %w\n%s", err, text)
		}
		if meta.Kind == "" {
			continue
		}
		out = append(out, Doc{Text: plain(text), Kind: meta.Kind, Name: meta.Metadata.Name, Namespace: meta.Metadata.Namespace})
	}
	return out, nil
}

// plain drops the labels that say Helm manages an object: the generated files are applied with
// kubectl or Kustomize, and a Helm install must not mistake their objects for its own.
func plain(text string) string {
	var kept []string
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "helm.sh/chart:") || t == "app.kubernetes.io/managed-by: Helm" {
			continue
		}
		kept = append(kept, line)
	}
	return strings.Join(kept, "\n")
}

// isRBAC: the ServiceAccount, its RBAC, and the two objects that RBAC names because imgupd
// may write only them and create neither: the leader Lease and the summaries' ConfigMap. They
// go with the RBAC (deploy/rbac.yaml), so that the objects the Roles name exist wherever the
// Roles do.
func isRBAC(d Doc) bool {
	switch d.Kind {
	case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Lease":
		return true
	case "ConfigMap":
		return d.Name == summariesConfigMapName
	}
	return false
}

// File is one generated file, relative to the repository root.
type File struct {
	Path    string
	Content []byte
}

// Render builds every generated file from the chart.
func Render(ctx context.Context, h Helm) ([]File, error) {
	defaults, err := h.Template(ctx)
	if err != nil {
		return nil, err
	}
	// The chart without its own ConfigMap: the Kustomize base generates one, and the plain
	// manifests carry the default one without a checksum that a hand edit would make stale.
	external, err := h.Template(ctx, "config.existingConfigMap="+configMapName)
	if err != nil {
		return nil, err
	}
	var rbac, workload, configMap []Doc
	for _, d := range defaults {
		switch {
		case isRBAC(d):
			rbac = append(rbac, d)
		case d.Kind == "ConfigMap" && d.Name == configMapName:
			configMap = append(configMap, d)
		}
	}
	for _, d := range external {
		if !isRBAC(d) {
			workload = append(workload, d)
		}
	}
	if len(rbac) == 0 || len(configMap) != 1 || len(workload) == 0 {
		return nil, fmt.Errorf("the chart rendered %d RBAC objects, %d ConfigMaps %s and %d other objects: want some, one and some",
			len(rbac), len(configMap), configMapName, len(workload))
	}
	config, err := configData(configMap[0])
	if err != nil {
		return nil, err
	}
	// rbacOnly: the RBAC alone with the ServiceAccount's token Secret, for a cluster another
	// imgupd reads (the Kustomize overlay deploy/kustomize/rbac-only).
	rbacOnly, err := h.Template(ctx, "rbacOnly=true")
	if err != nil {
		return nil, err
	}
	for _, d := range rbacOnly {
		if !isRBAC(d) && !(d.Kind == "Secret" && strings.HasSuffix(d.Name, "-token")) {
			return nil, fmt.Errorf("the chart with rbacOnly=true rendered %s %s: want only RBAC and the token Secret", d.Kind, d.Name)
		}
	}
	// The Grafana dashboard the chart ships (grafanaDashboard.enabled), as a file to import.
	dashboard, err := os.ReadFile(filepath.Join(h.Chart, "dashboards", "imgupd.json"))
	if err != nil {
		return nil, err
	}
	return []File{
		{"deploy/kustomize/rbac-only/rbac.yaml", join(kustomizeRBACOnlyHeader, rbacOnly)},
		{"deploy/grafana/imgupd-dashboard.json", dashboard},
		{"deploy/rbac.yaml", join(rbacHeader, rbac)},
		{"deploy/imgupd.yaml", join(plainHeader, append(configMap, workload...))},
		{"deploy/kustomize/base/rbac.yaml", join(kustomizeRBACHeader, rbac)},
		{"deploy/kustomize/base/imgupd.yaml", join(kustomizeHeader, workload)},
		{"deploy/kustomize/base/config.yaml", []byte(configHeader + config)},
	}, nil
}

// configData is the configuration file inside the chart's ConfigMap.
func configData(d Doc) (string, error) {
	var cm struct {
		Data map[string]string `json:"data"`
	}
	// The text lost its final newline in SplitDocs; a block scalar at the end keeps its own with it.
	if err := yaml.Unmarshal([]byte(d.Text+"\n"), &cm); err != nil {
		return "", fmt.Errorf("ConfigMap %s: %w", d.Name, err)
	}
	s, ok := cm.Data[configKey]
	if !ok {
		return "", fmt.Errorf("ConfigMap %s has no key %s", d.Name, configKey)
	}
	return s, nil
}

func join(header string, docs []Doc) []byte {
	var b strings.Builder
	b.WriteString(header)
	for _, d := range docs {
		b.WriteString("---\n")
		b.WriteString(d.Text)
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// Write writes the files under root.
func Write(root string, files []File) error {
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// StaleFile is a generated file that does not match the chart.
type StaleFile struct {
	Path, Why string
}

// Stale lists the files under root that differ from files.
func Stale(root string, files []File) ([]StaleFile, error) {
	var out []StaleFile
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
		switch {
		case errors.Is(err, os.ErrNotExist):
			out = append(out, StaleFile{f.Path, "missing"})
		case err != nil:
			return nil, err
		case !bytes.Equal(got, f.Content):
			out = append(out, StaleFile{f.Path, firstDifference(got, f.Content)})
		}
	}
	return out, nil
}

// firstDifference names the first line where have and want differ.
func firstDifference(have, want []byte) string {
	h, w := strings.Split(string(have), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(h) || i < len(w); i++ {
		var a, b string
		if i < len(h) {
			a = h[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d is %q, the chart gives %q", i+1, a, b)
		}
	}
	return "same lines, different bytes"
}

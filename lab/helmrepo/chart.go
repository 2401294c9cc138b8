package helmrepo

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// Chart is a chart to package with Build.
type Chart struct {
	// Name and Version are Chart.yaml's name and version (both required).
	Name    string
	Version string
	// AppVersion is Chart.yaml's appVersion ("" leaves it out).
	AppVersion string
	// Values is the text of values.yaml.
	Values string
	// NoValues leaves values.yaml out of the archive (a broken chart).
	NoValues bool
	// Templates maps file names under templates/ to their text. Nil gives
	// one deployment template that reads .Values.image.repository and
	// .Values.image.tag, the parameters Image Updater writes by default.
	Templates map[string]string
	// Files adds more files by path relative to the chart directory
	// ("README.md", "charts/sub/values.yaml", ...).
	Files map[string]string
	// TopDir is the archive's top directory; "" is Name, as `helm package`
	// writes it.
	TopDir string
}

// DefaultTemplate is the template Build uses when Chart.Templates is nil.
const DefaultTemplate = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  template:
    spec:
      containers:
        - name: app
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
`

// archiveTime is the modification time of every file Build writes, so
// that the same Chart always gives the same bytes (and digest).
var archiveTime = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// ChartYAML is the Chart.yaml Build writes for c (apiVersion v2).
func ChartYAML(c Chart) ([]byte, error) {
	meta := struct {
		APIVersion  string `json:"apiVersion"`
		Name        string `json:"name"`
		Version     string `json:"version"`
		AppVersion  string `json:"appVersion,omitempty"`
		Description string `json:"description"`
		Type        string `json:"type"`
	}{"v2", c.Name, c.Version, c.AppVersion, "A lab chart for imgupd tests", "application"}
	// sigs.k8s.io/yaml quotes strings that would read back as numbers, so
	// version: "1.10" stays a string.
	return yaml.Marshal(meta)
}

// Build packages c as a gzipped tar, laid out as `helm package` lays it
// out: every file under one top directory named after the chart. The
// output is deterministic.
func Build(c Chart) ([]byte, error) {
	if c.Name == "" || c.Version == "" {
		return nil, fmt.Errorf("helmrepo: a chart needs a name and a version")
	}
	chartYAML, err := ChartYAML(c)
	if err != nil {
		return nil, fmt.Errorf("helmrepo: Chart.yaml: %w", err)
	}
	files := map[string][]byte{"Chart.yaml": chartYAML}
	if !c.NoValues {
		files["values.yaml"] = []byte(c.Values)
	}
	templates := c.Templates
	if templates == nil {
		templates = map[string]string{"deployment.yaml": DefaultTemplate}
	}
	for name, text := range templates {
		files[path.Join("templates", name)] = []byte(text)
	}
	for name, text := range c.Files {
		files[name] = []byte(text)
	}
	top := c.TopDir
	if top == "" {
		top = c.Name
	}
	return TarGz(top, files)
}

// TarGz writes files (by slash-separated path) under the directory top
// ("" for none) into a deterministic gzipped tar, in name order.
func TarGz(top string, files map[string][]byte) ([]byte, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)

	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, n := range names {
		full := strings.TrimPrefix(path.Join(top, n), "/")
		hdr := &tar.Header{
			Name:     full,
			Mode:     0o644,
			Size:     int64(len(files[n])),
			ModTime:  archiveTime,
			Typeflag: tar.TypeReg,
			Format:   tar.FormatPAX,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("helmrepo: tar %s: %w", full, err)
		}
		if _, err := tw.Write(files[n]); err != nil {
			return nil, fmt.Errorf("helmrepo: tar %s: %w", full, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("helmrepo: tar: %w", err)
	}
	if err := gz.Close(); err != nil {
		return nil, fmt.Errorf("helmrepo: gzip: %w", err)
	}
	return buf.Bytes(), nil
}

package helmchart

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"sigs.k8s.io/yaml"
)

// repoIndex is the part of a repository's index.yaml that locating a chart
// needs. The field tags are Helm's (repo.IndexFile, repo.ChartVersion).
type repoIndex struct {
	APIVersion string                   `json:"apiVersion"`
	Entries    map[string][]*indexEntry `json:"entries"`
}

type indexEntry struct {
	Name    string   `json:"name"`
	Version string   `json:"version"`
	URLs    []string `json:"urls"`
}

var (
	errEmptyIndex = errors.New("index.yaml is empty")
	errNoAPIVer   = errors.New("index.yaml has no apiVersion (Helm refuses it: \"no API version specified\")")
)

// parseIndex decodes index.yaml as Helm's loadIndex does: JSON when the
// bytes are valid JSON, else YAML through sigs.k8s.io/yaml (so a version
// written as a bare number fails as it fails in Helm), nil entries
// dropped, apiVersion required.
func parseIndex(b []byte) (*repoIndex, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errEmptyIndex
	}
	idx := &repoIndex{}
	var err error
	if json.Valid(b) {
		err = json.Unmarshal(b, idx)
	} else {
		err = yaml.Unmarshal(b, idx)
	}
	if err != nil {
		return nil, fmt.Errorf("index.yaml does not parse: %w", err)
	}
	for name, vs := range idx.Entries {
		kept := vs[:0]
		for _, v := range vs {
			if v != nil {
				kept = append(kept, v)
			}
		}
		idx.Entries[name] = kept
	}
	if idx.APIVersion == "" {
		return nil, errNoAPIVer
	}
	return idx, nil
}

// versions lists the chart's versions as the index has them.
func (idx *repoIndex) versions(chart string) ([]string, bool) {
	vs, ok := idx.Entries[chart]
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.Version)
	}
	return out, true
}

// entry returns the entry of chart whose version is exactly version.
func (idx *repoIndex) entry(chart, version string) *indexEntry {
	for _, v := range idx.Entries[chart] {
		if v.Version == version {
			return v
		}
	}
	return nil
}

// resolve picks the chart version Argo CD deploys for revision: a pin goes
// to `helm pull --version` as it is, other revisions are resolved with
// Argo CD's MaxVersion over the index first (see pickPinned, pickMax).
// ok is false when the chart is not in the index.
func (idx *repoIndex) resolve(chart, revision string) (e *indexEntry, ok bool, err error) {
	vs, ok := idx.versions(chart)
	if !ok {
		return nil, false, nil
	}
	var v string
	if isVersion(revision) {
		v, err = pickPinned(revision, vs)
	} else {
		v, err = pickMax(revision, vs)
	}
	if err != nil {
		return nil, true, err
	}
	return idx.entry(chart, v), true, nil
}

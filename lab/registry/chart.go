package labregistry

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"sigs.k8s.io/yaml"
)

// The media types `helm push` writes (Helm 3.8+).
const (
	HelmConfigMediaType = "application/vnd.cncf.helm.config.v1+json"
	HelmChartMediaType  = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
)

// Layer is one blob of an artifact.
type Layer struct {
	MediaType   string
	Data        []byte
	Annotations map[string]string
}

// Artifact is an OCI artifact to push with PushArtifact: an OCI image
// manifest whose config and layers have arbitrary media types.
type Artifact struct {
	// Tag is the tag to push (required).
	Tag string
	// ConfigMediaType and Config are the config blob; an empty
	// ConfigMediaType is OCI's empty descriptor
	// (application/vnd.oci.empty.v1+json, "{}").
	ConfigMediaType string
	Config          []byte
	Layers          []Layer
	// Annotations are the manifest's annotations.
	Annotations map[string]string
}

// PushArtifact stores an artifact in repo under a.Tag and returns its
// manifest digest. Like Push it is made in-process, past authentication,
// behaviours and request counting.
func (s *Server) PushArtifact(ctx context.Context, repo string, a Artifact) (string, error) {
	if a.Tag == "" {
		return "", fmt.Errorf("labregistry: push %s: the artifact has no tag", repo)
	}
	cfgType, cfg := a.ConfigMediaType, a.Config
	if cfgType == "" {
		cfgType, cfg = "application/vnd.oci.empty.v1+json", []byte("{}")
	}
	cfgDesc, err := s.blob(ctx, repo, cfgType, cfg, nil)
	if err != nil {
		return "", fmt.Errorf("labregistry: push %s:%s: config: %w", repo, a.Tag, err)
	}
	m := v1.Manifest{
		SchemaVersion: 2,
		MediaType:     types.OCIManifestSchema1,
		Config:        cfgDesc,
		Layers:        []v1.Descriptor{},
		Annotations:   a.Annotations,
	}
	for i, l := range a.Layers {
		d, err := s.blob(ctx, repo, l.MediaType, l.Data, l.Annotations)
		if err != nil {
			return "", fmt.Errorf("labregistry: push %s:%s: layer %d: %w", repo, a.Tag, i, err)
		}
		m.Layers = append(m.Layers, d)
	}
	body, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("labregistry: push %s:%s: manifest: %w", repo, a.Tag, err)
	}
	if err := s.putManifest(ctx, repo, a.Tag, rawManifest{body: body, mediaType: types.OCIManifestSchema1}); err != nil {
		return "", fmt.Errorf("labregistry: push %s:%s: %w", repo, a.Tag, err)
	}
	d, _, err := v1.SHA256(bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	return d.String(), nil
}

func (s *Server) blob(ctx context.Context, repo, mediaType string, data []byte, ann map[string]string) (v1.Descriptor, error) {
	d, size, err := v1.SHA256(bytes.NewReader(data))
	if err != nil {
		return v1.Descriptor{}, err
	}
	if err := s.postBlob(ctx, repo, d, data); err != nil {
		return v1.Descriptor{}, err
	}
	return v1.Descriptor{MediaType: types.MediaType(mediaType), Size: size, Digest: d, Annotations: ann}, nil
}

// ChartPush is what PushChart stored.
type ChartPush struct {
	// Repository is the repository path, "<base>/<chart name>".
	Repository string
	// Tag is the chart version with "+" replaced by "_" (OCI tags cannot
	// hold "+"; Helm and Argo CD map it back).
	Tag string
	// Digest is the manifest digest.
	Digest string
}

// PushChart stores a chart archive (.tgz, e.g. from helmrepo.Build) the way
// `helm push chart.tgz oci://<host>/<base>` does: in repository
// <base>/<chart name> ("" base: <chart name>), tagged with the chart
// version ("+" → "_"), as an OCI manifest whose config
// (HelmConfigMediaType) is Chart.yaml as JSON and whose one layer
// (HelmChartMediaType) is the archive. Chart.yaml is read from the
// archive's top directory.
func (s *Server) PushChart(ctx context.Context, base string, tgz []byte) (ChartPush, error) {
	chartYAML, err := chartYAMLOf(tgz)
	if err != nil {
		return ChartPush{}, fmt.Errorf("labregistry: push chart: %w", err)
	}
	cfg, err := yaml.YAMLToJSON(chartYAML)
	if err != nil {
		return ChartPush{}, fmt.Errorf("labregistry: push chart: Chart.yaml: %w", err)
	}
	var meta struct {
		Name        string `json:"name"`
		Version     string `json:"version"`
		Description string `json:"description"`
	}
	if err := json.Unmarshal(cfg, &meta); err != nil || meta.Name == "" || meta.Version == "" {
		return ChartPush{}, fmt.Errorf("labregistry: push chart: Chart.yaml needs a name and a version (%v)", err)
	}
	repo := path.Join(base, meta.Name)
	tag := strings.ReplaceAll(meta.Version, "+", "_")
	ann := map[string]string{
		"org.opencontainers.image.title":   meta.Name,
		"org.opencontainers.image.version": meta.Version,
	}
	if meta.Description != "" {
		ann["org.opencontainers.image.description"] = meta.Description
	}
	d, err := s.PushArtifact(ctx, repo, Artifact{
		Tag:             tag,
		ConfigMediaType: HelmConfigMediaType,
		Config:          cfg,
		Layers:          []Layer{{MediaType: HelmChartMediaType, Data: tgz}},
		Annotations:     ann,
	})
	if err != nil {
		return ChartPush{}, err
	}
	return ChartPush{Repository: repo, Tag: tag, Digest: d}, nil
}

// maxChartYAML bounds the Chart.yaml read from a pushed archive.
const maxChartYAML = 1 << 20

// chartYAMLOf returns <top>/Chart.yaml of a chart archive.
func chartYAMLOf(tgz []byte) ([]byte, error) {
	gz, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, fmt.Errorf("not a gzipped chart archive: %w", err)
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, errors.New("no Chart.yaml in the archive's top directory")
		}
		if err != nil {
			return nil, fmt.Errorf("chart archive: %w", err)
		}
		parts := strings.Split(path.Clean(strings.TrimPrefix(hdr.Name, "./")), "/")
		if hdr.Typeflag == tar.TypeReg && len(parts) == 2 && parts[1] == "Chart.yaml" {
			b, err := io.ReadAll(io.LimitReader(tr, maxChartYAML+1))
			if err != nil {
				return nil, fmt.Errorf("Chart.yaml: %w", err)
			}
			if len(b) > maxChartYAML {
				return nil, errors.New("Chart.yaml is too large")
			}
			return b, nil
		}
	}
}

package labregistry

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/imgupd/imgupd/model/updater"
)

// Image describes one tag to push.
type Image struct {
	// Tag is the tag to push (required).
	Tag string
	// Created is written into the image config's "created" (zero: none).
	Created time.Time
	// Platforms: none or one gives a single image manifest (none means
	// linux/amd64); more give an OCI index with one child image per
	// platform, each with this Created, listed with its platform.
	Platforms []updater.Platform
	// SameAs, when set, makes Tag point at the very manifest (or index)
	// of that tag, pushed earlier in this call or before; the other
	// fields are then ignored.
	SameAs string
}

// LabelTag is the config label each pushed image carries with its tag, so
// that images with equal dates and platforms still differ.
const LabelTag = "org.imgupd.lab.tag"

// Push stores images in repo. Pushes are made in-process, past
// authentication, behaviours and request counting, so they are fast (5,000
// tags in well under a second) and do not disturb Requests().
func (s *Server) Push(ctx context.Context, repo string, images ...Image) error {
	layer, err := labLayer()
	if err != nil {
		return fmt.Errorf("labregistry: push %s: layer: %w", repo, err)
	}
	base, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return fmt.Errorf("labregistry: push %s: base image: %w", repo, err)
	}
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	if err := s.putBlob(ctx, repo, layer); err != nil {
		return fmt.Errorf("labregistry: push %s: layer: %w", repo, err)
	}

	pushed := map[string]rawManifest{}
	for _, im := range images {
		if im.Tag == "" {
			return fmt.Errorf("labregistry: push %s: an image has no tag", repo)
		}
		m, err := s.pushOne(ctx, repo, base, im, pushed)
		if err != nil {
			return fmt.Errorf("labregistry: push %s:%s: %w", repo, im.Tag, err)
		}
		pushed[im.Tag] = m
	}
	return nil
}

type rawManifest struct {
	body      []byte
	mediaType types.MediaType
}

func (s *Server) pushOne(ctx context.Context, repo string, base v1.Image, im Image, pushed map[string]rawManifest) (rawManifest, error) {
	if im.SameAs != "" {
		m, ok := pushed[im.SameAs]
		if !ok {
			var err error
			if m, err = s.getManifest(ctx, repo, im.SameAs); err != nil {
				return rawManifest{}, fmt.Errorf("same as %s: %w", im.SameAs, err)
			}
		}
		return m, s.putManifest(ctx, repo, im.Tag, m)
	}

	if len(im.Platforms) <= 1 {
		p := updater.Platform{OS: "linux", Arch: "amd64"}
		if len(im.Platforms) == 1 {
			p = im.Platforms[0]
		}
		img, err := s.pushImage(ctx, repo, base, im, p)
		if err != nil {
			return rawManifest{}, err
		}
		m, err := manifestOf(img)
		if err != nil {
			return rawManifest{}, err
		}
		return m, s.putManifest(ctx, repo, im.Tag, m)
	}

	var adds []mutate.IndexAddendum
	for _, p := range im.Platforms {
		img, err := s.pushImage(ctx, repo, base, im, p)
		if err != nil {
			return rawManifest{}, err
		}
		m, err := manifestOf(img)
		if err != nil {
			return rawManifest{}, err
		}
		d, err := img.Digest()
		if err != nil {
			return rawManifest{}, err
		}
		if err := s.putManifest(ctx, repo, d.String(), m); err != nil {
			return rawManifest{}, err
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			Platform: &v1.Platform{OS: p.OS, Architecture: p.Arch, Variant: p.Variant},
		}})
	}
	idx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
	body, err := idx.RawManifest()
	if err != nil {
		return rawManifest{}, err
	}
	m := rawManifest{body: body, mediaType: types.OCIImageIndex}
	return m, s.putManifest(ctx, repo, im.Tag, m)
}

// pushImage builds the image of one platform and uploads its config.
func (s *Server) pushImage(ctx context.Context, repo string, base v1.Image, im Image, p updater.Platform) (v1.Image, error) {
	cf, err := base.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Created = v1.Time{Time: im.Created}
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Arch, p.Variant
	cf.Config.Labels = map[string]string{LabelTag: im.Tag}
	img, err := mutate.ConfigFile(base, cf)
	if err != nil {
		return nil, err
	}
	raw, err := img.RawConfigFile()
	if err != nil {
		return nil, err
	}
	name, err := img.ConfigName()
	if err != nil {
		return nil, err
	}
	return img, s.postBlob(ctx, repo, name, raw)
}

func manifestOf(img v1.Image) (rawManifest, error) {
	body, err := img.RawManifest()
	if err != nil {
		return rawManifest{}, err
	}
	mt, err := img.MediaType()
	if err != nil {
		return rawManifest{}, err
	}
	return rawManifest{body: body, mediaType: mt}, nil
}

func (s *Server) putBlob(ctx context.Context, repo string, l v1.Layer) error {
	d, err := l.Digest()
	if err != nil {
		return err
	}
	rc, err := l.Compressed()
	if err != nil {
		return err
	}
	defer rc.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(rc); err != nil {
		return err
	}
	return s.postBlob(ctx, repo, d, buf.Bytes())
}

// postBlob is a monolithic upload: POST /v2/<repo>/blobs/uploads/?digest=.
func (s *Server) postBlob(ctx context.Context, repo string, d v1.Hash, body []byte) error {
	_, err := s.direct(ctx, http.MethodPost, "/v2/"+repo+"/blobs/uploads/?digest="+d.String(), "", body, http.StatusCreated)
	return err
}

func (s *Server) putManifest(ctx context.Context, repo, ref string, m rawManifest) error {
	_, err := s.direct(ctx, http.MethodPut, "/v2/"+repo+"/manifests/"+ref, string(m.mediaType), m.body, http.StatusCreated)
	return err
}

func (s *Server) getManifest(ctx context.Context, repo, ref string) (rawManifest, error) {
	cw, err := s.direct(ctx, http.MethodGet, "/v2/"+repo+"/manifests/"+ref, "", nil, http.StatusOK)
	if err != nil {
		return rawManifest{}, err
	}
	return rawManifest{body: cw.body.Bytes(), mediaType: types.MediaType(cw.header.Get("Content-Type"))}, nil
}

// direct calls the wrapped registry in-process.
func (s *Server) direct(ctx context.Context, method, target, contentType string, body []byte, want int) (*captureWriter, error) {
	req, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.ContentLength = int64(len(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	cw := newCaptureWriter()
	s.inner.ServeHTTP(cw, req)
	if cw.status != want {
		return nil, fmt.Errorf("%s %s: HTTP %d: %s", method, target, cw.status, bytes.TrimSpace(cw.body.Bytes()))
	}
	return cw, nil
}

// labLayer is the one layer of every lab image: a tar of one 64-byte
// file, the same bytes every run, so a tag's digest depends only on what
// the scenario says (its tag, date and platform). Digests name cosign's
// signature tags (sha256-<hex>.sig), which the goldens show.
func labLayer() (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	content := bytes.Repeat([]byte("imgupd lab layer\n"), 4)
	if err := tw.WriteHeader(&tar.Header{Name: "lab", Mode: 0o644, Size: int64(len(content)), ModTime: time.Unix(0, 0)}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(content); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }, tarball.WithMediaType(types.OCILayer))
}

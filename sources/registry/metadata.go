package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/imgupd/imgupd/model/updater"
)

// imageInfo is what one image manifest says once its config is read.
type imageInfo struct {
	platform updater.Platform
	created  time.Time
}

// configInfo is what the diagnosis reads from an image config.
type configInfo = imageInfo

// Metadata reads, for each tag, what the newest-build and digest
// strategies need (Image Updater's metadata fetch, image-updater.md §3.2
// step 3):
//
//   - the tag's manifest, with one GET per tag; TagMeta.Digest is its
//     digest (of the image manifest or of the index);
//   - for a single image manifest, its config (platform and "created"),
//     giving one ManifestMeta;
//   - for an index (manifest list), one ManifestMeta per child with the
//     platform of the index entry; the child manifest and its config are
//     fetched only when want(platform) is true, so other children keep
//     HasCreated false (as do children that are themselves indexes, which
//     are listed but not read). A nil want wants every platform.
//
// Child manifests and configs are cached by digest in the Client (content
// addressed, so never stale; bounded by MaxDigests and MaxDigestBytes), so
// tags on the same image cost one config fetch, and a second call for the
// same tags costs only the tag manifest GETs. Tags are read concurrently,
// bounded by WithConcurrency.
//
// A tag that fails gets TagMeta.Err (a classified, single-line message
// without credentials) and is otherwise empty or partial. Metadata returns
// an error only when ctx is done, together with what was read.
func (c *Client) Metadata(ctx context.Context, t Target, tags []string, want func(updater.Platform) bool) (map[string]updater.TagMeta, error) {
	if want == nil {
		want = func(updater.Platform) bool { return true }
	}
	out := make(map[string]updater.TagMeta, len(tags))
	s, e := c.repoSession("manifest", t)
	if e != nil {
		for _, tag := range tags {
			out[tag] = failedMeta(e)
		}
		return out, nil
	}

	// The handshake (ping, token) happens once, before fanning out, so
	// that a registry that refuses us is asked once, not once per tag.
	hctx, ra := withRetryAfter(ctx)
	if _, _, err := s.authenticated(hctx, c.userAgent); err != nil {
		e := s.fail("manifest", err, ra)
		for _, tag := range tags {
			out[tag] = failedMeta(e)
		}
		return out, ctxErr(ctx, s)
	}

	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	seen := make(map[string]bool, len(tags))
	for _, tag := range tags {
		if seen[tag] {
			continue
		}
		seen[tag] = true
		if !c.acquire(ctx) {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-c.sem }()
			m := c.tagMeta(ctx, s, tag, want)
			mu.Lock()
			out[tag] = m
			mu.Unlock()
		}()
	}
	wg.Wait()
	if err := ctxErr(ctx, s); err != nil {
		for _, tag := range tags {
			if _, ok := out[tag]; !ok {
				out[tag] = updater.TagMeta{Err: err.Error()}
			}
		}
		return out, err
	}
	return out, nil
}

// acquire takes a concurrency slot, or reports false once ctx is done.
func (c *Client) acquire(ctx context.Context) bool {
	select {
	case c.sem <- struct{}{}:
		if ctx.Err() != nil {
			<-c.sem
			return false
		}
		return true
	case <-ctx.Done():
		return false
	}
}

func ctxErr(ctx context.Context, s *session) error {
	if err := ctx.Err(); err != nil {
		return s.fail("manifest", err, nil)
	}
	return nil
}

// tagMeta reads one tag. Its requests are sequential.
func (c *Client) tagMeta(ctx context.Context, s *session, tag string, want func(updater.Platform) bool) updater.TagMeta {
	ctx, ra := withRetryAfter(ctx)
	_, puller, err := s.authenticated(ctx, c.userAgent)
	if err != nil {
		return failedMeta(s.fail("manifest", err, ra))
	}
	ref, err := name.NewTag(s.repo.String()+":"+tag, nameOpts(s)...)
	if err != nil {
		return failedMeta(s.fail("manifest", fmt.Errorf("tag %q: %w", tag, err), ra))
	}
	desc, err := puller.Get(ctx, ref)
	if err != nil {
		return failedMeta(s.fail("manifest", err, ra))
	}
	tm := updater.TagMeta{Digest: desc.Digest.String()}

	switch {
	case desc.MediaType.IsIndex():
		tm.Index = true
		im, err := v1.ParseIndexManifest(bytes.NewReader(desc.Manifest))
		if err != nil {
			tm.Err = s.fail("manifest", fmt.Errorf("parsing index: %w", err), ra).Error()
			return tm
		}
		for _, child := range im.Manifests {
			mm := updater.ManifestMeta{Digest: child.Digest.String()}
			if child.Platform != nil {
				mm.Platform = updater.Platform{OS: child.Platform.OS, Arch: child.Platform.Architecture, Variant: child.Platform.Variant}
			}
			if want(mm.Platform) && child.MediaType.IsImage() {
				info, err := c.images.Do(ctx, child.Digest.String(), func() (imageInfo, error) {
					return c.childImage(ctx, s, puller, child.Digest)
				})
				if err != nil {
					if tm.Err == "" {
						setErr(&tm, s.fail(opOf(err, "manifest"), err, ra))
					}
				} else {
					mm.Created, mm.HasCreated = info.created, !info.created.IsZero()
				}
			}
			tm.Manifests = append(tm.Manifests, mm)
		}
	case desc.MediaType.IsImage():
		info, err := c.images.Do(ctx, desc.Digest.String(), func() (imageInfo, error) {
			return c.imageConfig(ctx, desc)
		})
		mm := updater.ManifestMeta{Digest: desc.Digest.String()}
		if err != nil {
			setErr(&tm, s.fail(opOf(err, "manifest"), err, ra))
		} else {
			mm.Platform, mm.Created, mm.HasCreated = info.platform, info.created, !info.created.IsZero()
		}
		tm.Manifests = []updater.ManifestMeta{mm}
	default:
		tm.Err = s.fail("manifest", fmt.Errorf("unsupported manifest media type %q", desc.MediaType), ra).Error()
	}
	return tm
}

// failedMeta is a tag whose metadata read failed with e.
func failedMeta(e *Error) updater.TagMeta {
	var tm updater.TagMeta
	setErr(&tm, e)
	return tm
}

// setErr records e on tm: its one-line message, and which read failed and
// how (the model tells a refused read from a missing one by them).
func setErr(tm *updater.TagMeta, e *Error) {
	tm.Err, tm.ErrOp, tm.ErrKind, tm.ErrStatus = e.Error(), e.Op, string(e.Kind), e.Status
}

// childImage GETs an index child's manifest by digest, then its config.
func (c *Client) childImage(ctx context.Context, s *session, puller *remote.Puller, d v1.Hash) (imageInfo, error) {
	ref, err := name.NewDigest(s.repo.String()+"@"+d.String(), nameOpts(s)...)
	if err != nil {
		return imageInfo{}, err
	}
	desc, err := puller.Get(ctx, ref)
	if err != nil {
		return imageInfo{}, err
	}
	if !desc.MediaType.IsImage() {
		return imageInfo{}, fmt.Errorf("index child %s: unsupported media type %q", d, desc.MediaType)
	}
	return c.imageConfig(ctx, desc)
}

// imageConfig reads the config of an image manifest, through the config
// cache (several manifests may share one config).
func (c *Client) imageConfig(ctx context.Context, desc *remote.Descriptor) (imageInfo, error) {
	img, err := desc.Image()
	if err != nil {
		return imageInfo{}, err
	}
	m, err := img.Manifest()
	if err != nil {
		return imageInfo{}, err
	}
	cfgName := m.Config.Digest
	if m.Config.Size > maxConfigBytes {
		// go-containerregistry reads a config up to the size the manifest
		// declares, whatever it is.
		return imageInfo{}, &opError{op: "config", err: &BlobLimit{What: "image config " + cfgName.String(), Size: m.Config.Size, Max: maxConfigBytes}}
	}
	return c.configs.Do(ctx, cfgName.String(), func() (configInfo, error) {
		cf, err := img.ConfigFile()
		if err != nil {
			return configInfo{}, &opError{op: "config", err: err}
		}
		return configInfo{
			platform: updater.Platform{OS: cf.OS, Arch: cf.Architecture, Variant: cf.Variant},
			created:  cf.Created.Time,
		}, nil
	})
}

func nameOpts(s *session) []name.Option {
	if s.apiURL.Scheme == "http" {
		return []name.Option{name.Insecure}
	}
	return nil
}

// maxConfigBytes bounds an image config: real ones are a few KiB, a large
// history some hundred KiB.
const maxConfigBytes = 8 << 20

// BlobLimit is a manifest, or a blob by the size its manifest declares,
// larger than imgupd reads; Classify makes it TooLarge.
type BlobLimit struct {
	What string
	// Size is the size declared, 0 when the answer was cut at Max.
	Size, Max int64
}

func (b *BlobLimit) Error() string {
	if b.Size == 0 {
		return fmt.Sprintf("%s is larger than the %s imgupd reads", b.What, sizeText(b.Max))
	}
	return fmt.Sprintf("%s declares %s, more than the %s imgupd reads", b.What, sizeText(b.Size), sizeText(b.Max))
}

// opError marks which operation an error came from when it crosses a
// cache boundary.
type opError struct {
	op  string
	err error
}

func (e *opError) Error() string { return e.err.Error() }
func (e *opError) Unwrap() error { return e.err }

// opOf is the operation recorded in err, or def.
func opOf(err error, def string) string {
	var oe *opError
	if errors.As(err, &oe) {
		return oe.op
	}
	return def
}

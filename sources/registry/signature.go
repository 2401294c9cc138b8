package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/imgupd/imgupd/sources/signature"
)

// Bounds of what a signature read takes from the registry: signature
// manifests and payloads are a few KiB, a referrers list a few entries.
const (
	maxSignatureManifestBytes = 4 << 20
	maxSignatureBlobBytes     = 1 << 20
	maxReferrersBytes         = 1 << 20
)

// manifestAccept is Image Updater's knownMediaTypes: OCI and Docker
// manifests and indexes.
var manifestAccept = strings.Join([]string{
	"application/vnd.oci.image.manifest.v1+json",
	"application/vnd.docker.distribution.manifest.v2+json",
	"application/vnd.docker.distribution.manifest.list.v2+json",
	"application/vnd.oci.image.index.v1+json",
}, ", ")

// Signatures reads the cosign signatures of tag in t's repository the way
// Image Updater v1.3.0 looks for them (signature.Find): the tag's
// manifest digest, its OCI referrers, then the tags "sha256-<hex>" and
// "sha256-<hex>.sig". A failure is a classified *Error (op "signature").
func (c *Client) Signatures(ctx context.Context, t Target, tag string) (signature.Found, error) {
	const op = "signature"
	s, berr := c.repoSession(op, t)
	if berr != nil {
		return signature.Found{}, berr
	}
	ctx, ra := withRetryAfter(ctx)
	rt, _, err := s.authenticated(ctx, c.userAgent)
	if err != nil {
		return signature.Found{}, s.fail(op, err, ra)
	}
	f := &repoFetcher{hc: &http.Client{Transport: rt}, base: s.apiURL.Scheme + "://" + s.apiURL.Host + "/v2/" + s.repo.RepositoryStr()}
	found, err := signature.Find(ctx, f, tag)
	if err != nil {
		return found, s.fail(op, err, ra)
	}
	return found, nil
}

// repoFetcher is signature.Fetcher over the session's authenticated
// transport.
type repoFetcher struct {
	hc   *http.Client
	base string
}

func (f *repoFetcher) get(ctx context.Context, path, accept string, max int64) ([]byte, string, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.base+path, nil)
	if err != nil {
		return nil, "", 0, err
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := f.hc.Do(req)
	if err != nil {
		return nil, "", 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, "", resp.StatusCode, transport.CheckError(resp, http.StatusOK)
	}
	if err := transport.CheckError(resp, http.StatusOK); err != nil {
		return nil, "", resp.StatusCode, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, "", resp.StatusCode, err
	}
	if int64(len(body)) > max {
		return nil, "", resp.StatusCode, &BlobLimit{What: "a signature artifact at " + path, Max: max}
	}
	return body, resp.Header.Get("Content-Type"), resp.StatusCode, nil
}

func (f *repoFetcher) Manifest(ctx context.Context, ref string) (signature.Manifest, error) {
	body, ct, _, err := f.get(ctx, "/manifests/"+ref, manifestAccept, maxSignatureManifestBytes)
	if err != nil {
		return signature.Manifest{}, err
	}
	if signature.ValidDigest(ref) && digestHex(body) != ref {
		return signature.Manifest{}, fmt.Errorf("manifest %s: the registry served other content", ref)
	}
	return signature.Manifest{MediaType: ct, Body: body}, nil
}

func (f *repoFetcher) Referrers(ctx context.Context, digest string) ([]signature.Descriptor, error) {
	body, _, status, err := f.get(ctx, "/referrers/"+digest, "application/vnd.oci.image.index.v1+json", maxReferrersBytes)
	if status == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var idx struct {
		Manifests []signature.Descriptor `json:"manifests"`
	}
	if err := json.Unmarshal(body, &idx); err != nil {
		return nil, fmt.Errorf("decoding the referrers of %s: not an OCI index", digest)
	}
	return idx.Manifests, nil
}

func (f *repoFetcher) Blob(ctx context.Context, digest string) ([]byte, error) {
	body, _, _, err := f.get(ctx, "/blobs/"+digest, "", maxSignatureBlobBytes)
	if err != nil {
		return nil, err
	}
	if digestHex(body) != digest {
		return nil, fmt.Errorf("blob %s: the registry served other content", digest)
	}
	return body, nil
}

func digestHex(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

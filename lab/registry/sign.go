package labregistry

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/imgupd/imgupd/sources/signature"
)

// Sign stores a cosign signature of repo:tag made with key, as `cosign
// sign --key` does on a registry without OCI referrers: an OCI manifest
// at tag "sha256-<hex>.sig" whose one layer is the simple-signing payload
// (naming the tag's manifest digest), with the base64 ECDSA signature over
// its SHA-256 in the "dev.cosignproject.cosign/signature" annotation.
// The payload's identity is the repository under host.
func (s *Server) Sign(ctx context.Context, host, repo, tag string, key *ecdsa.PrivateKey) error {
	m, err := s.getManifest(ctx, repo, tag)
	if err != nil {
		return fmt.Errorf("labregistry: sign %s:%s: %w", repo, tag, err)
	}
	sum := sha256.Sum256(m.body)
	digest := v1.Hash{Algorithm: "sha256", Hex: fmt.Sprintf("%x", sum)}
	payload := signature.SimpleSigningPayload(host+"/"+repo, digest.String())
	ps := sha256.Sum256(payload)
	sig, err := ecdsa.SignASN1(rand.Reader, key, ps[:])
	if err != nil {
		return fmt.Errorf("labregistry: sign %s:%s: %w", repo, tag, err)
	}
	config := []byte(`{"architecture":"","os":"","config":{},"rootfs":{"type":"layers","diff_ids":["sha256:` + fmt.Sprintf("%x", ps) + `"]}}`)
	cs := sha256.Sum256(config)
	payloadHash := v1.Hash{Algorithm: "sha256", Hex: fmt.Sprintf("%x", ps)}
	configHash := v1.Hash{Algorithm: "sha256", Hex: fmt.Sprintf("%x", cs)}
	if err := s.postBlob(ctx, repo, payloadHash, payload); err != nil {
		return fmt.Errorf("labregistry: sign %s:%s: payload: %w", repo, tag, err)
	}
	if err := s.postBlob(ctx, repo, configHash, config); err != nil {
		return fmt.Errorf("labregistry: sign %s:%s: config: %w", repo, tag, err)
	}
	man := v1.Manifest{
		SchemaVersion: 2,
		MediaType:     types.OCIManifestSchema1,
		Config:        v1.Descriptor{MediaType: types.OCIConfigJSON, Size: int64(len(config)), Digest: configHash},
		Layers: []v1.Descriptor{{
			MediaType:   signature.SimpleSigningType,
			Size:        int64(len(payload)),
			Digest:      payloadHash,
			Annotations: map[string]string{signature.SignatureAnnotation: base64.StdEncoding.EncodeToString(sig)},
		}},
	}
	body, err := json.Marshal(man)
	if err != nil {
		return err
	}
	return s.putManifest(ctx, repo, signature.DigestTag(digest.String())+".sig", rawManifest{body: body, mediaType: types.OCIManifestSchema1})
}

// Digest is the manifest digest of repo:tag, "sha256:<hex>".
func (s *Server) Digest(ctx context.Context, repo, tag string) (string, error) {
	m, err := s.getManifest(ctx, repo, tag)
	if err != nil {
		return "", fmt.Errorf("labregistry: digest of %s:%s: %w", repo, tag, err)
	}
	return fmt.Sprintf("sha256:%x", sha256.Sum256(m.body)), nil
}

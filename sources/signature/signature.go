// Package signature finds the cosign signatures of an image in its registry
// and checks them against a public key the way Image Updater v1.3.0 does
// before it writes a new tag (registry-scanner/pkg/image/verify.go,
// VerifyWithPublicKey): the manifest digest of the tag; the OCI 1.1
// referrers of that digest whose artifactType is a sigstore bundle; when
// they give no signature, the tag-based fallbacks "sha256-<hex>" (the
// referrers tag schema) and then "sha256-<hex>.sig" (cosign's own tag),
// each an image manifest or an index of them; in every signature manifest
// the first layer, a sigstore bundle (DSSE envelope) or a simple-signing
// payload with its "dev.cosignproject.cosign/signature" annotation; the
// payload must name the image's manifest digest; and an ECDSA signature
// over SHA-256 of what was signed, checked with the PEM (PKIX) ECDSA key.
//
// The registry reads go through a Fetcher (the registry package's client
// implements it for one repository); everything else is pure. Nothing the
// registry returns is echoed: reasons name digests the package parsed
// itself and fixed words.
package signature

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"regexp"
	"strings"
)

// Media and artifact types Image Updater v1.3.0 recognises.
const (
	// BundleType is the artifactType (and layer media type) of a sigstore
	// bundle, as cosign >= 2 stores it.
	BundleType = "application/vnd.dev.sigstore.bundle.v0.3+json"
	// SimpleSigningType is the layer media type of cosign's legacy
	// simple-signing payload (cosign sign --key to a registry without
	// referrers).
	SimpleSigningType = "application/vnd.dev.cosign.simplesigning.v1+json"
	// SignatureAnnotation holds the base64 signature of a simple-signing
	// layer.
	SignatureAnnotation = "dev.cosignproject.cosign/signature"
	// OCIIndexType and OCIManifestType are the OCI manifest media types.
	OCIIndexType    = "application/vnd.oci.image.index.v1+json"
	OCIManifestType = "application/vnd.oci.image.manifest.v1+json"
)

// Manifest is a manifest as the registry served it.
type Manifest struct {
	// MediaType is the Content-Type the registry answered with.
	MediaType string
	// Body is the manifest's bytes; its digest is sha256 of them.
	Body []byte
}

// Descriptor is the part of an OCI descriptor the check reads.
type Descriptor struct {
	MediaType    string            `json:"mediaType"`
	ArtifactType string            `json:"artifactType,omitempty"`
	Digest       string            `json:"digest"`
	Size         int64             `json:"size"`
	Annotations  map[string]string `json:"annotations,omitempty"`
}

// Fetcher reads one repository of a registry.
type Fetcher interface {
	// Manifest GETs a manifest by tag or digest, accepting OCI and Docker
	// manifests and indexes (Image Updater's knownMediaTypes).
	Manifest(ctx context.Context, ref string) (Manifest, error)
	// Referrers GETs /v2/<repo>/referrers/<digest>: nil and no error when
	// the registry answers 404 (no referrers API, or none).
	Referrers(ctx context.Context, digest string) ([]Descriptor, error)
	// Blob GETs a blob by digest.
	Blob(ctx context.Context, digest string) ([]byte, error)
}

// Candidate is one signature found for the image: what was signed (its
// SHA-256) and the signature over it.
type Candidate struct {
	// Where says where it was found: "OCI referrer sha256:…", "tag
	// sha256-<hex>.sig".
	Where string
	// Format is "simple-signing" or "sigstore bundle".
	Format string
	// Sig is the signature as stored (base64 of an ASN.1 ECDSA signature).
	Sig string
	// Signed is SHA-256 of the signed bytes: the simple-signing payload,
	// or the DSSE pre-authentication encoding of the bundle's payload.
	Signed [32]byte
}

// Found is what the registry holds for one tag.
type Found struct {
	// Digest is the tag's manifest digest, "sha256:<hex>".
	Digest string
	// Candidates are the signatures bound to Digest.
	Candidates []Candidate
	// Looked says where the check looked, in order.
	Looked []string
	// Rejected says, per signature artifact that was found but not used,
	// why (Image Updater skips them too): not bound to this digest, an
	// unknown layer type, no signature.
	Rejected []string
	// ReferrersErr is the referrers API's failure, when it failed; Image
	// Updater then relies on the tag-based fallbacks.
	ReferrersErr error
}

// Unsigned reports whether no signature bound to the image was found.
func (f Found) Unsigned() bool { return len(f.Candidates) == 0 }

// DigestTag is the tag-based name of a digest: "sha256:ab…" → "sha256-ab…".
func DigestTag(digest string) string { return strings.ReplaceAll(digest, ":", "-") }

var digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// ValidDigest reports whether s is a sha256 digest in canonical form.
func ValidDigest(s string) bool { return digestRE.MatchString(s) }

func digestOf(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// Find reads the signatures of tag the way Image Updater v1.3.0's
// fetchTagSignatures does. It returns an error only when the tag's own
// manifest cannot be read, or when nothing was found and the referrers
// API failed (what Image Updater reports then); a tag with no signature
// is a Found with no Candidates.
func Find(ctx context.Context, f Fetcher, tag string) (Found, error) {
	m, err := f.Manifest(ctx, tag)
	if err != nil {
		return Found{}, fmt.Errorf("reading the manifest of tag %s: %w", tag, err)
	}
	out := Found{Digest: digestOf(m.Body)}
	return out, out.find(ctx, f)
}

// FindDigest is Find for an image whose manifest digest is known.
func FindDigest(ctx context.Context, f Fetcher, digest string) (Found, error) {
	if !ValidDigest(digest) {
		return Found{}, fmt.Errorf("not a sha256 digest: %q", digest)
	}
	out := Found{Digest: digest}
	return out, out.find(ctx, f)
}

func (out *Found) find(ctx context.Context, f Fetcher) error {
	out.Looked = append(out.Looked, "OCI referrers of "+out.Digest)
	refs, rerr := f.Referrers(ctx, out.Digest)
	out.ReferrersErr = rerr
	for _, d := range refs {
		if d.ArtifactType != BundleType || !ValidDigest(d.Digest) {
			continue
		}
		where := "OCI referrer " + d.Digest
		m, err := f.Manifest(ctx, d.Digest)
		if err != nil {
			out.Rejected = append(out.Rejected, where+": its manifest could not be read")
			continue
		}
		out.fromManifest(ctx, f, m, where)
	}
	if len(out.Candidates) > 0 {
		return ctx.Err()
	}
	dt := DigestTag(out.Digest)
	for _, tag := range []string{dt, dt + ".sig"} {
		where := "tag " + tag
		out.Looked = append(out.Looked, where)
		m, err := f.Manifest(ctx, tag)
		if err != nil {
			continue // absent: the next convention
		}
		before := len(out.Candidates)
		if m.MediaType == OCIIndexType {
			var idx struct {
				Manifests []Descriptor `json:"manifests"`
			}
			if err := json.Unmarshal(m.Body, &idx); err != nil {
				out.Rejected = append(out.Rejected, where+": not a valid OCI index")
				continue
			}
			for _, d := range idx.Manifests {
				if !ValidDigest(d.Digest) {
					continue
				}
				sm, err := f.Manifest(ctx, d.Digest)
				if err != nil {
					out.Rejected = append(out.Rejected, where+": entry "+d.Digest+" could not be read")
					continue
				}
				out.fromManifest(ctx, f, sm, where+" entry "+d.Digest)
			}
		} else {
			out.fromManifest(ctx, f, m, where)
		}
		if len(out.Candidates) > before {
			break
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(out.Candidates) == 0 && rerr != nil {
		return fmt.Errorf("no signature in the tag-based fallbacks, and the OCI referrers API failed: %w", rerr)
	}
	return nil
}

// fromManifest reads the first layer of a signature manifest, as
// extractSigsFromManifest does.
func (out *Found) fromManifest(ctx context.Context, f Fetcher, m Manifest, where string) {
	var om struct {
		MediaType string       `json:"mediaType"`
		Layers    []Descriptor `json:"layers"`
	}
	if err := json.Unmarshal(m.Body, &om); err != nil || (m.MediaType != OCIManifestType && om.MediaType != OCIManifestType) {
		out.Rejected = append(out.Rejected, where+": not an OCI image manifest")
		return
	}
	if len(om.Layers) == 0 {
		out.Rejected = append(out.Rejected, where+": no layers")
		return
	}
	l := om.Layers[0]
	if !ValidDigest(l.Digest) {
		out.Rejected = append(out.Rejected, where+": its layer has no sha256 digest")
		return
	}
	switch l.MediaType {
	case SimpleSigningType:
		sig := l.Annotations[SignatureAnnotation]
		if sig == "" {
			out.Rejected = append(out.Rejected, where+": simple-signing layer without the "+SignatureAnnotation+" annotation")
			return
		}
		payload, err := f.Blob(ctx, l.Digest)
		if err != nil {
			out.Rejected = append(out.Rejected, where+": its payload could not be read")
			return
		}
		if why := out.bound(payload); why != "" {
			out.Rejected = append(out.Rejected, where+": "+why)
			return
		}
		out.Candidates = append(out.Candidates, Candidate{Where: where, Format: "simple-signing", Sig: sig, Signed: sha256.Sum256(payload)})
	case BundleType:
		blob, err := f.Blob(ctx, l.Digest)
		if err != nil {
			out.Rejected = append(out.Rejected, where+": its bundle could not be read")
			return
		}
		var b struct {
			DSSE *struct {
				Payload     string `json:"payload"`
				PayloadType string `json:"payloadType"`
				Signatures  []struct {
					Sig string `json:"sig"`
				} `json:"signatures"`
			} `json:"dsseEnvelope"`
		}
		if err := json.Unmarshal(blob, &b); err != nil || b.DSSE == nil || len(b.DSSE.Signatures) == 0 {
			out.Rejected = append(out.Rejected, where+": a sigstore bundle without a signed DSSE envelope")
			return
		}
		payload, err := base64.StdEncoding.DecodeString(b.DSSE.Payload)
		if err != nil {
			out.Rejected = append(out.Rejected, where+": the bundle's payload is not base64")
			return
		}
		if why := out.bound(payload); why != "" {
			out.Rejected = append(out.Rejected, where+": "+why)
			return
		}
		signed := sha256.Sum256(PAE(b.DSSE.PayloadType, payload))
		for _, s := range b.DSSE.Signatures {
			out.Candidates = append(out.Candidates, Candidate{Where: where, Format: "sigstore bundle", Sig: s.Sig, Signed: signed})
		}
	default:
		out.Rejected = append(out.Rejected, where+": a layer type Image Updater does not read")
	}
}

// bound says why payload is not bound to the image's digest, or "".
func (out *Found) bound(payload []byte) string {
	d, err := PayloadDigest(payload)
	switch {
	case err != nil:
		return "its payload is not JSON"
	case d == "":
		return "its payload names no image digest"
	case d != out.Digest:
		if ValidDigest(d) {
			return "signs another image (" + d + ")"
		}
		return "signs another image"
	}
	return ""
}

// PayloadDigest is the image digest a signed payload names: an in-toto
// statement's subject digest, or a simple-signing payload's
// critical.image.docker-manifest-digest; "" when it names none.
func PayloadDigest(payload []byte) (string, error) {
	var st struct {
		Type    string `json:"_type"`
		Subject []struct {
			Digest map[string]string `json:"digest"`
		} `json:"subject"`
		Critical struct {
			Image struct {
				Digest string `json:"docker-manifest-digest"`
			} `json:"image"`
		} `json:"critical"`
	}
	if err := json.Unmarshal(payload, &st); err != nil {
		return "", err
	}
	if strings.HasPrefix(st.Type, "https://in-toto.io/Statement") {
		for _, s := range st.Subject {
			if h := s.Digest["sha256"]; h != "" {
				return "sha256:" + h, nil
			}
		}
		return "", nil
	}
	return st.Critical.Image.Digest, nil
}

// PAE is DSSE's pre-authentication encoding of a payload.
func PAE(payloadType string, payload []byte) []byte {
	return append(fmt.Appendf(nil, "DSSEv1 %d %s %d ", len(payloadType), payloadType, len(payload)), payload...)
}

// KeyError says why a public key cannot verify anything.
type KeyError struct{ Reason string }

func (e *KeyError) Error() string { return "public key: " + e.Reason }

// ParsePublicKey reads the key as Image Updater v1.3.0 does: one PEM
// block holding a PKIX public key, which must be ECDSA (RSA and ed25519
// keys fail every signature there).
func ParsePublicKey(pemKey []byte) (*ecdsa.PublicKey, error) {
	block, _ := pem.Decode(pemKey)
	if block == nil {
		return nil, &KeyError{Reason: "not PEM (want -----BEGIN PUBLIC KEY-----, as cosign generate-key-pair writes cosign.pub)"}
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, &KeyError{Reason: "the PEM block is not a PKIX public key (" + block.Type + ")"}
	}
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		return k, nil
	case *rsa.PublicKey:
		return nil, &KeyError{Reason: "an RSA key, but Image Updater v1.3 verifies only ECDSA keys"}
	case ed25519.PublicKey:
		return nil, &KeyError{Reason: "an ed25519 key, but Image Updater v1.3 verifies only ECDSA keys"}
	}
	return nil, &KeyError{Reason: "not an ECDSA key, which is all Image Updater v1.3 verifies"}
}

// Outcome is the answer of Check.
type Outcome string

const (
	// Verified: a signature bound to the image verifies with the key.
	Verified Outcome = "verified"
	// Unsigned: no signature bound to the image was found.
	Unsigned Outcome = "unsigned"
	// WrongKey: signatures were found, none verifies with the key.
	WrongKey Outcome = "wrong-key"
	// BadKey: the key is not a PEM ECDSA public key, so nothing verifies.
	BadKey Outcome = "bad-key"
)

// Result is a checked Found.
type Result struct {
	Outcome Outcome
	// By is the Candidate that verified (Outcome Verified).
	By *Candidate
	// KeyErr is set for BadKey.
	KeyErr error
}

// Check verifies f's candidates with the key: the first that verifies
// wins, as in Image Updater.
func Check(f Found, pemKey []byte) Result {
	if f.Unsigned() {
		return Result{Outcome: Unsigned}
	}
	k, err := ParsePublicKey(pemKey)
	if err != nil {
		return Result{Outcome: BadKey, KeyErr: err}
	}
	for i := range f.Candidates {
		c := &f.Candidates[i]
		sig, err := base64.StdEncoding.DecodeString(c.Sig)
		if err != nil {
			continue
		}
		if ecdsa.VerifyASN1(k, c.Signed[:], sig) {
			return Result{Outcome: Verified, By: c}
		}
	}
	return Result{Outcome: WrongKey}
}

// SimpleSigningPayload is the payload `cosign sign --key` signs for an
// image: its reference (repository, without tag) and manifest digest.
func SimpleSigningPayload(repository, digest string) []byte {
	b, _ := json.Marshal(map[string]any{
		"critical": map[string]any{
			"identity": map[string]string{"docker-reference": repository},
			"image":    map[string]string{"docker-manifest-digest": digest},
			"type":     "cosign container image signature",
		},
		"optional": nil,
	})
	return b
}

package signature

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"testing"
)

// memRepo is one repository's manifests (by tag and digest), referrers
// and blobs, in memory: the registry side of the contract, without HTTP
// (the registry package tests the same path against a real registry).
type memRepo struct {
	manifests map[string]Manifest
	referrers map[string][]Descriptor
	blobs     map[string][]byte
}

var errAbsent = errors.New("absent")

func newRepo() *memRepo {
	return &memRepo{manifests: map[string]Manifest{}, referrers: map[string][]Descriptor{}, blobs: map[string][]byte{}}
}

func (m *memRepo) Manifest(_ context.Context, ref string) (Manifest, error) {
	if x, ok := m.manifests[ref]; ok {
		return x, nil
	}
	return Manifest{}, errAbsent
}
func (m *memRepo) Referrers(_ context.Context, d string) ([]Descriptor, error) {
	return m.referrers[d], nil
}
func (m *memRepo) Blob(_ context.Context, d string) ([]byte, error) {
	if b, ok := m.blobs[d]; ok {
		return b, nil
	}
	return nil, errAbsent
}

func (m *memRepo) blob(b []byte) Descriptor {
	d := digestOf(b)
	m.blobs[d] = b
	return Descriptor{Digest: d, Size: int64(len(b))}
}

func (m *memRepo) manifest(ref string, mt string, v any) string {
	b, _ := json.Marshal(v)
	d := digestOf(b)
	m.manifests[d] = Manifest{MediaType: mt, Body: b}
	if ref != "" {
		m.manifests[ref] = Manifest{MediaType: mt, Body: b}
	}
	return d
}

// image pushes a tag and returns its digest.
func (m *memRepo) image(tag string) string {
	return m.manifest(tag, OCIManifestType, map[string]any{"schemaVersion": 2, "mediaType": OCIManifestType, "layers": []any{}, "tag": tag})
}

// simpleSign stores cosign's .sig tag for digest, its payload naming
// payloadDigest.
func (m *memRepo) simpleSign(t *testing.T, k *ecdsa.PrivateKey, digest, payloadDigest string) {
	payload := SimpleSigningPayload("reg/team/web", payloadDigest)
	h := sha256.Sum256(payload)
	sig, err := ecdsa.SignASN1(rand.Reader, k, h[:])
	if err != nil {
		t.Fatal(err)
	}
	l := m.blob(payload)
	l.MediaType = SimpleSigningType
	l.Annotations = map[string]string{SignatureAnnotation: base64.StdEncoding.EncodeToString(sig)}
	m.manifest(DigestTag(digest)+".sig", OCIManifestType, map[string]any{"schemaVersion": 2, "mediaType": OCIManifestType, "layers": []Descriptor{l}})
}

// bundleSign stores a sigstore bundle (DSSE, in-toto statement) as an OCI
// referrer of digest.
func (m *memRepo) bundleSign(t *testing.T, k *ecdsa.PrivateKey, digest string) {
	st, _ := json.Marshal(map[string]any{"_type": "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"digest": map[string]string{"sha256": digest[len("sha256:"):]}}},
		"predicateType": "https://sigstore.dev/cosign/sign/v1"})
	pt := "application/vnd.in-toto+json"
	h := sha256.Sum256(PAE(pt, st))
	sig, err := ecdsa.SignASN1(rand.Reader, k, h[:])
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"dsseEnvelope": map[string]any{"payload": base64.StdEncoding.EncodeToString(st), "payloadType": pt,
		"signatures": []any{map[string]string{"sig": base64.StdEncoding.EncodeToString(sig)}}}})
	l := m.blob(b)
	l.MediaType = BundleType
	d := m.manifest("", OCIManifestType, map[string]any{"schemaVersion": 2, "mediaType": OCIManifestType, "artifactType": BundleType, "layers": []Descriptor{l}})
	m.referrers[digest] = append(m.referrers[digest], Descriptor{MediaType: OCIManifestType, ArtifactType: BundleType, Digest: d})
}

func keyPair(t *testing.T) (*ecdsa.PrivateKey, []byte) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&k.PublicKey)
	return k, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

func TestCheck(t *testing.T) {
	ctx := context.Background()
	k, pub := keyPair(t)
	_, other := keyPair(t)
	edPub, _, _ := ed25519.GenerateKey(rand.Reader)
	edDER, _ := x509.MarshalPKIXPublicKey(edPub)
	edPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: edDER})

	r := newRepo()
	simple := r.image("1.0.1")
	r.simpleSign(t, k, simple, simple)
	bundled := r.image("1.0.2")
	r.bundleSign(t, k, bundled)
	unsigned := r.image("1.0.3")
	replayed := r.image("1.0.4")
	r.simpleSign(t, k, replayed, simple) // a valid signature of 1.0.1 under 1.0.4's tag

	tests := []struct {
		tag      string
		key      []byte
		want     Outcome
		rejected int
	}{
		{"1.0.1", pub, Verified, 0},
		{"1.0.1", other, WrongKey, 0},
		{"1.0.1", edPEM, BadKey, 0},
		{"1.0.1", []byte("not a key"), BadKey, 0},
		{"1.0.2", pub, Verified, 0},
		{"1.0.2", other, WrongKey, 0},
		{"1.0.3", pub, Unsigned, 0},
		{"1.0.4", pub, Unsigned, 1},
	}
	for _, tc := range tests {
		f, err := Find(ctx, r, tc.tag)
		if err != nil {
			t.Fatalf("%s: %v", tc.tag, err)
		}
		got := Check(f, tc.key)
		if got.Outcome != tc.want || len(f.Rejected) != tc.rejected {
			t.Errorf("%s: %s, rejected %q; want %s", tc.tag, got.Outcome, f.Rejected, tc.want)
		}
	}
	if f, _ := Find(ctx, r, "1.0.3"); f.Digest != unsigned {
		t.Errorf("digest %s, want %s", f.Digest, unsigned)
	}
	if _, err := Find(ctx, r, "9.9.9"); !errors.Is(err, errAbsent) {
		t.Errorf("missing tag: %v", err)
	}
}

func TestParsePublicKey(t *testing.T) {
	_, pub := keyPair(t)
	if _, err := ParsePublicKey(pub); err != nil {
		t.Fatal(err)
	}
	var ke *KeyError
	if _, err := ParsePublicKey([]byte("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")); !errors.As(err, &ke) {
		t.Fatalf("garbage key: %v", err)
	}
}

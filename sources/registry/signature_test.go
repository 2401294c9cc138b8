package registry

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"

	labregistry "github.com/imgupd/imgupd/lab/registry"
	"github.com/imgupd/imgupd/sources/signature"
)

func ecKey(t *testing.T) (*ecdsa.PrivateKey, []byte) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return k, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// TestSignaturesOnLabRegistry reads cosign's tag-based signature from a
// real registry (go-containerregistry's) through the Client, as Image
// Updater v1.3 does: signed with the key verifies, with another key does
// not, an unsigned tag has none, and a signature of one tag does not
// count for another (the payload names the digest).
func TestSignaturesOnLabRegistry(t *testing.T) {
	s := startLab(t)
	push(t, s, "team/web", labregistry.Image{Tag: "1.0.0"}, labregistry.Image{Tag: "1.0.1"}, labregistry.Image{Tag: "1.0.2"})
	key, pub := ecKey(t)
	_, otherPub := ecKey(t)
	ctx := testCtx(t)
	if err := s.Sign(ctx, s.Host, "team/web", "1.0.1", key); err != nil {
		t.Fatal(err)
	}
	c := New()
	tgt := targetOf(s, "team/web")

	signed, err := c.Signatures(ctx, tgt, "1.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if got := signature.Check(signed, pub); got.Outcome != signature.Verified || !strings.HasSuffix(got.By.Where, ".sig") {
		t.Fatalf("signed tag: %+v (found %+v)", got, signed)
	}
	if got := signature.Check(signed, otherPub); got.Outcome != signature.WrongKey {
		t.Fatalf("other key: %+v", got)
	}
	unsigned, err := c.Signatures(ctx, tgt, "1.0.2")
	if err != nil {
		t.Fatal(err)
	}
	if got := signature.Check(unsigned, pub); got.Outcome != signature.Unsigned || len(unsigned.Looked) != 3 {
		t.Fatalf("unsigned tag: %+v (found %+v)", got, unsigned)
	}
	if _, err := c.Signatures(ctx, tgt, "9.9.9"); err == nil {
		t.Fatal("a missing tag must fail")
	} else {
		wantKind(t, err, NotFound)
	}
}

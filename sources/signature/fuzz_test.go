package signature

import (
	"strings"
	"testing"
)

// FuzzPayloadDigest: any payload bytes give a digest or an error, never a
// panic; a well-formed digest found is in the payload (JSON decoding may
// turn invalid UTF-8 into U+FFFD, which no sha256 digest holds, so such a
// payload never binds a signature to an image).
func FuzzPayloadDigest(f *testing.F) {
	f.Add([]byte(SimpleSigningPayload("r/x", "sha256:"+strings.Repeat("a", 64))))
	f.Add([]byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[{"digest":{"sha256":"ab"}}]}`))
	f.Add([]byte(`{"critical":{"image":{"docker-manifest-digest":7}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := PayloadDigest(b)
		if err == nil && ValidDigest(d) && !strings.Contains(string(b), strings.TrimPrefix(d, "sha256:")) && !strings.Contains(string(b), `\u`) {
			t.Fatalf("digest %q not in payload", d)
		}
	})
}

// FuzzParsePublicKey: any bytes give a key or a *KeyError.
func FuzzParsePublicKey(f *testing.F) {
	f.Add([]byte("-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n"))
	f.Add([]byte("not pem"))
	f.Fuzz(func(t *testing.T, b []byte) {
		k, err := ParsePublicKey(b)
		if (k == nil) == (err == nil) {
			t.Fatalf("key %v, err %v", k, err)
		}
	})
}

package lab

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"sort"
	"strings"

	labregistry "github.com/imgupd/imgupd/lab/registry"
)

// CosignKeyVar is the placeholder holding the PEM public key of the
// scenario's cosign key name.
func CosignKeyVar(name string) string {
	return "COSIGN_PUBLIC_KEY_" + strings.ReplaceAll(strings.ToUpper(name), "-", "_")
}

// signImages makes the scenario's cosign keys and signs the images that
// name one (signedWith), after they are pushed.
func (e *Env) signImages(ctx context.Context, srv *labregistry.Server) error {
	rs := e.Scenario.Registry
	keys := map[string]*ecdsa.PrivateKey{}
	for i, n := range rs.CosignKeys {
		if n == "" || keys[n] != nil {
			return &ScenarioError{File: e.Scenario.Name, Field: fmt.Sprintf("registry.cosignKeys[%d]", i), Reason: "want distinct, non-empty names"}
		}
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return err
		}
		der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
		if err != nil {
			return err
		}
		keys[n] = k
		e.Vars[CosignKeyVar(n)] = string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	}
	repos := make([]string, 0, len(rs.Repositories))
	for repo := range rs.Repositories {
		repos = append(repos, repo)
	}
	sort.Strings(repos)
	for _, repo := range repos {
		for i, im := range rs.Repositories[repo] {
			if len(keys) > 0 && !rs.Lazy {
				// The images' digests are random each run: name them, for
				// log lines and goldens (${DIGEST:team/web:1.0.1} and the
				// tag form ${DIGEST_TAG:team/web:1.0.1}).
				d, err := srv.Digest(ctx, repo, im.Tag)
				if err != nil {
					return err
				}
				e.Vars["DIGEST:"+repo+":"+im.Tag] = d
				e.Vars["DIGEST_TAG:"+repo+":"+im.Tag] = strings.ReplaceAll(d, ":", "-")
			}
			if im.SignedWith == "" {
				continue
			}
			k := keys[im.SignedWith]
			if k == nil {
				return &ScenarioError{File: e.Scenario.Name, Field: fmt.Sprintf("registry.repositories[%s][%d].signedWith", repo, i), Reason: "not one of registry.cosignKeys"}
			}
			if rs.Lazy {
				return &ScenarioError{File: e.Scenario.Name, Field: fmt.Sprintf("registry.repositories[%s][%d].signedWith", repo, i), Reason: "a lazy registry cannot sign images"}
			}
			if err := srv.Sign(ctx, e.Vars["REGISTRY"], repo, im.Tag, k); err != nil {
				return fmt.Errorf("signing %s:%s: %w", repo, im.Tag, err)
			}
		}
	}
	return nil
}

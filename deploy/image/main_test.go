package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Every build in these tests is of the host platform only, with every default that would run git
// given explicitly. One `go build` of ./cmd/imgupd with -trimpath (minutes on a cold build cache,
// seconds when cached; Go's build cache, GOCACHE, is the machine's) is shared by the tests: hostBuild
// writes the first image, and every Run with hostOptions takes the binary it built (Options.built).
// TestReproducible alone builds again, since a second build is what it checks; with the build cache
// warm from the first, that one links only.

const (
	testVersion  = "v9.8.7-imagetest"
	testRevision = "0123456789abcdef0123456789abcdef01234567"
)

var (
	testCreated = time.Unix(1700000000, 0).UTC()
	shareDir    string // removed after the tests

	hostOnce   sync.Once
	hostBuilt  builtBinaries // the binaries built by the tests, shared (Options.built)
	hostResult Result
	hostLayout string
	hostErr    error
	hostSlow   bool // the first build failed because the test binary's deadline came
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "imgupd-image-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	shareDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func hostPlatform() string { return runtime.GOOS + "/" + runtime.GOARCH }

// testCABundle is the host's CA bundle, or one made here when the host has none.
func testCABundle(t *testing.T) string {
	if _, err := readCABundle(DefaultCABundle); err == nil {
		return DefaultCABundle
	}
	path := filepath.Join(shareDir, "ca.pem")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "imgupd image test CA"},
		NotBefore: testCreated, NotAfter: testCreated.AddDate(10, 0, 0), IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// hostOptions are the options of every build here; the output is left to the caller.
func hostOptions(t *testing.T) Options {
	if runtime.GOOS != "linux" {
		t.Skipf("the image is linux only; this host is %s", hostPlatform())
	}
	if _, err := parsePlatform(hostPlatform()); err != nil {
		t.Skipf("host platform: %v", err)
	}
	return Options{
		Platforms: []string{hostPlatform()},
		Version:   testVersion,
		Revision:  testRevision,
		Created:   testCreated,
		CABundle:  testCABundle(t),
		Log:       testLog{t},
		built:     &hostBuilt,
	}
}

// buildContext ends a little before the test binary's deadline (go test -timeout), the only limit
// on a build here, so that a build the machine could not finish in time is said to be that
// (buildFailed), not killed with the test binary.
func buildContext(t *testing.T) context.Context {
	ctx := context.Background()
	if dl, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-30*time.Second))
		t.Cleanup(cancel)
	}
	return ctx
}

// buildFailed fails the test for a Run that failed: as "machine too slow" when ctx's deadline, the
// test binary's, ended it, which says nothing of the image builder.
func buildFailed(t *testing.T, ctx context.Context, what string, err error) {
	t.Helper()
	if ctx.Err() != nil {
		dl, _ := ctx.Deadline()
		t.Fatalf("machine too slow: %s did not finish before the test binary's deadline (%s; go test -timeout, "+
			"a cold build cache compiles all of imgupd with -trimpath): %v", what, dl.Format(time.TimeOnly), err)
	}
	t.Fatalf("%s: %v", what, err)
}

// hostBuild builds the host platform's image into an OCI layout once per test binary.
func hostBuild(t *testing.T) (Result, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds imgupd; skipped with -short")
	}
	opts := hostOptions(t)
	hostOnce.Do(func() {
		hostLayout = filepath.Join(shareDir, "first", "oci")
		opts.OCILayout = hostLayout
		start := time.Now()
		ctx := buildContext(t)
		hostResult, hostErr = Run(ctx, opts)
		t.Logf("first build: %s", time.Since(start).Round(100*time.Millisecond))
		hostSlow = hostErr != nil && ctx.Err() != nil
	})
	if hostErr != nil {
		if hostSlow {
			t.Fatalf("machine too slow: the first build did not finish before the test binary's deadline "+
				"(go test -timeout; a cold build cache compiles all of imgupd with -trimpath): %v", hostErr)
		}
		t.Fatalf("first build: %v", hostErr)
	}
	return hostResult, hostLayout
}

// TestLayout builds into an OCI layout and reads everything back: the index, the config, the
// layer's files, and the binary itself, run.
func TestLayout(t *testing.T) {
	res, dir := hostBuild(t)
	if got := res.String(); got != res.Digest.String() || !strings.HasPrefix(got, "sha256:") {
		t.Errorf("printed line %q, want the bare index digest", got)
	}

	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := idx.Digest(); err != nil || d != res.Digest {
		t.Fatalf("layout index digest %v (%v), Run said %v", d, err, res.Digest)
	}
	if _, err := layout.Path(dir).Blob(res.Digest); err != nil {
		t.Errorf("the index is not a blob of the layout: %v", err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if im.MediaType != types.OCIImageIndex {
		t.Errorf("index media type %q", im.MediaType)
	}
	if len(im.Manifests) != 1 {
		t.Fatalf("%d manifests, want 1", len(im.Manifests))
	}
	desc := im.Manifests[0]
	if desc.Platform == nil || desc.Platform.OS != runtime.GOOS || desc.Platform.Architecture != runtime.GOARCH {
		t.Errorf("platform %+v, want %s", desc.Platform, hostPlatform())
	}
	if desc.MediaType != types.OCIManifestSchema1 {
		t.Errorf("manifest media type %q", desc.MediaType)
	}

	img, err := idx.Image(desc.Digest)
	if err != nil {
		t.Fatal(err)
	}
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.MediaType != types.OCIConfigJSON || len(m.Layers) != 1 || m.Layers[0].MediaType != types.OCILayer {
		t.Errorf("manifest: config %q, layers %+v", m.Config.MediaType, m.Layers)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if !cf.Created.Time.Equal(testCreated) {
		t.Errorf("created %v, want %v", cf.Created.Time, testCreated)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	ca, err := os.ReadFile(testCABundle(t))
	if err != nil {
		t.Fatal(err)
	}
	fsys := checkImage(t, cf, rc, imageWant{version: testVersion, revision: testRevision, ca: ca})
	// Reproducible: every entry has the commit's time, in name order.
	for i, h := range fsys.headers {
		if !h.ModTime.Equal(testCreated) {
			t.Errorf("%s: mtime %v, want %v", h.Name, h.ModTime, testCreated)
		}
		if i > 0 && fsys.headers[i-1].Name >= h.Name {
			t.Errorf("entries not sorted: %s before %s", fsys.headers[i-1].Name, h.Name)
		}
	}
}

// TestReproducible builds again, with the same options, into another layout: same index digest,
// same index.json.
func TestReproducible(t *testing.T) {
	first, firstDir := hostBuild(t)
	opts := hostOptions(t)
	opts.built = nil // a second go build: the one binary it does not share
	opts.OCILayout = filepath.Join(t.TempDir(), "oci")
	ctx := buildContext(t)
	second, err := Run(ctx, opts)
	if err != nil {
		buildFailed(t, ctx, "the second build", err)
	}
	if second.Digest != first.Digest {
		t.Fatalf("second build's index digest %s, first %s", second.Digest, first.Digest)
	}
	a, _ := os.ReadFile(filepath.Join(firstDir, "index.json"))
	b, _ := os.ReadFile(filepath.Join(opts.OCILayout, "index.json"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("index.json differs:\n%s\n%s", a, b)
	}
}

// TestPush pushes to a real registry (ggcr's, in process, plain HTTP), pulls the index back and
// compares it with the layout build.
func TestPush(t *testing.T) {
	first, _ := hostBuild(t)
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	ref := host + "/you/imgupd:" + testVersion

	opts := hostOptions(t)
	opts.Push = ref
	opts.Insecure = true
	ctx := buildContext(t)
	res, err := Run(ctx, opts)
	if err != nil {
		buildFailed(t, ctx, "the push", err)
	}
	if res.Digest != first.Digest {
		t.Errorf("pushed index digest %s, layout build %s", res.Digest, first.Digest)
	}
	if want := ref + "@" + first.Digest.String(); res.String() != want {
		t.Errorf("printed %q, want %q", res.String(), want)
	}

	r, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Index(r)
	if err != nil {
		t.Fatal(err)
	}
	d, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if d != first.Digest {
		t.Errorf("pulled index digest %s, layout build %s", d, first.Digest)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Platform == nil || im.Manifests[0].Platform.Architecture != runtime.GOARCH {
		t.Fatalf("pulled index manifests %+v", im.Manifests)
	}
	img, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	// Read the whole layer from the registry: its bytes must match its digest.
	rc, err := layers[0].Compressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	h, _, err := v1.SHA256(rc)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := layers[0].Digest(); h != want {
		t.Errorf("pulled layer hashes to %s, its digest is %s", h, want)
	}
}

// TestBadInput: each is refused before anything runs (the go command given does not exist) with
// one clear line, and, through the flags, exit status 2.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	layoutDir := filepath.Join(dir, "oci")
	notLayout := filepath.Join(dir, "src")
	if err := os.MkdirAll(notLayout, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notLayout, "keep.go"), []byte("package keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts Options
		args []string
		want string
	}{
		{"no output", Options{}, nil, "no output: give one of --oci-layout DIR, --push REF or --rootfs DIR"},
		{"two outputs", Options{OCILayout: layoutDir, Push: "localhost:5000/x:v1"},
			[]string{"--oci-layout", layoutDir, "--push", "localhost:5000/x:v1"}, "two outputs"},
		{"unknown platform", Options{OCILayout: layoutDir, Platforms: []string{"plan9/mips"}},
			[]string{"--oci-layout", layoutDir, "--platforms", "plan9/mips"}, `platform "plan9/mips": unsupported`},
		{"unknown arch", Options{OCILayout: layoutDir, Platforms: []string{"linux/amd64", "linux/sparc"}},
			[]string{"--oci-layout", layoutDir, "--platforms", "linux/amd64,linux/sparc"}, `platform "linux/sparc": unsupported`},
		{"malformed platform", Options{OCILayout: layoutDir, Platforms: []string{"linux"}},
			[]string{"--oci-layout", layoutDir, "--platforms", "linux"}, `platform "linux": want os/arch`},
		{"bad variant", Options{OCILayout: layoutDir, Platforms: []string{"linux/arm/v9"}},
			[]string{"--oci-layout", layoutDir, "--platforms", "linux/arm/v9"}, `unsupported variant "v9"`},
		{"twice", Options{OCILayout: layoutDir, Platforms: []string{"linux/amd64", "linux/amd64"}},
			[]string{"--oci-layout", layoutDir, "--platforms", "linux/amd64,linux/amd64"}, "given twice"},
		{"missing CA bundle", Options{OCILayout: layoutDir, CABundle: filepath.Join(dir, "none.crt")},
			[]string{"--oci-layout", layoutDir, "--ca-bundle", filepath.Join(dir, "none.crt")}, "none.crt not found"},
		{"layout over another directory", Options{OCILayout: notLayout}, []string{"--oci-layout", notLayout}, "not empty and not an OCI layout"},
		{"bad push ref", Options{Push: "Not A Ref"}, []string{"--push", "Not A Ref"}, "want a tag reference"},
		{"insecure without push", Options{OCILayout: layoutDir, Insecure: true},
			[]string{"--oci-layout", layoutDir, "--insecure"}, "--insecure is only for --push"},
		{"argument", Options{}, []string{"--oci-layout", layoutDir, "extra"}, `unexpected argument "extra"`},
		{"bad created", Options{}, []string{"--oci-layout", layoutDir, "--created", "yesterday"}, "--created"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GO", filepath.Join(dir, "no-such-go"))
			if tc.name != "argument" && tc.name != "bad created" {
				o := tc.opts
				o.Go = filepath.Join(dir, "no-such-go")
				_, err := Run(context.Background(), o)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Run: %v, want an error with %q", err, tc.want)
				}
			}
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), tc.args, &stdout, &stderr); code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, stderr.String())
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "image: ") || !strings.Contains(msg, tc.want) {
				t.Errorf("stderr %q, want one line with %q", msg, tc.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
			if _, err := os.Stat(layoutDir); err == nil {
				t.Errorf("%s was written", layoutDir)
			}
		})
	}
}

// TestBuildFails: a module whose cmd/imgupd does not compile gives one line with the compiler's
// message.
func TestBuildFails(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("linux only")
	}
	mod := t.TempDir()
	if err := os.MkdirAll(filepath.Join(mod, "cmd", "imgupd"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod":               "module example.com/broken\n\ngo 1.26\n",
		"cmd/imgupd/main.go":   "package main\n\nfunc main() {\n\tundefinedThing()\n}\n",
		"cmd/imgupd/second.go": "package main\n\nvar _ = alsoUndefined\n",
	}
	for p, s := range files {
		if err := os.WriteFile(filepath.Join(mod, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-mod=mod -buildvcs=false")
	opts := Options{
		Platforms: []string{"linux/" + runtime.GOARCH},
		Version:   testVersion,
		Revision:  testRevision,
		Created:   testCreated,
		CABundle:  testCABundle(t),
		OCILayout: filepath.Join(t.TempDir(), "oci"),
		Dir:       mod,
	}
	ctx := buildContext(t)
	_, err := Run(ctx, opts)
	if err == nil {
		t.Fatal("Run succeeded on a module that does not compile")
	}
	if ctx.Err() != nil {
		buildFailed(t, ctx, "the build of a broken module", err)
	}
	line := oneLine(err.Error())
	for _, want := range []string{"go build linux/" + runtime.GOARCH, "exit status 1", "undefined: undefinedThing", "undefined: alsoUndefined"} {
		if !strings.Contains(line, want) {
			t.Errorf("error %q, want %q in it", line, want)
		}
	}
	if strings.Contains(line, "\n") {
		t.Errorf("error %q is not one line", line)
	}
}

// TestCreatedDefault: SOURCE_DATE_EPOCH wins, a bad one is an error, and outside a git repository
// the time is the Unix epoch.
func TestCreatedDefault(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir)) // never find a repository above dir
	base := Options{Version: testVersion, Revision: testRevision, Dir: dir, Go: "go"}

	t.Setenv("SOURCE_DATE_EPOCH", "1234567890")
	o := base
	if err := o.withDefaults(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := time.Unix(1234567890, 0).UTC(); !o.Created.Equal(want) {
		t.Errorf("created %v, want %v from SOURCE_DATE_EPOCH", o.Created, want)
	}

	t.Setenv("SOURCE_DATE_EPOCH", "last tuesday")
	o = base
	if err := o.withDefaults(context.Background()); err == nil || !strings.Contains(err.Error(), "SOURCE_DATE_EPOCH") {
		t.Errorf("bad SOURCE_DATE_EPOCH: %v", err)
	}

	t.Setenv("SOURCE_DATE_EPOCH", "")
	o = base
	if err := o.withDefaults(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !o.Created.Equal(time.Unix(0, 0)) {
		t.Errorf("created %v outside a repository, want the Unix epoch", o.Created)
	}

	o = base
	o.Created = time.Date(2030, 1, 2, 3, 4, 5, 600, time.FixedZone("x", 3600))
	if err := o.withDefaults(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2030, 1, 2, 2, 4, 5, 0, time.UTC); !o.Created.Equal(want) || o.Created.Location() != time.UTC {
		t.Errorf("created %v, want %v (UTC, whole seconds)", o.Created, want)
	}
}

// TestPlatforms: variants, defaults and the go build environment of each platform.
func TestPlatforms(t *testing.T) {
	for _, tc := range []struct {
		in, name string
		env      []string
	}{
		{"linux/amd64", "linux/amd64", []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64", "GOAMD64=v1"}},
		{"linux/amd64/v3", "linux/amd64/v3", []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64", "GOAMD64=v3"}},
		{"linux/arm64", "linux/arm64", []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64", "GOARM64=v8.0"}},
		{"linux/arm", "linux/arm/v7", []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm", "GOARM=7"}},
		{"linux/arm/v6", "linux/arm/v6", []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm", "GOARM=6"}},
		{" linux/s390x ", "linux/s390x", []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=s390x"}},
	} {
		p, err := parsePlatform(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if p.String() != tc.name || !reflect.DeepEqual(p.env, tc.env) {
			t.Errorf("%q: %s %v, want %s %v", tc.in, p, p.env, tc.name, tc.env)
		}
	}
	for _, bad := range []string{"", "linux/", "/amd64", "linux/amd64/v3/x", "windows/amd64", "darwin/arm64", "linux/s390x/v1", "linux/amd64/"} {
		if _, err := parsePlatform(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	env := buildEnv([]string{"HOME=/root", "GOOS=plan9", "GOAMD64=v4", "GOFLAGS=-mod=mod", "CGO_ENABLED=1"})
	if !reflect.DeepEqual(env, []string{"HOME=/root", "GOFLAGS=-mod=mod"}) {
		t.Errorf("buildEnv kept %v", env)
	}
}

package main

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Defaults of the flags.
var (
	DefaultPlatforms = []string{"linux/amd64", "linux/arm64"}
	DefaultCABundle  = "/etc/ssl/certs/ca-certificates.crt"
)

// What the image holds and how it runs.
const (
	binaryPath  = "/usr/local/bin/imgupd"
	caBundleDst = "/etc/ssl/certs/ca-certificates.crt"
	nonrootUID  = 65532
	nonrootGID  = 65532
	nonrootHome = "/home/nonroot"
	sourceURL   = "https://github.com/imgupd/imgupd"
	description = "imgupd explains why Argo CD Image Updater did not update an application: Slack bot (imgupd serve) and CLI"
)

// Options is everything one build needs. The zero value of Version, Revision, Created, Dir and Go
// means "work it out" (see withDefaults); OCILayout, Push or RootFS (exactly one) is required.
type Options struct {
	// Platforms to build, "os/arch[/variant]"; empty means DefaultPlatforms (for RootFS: the
	// one in $TARGETPLATFORM, else the host's architecture).
	Platforms []string
	// Version is stamped into the binary (-X main.version) and the version label.
	// Default: $IMGUPD_VERSION, else `git describe --tags --always --dirty` in Dir, else "dev".
	Version string
	// Revision is the org.opencontainers.image.revision label. Default: `git rev-parse HEAD`; omitted if unknown.
	Revision string
	// Created is the config's created time and every file's mtime. Default: $SOURCE_DATE_EPOCH,
	// else HEAD's commit time, else the Unix epoch.
	Created time.Time
	// CABundle is the PEM file copied to /etc/ssl/certs/ca-certificates.crt; empty means DefaultCABundle.
	CABundle string

	// OCILayout is a directory to write an OCI image layout to (replaced if it already holds one).
	OCILayout string
	// Push is a tag reference to push the index to, with credentials from authn.DefaultKeychain.
	Push string
	// Insecure allows a plain-HTTP registry for Push.
	Insecure bool
	// RootFS is a directory (absent or empty) to write one platform's image file system to, owners
	// and modes included, instead of an image: the top-level Dockerfile's build stage writes it and
	// copies it onto an empty base, so both images hold the same files. It needs root (owners).
	RootFS string

	// Dir is the module root, where `go build ./cmd/imgupd` runs. Default: `go env GOMOD`'s directory,
	// else the nearest parent of the working directory with a go.mod.
	Dir string
	// Go is the go command. Default: $GO, else "go".
	Go string
	// Log receives progress lines; nil discards them.
	Log io.Writer

	// built, when set, holds binaries already built from Dir at Version: a platform found there
	// is not built again, and what is built is added. The command never sets it; the tests share
	// one `go build` per platform through it (and build a second time only where the second
	// build is what they check).
	built *builtBinaries
}

// builtBinaries are binaries built once and reused, by platform, version and module root.
type builtBinaries struct {
	mu   sync.Mutex
	bins map[string][]byte
}

func (b *builtBinaries) key(o *Options, p platform) string {
	return p.String() + "\x00" + o.Version + "\x00" + o.Dir
}

// Result is what a build produced.
type Result struct {
	Digest    v1.Hash  // the image index's digest
	Ref       string   // the pushed tag, fully qualified, when pushing
	Layout    string   // the OCI layout directory, when writing one
	RootFS    string   // the root file system directory, when writing one
	Platforms []string // the platforms built, in order
}

// String is the line printed on stdout: the digest, prefixed by the tag when pushing.
func (r Result) String() string {
	if r.RootFS != "" {
		return r.RootFS
	}
	if r.Ref != "" {
		return r.Ref + "@" + r.Digest.String()
	}
	return r.Digest.String()
}

// platform is one parsed entry of Options.Platforms, with the go build environment for it.
type platform struct {
	OS, Arch, Variant string
	env               []string // GOOS, GOARCH and the architecture level, for go build
}

func (p platform) String() string {
	if p.Variant != "" {
		return p.OS + "/" + p.Arch + "/" + p.Variant
	}
	return p.OS + "/" + p.Arch
}

// levelVars are the architecture level variables of go build; each build sets the one of its
// architecture explicitly, so the host environment cannot change the binary.
var levelVars = []string{"GOAMD64", "GOARM", "GOARM64", "GO386", "GOPPC64", "GORISCV64"}

// arches are the linux architectures an image can be built for: their variants (the first is
// used when none is given; "" means none is recorded) and the go build level each one sets.
var arches = map[string]struct {
	variants []string
	level    func(variant string) string
}{
	"amd64": {[]string{"", "v1", "v2", "v3", "v4"}, func(v string) string {
		if v == "" {
			v = "v1"
		}
		return "GOAMD64=" + v
	}},
	"arm64": {[]string{"", "v8"}, func(string) string { return "GOARM64=v8.0" }},
	// linux/arm without a variant is recorded as v7, the level Go builds by default.
	"arm":     {[]string{"v7", "v6", "v5"}, func(v string) string { return "GOARM=" + strings.TrimPrefix(v, "v") }},
	"386":     {[]string{""}, func(string) string { return "GO386=sse2" }},
	"ppc64le": {[]string{""}, func(string) string { return "GOPPC64=power8" }},
	"riscv64": {[]string{""}, func(string) string { return "GORISCV64=rva20u64" }},
	"s390x":   {[]string{""}, func(string) string { return "" }},
}

func supportedArches() string {
	var names []string
	for a := range arches {
		names = append(names, "linux/"+a)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func parsePlatform(s string) (platform, error) {
	parts := strings.Split(strings.TrimSpace(s), "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return platform{}, fmt.Errorf("platform %q: want os/arch or os/arch/variant, e.g. linux/amd64", s)
	}
	p := platform{OS: parts[0], Arch: parts[1]}
	if len(parts) == 3 {
		p.Variant = parts[2]
	}
	a, ok := arches[p.Arch]
	if p.OS != "linux" || !ok {
		return platform{}, fmt.Errorf("platform %q: unsupported; the image is linux only: %s", s, supportedArches())
	}
	if len(parts) == 2 {
		p.Variant = a.variants[0]
	} else if p.Variant == "" || !slices.Contains(a.variants, p.Variant) {
		return platform{}, fmt.Errorf("platform %q: unsupported variant %q for %s (want one of %s)", s, p.Variant, p.Arch, strings.Join(nonEmpty(a.variants), ", "))
	}
	p.env = []string{"CGO_ENABLED=0", "GOOS=" + p.OS, "GOARCH=" + p.Arch}
	if lv := a.level(p.Variant); lv != "" {
		p.env = append(p.env, lv)
	}
	return p, nil
}

func nonEmpty(list []string) []string {
	var out []string
	for _, x := range list {
		if x != "" {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}

// validate checks everything that can be checked before building, and returns the parsed platforms.
func (o *Options) validate() ([]platform, error) {
	outputs := 0
	for _, out := range []string{o.OCILayout, o.Push, o.RootFS} {
		if out != "" {
			outputs++
		}
	}
	switch {
	case outputs == 0:
		return nil, errors.New("no output: give one of --oci-layout DIR, --push REF or --rootfs DIR")
	case outputs > 1:
		return nil, errors.New("two outputs: give only one of --oci-layout DIR, --push REF or --rootfs DIR")
	}
	if o.Insecure && o.Push == "" {
		return nil, errors.New("--insecure is only for --push")
	}
	if o.Push != "" {
		if _, err := o.tag(); err != nil {
			return nil, err
		}
	}
	if o.OCILayout != "" {
		if _, _, err := layoutTarget(o.OCILayout); err != nil {
			return nil, err
		}
	}
	if o.RootFS != "" {
		if err := rootFSTarget(o.RootFS); err != nil {
			return nil, err
		}
		if len(o.Platforms) == 0 {
			o.Platforms = []string{rootFSPlatform()}
		}
		if len(o.Platforms) != 1 {
			return nil, fmt.Errorf("--rootfs is one platform's file system: give one platform, not %s", strings.Join(o.Platforms, ","))
		}
	}
	if len(o.Platforms) == 0 {
		o.Platforms = DefaultPlatforms
	}
	var out []platform
	seen := map[string]bool{}
	for _, s := range o.Platforms {
		p, err := parsePlatform(s)
		if err != nil {
			return nil, err
		}
		if seen[p.String()] {
			return nil, fmt.Errorf("platform %q given twice", p.String())
		}
		seen[p.String()] = true
		out = append(out, p)
	}
	if strings.ContainsAny(o.Version, " \t\n'\"\\") {
		return nil, fmt.Errorf("version %q: no spaces, quotes or backslashes", o.Version)
	}
	if o.CABundle == "" {
		o.CABundle = DefaultCABundle
	}
	if _, err := readCABundle(o.CABundle); err != nil {
		return nil, err
	}
	return out, nil
}

func (o *Options) tag() (name.Tag, error) {
	var nopts []name.Option
	if o.Insecure {
		nopts = append(nopts, name.Insecure)
	}
	t, err := name.NewTag(o.Push, nopts...)
	if err != nil {
		return name.Tag{}, fmt.Errorf("--push %q: want a tag reference such as registry.example.com/you/imgupd:v0.1.0: %w", o.Push, err)
	}
	return t, nil
}

func readCABundle(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("CA bundle %s not found: install ca-certificates or give --ca-bundle FILE", path)
	}
	if err != nil {
		return nil, fmt.Errorf("CA bundle: %w", err)
	}
	if !x509.NewCertPool().AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("CA bundle %s holds no PEM certificate", path)
	}
	return b, nil
}

// withDefaults fills in what was left empty. It runs after validate.
func (o *Options) withDefaults(ctx context.Context) error {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Go == "" {
		o.Go = os.Getenv("GO")
	}
	if o.Go == "" {
		o.Go = "go"
	}
	if o.Dir == "" {
		dir, err := moduleRoot(ctx, o.Go)
		if err != nil {
			return err
		}
		o.Dir = dir
	}
	if o.Version == "" {
		o.Version = os.Getenv("IMGUPD_VERSION")
	}
	if o.Version == "" {
		o.Version = "dev"
		if v, err := git(ctx, o.Dir, "describe", "--tags", "--always", "--dirty"); err == nil && v != "" {
			o.Version = v
		}
	}
	if o.Revision == "" {
		if r, err := git(ctx, o.Dir, "rev-parse", "HEAD"); err == nil {
			o.Revision = r
		}
	}
	if o.Created.IsZero() {
		if s, ok := os.LookupEnv("SOURCE_DATE_EPOCH"); ok && s != "" {
			t, err := parseTime(s)
			if err != nil {
				return fmt.Errorf("SOURCE_DATE_EPOCH: %w", err)
			}
			o.Created = t
		} else if ct, err := git(ctx, o.Dir, "log", "-1", "--format=%ct"); err == nil && ct != "" {
			t, err := parseTime(ct)
			if err != nil {
				return fmt.Errorf("HEAD's commit time: %w", err)
			}
			o.Created = t
		} else {
			o.Created = time.Unix(0, 0)
		}
	}
	o.Created = o.Created.UTC().Truncate(time.Second)
	return nil
}

// parseTime reads Unix seconds or an RFC 3339 time.
func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return time.Time{}, fmt.Errorf("%q: before 1970", s)
		}
		return time.Unix(n, 0).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q: want Unix seconds or an RFC 3339 time", s)
	}
	if t.Before(time.Unix(0, 0)) {
		return time.Time{}, fmt.Errorf("%q: before 1970", s)
	}
	return t.UTC(), nil
}

// moduleRoot is the directory of `go env GOMOD`, else the nearest parent of the working directory
// that holds a go.mod.
func moduleRoot(ctx context.Context, goBin string) (string, error) {
	out, err := exec.CommandContext(ctx, goBin, "env", "GOMOD").Output()
	if err == nil {
		if gomod := strings.TrimSpace(string(out)); gomod != "" && gomod != os.DevNull {
			return filepath.Dir(gomod), nil
		}
	}
	wd, werr := os.Getwd()
	if werr != nil {
		return "", fmt.Errorf("module root: %w", werr)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("module root: no go.mod in %s or above; run from the imgupd repository", wd)
		}
	}
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// Run validates the options, builds one image per platform, assembles the OCI image index and
// writes or pushes it.
func Run(ctx context.Context, o Options) (Result, error) {
	plats, err := o.validate()
	if err != nil {
		return Result{}, err
	}
	if err := o.withDefaults(ctx); err != nil {
		return Result{}, err
	}
	if o.RootFS != "" {
		return buildRootFS(ctx, &o, plats[0])
	}
	idx, err := buildIndex(ctx, &o, plats)
	if err != nil {
		return Result{}, err
	}
	d, err := idx.Digest()
	if err != nil {
		return Result{}, fmt.Errorf("index digest: %w", err)
	}
	res := Result{Digest: d}
	for _, p := range plats {
		res.Platforms = append(res.Platforms, p.String())
	}
	if o.OCILayout != "" {
		if err := writeLayout(o.OCILayout, idx); err != nil {
			return Result{}, err
		}
		res.Layout = o.OCILayout
		return res, nil
	}
	tag, err := o.tag()
	if err != nil {
		return Result{}, err
	}
	if err := remote.WriteIndex(tag, idx,
		remote.WithContext(ctx),
		remote.WithAuthFromKeychain(authn.DefaultKeychain),
		remote.WithUserAgent("imgupd-deploy-image"),
	); err != nil {
		return Result{}, fmt.Errorf("push %s: %w", tag.Name(), err)
	}
	res.Ref = tag.Name()
	return res, nil
}

// buildIndex builds the binary and image of every platform into an OCI image index.
func buildIndex(ctx context.Context, o *Options, plats []platform) (v1.ImageIndex, error) {
	ca, err := readCABundle(o.CABundle)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "imgupd-image-")
	if err != nil {
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	defer os.RemoveAll(tmp)

	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range plats {
		bin, err := goBuild(ctx, o, p, tmp)
		if err != nil {
			return nil, err
		}
		img, err := buildImage(o, p, bin, ca)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add: img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{
				OS: p.OS, Architecture: p.Arch, Variant: p.Variant,
			}},
		})
	}
	return idx, nil
}

// goBuild builds ./cmd/imgupd for p, statically, with the version stamped in, and returns the binary.
func goBuild(ctx context.Context, o *Options, p platform, tmp string) ([]byte, error) {
	if o.built != nil {
		o.built.mu.Lock()
		defer o.built.mu.Unlock()
		if b, ok := o.built.bins[o.built.key(o, p)]; ok {
			fmt.Fprintf(o.Log, "image: %s: the binary built before (version %s)\n", p, o.Version)
			return b, nil
		}
	}
	out := filepath.Join(tmp, "imgupd-"+strings.ReplaceAll(p.String(), "/", "-"))
	// No DWARF from the compiler: -s -w drops it at the link anyway. The Makefile's tiers compile
	// with the same flags, so a build here reuses their build cache.
	cmd := exec.CommandContext(ctx, o.Go, "build", "-trimpath", "-gcflags=all=-dwarf=false",
		"-ldflags", "-s -w -X main.version="+o.Version,
		"-o", out, "./cmd/imgupd")
	cmd.Dir = o.Dir
	cmd.Env = append(buildEnv(os.Environ()), p.env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	fmt.Fprintf(o.Log, "image: %s: go build ./cmd/imgupd (version %s)\n", p, o.Version)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return nil, fmt.Errorf("go build %s: %w", p, err)
		}
		return nil, fmt.Errorf("go build %s: %w: %s", p, err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("go build %s: %w", p, err)
	}
	fmt.Fprintf(o.Log, "image: %s: built in %s, %.1f MiB\n", p, time.Since(start).Round(100*time.Millisecond), mib(len(b)))
	if o.built != nil {
		if o.built.bins == nil {
			o.built.bins = map[string][]byte{}
		}
		o.built.bins[o.built.key(o, p)] = b
	}
	return b, nil
}

// buildEnv is the environment without the variables each build sets itself.
func buildEnv(env []string) []string {
	drop := append([]string{"GOOS", "GOARCH", "CGO_ENABLED"}, levelVars...)
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(drop, k) {
			out = append(out, kv)
		}
	}
	return out
}

func mib(n int) float64 { return float64(n) / (1 << 20) }

// buildImage is the image of one platform: one layer on an empty base, OCI media types.
func buildImage(o *Options, p platform, bin, ca []byte) (v1.Image, error) {
	gz, err := layerBytes(o.Created, bin, ca)
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(gz)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	ld, err := layer.Digest()
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	fmt.Fprintf(o.Log, "image: %s: layer %s, %.1f MiB compressed\n", p, ld, mib(len(gz)))

	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	created := v1.Time{Time: o.Created}
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History: v1.History{
			Created:   created,
			CreatedBy: "go run ./deploy/image",
			Comment:   "imgupd " + o.Version + " for " + p.String(),
		},
	})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Created = created
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Arch, p.Variant
	cf.RootFS.Type = "layers"
	cf.Config = imageConfig(o)
	return mutate.ConfigFile(img, cf)
}

// imageConfig is how the image runs. The top-level Dockerfile's last stage says the same (a test
// compares them).
func imageConfig(o *Options) v1.Config {
	return v1.Config{
		Entrypoint: []string{binaryPath},
		Cmd:        []string{"serve"},
		User:       fmt.Sprintf("%d:%d", nonrootUID, nonrootGID),
		WorkingDir: nonrootHome,
		Env: []string{
			"PATH=/usr/local/bin",
			"SSL_CERT_FILE=" + caBundleDst,
		},
		Labels: labels(o),
	}
}

func labels(o *Options) map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":       "imgupd",
		"org.opencontainers.image.version":     o.Version,
		"org.opencontainers.image.source":      sourceURL,
		"org.opencontainers.image.description": description,
	}
	if o.Revision != "" {
		l["org.opencontainers.image.revision"] = o.Revision
	}
	return l
}

// writeLayout writes idx as an OCI image layout in dir: index.json is the image index itself (its
// manifests are the per-platform images), and the index is also stored as a blob, so the printed
// digest names a blob of the layout. The layout is written next to dir and moved into place; an
// existing dir is replaced only if it is empty or an OCI layout.
func writeLayout(dir string, idx v1.ImageIndex) error {
	abs, exists, err := layoutTarget(dir)
	if err != nil {
		return err
	}
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("--oci-layout: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(abs)+"-*")
	if err != nil {
		return fmt.Errorf("--oci-layout: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("--oci-layout: %w", err)
	}
	lp, err := layout.Write(tmp, idx)
	if err != nil {
		return fmt.Errorf("--oci-layout: write: %w", err)
	}
	raw, err := idx.RawManifest()
	if err != nil {
		return fmt.Errorf("--oci-layout: %w", err)
	}
	d, err := idx.Digest()
	if err != nil {
		return fmt.Errorf("--oci-layout: %w", err)
	}
	if err := lp.WriteBlob(d, io.NopCloser(bytes.NewReader(raw))); err != nil {
		return fmt.Errorf("--oci-layout: write index blob: %w", err)
	}
	if exists {
		if err := os.RemoveAll(abs); err != nil {
			return fmt.Errorf("--oci-layout: replace %s: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, abs); err != nil {
		return fmt.Errorf("--oci-layout: %w", err)
	}
	return nil
}

// layoutTarget checks that dir may receive a layout: it is absent, empty, or an OCI layout.
func layoutTarget(dir string) (abs string, exists bool, err error) {
	abs, err = filepath.Abs(dir)
	if err != nil {
		return "", false, fmt.Errorf("--oci-layout: %w", err)
	}
	fi, err := os.Stat(abs)
	if errors.Is(err, os.ErrNotExist) {
		return abs, false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("--oci-layout: %w", err)
	}
	if !fi.IsDir() {
		return "", false, fmt.Errorf("--oci-layout %s: not a directory", dir)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return "", false, fmt.Errorf("--oci-layout: %w", err)
	}
	if len(entries) > 0 {
		if _, err := os.Stat(filepath.Join(abs, "oci-layout")); err != nil {
			return "", false, fmt.Errorf("--oci-layout %s: not empty and not an OCI layout; refusing to replace it", dir)
		}
	}
	return abs, true, nil
}

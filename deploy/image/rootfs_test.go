package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// TestRootFS: --rootfs writes the same files as the image layer, with their owners and modes (the
// Dockerfile copies them onto an empty base).
func TestRootFS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds imgupd; skipped with -short")
	}
	if os.Geteuid() != 0 {
		t.Skip("--rootfs sets owners: needs root")
	}
	hostBuild(t) // the binary, built once for every test
	opts := hostOptions(t)
	opts.RootFS = filepath.Join(t.TempDir(), "rootfs")
	ctx := buildContext(t)
	res, err := Run(ctx, opts)
	if err != nil {
		buildFailed(t, ctx, "--rootfs", err)
	}
	if res.String() != opts.RootFS || len(res.Platforms) != 1 || res.Platforms[0] != hostPlatform() {
		t.Errorf("result %+v", res)
	}
	ca, err := os.ReadFile(testCABundle(t))
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, tarDir(t, opts.RootFS), imageWant{version: testVersion, ca: ca})

	// A second run refuses the directory it filled.
	if _, err := Run(buildContext(t), opts); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("second run into the same directory: %v", err)
	}
	two := hostOptions(t)
	two.RootFS, two.Platforms = filepath.Join(t.TempDir(), "x"), []string{"linux/amd64", "linux/arm64"}
	if _, err := Run(buildContext(t), two); err == nil || !strings.Contains(err.Error(), "give one platform") {
		t.Errorf("two platforms: %v", err)
	}
}

// TestRootFSPlatform: in a Dockerfile build the platform is $TARGETPLATFORM.
func TestRootFSPlatform(t *testing.T) {
	t.Setenv("TARGETPLATFORM", "linux/arm64")
	o := Options{RootFS: filepath.Join(t.TempDir(), "r"), CABundle: testCABundle(t)}
	plats, err := o.validate()
	if err != nil || len(plats) != 1 || plats[0].String() != "linux/arm64" {
		t.Errorf("platforms %v, %v; want linux/arm64", plats, err)
	}
}

// tarDir is a tar stream of dir's files, as an image layer would hold them.
func tarDir(t *testing.T, dir string) io.Reader {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		names = append(names, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range names {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		h, err := tar.FileInfoHeader(fi, "")
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		h.Name = filepath.ToSlash(rel)
		if fi.IsDir() {
			h.Name += "/"
		}
		st := fi.Sys().(*syscall.Stat_t)
		h.Uid, h.Gid = int(st.Uid), int(st.Gid)
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			tw.Write(b)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf
}

// TestDockerfileMatchesTheImage: the top-level Dockerfile's last stage runs the image as deploy/image
// configures it (entrypoint, command, user, working directory, environment, labels), copies the
// --rootfs files onto the base, and builds them with deploy/image.
func TestDockerfileMatchesTheImage(t *testing.T) {
	df := parseDockerfile(t, filepath.Join("..", "..", "Dockerfile"))
	final := df[len(df)-1]
	o := &Options{Version: "$IMGUPD_VERSION", Revision: "$IMGUPD_REVISION"}
	want := imageConfig(o)
	exec := func(kw string) []string {
		var v []string
		if err := json.Unmarshal([]byte(final.get(kw)), &v); err != nil {
			t.Errorf("%s %q: want exec form: %v", kw, final.get(kw), err)
		}
		return v
	}
	got := v1.Config{
		Entrypoint: exec("ENTRYPOINT"),
		Cmd:        exec("CMD"),
		User:       final.get("USER"),
		WorkingDir: final.get("WORKDIR"),
		Env:        final.pairs(t, "ENV"),
		Labels:     map[string]string{},
	}
	for _, kv := range final.pairs(t, "LABEL") {
		k, v, _ := strings.Cut(kv, "=")
		got.Labels[k] = v
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the Dockerfile's last stage runs\n %+v\nwant (deploy/image)\n %+v", got, want)
	}
	if !strings.HasPrefix(final.from, "${BASE_IMAGE}") || final.get("COPY") != "--from=build /rootfs/ /" {
		t.Errorf("last stage: FROM %q, COPY %q; want FROM ${BASE_IMAGE} and COPY --from=build /rootfs/ /", final.from, final.get("COPY"))
	}
	var ran bool
	for _, st := range df[:len(df)-1] {
		for _, run := range st.all("RUN") {
			ran = ran || strings.HasSuffix(run, `["go", "run", "./deploy/image", "--rootfs", "/rootfs"]`)
		}
	}
	if !ran {
		t.Error(`no build stage runs ["go", "run", "./deploy/image", "--rootfs", "/rootfs"]`)
	}
}

// stage is one FROM … of a Dockerfile: its instructions, continuation lines joined.
type stage struct {
	from  string
	instr [][2]string // keyword, rest
}

func (s stage) all(kw string) []string {
	var out []string
	for _, in := range s.instr {
		if in[0] == kw {
			out = append(out, in[1])
		}
	}
	return out
}

func (s stage) get(kw string) string {
	all := s.all(kw)
	if len(all) != 1 {
		return ""
	}
	return all[0]
}

// pairs reads ENV or LABEL key=value pairs ("…" quoted values unquoted) across all the stage's
// instructions of that keyword.
func (s stage) pairs(t *testing.T, kw string) []string {
	var out []string
	for _, rest := range s.all(kw) {
		for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
			k, v, ok := strings.Cut(rest, "=")
			if !ok {
				t.Fatalf("%s %q: want key=value", kw, rest)
			}
			if strings.HasPrefix(v, `"`) {
				end := strings.Index(v[1:], `"`)
				out, rest = append(out, k+"="+v[1:end+1]), v[end+2:]
				continue
			}
			val, more, _ := strings.Cut(v, " ")
			out, rest = append(out, k+"="+val), more
		}
	}
	return out
}

func parseDockerfile(t *testing.T, path string) []stage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stages []stage
	var cont string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") || (line == "" && cont == "") {
			continue
		}
		if strings.HasSuffix(line, `\`) {
			cont += strings.TrimSuffix(line, `\`) + " "
			continue
		}
		line, cont = cont+line, ""
		kw, rest, _ := strings.Cut(line, " ")
		kw, rest = strings.ToUpper(kw), strings.Join(strings.Fields(rest), " ")
		switch {
		case kw == "FROM":
			stages = append(stages, stage{from: rest})
		case len(stages) > 0:
			stages[len(stages)-1].instr = append(stages[len(stages)-1].instr, [2]string{kw, rest})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(stages) < 2 {
		t.Fatalf("%s: %d stages, want a build stage and the image", path, len(stages))
	}
	return stages
}

// TestDockerfileImage checks the image `buildah bud` (or `docker build`) made from the top-level
// Dockerfile, as TestLayout checks deploy/image's: the config, every file, no shell, the binary run.
// scripts/dockerfile-test.sh builds it and sets IMGUPD_DOCKERFILE_OCI (an OCI layout holding the
// image), IMGUPD_DOCKERFILE_VERSION and IMGUPD_DOCKERFILE_REVISION.
func TestDockerfileImage(t *testing.T) {
	dir := os.Getenv("IMGUPD_DOCKERFILE_OCI")
	if dir == "" {
		t.Skip("IMGUPD_DOCKERFILE_OCI is not set: scripts/dockerfile-test.sh (make dockerfile-test) builds the image and runs this")
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 {
		t.Fatalf("%s holds %d manifests, want the one image", dir, len(im.Manifests))
	}
	img, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(testCABundle(t))
	if err != nil {
		t.Fatal(err)
	}
	flat := mutate.Extract(img)
	defer flat.Close()
	checkImage(t, cf, flat, imageWant{version: os.Getenv("IMGUPD_DOCKERFILE_VERSION"), revision: os.Getenv("IMGUPD_DOCKERFILE_REVISION"), ca: ca})
}

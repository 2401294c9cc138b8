package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// imageWant is what an imgupd image must hold besides its fixed contents: the version and
// revision it was built for, and its CA bundle.
type imageWant struct {
	version, revision string
	ca                []byte
}

// imageFS is an image's file system as read from its (flattened) layer.
type imageFS struct {
	headers  []*tar.Header
	contents map[string][]byte
}

// checkImage checks an image of the host platform, whoever built it (deploy/image, or the
// Dockerfile with buildah): how it runs (its config) and its files (checkFiles). layer is the
// image's file system as one uncompressed tar stream.
func checkImage(t *testing.T, cf *v1.ConfigFile, layer io.Reader, want imageWant) imageFS {
	t.Helper()
	checkConfig(t, cf, want)
	return checkFiles(t, layer, want)
}

// checkConfig checks how the image runs: entrypoint, user, working directory, environment, labels.
func checkConfig(t *testing.T, cf *v1.ConfigFile, want imageWant) {
	t.Helper()
	if cf.OS != runtime.GOOS || cf.Architecture != runtime.GOARCH {
		t.Errorf("config platform %s/%s, want the host's", cf.OS, cf.Architecture)
	}
	c := cf.Config
	check := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", what, got, want)
		}
	}
	check("Entrypoint", c.Entrypoint, []string{"/usr/local/bin/imgupd"})
	check("Cmd", c.Cmd, []string{"serve"})
	check("User", c.User, "65532:65532")
	check("WorkingDir", c.WorkingDir, "/home/nonroot")
	check("Env", c.Env, []string{"PATH=/usr/local/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"})
	check("Labels", c.Labels, map[string]string{
		"org.opencontainers.image.title":       "imgupd",
		"org.opencontainers.image.version":     want.version,
		"org.opencontainers.image.revision":    want.revision,
		"org.opencontainers.image.source":      "https://github.com/imgupd/imgupd",
		"org.opencontainers.image.description": description,
	})
}

// checkFiles checks every file with its mode and owner, that there is no shell, the CA bundle, the
// nonroot user, and that the binary runs and prints the version.
func checkFiles(t *testing.T, layer io.Reader, want imageWant) imageFS {
	t.Helper()
	type file struct {
		mode     int64
		uid, gid int
	}
	wantFiles := map[string]file{
		"etc/":                              {0o755, 0, 0},
		"etc/group":                         {0o644, 0, 0},
		"etc/passwd":                        {0o644, 0, 0},
		"etc/ssl/":                          {0o755, 0, 0},
		"etc/ssl/certs/":                    {0o755, 0, 0},
		"etc/ssl/certs/ca-certificates.crt": {0o644, 0, 0},
		"home/":                             {0o755, 0, 0},
		"home/nonroot/":                     {0o755, 65532, 65532},
		"tmp/":                              {0o1777, 0, 0},
		"usr/":                              {0o755, 0, 0},
		"usr/local/":                        {0o755, 0, 0},
		"usr/local/bin/":                    {0o755, 0, 0},
		"usr/local/bin/imgupd":              {0o755, 0, 0},
	}
	got := map[string]file{}
	fsys := imageFS{contents: map[string][]byte{}}
	tr := tar.NewReader(layer)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		// Layers may name entries "./etc/" and include the root itself.
		h.Name = strings.TrimPrefix(h.Name, "./")
		if h.Name == "" || h.Name == "." {
			continue
		}
		if h.Typeflag == tar.TypeDir && !strings.HasSuffix(h.Name, "/") {
			h.Name += "/"
		}
		fsys.headers = append(fsys.headers, h)
		got[h.Name] = file{h.Mode & 0o7777, h.Uid, h.Gid}
		if strings.HasSuffix(h.Name, "/") != (h.Typeflag == tar.TypeDir) {
			t.Errorf("%s: type %c", h.Name, h.Typeflag)
		}
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			fsys.contents[h.Name] = b
		}
	}
	if !reflect.DeepEqual(got, wantFiles) {
		t.Errorf("files:\n got %v\nwant %v", got, wantFiles)
	}
	for _, sh := range []string{"bin/sh", "bin/", "usr/bin/", "bin/busybox"} {
		if _, ok := got[sh]; ok {
			t.Errorf("the image has %s", sh)
		}
	}
	if !bytes.Equal(fsys.contents["etc/ssl/certs/ca-certificates.crt"], want.ca) {
		t.Error("the image's CA bundle is not the one it was built with")
	}
	if !strings.Contains(string(fsys.contents["etc/passwd"]), "nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n") {
		t.Errorf("etc/passwd:\n%s", fsys.contents["etc/passwd"])
	}
	if !strings.Contains(string(fsys.contents["etc/group"]), "nonroot:x:65532:\n") {
		t.Errorf("etc/group:\n%s", fsys.contents["etc/group"])
	}

	bin := filepath.Join(t.TempDir(), "imgupd")
	if err := os.WriteFile(bin, fsys.contents["usr/local/bin/imgupd"], 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("imgupd version: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "imgupd "+want.version+" ") {
		t.Errorf("imgupd version printed %q, want the version %s", out, want.version)
	}
	return fsys
}

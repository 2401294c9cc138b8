package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// rootFSPlatform is the platform of a --rootfs build without --platforms: $TARGETPLATFORM, which
// docker buildx, BuildKit and buildah set in a Dockerfile build (a cross build from the build
// platform), else the host's architecture.
func rootFSPlatform() string {
	if p := strings.TrimSpace(os.Getenv("TARGETPLATFORM")); p != "" {
		return p
	}
	return "linux/" + runtime.GOARCH
}

// rootFSTarget checks that dir may receive a root file system: absent or empty.
func rootFSTarget(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("--rootfs: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("--rootfs %s: not empty; give a new directory", dir)
	}
	return nil
}

// buildRootFS builds the binary for p and writes the image's files (layerEntries, the same as the
// image layer) under o.RootFS with their modes, owners and mtimes.
func buildRootFS(ctx context.Context, o *Options, p platform) (Result, error) {
	if os.Geteuid() != 0 {
		return Result{}, errors.New("--rootfs sets owners (root, and 65532 for the home directory): run it as root, as a Dockerfile's RUN does")
	}
	ca, err := readCABundle(o.CABundle)
	if err != nil {
		return Result{}, err
	}
	tmp, err := os.MkdirTemp("", "imgupd-rootfs-")
	if err != nil {
		return Result{}, fmt.Errorf("temp dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	bin, err := goBuild(ctx, o, p, tmp)
	if err != nil {
		return Result{}, err
	}
	if err := writeRootFS(o.RootFS, layerEntries(bin, ca), o); err != nil {
		return Result{}, err
	}
	fmt.Fprintf(o.Log, "image: %s: root file system written to %s\n", p, o.RootFS)
	return Result{Platforms: []string{p.String()}, RootFS: o.RootFS}, nil
}

// writeRootFS writes entries under dir. Directories get their times last, after their contents.
func writeRootFS(dir string, entries []entry, o *Options) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--rootfs: %w", err)
	}
	var dirs []string
	for _, e := range entries {
		p := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(e.name, "/")))
		isDir := strings.HasSuffix(e.name, "/")
		var err error
		if isDir {
			err = os.Mkdir(p, 0o700)
			dirs = append(dirs, p)
		} else {
			err = os.WriteFile(p, e.data, 0o600)
		}
		if err == nil {
			err = os.Lchown(p, e.uid, e.gid)
		}
		if err == nil {
			// After chown, which clears set-id bits; fs.FileMode has its own sticky bit.
			err = os.Chmod(p, fileMode(e.mode))
		}
		if err == nil && !isDir {
			err = os.Chtimes(p, o.Created, o.Created)
		}
		if err != nil {
			return fmt.Errorf("--rootfs: %s: %w", e.name, err)
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chtimes(dirs[i], o.Created, o.Created); err != nil {
			return fmt.Errorf("--rootfs: %w", err)
		}
	}
	return nil
}

// fileMode turns a tar header's mode (0o1777) into Go's (fs.ModeSticky|0o777).
func fileMode(m int64) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	if m&0o1000 != 0 {
		mode |= fs.ModeSticky
	}
	if m&0o2000 != 0 {
		mode |= fs.ModeSetgid
	}
	if m&0o4000 != 0 {
		mode |= fs.ModeSetuid
	}
	return mode
}

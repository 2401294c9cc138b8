package helmchart

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"runtime"
	"sort"
	"strings"
	"testing"
)

type tarEntry struct {
	name     string
	body     string
	typeflag byte
	size     int64 // header size when body is not written in full (0: len(body))
}

// writeTar writes entries in order; gz compresses.
func writeTar(t testing.TB, gz bool, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.Writer = &buf
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&buf)
		w = zw
	}
	tw := tar.NewWriter(w)
	for _, e := range entries {
		tf := e.typeflag
		if tf == 0 {
			tf = tar.TypeReg
		}
		size := int64(len(e.body))
		if tf != tar.TypeReg {
			size = 0
		}
		hdr := &tar.Header{Name: e.name, Typeflag: tf, Mode: 0o644, Size: size}
		if tf == tar.TypeSymlink {
			hdr.Linkname = e.body
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if tf == tar.TypeReg {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func plainTar(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var es []tarEntry
	for _, n := range names {
		es = append(es, tarEntry{name: n, body: string(files[n])})
	}
	return writeTar(t, false, es...)
}

func scanChart(t *testing.T, data []byte, dir string, limit int64) ([]byte, error) {
	t.Helper()
	want := dir + "/values.yaml"
	a, err := scanArchive(bytes.NewReader(data), true, func(n string) bool { return n == want }, limit, limit)
	if err != nil {
		return nil, err
	}
	return chartValues(a, dir)
}

func TestScanArchiveLayouts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		entries []tarEntry
		want    string // values, or "" when BadChart
		detail  string
	}{
		{"plain", []tarEntry{{name: "app/Chart.yaml", body: "x"}, {name: "app/values.yaml", body: "a: 1\n"}}, "a: 1\n", ""},
		{"dot slash and dirs", []tarEntry{{name: "./", typeflag: tar.TypeDir}, {name: "./app/", typeflag: tar.TypeDir}, {name: "./app//values.yaml", body: "b: 2\n"}}, "b: 2\n", ""},
		{"absolute names join under the root", []tarEntry{{name: "/app/values.yaml", body: "c: 3\n"}}, "c: 3\n", ""},
		{"BOM stripped", []tarEntry{{name: "app/values.yaml", body: "\uFEFFd: 4\n"}}, "d: 4\n", ""},
		{"last entry wins", []tarEntry{{name: "app/values.yaml", body: "old\n"}, {name: "app/values.yaml", body: "new\n"}}, "new\n", ""},
		{"subchart values do not count", []tarEntry{{name: "app/charts/sub/values.yaml", body: "x"}}, "", "no values.yaml"},
		{"traversal", []tarEntry{{name: "app/../../etc/passwd", body: "x"}}, "", "illegal file path"},
		{"symlink", []tarEntry{{name: "app/values.yaml", body: "/etc/passwd", typeflag: tar.TypeSymlink}}, "", "is a link"},
		{"wrong top", []tarEntry{{name: "other/values.yaml", body: "x"}}, "", "top directory is other"},
		{"empty", nil, "", "nothing (empty archive)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := scanChart(t, writeTar(t, true, tc.entries...), "app", 1<<20)
			if tc.want != "" {
				if err != nil || string(got) != tc.want {
					t.Fatalf("values %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			e := wantKind(t, err, BadChart)
			wantContains(t, e.Error(), tc.detail)
		})
	}
}

func TestScanArchiveArtifactLayouts(t *testing.T) {
	t.Parallel()
	scan := func(helm bool, path string, entries ...tarEntry) ([]byte, error) {
		want := "values.yaml"
		if path != "" {
			want = path + "/values.yaml"
		}
		match := func(n string) bool { return n == want }
		if helm {
			match = func(n string) bool { _, r, ok := strings.Cut(n, "/"); return ok && r == want }
		}
		a, err := scanArchive(bytes.NewReader(writeTar(t, true, entries...)), true, match, 1<<20, 1<<20)
		if err != nil {
			return nil, err
		}
		return artifactValues(a, helm, path)
	}
	if got, err := scan(true, "", tarEntry{name: "whatever/values.yaml", body: "ok"}); err != nil || string(got) != "ok" {
		t.Errorf("helm layer: %q %v", got, err)
	}
	_, err := scan(true, "", tarEntry{name: "a/values.yaml", body: "x"}, tarEntry{name: "b/values.yaml", body: "y"})
	wantContains(t, wantKind(t, err, BadChart).Error(), "exactly one top directory, it holds a, b")
	_, err = scan(true, "", tarEntry{name: "a/values.yaml", body: "x"}, tarEntry{name: "README", body: "y"})
	wantKind(t, err, BadChart)
	if got, err := scan(false, "env/prod", tarEntry{name: "env/prod/values.yaml", body: "p"}); err != nil || string(got) != "p" {
		t.Errorf("plain: %q %v", got, err)
	}
}

// A values.yaml whose header claims a huge size, and a gzip bomb, fail
// with TooLarge after reading no more than the limit.
func TestScanArchiveBounds(t *testing.T) {
	const limit = 1 << 16

	big := writeTar(t, true, tarEntry{name: "app/values.yaml", body: strings.Repeat("a", 2*limit)})
	_, err := scanChart(t, big, "app", limit)
	wantKind(t, err, TooLarge)

	// A header claiming 1 TiB, with no data behind it.
	var raw bytes.Buffer
	zw := gzip.NewWriter(&raw)
	tw := tar.NewWriter(zw)
	_ = tw.WriteHeader(&tar.Header{Name: "app/values.yaml", Typeflag: tar.TypeReg, Size: 1 << 40, Mode: 0o644})
	_ = zw.Close()
	_, err = scanChart(t, raw.Bytes(), "app", limit)
	wantKind(t, err, TooLarge)

	// 32 MiB of zeros in a skipped entry: a gzip bomb.
	var bomb bytes.Buffer
	zw = gzip.NewWriter(&bomb)
	tw = tar.NewWriter(zw)
	const bombSize = 32 << 20
	_ = tw.WriteHeader(&tar.Header{Name: "app/blob", Typeflag: tar.TypeReg, Size: bombSize, Mode: 0o644})
	zero := make([]byte, 1<<20)
	for range bombSize / len(zero) {
		_, _ = tw.Write(zero)
	}
	_ = tw.Close()
	_ = zw.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = scanChart(t, bomb.Bytes(), "app", limit)
	runtime.ReadMemStats(&after)
	wantKind(t, err, TooLarge)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("scanning a gzip bomb allocated %d bytes", alloc)
	}
}

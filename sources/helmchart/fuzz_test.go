package helmchart

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/lab/helmrepo"
)

// FuzzIndexResolve: any index.yaml bytes and any chart name/targetRevision
// parse, resolve and list versions without panicking, and a resolved
// version is one the index lists.
func FuzzIndexResolve(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nentries:\n  app:\n  - name: app\n    version: 1.2.3\n    urls: [charts/app-1.2.3.tgz]\n  - version: 2.0.0-rc.1\n  - null\n"), "app", "1.2.*")
	f.Add([]byte(`{"apiVersion":"v1","entries":{"app":[{"version":"v1.0"},{"version":"latest"}]}}`), "app", "latest")
	f.Add([]byte("apiVersion: v1\nentries:\n  app:\n  - version: 1.10\n"), "app", "")
	f.Add([]byte("a: &a [*a, *a]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n"), "a", ">=1 <2 || ^3")
	f.Add([]byte("apiVersion: v1\nentries: {}\n"), "", "v1.0.0")
	f.Fuzz(func(t *testing.T, data []byte, chart, rev string) {
		if len(data) > 1<<16 {
			return
		}
		idx, err := parseIndex(data)
		if err != nil {
			return
		}
		e, found, err := idx.resolve(chart, rev)
		vs, _ := idx.versions(chart)
		listed, more := newestFirst(vs, maxListedVersions)
		if len(listed) > maxListedVersions || more < 0 {
			t.Fatalf("newestFirst: %d listed, %d more", len(listed), more)
		}
		if found && err == nil {
			if e == nil {
				t.Fatalf("resolved %q to no entry", rev)
			}
			ok := false
			for _, v := range vs {
				ok = ok || v == e.Version
			}
			if !ok {
				t.Fatalf("resolved %q to %q, not in %v", rev, e.Version, vs)
			}
		}
	})
}

// FuzzScanArchive: arbitrary bytes, as gzip or plain tar, never panic, and
// never yield more than the limit.
func FuzzScanArchive(f *testing.F) {
	tgz, err := helmrepo.Build(helmrepo.Chart{Name: "app", Version: "1.0.0", Values: "image:\n  tag: x\n"})
	if err != nil {
		f.Fatal(err)
	}
	plain, err := helmrepo.TarGz("", map[string][]byte{"env/values.yaml": []byte("a: 1")})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tgz, true, "app", "")
	f.Add(plain, true, "", "env")
	f.Add(tgz[:len(tgz)/2], true, "app", ".")
	f.Add([]byte("not an archive"), false, "x", "../x")
	const limit = 1 << 16
	f.Fuzz(func(t *testing.T, data []byte, gz bool, dir, p string) {
		for _, helm := range []bool{false, true} {
			rel, ok := appPath(p)
			if !ok {
				rel = ""
			}
			want := strings.TrimPrefix(rel+"/values.yaml", "/")
			match := func(n string) bool { return n == want || n == dir+"/values.yaml" }
			if helm {
				match = func(n string) bool { _, r, ok := strings.Cut(n, "/"); return ok && r == want }
			}
			a, err := scanArchive(bytes.NewReader(data), gz, match, limit, limit)
			if err != nil {
				if _, ok := err.(*Error); !ok {
					t.Fatalf("error %T is not an *Error", err)
				}
				continue
			}
			for name, b := range a.files {
				if int64(len(b)) > limit {
					t.Fatalf("%s: %d bytes kept, over the limit", name, len(b))
				}
			}
			if len(a.tops) > maxTops {
				t.Fatalf("%d tops kept", len(a.tops))
			}
			if v, err := chartValues(a, dir); err == nil && int64(len(v)) > limit {
				t.Fatal("values over the limit")
			}
			if v, err := artifactValues(a, helm, rel); err == nil && int64(len(v)) > limit {
				t.Fatal("values over the limit")
			}
		}
	})
}

// FuzzIndexPart: cutting a chart's entries out of any index text never
// panics and never answers wrong: when the cut succeeds and the whole
// index decodes, the part decodes to the same entries for the chart.
func FuzzIndexPart(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nentries:\n  app:\n  - name: app\n    version: 1.2.3\n    urls: [charts/app-1.2.3.tgz]\n  other:\n  - name: other\n    version: 1.0.0\n"), "app")
	f.Add([]byte("apiVersion: v1\nentries:\n  \"app\": # c\n    - name: app\n      version: 1.0.0\n  'b':\n  - version: 2\ngenerated: x\n"), "app")
	f.Add([]byte("apiVersion: v1\r\nentries:\r\n  app:\r\n  - version: |\r\n      1.0.0\r\n"), "app")
	f.Add([]byte("---\napiVersion: v1\nentries: {app: [{version: 1.0.0}]}\n"), "app")
	f.Add([]byte("apiVersion: v1\nentries:\n    app:\n    - version: 1\n  x: 1\n"), "app")
	f.Add([]byte("apiVersion: v1\nentries:\n  app: &a\n  - version: 1\n  b: *a\n"), "b")
	f.Fuzz(func(t *testing.T, data []byte, chart string) {
		if len(data) > 1<<16 {
			return
		}
		part, err := indexPart(data, chart)
		if err != nil {
			return
		}
		if len(part) > len(data)+len("entries:\n") {
			t.Fatalf("part of %d bytes from %d", len(part), len(data))
		}
		whole, err := parseIndex(data)
		if err != nil {
			return
		}
		cut, err := parseIndex(part)
		if err != nil {
			return // refused, not answered wrong (Values reports it)
		}
		if a, b := fmt.Sprint(entryList(whole, chart)), fmt.Sprint(entryList(cut, chart)); a != b {
			t.Fatalf("chart %q: whole %s, part %s\npart:\n%s", chart, a, b, part)
		}
	})
}

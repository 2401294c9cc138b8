package helmchart

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/internal/heapwatch"
	"github.com/imgupd/imgupd/lab/helmrepo"
)

// fillerIndex is a block-YAML index.yaml of about size bytes, as `helm repo
// index` writes it, with chart at version 1.2.3 (archive url) in the
// middle of charts that are not asked for.
func fillerIndex(size int, chart, url string) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nentries:\n")
	entry := func(name, version, u string) {
		fmt.Fprintf(&b, "  - apiVersion: v2\n    appVersion: v%s\n    created: \"2026-01-01T00:00:00Z\"\n    description: A chart\n"+
			"    digest: 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n    name: %s\n    urls:\n    - %s\n    version: %s\n",
			version, name, u, version)
	}
	for c := 0; b.Len() < size; c++ {
		if c == 40 {
			fmt.Fprintf(&b, "  %q: # the chart asked for\n", chart)
			entry(chart, "1.2.3", url)
			entry(chart, "1.2.2", url)
		}
		fmt.Fprintf(&b, "  filler%d:\n", c)
		for v := range 200 {
			entry(fmt.Sprintf("filler%d", c), fmt.Sprintf("1.%d.0", v), fmt.Sprintf("charts/filler%d-1.%d.0.tgz", c, v))
		}
	}
	b.WriteString("generated: \"2026-01-01T00:00:00Z\"\n")
	return []byte(b.String())
}

// TestReadsStopAtTheBound: a Helm repository whose index.yaml or chart
// archive never ends is read up to the byte bound with bounded memory, and
// the failure is TooLarge. Not parallel: the heap is the process's.
func TestReadsStopAtTheBound(t *testing.T) {
	for _, tc := range []struct {
		name, path, op string
	}{
		{"endless index.yaml", "index", "index"},
		{"endless chart archive", "archive", "download"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startRepo(t)
			addCharts(t, s, "app", "1.0.0")
			if tc.path == "index" {
				s.Handle("/index.yaml", helmrepo.EndlessIndex{})
			} else {
				s.Handle(s.ArchivePath("app", "1.0.0"), helmrepo.EndlessArchive{})
			}
			var err error
			grew := heapwatch.Measure(func() {
				_, err = values(t, Source{RepoURL: s.RepoURL, Chart: "app", TargetRevision: "1.0.0"}, Auth{})
			})
			e := wantKind(t, err, TooLarge)
			if e.Op != tc.op || e.Limit != DefaultMaxBytes {
				t.Errorf("op %s limit %d, want %s %d", e.Op, e.Limit, tc.op, DefaultMaxBytes)
			}
			if grew.Peak > 4*DefaultMaxBytes {
				t.Errorf("the heap grew by %.0f MiB, more than 4× the %d MiB bound", grew.MiB(), DefaultMaxBytes>>20)
			}
			t.Logf("%s: heap +%.1f MiB: %v\nhint: %s", tc.name, grew.MiB(), e, adviceFor(e))
			if h := adviceFor(e); !strings.Contains(h, "helm-registry-max-index-size") {
				t.Errorf("hint %q", h)
			}
		})
	}
}

// TestLargeIndexIsReadInPart: an index.yaml of 48 MiB (within the byte
// bound) resolves the chart asked for, and decoding it does not take the
// 18-fold memory a whole YAML decode takes (a 30 MiB index took 550 MiB).
func TestLargeIndexIsReadInPart(t *testing.T) {
	s := startRepo(t)
	addCharts(t, s, "web", "1.2.3")
	s.SetIndex(fillerIndex(48<<20, "web", "charts/web-1.2.3.tgz"))
	var (
		ch  *Chart
		err error
	)
	grew := heapwatch.Measure(func() {
		ch, err = values(t, Source{RepoURL: s.RepoURL, Chart: "web", TargetRevision: "1.2.*"}, Auth{})
	})
	if err != nil {
		t.Fatal(err)
	}
	wantValues(t, ch, "1.2.3")
	if grew.Peak > 4*DefaultMaxBytes {
		t.Errorf("the heap grew by %.0f MiB reading a 48 MiB index, more than 4× the %d MiB bound", grew.MiB(), DefaultMaxBytes>>20)
	}
	t.Logf("48 MiB index: heap +%.0f MiB", grew.MiB())
}

// TestParseIndexFor: a large block index gives the same entries for the
// chart as the whole decode; forms the cut cannot read are TooLarge, never
// a wrong answer.
func TestParseIndexFor(t *testing.T) {
	t.Parallel()
	big := fillerIndex(maxParseBytes+(1<<20), "web", "https://charts.example.com/web-1.2.3.tgz")
	whole, err := parseIndex(big)
	if err != nil {
		t.Fatal(err)
	}
	part, err := parseIndexFor(big, "web")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(entryList(whole, "web")) != fmt.Sprint(entryList(part, "web")) || len(part.Entries) != 1 {
		t.Fatalf("part %v (%d charts), whole %v", entryList(part, "web"), len(part.Entries), entryList(whole, "web"))
	}
	if p, err := parseIndexFor(big, "filler3"); err != nil || len(p.Entries["filler3"]) != 200 {
		t.Fatalf("filler3: %v", err)
	}
	if p, err := parseIndexFor(big, "nope"); err != nil || len(p.Entries) != 0 {
		t.Fatalf("missing chart: %v, %v", p, err)
	}
	crlf := []byte(strings.ReplaceAll(string(big), "\n", "\r\n"))
	if p, err := parseIndexFor(crlf, "web"); err != nil || fmt.Sprint(entryList(p, "web")) != fmt.Sprint(entryList(whole, "web")) {
		t.Fatalf("CRLF: %v", err)
	}

	pad := strings.Repeat("# padding\n", maxParseBytes/10+1)
	for name, in := range map[string]string{
		"flow entries":      "apiVersion: v1\nentries: {web: [{name: web, version: 1.0.0, urls: [a.tgz]}]}\n" + pad,
		"a list at the top": "- apiVersion: v1\n" + pad,
		"dedented entry":    "apiVersion: v1\nentries:\n    web:\n    - name: web\n  x: 1\n" + pad,
		"chart too large":   "apiVersion: v1\nentries:\n  web:\n" + strings.Repeat("  - {name: web, version: 1.0.0, urls: [a.tgz]}\n", maxParseBytes/45),
	} {
		_, err := parseIndexFor([]byte(in), "web")
		var tl *tooLargeError
		if !errors.As(err, &tl) {
			t.Errorf("%s: %v, want a tooLargeError", name, err)
		}
	}
}

func entryList(idx *repoIndex, chart string) []string {
	var out []string
	for _, e := range idx.Entries[chart] {
		out = append(out, e.Name+"@"+e.Version+"="+strings.Join(e.URLs, ","))
	}
	return out
}

func TestYAMLKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`web:`:                  "web||true",
		`web: # comment`:        "web||true",
		`apiVersion: v1`:        "apiVersion|v1|true",
		`"web": `:               "web||true",
		`'my chart':`:           "my chart||true",
		`"a: b": x`:             "a: b|x|true",
		`entries: {}`:           "entries|{}|true",
		`- name: web`:           "||false",
		`{web: 1}`:              "||false",
		`just a scalar`:         "||false",
		`"unterminated: x`:      "||false",
		`"quoted" but no colon`: "||false",
	} {
		k, v, ok := yamlKey([]byte(in))
		if got := fmt.Sprintf("%s|%s|%t", k, v, ok); got != want {
			t.Errorf("yamlKey(%q) = %s, want %s", in, got, want)
		}
	}
}

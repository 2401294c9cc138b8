package forge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/internal/bounded"
	"github.com/imgupd/imgupd/internal/errtext"
	"github.com/imgupd/imgupd/model/advice"
)

func TestGlobMatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"main", "main", true},
		{"main", "main2", false},
		{"main", "xmain", false},
		{"*", "anything/at/all", true},
		{"release*", "release/1.0", true},
		{"release/*", "release/1.0/hotfix", true},
		{"release/*", "release", false},
		{"*/main", "team/main", true},
		{"*-prod", "eu-prod", true},
		{"*-prod", "eu-prod-2", false},
		{"v?", "v1", true},
		{"v?", "v10", false},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "aXbY", false},
		{"", "", true},
		{"", "main", false},
		{strings.Repeat("*a", 30) + "b", strings.Repeat("a", 60), false}, // no exponential backtracking
	} {
		if got := globMatch(tc.pattern, tc.name); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %t, want %t", tc.pattern, tc.name, got, tc.want)
		}
	}
}

func TestKindNames(t *testing.T) {
	t.Parallel()
	for _, k := range Kinds() {
		if k == "" || (phrase(k) == "failed" && k != Other) {
			t.Errorf("kind %q has no name or phrase", k)
		}
		e := &Error{Kind: k, Forge: GitHub, Repo: "acme/web", Branch: "main"}
		if adviceFor(e) == "" {
			t.Errorf("%s: no hint", k)
		}
	}
	for v := VerdictUnknown; v <= PushRejectedUnlessExempt; v++ {
		if strings.HasPrefix(v.String(), "Verdict(") {
			t.Errorf("verdict %d has no name", int(v))
		}
	}
	if b, _ := json.Marshal(struct{ K Kind }{Forbidden}); string(b) != `{"K":"Forbidden"}` {
		t.Errorf("JSON %s", b)
	}
}

func TestErrorPrintsOneScrubbedLine(t *testing.T) {
	t.Parallel()
	inner := errors.New("raw SECRET-abc inner")
	e := &Error{Kind: Unauthorized, Forge: GitLab, Op: "get branch", Method: "GET", URL: "https://gl/api/v4/projects/g%2Fp",
		Repo: "g/p", Status: 401, Err: inner, detail: errtext.OneLine("bad\ntoken SECRET-abc\t echoed")}
	e.scrub([]string{"SECRET-abc"})
	want := "GitLab get branch GET https://gl/api/v4/projects/g%2Fp: credentials refused (HTTP 401): bad token [redacted] echoed"
	for _, s := range []string{e.Error(), fmt.Sprint(e), fmt.Sprintf("%+v", e), fmt.Sprintf("%v", *e), fmt.Sprintf("%+v", *e)} {
		if s != want {
			t.Errorf("printed %q, want %q", s, want)
		}
	}
	if s := fmt.Sprintf("%#v", e); s != "forge.Error{"+want+"}" {
		t.Errorf("%%#v = %q", s)
	}
	b, err := json.Marshal(e)
	if err != nil || strings.Contains(string(b), "SECRET") || !strings.Contains(string(b), `"message":"GitLab get branch`) ||
		!strings.Contains(string(b), `"kind":"Unauthorized"`) || strings.Contains(string(b), `"hint":`) {
		// The failure is facts; its advice is the engine's (package advice).
		t.Errorf("JSON %s, %v", b, err)
	}
	if h := adviceFor(e); h == "" || strings.Contains(h, "SECRET") {
		t.Errorf("advice %q", h)
	}
	if !errors.Is(e, inner) {
		t.Error("Unwrap lost the cause")
	}
}

func TestBoundedBody(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body string
		max  int64
		err  error
	}{
		{"12345", 5, nil},
		{"123456", 5, errTooLarge},
		{"", 5, nil},
	} {
		b := bounded.ReadCloser(nopCloser{strings.NewReader(tc.body)}, tc.max, errTooLarge)
		var got []byte
		buf := make([]byte, 2)
		var err error
		for {
			var n int
			n, err = b.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				break
			}
		}
		if tc.err == nil && (err.Error() != "EOF" || string(got) != tc.body) {
			t.Errorf("%q: got %q, %v", tc.body, got, err)
		}
		if tc.err != nil && !errors.Is(err, tc.err) {
			t.Errorf("%q: err %v, want %v", tc.body, err, tc.err)
		}
	}
}

type nopCloser struct{ *strings.Reader }

func (nopCloser) Close() error { return nil }

// adviceFor is the engine's advice for e, from the facts e reports.
func adviceFor(e *Error) string { return advice.ForForge(e.Facts()) }

package helmchart

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/lab/helmrepo"
	labregistry "github.com/imgupd/imgupd/lab/registry"
	"github.com/imgupd/imgupd/model/advice"
	"github.com/imgupd/imgupd/model/updater"
)

// Canary credentials: distinctive values that must never show up in any
// error text, hint, %v/%+v/%#v form or JSON.
const (
	canaryUser  = "canary-user"
	canaryPass  = "Cnry-PW-q7Zx81Lm"
	canaryWrong = "Cnry-WRONG-v3Kp02"
	canaryKey   = "Cnry-KEY-m4Tt55"
)

var canaries = []string{canaryPass, canaryWrong, canaryKey}

func goodAuth() Auth { return Auth{Username: canaryUser, Password: updater.Secret(canaryPass)} }

func wrongAuth() Auth { return Auth{Username: canaryUser, Password: updater.Secret(canaryWrong)} }

func startRepo(t *testing.T, opts ...helmrepo.Option) *helmrepo.Server {
	t.Helper()
	s, err := helmrepo.Start(opts...)
	if err != nil {
		t.Fatalf("helmrepo.Start: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

func startRegistry(t *testing.T, opts ...labregistry.Option) *labregistry.Server {
	t.Helper()
	s, err := labregistry.Start(opts...)
	if err != nil {
		t.Fatalf("labregistry.Start: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// chart is a lab chart whose values name its version, so a test can tell
// which version was read.
func chart(name, version string) helmrepo.Chart {
	return helmrepo.Chart{Name: name, Version: version, AppVersion: "v" + version, Values: valuesOf(version)}
}

func valuesOf(version string) string {
	return "image:\n  repository: example/app\n  tag: \"" + version + "\"\n"
}

func addCharts(t *testing.T, s *helmrepo.Server, name string, versions ...string) {
	t.Helper()
	for _, v := range versions {
		if err := s.AddChart(chart(name, v)); err != nil {
			t.Fatal(err)
		}
	}
}

func pushCharts(t *testing.T, r *labregistry.Server, base, name string, versions ...string) {
	t.Helper()
	for _, v := range versions {
		tgz, err := helmrepo.Build(chart(name, v))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.PushChart(context.Background(), base, tgz); err != nil {
			t.Fatal(err)
		}
	}
}

// values runs one Values call with a fresh client, checks the canaries on
// whatever came back, and returns it.
func values(t *testing.T, src Source, auth Auth, opts ...Option) (*Chart, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a net for a hang, not a timing
	defer cancel()
	ch, err := New(opts...).Values(ctx, src, auth)
	noCanaries(t, ch, err, src, auth)
	return ch, err
}

func mustValues(t *testing.T, src Source, auth Auth, opts ...Option) *Chart {
	t.Helper()
	ch, err := values(t, src, auth, opts...)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			t.Fatalf("Values: %v\nhint: %s", err, adviceFor(e))
		}
		t.Fatalf("Values: %v", err)
	}
	return ch
}

// wantKind asserts err is an *Error of kind k and returns it.
func wantKind(t *testing.T, err error, k ErrorKind) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *Error of kind %s", err, err, k)
	}
	if e.Kind != k {
		t.Fatalf("kind = %s, want %s; err: %v; hint: %s", e.Kind, k, e, adviceFor(e))
	}
	if !errors.Is(err, &Error{Kind: k}) {
		t.Errorf("errors.Is(err, &Error{Kind: %s}) = false", k)
	}
	if h := adviceFor(e); h == "" || strings.Contains(h, "\n") {
		t.Errorf("hint %q: want one non-empty line", h)
	}
	return e
}

func wantValues(t *testing.T, ch *Chart, version string) {
	t.Helper()
	if ch.Version != version || string(ch.Values) != valuesOf(version) {
		t.Fatalf("chart %s %s values %q, want version %s", ch.Name, ch.Version, ch.Values, version)
	}
}

func wantContains(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%q does not contain %q", s, sub)
		}
	}
}

// noCanaries renders everything a caller could print or serialise and
// fails on any canary in it.
func noCanaries(t *testing.T, vals ...any) {
	t.Helper()
	var texts []string
	for _, v := range vals {
		if v == nil {
			continue
		}
		if c, ok := v.(*Chart); ok && c == nil {
			continue
		}
		texts = append(texts, fmt.Sprintf("%v", v), fmt.Sprintf("%+v", v), fmt.Sprintf("%#v", v), fmt.Sprintf("%s", v))
		if b, err := json.Marshal(v); err == nil {
			texts = append(texts, string(b))
		}
		if err, ok := v.(error); ok {
			texts = append(texts, err.Error())
			var e *Error
			if errors.As(err, &e) {
				texts = append(texts, adviceFor(e), e.GoString())
				if b, err := json.Marshal(e); err == nil {
					texts = append(texts, string(b))
				}
			}
		}
	}
	for _, s := range texts {
		for _, c := range canaries {
			if strings.Contains(s, c) {
				t.Fatalf("a secret leaked: %q", s)
			}
		}
	}
}

// adviceFor is the engine's advice for e, from the facts e reports.
func adviceFor(e *Error) string { return advice.ForChart(e.Facts()) }

package secret_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/internal/secret"
)

const canary = "xoxb-CANARY-7f3a9"

type holder[M secret.Mask] struct {
	Name  string
	Token secret.Secret[M]
	Ptr   *secret.Secret[M]
	List  []secret.Secret[M]
	Map   map[string]secret.Secret[M]
}

func leaks(t *testing.T, what, out string) {
	t.Helper()
	for _, form := range []string{canary, fmt.Sprintf("%x", canary), fmt.Sprintf("%X", canary), "CANARY"} {
		if strings.Contains(out, form) {
			t.Errorf("%s shows the value: %s", what, out)
		}
	}
}

func check[M secret.Mask](t *testing.T, mask string) {
	s := secret.Secret[M](canary)
	h := holder[M]{Name: "n", Token: s, Ptr: &s, List: []secret.Secret[M]{s}, Map: map[string]secret.Secret[M]{"k": s}}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "% x", "%d", "%10s", "%-8v", "%.3s", "%U", "%c", "%e", "%b", "%o"} {
		out := fmt.Sprintf(verb, s)
		leaks(t, verb, out)
		if !strings.Contains(out, mask) {
			t.Errorf("%s = %q, want the mask %q", verb, out, mask)
		}
		leaks(t, verb+" of a struct", fmt.Sprintf(verb, h))
		leaks(t, verb+" of a pointer to a struct", fmt.Sprintf(verb, &h))
	}
	leaks(t, "Sprint", fmt.Sprint(s, h, &h))
	leaks(t, "Sprintln", fmt.Sprintln(s, h))
	leaks(t, "String", s.String())
	leaks(t, "GoString", s.GoString())
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	leaks(t, "json", string(b))
	if !strings.Contains(string(b), `"Token":"`+mask+`"`) {
		t.Errorf("json = %s, want the mask", b)
	}
	for _, newHandler := range []func(*bytes.Buffer) slog.Handler{
		func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
		func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
	} {
		var logs bytes.Buffer
		slog.New(newHandler(&logs)).Info("x", "token", s, "holder", h, slog.Any("ptr", &h))
		leaks(t, "slog", logs.String())
	}
	if s.Reveal() != canary {
		t.Errorf("Reveal = %q, want the value", s.Reveal())
	}
	if s.IsEmpty() || !secret.Secret[M]("").IsEmpty() {
		t.Error("IsEmpty")
	}
}

// TestMasked: a canary value never shows, under any verb, in JSON, text or
// slog, alone or inside a struct, a pointer, a slice or a map.
func TestMasked(t *testing.T) {
	t.Parallel()
	t.Run("stars", func(t *testing.T) { check[secret.Stars](t, "***") })
	t.Run("redacted", func(t *testing.T) { check[secret.Redacted](t, "[redacted]") })
}

func TestForms(t *testing.T) {
	t.Parallel()
	s := secret.Secret[secret.Redacted]("v")
	for verb, want := range map[string]string{"%v": "[redacted]", "%s": "[redacted]", "%q": `"[redacted]"`,
		"%#v": `"[redacted]"`, "%d": "[redacted]"} {
		if got := fmt.Sprintf(verb, s); got != want {
			t.Errorf("%s = %s, want %s", verb, got, want)
		}
	}
	if got := fmt.Sprintf("%T", s); !strings.Contains(got, "secret.Secret") {
		t.Errorf("%%T = %s", got)
	}
}

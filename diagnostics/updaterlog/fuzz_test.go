package updaterlog

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/imgupd/imgupd/diagnostics/updater"
)

func addLogSeeds(f *testing.F) {
	for _, c := range classifyCases {
		f.Add(textLine(c.level, c.msg, c.fields))
		f.Add(jsonLine(c.level, c.msg, c.fields))
	}
	f.Add(v13Log)
	f.Add("panic: x\n\n\tgoroutine 1\n")
	f.Add("INFO[0000] " + strings.Repeat("a", 50) + " k=v errors=1")
	f.Add("E1129 10:00:00.000000 1 a.go:1] x")
	f.Add(`level=info msg="unterminated`)
	f.Add("level=info msg=\"\\xff\\u12\"")
	f.Add("\r\n\r\r\n")
}

// FuzzParse: Parse, Classify, Analyze and Redacted never panic, and every
// line stays within the memory bound and is valid UTF-8.
func FuzzParse(f *testing.F) {
	addLogSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		lines := ParseString(s)
		for _, l := range lines {
			if len(l.Raw) > MaxLineBytes {
				t.Fatalf("line %d longer than the cap: %d", l.Number, len(l.Raw))
			}
			if !utf8.ValidString(l.Raw) {
				t.Fatalf("invalid UTF-8 kept in line %d", l.Number)
			}
			if l.Level != "" && NormalizeLevel(l.Level) != l.Level {
				t.Fatalf("level %q not normalised", l.Level)
			}
			_, _ = Classify(l)
			_ = l.Redacted()
		}
		_ = Analyze(lines, AppRef{Namespace: "argocd", Name: "web"}, updater.V1_3)
		_ = Analyze(lines, AppRef{Name: "web"}, updater.V0_18)
	})
}

// FuzzRedact: Redact never panics and is idempotent.
func FuzzRedact(f *testing.F) {
	addLogSeeds(f)
	for _, s := range []string{
		"https://u:p@h/x", "Authorization: Bearer abc", "password=x", `"token":"y"`, "Bearer  ",
		"-----BEGIN RSA PRIVATE KEY-----", "Invalid credential reference specified: a:b", "authorization=token=x",
		`pwd=\"a\"`, "a://b@c://d:e@f", "ghp_" + strings.Repeat("a", 30),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := Redact(s)
		if twice := Redact(once); twice != once {
			t.Fatalf("not idempotent:\n in %q\n 1x %q\n 2x %q", s, once, twice)
		}
	})
}

package updaterlog

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/imgupd/imgupd/model/updater"
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

// canaryForms are the ways a secret appears in log text; %[1]s is the
// canary, %[2]s a filler word.
var canaryForms = []string{
	`password=%[1]s`,
	`password: %[1]s`,
	`password: %[2]s %[1]s`,
	`msg="password: %[2]s %[1]s" user=bot`,
	`"password":"%[1]s"`,
	`{"auths":{"ghcr.io":{"password":"%[1]s"}}}`,
	`secret=%[1]s`,
	`secret: %[2]s %[1]s`,
	`pw=%[1]s`,
	`pass=%[1]s`,
	`token=%[1]s`,
	`docker login -u %[2]s -p %[1]s`,
	`--password %[1]s`,
	`--token=%[1]s`,
	`Authorization: Bearer %[1]s`,
	`Authorization: Basic %[1]s`,
	`https://%[2]s:%[1]s@git.acme.io/x.git`,
	`https://u:p@%[1]s@host/x`,
	`https://u:%[2]s/%[1]s@host/x`,
	`ssh://%[1]s@git.acme.io/x.git`,
	"-----BEGIN RSA PRIVATE KEY-----\n%[1]s\n-----END RSA PRIVATE KEY-----",
	`Invalid credential reference specified: %[2]s:%[1]s`,
}

// FuzzRedactCanary: a canary in any of the forms a secret takes never
// survives Redact, whatever text surrounds it (separated by a space), and
// Redact stays idempotent on it.
func FuzzRedactCanary(f *testing.F) {
	for i := range canaryForms {
		f.Add(uint8(i), "", "", "word")
		f.Add(uint8(i), `time="2026-11-29T10:00:00Z" level=error msg="`, `" application=argocd/web`, "a-b.c")
	}
	f.Add(uint8(2), `password="`, ``, "x")
	f.Add(uint8(16), `a://`, `@x`, "bot")
	f.Fuzz(func(t *testing.T, form uint8, prefix, suffix, filler string) {
		const canary = "Cnry4Rdct9Zq"
		if strings.Contains(prefix+suffix, canary[:4]) || len(prefix)+len(suffix) > 4096 {
			return
		}
		filler = strings.Map(func(r rune) rune {
			if r < 128 && (r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return r
			}
			return -1
		}, filler)
		if filler == "" || filler[0] == '-' || len(filler) > 32 {
			filler = "word"
		}
		in := prefix + " " + fmt.Sprintf(canaryForms[int(form)%len(canaryForms)], canary, filler) + " " + suffix
		out := Redact(in)
		if strings.Contains(out, canary) {
			t.Fatalf("the canary survived:\n in %q\nout %q", in, out)
		}
		if Redact(out) != out {
			t.Fatalf("not idempotent on %q", out)
		}
	})
}

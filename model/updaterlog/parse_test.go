package updaterlog

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseText(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		level  string
		msg    string
		time   string
		fields map[string]string
	}{
		{
			name:  "fields in logrus order",
			raw:   `time="2026-11-29T10:00:00Z" level=info msg="Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=1" imageUpdater_name=demo imageUpdater_namespace=argocd`,
			level: LevelInfo, msg: "Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=1",
			time:   "2026-11-29T10:00:00Z",
			fields: map[string]string{"imageUpdater_name": "demo", "imageUpdater_namespace": "argocd"},
		},
		{
			name:  "keys in any order, escapes",
			raw:   `application=argocd/web msg="Could not get tags from registry: Get \"https://r.io/v2/a/tags/list\": denied\ttab" level=error time="2026-11-29T10:00:01.5+01:00" image_name=r.io/a`,
			level: LevelError, msg: "Could not get tags from registry: Get \"https://r.io/v2/a/tags/list\": denied\ttab",
			time:   "2026-11-29T09:00:01.5Z",
			fields: map[string]string{"application": "argocd/web", "image_name": "r.io/a"},
		},
		{
			name:  "no time, warn spelling, unquoted msg",
			raw:   `level=warn msg=hello empty= x="a b"`,
			level: LevelWarning, msg: "hello",
			fields: map[string]string{"empty": "", "x": "a b"},
		},
		{
			name:  "panic level maps to fatal",
			raw:   `time="2026-11-29T10:00:00Z" level=panic msg=boom`,
			level: LevelFatal, msg: "boom", time: "2026-11-29T10:00:00Z",
		},
		{
			name:  "kubectl --prefix --timestamps",
			raw:   `[pod/argocd-image-updater-5d9f/argocd-image-updater] 2026-11-29T10:00:02.123456789Z level=info msg="No CRs found in run-once mode"`,
			level: LevelInfo, msg: "No CRs found in run-once mode", time: "2026-11-29T10:00:02.123456789Z",
		},
		{
			name:  "logrus terminal format with colours",
			raw:   "\x1b[36mINFO\x1b[0m[2026-11-29T10:00:00Z] Starting image update cycle, considering 1 application(s) for update  \x1b[36mimageUpdater_name\x1b[0m=demo \x1b[36mimageUpdater_namespace\x1b[0m=argocd",
			level: LevelInfo, msg: "Starting image update cycle, considering 1 application(s) for update", time: "2026-11-29T10:00:00Z",
			fields: map[string]string{"imageUpdater_name": "demo", "imageUpdater_namespace": "argocd"},
		},
		{
			name:  "terminal format keeps key=value inside the message",
			raw:   "INFO[0003] Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=0  imageUpdater_name=demo",
			level: LevelInfo, msg: "Processing results: applications=1 images_considered=1 images_skipped=0 images_updated=0 errors=0",
			fields: map[string]string{"imageUpdater_name": "demo"},
		},
		{
			name:  "terminal format, short padded message",
			raw:   "DEBU[0003] Considering this image for update             application=argocd/web image_name=ghcr.io/acme/web",
			level: LevelDebug, msg: "Considering this image for update",
			fields: map[string]string{"application": "argocd/web", "image_name": "ghcr.io/acme/web"},
		},
		{
			name:  "CRI log file line",
			raw:   `2026-11-29T10:00:03.000000001Z stderr F level=error msg="Could not get tags from registry: denied" application=argocd/web`,
			level: LevelError, msg: "Could not get tags from registry: denied", time: "2026-11-29T10:00:03.000000001Z",
			fields: map[string]string{"application": "argocd/web"},
		},
		{
			name:  "logrus terminal format without timestamp",
			raw:   "WARN no tags found for image ghcr.io/acme/web in registry",
			level: LevelWarning, msg: "no tags found for image ghcr.io/acme/web in registry",
		},
		{
			name:  "zap JSON with epoch ts",
			raw:   `{"level":"error","ts":1795946400.5,"logger":"controller-runtime","msg":"Reconciler error","error":"boom","count":3}`,
			level: LevelError, msg: "Reconciler error", time: "2026-11-29T10:00:00.5Z",
			fields: map[string]string{"logger": "controller-runtime", "error": "boom", "count": "3"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := ParseString(tt.raw)
			if len(lines) != 1 {
				t.Fatalf("got %d lines", len(lines))
			}
			l := lines[0]
			if !l.Parsed || l.Level != tt.level || l.Msg != tt.msg {
				t.Fatalf("got parsed=%v level=%q msg=%q", l.Parsed, l.Level, l.Msg)
			}
			if l.Raw != tt.raw || l.Number != 1 {
				t.Errorf("raw/number not kept: %d %q", l.Number, l.Raw)
			}
			var want time.Time
			if tt.time != "" {
				want, _ = time.Parse(time.RFC3339Nano, tt.time)
			}
			if !l.Time.Equal(want) {
				t.Errorf("time = %v, want %v", l.Time, want)
			}
			for k, v := range tt.fields {
				if got, ok := l.Fields[k]; !ok || got != v {
					t.Errorf("field %s = %q, want %q", k, got, v)
				}
			}
			for _, k := range []string{"level", "msg", "time"} {
				if _, ok := l.Fields[k]; ok {
					t.Errorf("field %s kept", k)
				}
			}
		})
	}
}

func TestParseUnparsed(t *testing.T) {
	tests := []struct {
		raw    string
		format string
		level  string
	}{
		{`E1129 10:00:00.123456       1 reflector.go:158] "Unhandled Error" err="failed to list *v1alpha1.Application: applications.argoproj.io is forbidden"`, FormatKlog, LevelError},
		{`W1129 10:00:00.123456       1 warnings.go:70] metadata.finalizers: deprecated`, FormatKlog, LevelWarning},
		{"2026-11-29T10:00:00Z\tINFO\tStarting EventSource\t{\"controller\": \"imageupdater\"}", FormatZap, LevelInfo},
		{"just some garbage", FormatUnknown, ""},
		{"INFORMATION only", FormatUnknown, ""},
		{`level=info but no message key`, FormatUnknown, ""},
		{`{"not":"a log line"}`, FormatUnknown, ""},
		{`{broken json`, FormatUnknown, ""},
		{`time="2026-11-29T10:00:00Z" level=info msg="x"y`, FormatUnknown, ""},
	}
	for _, tt := range tests {
		lines := ParseString(tt.raw)
		if len(lines) != 1 {
			t.Fatalf("%q: %d lines", tt.raw, len(lines))
		}
		l := lines[0]
		if l.Parsed || l.Format != tt.format || l.Level != tt.level || l.Raw != tt.raw {
			t.Errorf("%q: parsed=%v format=%q level=%q", tt.raw, l.Parsed, l.Format, l.Level)
		}
	}
}

func TestParsePanicBlock(t *testing.T) {
	log := strings.Join([]string{
		`time="2026-11-29T10:00:00Z" level=info msg="Starting image update cycle, considering 1 application(s) for update"`,
		`panic: runtime error: invalid memory address or nil pointer dereference`,
		`[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1a2b3c]`,
		``,
		`goroutine 123 [running]:`,
		`github.com/argoproj-labs/argocd-image-updater/pkg/argocd.(*argoCD).UpdateSpec(0x0, {0x2, 0x3})`,
		"\t/src/pkg/argocd/argocd.go:321 +0x1c",
		`created by github.com/argoproj-labs/argocd-image-updater/internal/controller.(*Reconciler).Reconcile in goroutine 1`,
		"\t/src/internal/controller/reconcile.go:88 +0x2f4",
		`time="2026-11-29T10:02:00Z" level=info msg="argocd-image-updater v1.3.0 starting [loglevel:INFO, interval:2m0s, healthport:8080]"`,
	}, "\n")
	lines := ParseString(log)
	if len(lines) != 3 {
		for _, l := range lines {
			t.Logf("%d %s %q", l.Number, l.Format, l.Raw)
		}
		t.Fatalf("got %d lines, want 3", len(lines))
	}
	p := lines[1]
	if p.Format != FormatPanic || p.Level != LevelFatal || p.Number != 2 || p.Parsed {
		t.Fatalf("panic line: %+v", p)
	}
	if !strings.Contains(p.Raw, "reconcile.go:88") || !strings.HasPrefix(p.Raw, "panic: ") {
		t.Errorf("stack trace not kept: %q", p.Raw)
	}
	if m, ok := Classify(p); !ok || m.Code != CodePanic {
		t.Errorf("panic not classified: %v", m)
	}
	if lines[2].Number != 10 || !lines[2].Parsed {
		t.Errorf("line after panic: %+v", lines[2])
	}
}

func TestParseCRLFAndBOM(t *testing.T) {
	log := "\ufefftime=\"2026-11-29T10:00:00Z\" level=info msg=a x=1\r\n" +
		"{\"level\":\"debug\",\"msg\":\"b\",\"time\":\"2026-11-29T10:00:01Z\"}\r\n\r\nlevel=info msg=c"
	lines := ParseString(log)
	if len(lines) != 4 {
		t.Fatalf("got %d lines", len(lines))
	}
	if lines[0].Msg != "a" || lines[0].Fields["x"] != "1" || strings.HasSuffix(lines[0].Raw, "\r") {
		t.Errorf("line 1: %+v", lines[0])
	}
	if lines[1].Msg != "b" || lines[1].Level != LevelDebug {
		t.Errorf("line 2: %+v", lines[1])
	}
	if lines[2].Raw != "" || lines[2].Parsed {
		t.Errorf("empty line: %+v", lines[2])
	}
	if lines[3].Msg != "c" || lines[3].Number != 4 {
		t.Errorf("last line without newline: %+v", lines[3])
	}
}

func TestParseLongLine(t *testing.T) {
	long := `time="2026-11-29T10:00:00Z" level=error msg="Could not get tags from registry: ` + strings.Repeat("é", 100_000) + `"`
	lines := ParseString(long + "\nlevel=info msg=next\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines", len(lines))
	}
	l := lines[0]
	if !l.Truncated || len(l.Raw) > MaxLineBytes {
		t.Fatalf("not truncated: %d bytes", len(l.Raw))
	}
	if !strings.HasPrefix(l.Msg, "Could not get tags from registry: ") || l.Level != LevelError {
		t.Errorf("truncated line not parsed leniently: %q", l.Level)
	}
	if m, ok := Classify(l); !ok || m.Code != CodeRegistryTagsFailed {
		t.Errorf("truncated line not classified")
	}
	if lines[1].Msg != "next" || lines[1].Number != 2 || lines[1].Truncated {
		t.Errorf("line after long line: %+v", lines[1])
	}

	// A line of exactly the cap is not truncated, with LF or CRLF.
	exact := "level=info msg=" + strings.Repeat("a", MaxLineBytes-len("level=info msg="))
	for _, eol := range []string{"\n", "\r\n", ""} {
		lines := ParseString(exact + eol)
		if len(lines) != 1 || lines[0].Truncated || lines[0].Raw != exact {
			t.Errorf("exact cap with %q: truncated=%v len=%d", eol, lines[0].Truncated, len(lines[0].Raw))
		}
	}
}

func TestParseInvalidUTF8(t *testing.T) {
	lines := ParseString("level=info msg=\"a\xffb\"\n")
	if len(lines) != 1 || !strings.Contains(lines[0].Raw, "\uFFFD") {
		t.Fatalf("got %+v", lines)
	}
}

type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		r.n++
		return copy(p, "level=info msg=one\nlevel=info msg=tw"), nil
	}
	return 0, io.ErrUnexpectedEOF
}

func TestParseReadError(t *testing.T) {
	lines, err := Parse(&failingReader{})
	var re *ReadError
	if !errors.As(err, &re) || !errors.Is(err, io.ErrUnexpectedEOF) || re.Line != 2 {
		t.Fatalf("err = %v", err)
	}
	if len(lines) != 1 || lines[0].Msg != "one" {
		t.Fatalf("lines before the error: %+v", lines)
	}
}

func TestNormalizeLevel(t *testing.T) {
	for in, want := range map[string]string{
		"TRACE": LevelTrace, "debu": LevelDebug, "Info": LevelInfo, "WARN": LevelWarning, "warning": LevelWarning,
		"ERRO": LevelError, "fatal": LevelFatal, "PANI": LevelFatal, "notice": "",
	} {
		if got := NormalizeLevel(in); got != want {
			t.Errorf("NormalizeLevel(%q) = %q, want %q", in, got, want)
		}
	}
}

// Long terminal-format lines whose tail almost parses as fields must stay
// linear (bounded field-split attempts).
func TestParseTTYLongLineLinear(t *testing.T) {
	raw := "INFO[0000] " + strings.Repeat("a", 44) + strings.Repeat(" a=b", 16000) + " x"
	start := time.Now()
	lines := ParseString(raw)
	if len(lines) != 1 || !lines[0].Parsed || lines[0].Level != LevelInfo {
		t.Fatalf("got %+v", lines)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

package updaterlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/imgupd/imgupd/internal/lazyre"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxLineBytes bounds the memory kept per line: longer lines (and longer
// panic blocks) are cut to this many bytes and marked Truncated.
const MaxLineBytes = 64 * 1024

// Level values after normalisation. A line whose level cannot be read has
// Level "".
const (
	LevelTrace   = "trace"
	LevelDebug   = "debug"
	LevelInfo    = "info"
	LevelWarning = "warning"
	LevelError   = "error"
	LevelFatal   = "fatal" // also logrus "panic" and Go runtime panics
)

// Format names the shape a line was read as.
const (
	FormatLogrusText = "logrus-text" // time="..." level=info msg="..." k=v
	FormatLogrusJSON = "json"        // {"level":"info","msg":"...","time":"..."}; also other JSON loggers with "msg"
	FormatLogrusTTY  = "logrus-tty"  // INFO[0001] msg    k=v (logrus on a terminal)
	FormatKlog       = "klog"        // E1129 10:00:00.000000 1 file.go:12] msg
	FormatZap        = "zap-console" // 2026-11-29T10:00:00Z<TAB>INFO<TAB>msg<TAB>{...}
	FormatPanic      = "panic"       // panic: ... / fatal error: ... with its stack trace
	FormatUnknown    = ""
)

// Line is one log entry.
//
// Parsed is true for logrus lines (text, JSON, terminal) and JSON lines with
// a message; those have Msg and Fields filled in. Other lines keep Parsed
// false and their text in Raw; for klog, controller-runtime console and Go
// panic lines Level (and Msg, and Time where the line has a full date) are
// still filled in so that errors there are not lost. A Go panic and its stack
// trace form one Line (Level fatal, Msg its first line, Raw all of it).
// Time is the zero time when the line carries none.
type Line struct {
	Time   time.Time
	Level  string
	Msg    string
	Fields map[string]string
	Raw    string
	Parsed bool

	// Number is the 1-based number of the line's first physical line in the input.
	Number int
	// Format is one of the Format constants.
	Format string
	// Truncated is set when the line was longer than MaxLineBytes.
	Truncated bool
}

// Field returns the named field, or "".
func (l Line) Field(key string) string { return l.Fields[key] }

// ReadError is returned by Parse when the reader fails; the lines read before
// the failure are returned with it.
type ReadError struct {
	Line int // number of the physical line that could not be read
	Err  error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("updaterlog: reading line %d: %v", e.Line, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// ParseString parses a whole log held in a string. It never fails.
func ParseString(s string) []Line {
	lines, _ := Parse(strings.NewReader(s))
	return lines
}

// Parse reads a log stream line by line (LF or CRLF) and returns one Line per
// log entry, in input order. It never panics and keeps at most MaxLineBytes
// per line. The only error is a *ReadError from r; io.EOF is not an error.
func Parse(r io.Reader) ([]Line, error) {
	br := bufio.NewReaderSize(r, MaxLineBytes)
	var (
		out      []Line
		block    *Line           // open panic block
		blockRaw strings.Builder // its text so far
		n        int
	)
	flush := func() {
		if block != nil {
			block.Raw = strings.TrimRight(blockRaw.String(), "\n")
			out = append(out, *block)
			block = nil
			blockRaw.Reset()
		}
	}
	for {
		raw, truncated, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			flush()
			return out, &ReadError{Line: n + 1, Err: err}
		}
		if errors.Is(err, io.EOF) && raw == "" && !truncated {
			break
		}
		n++
		if n == 1 {
			raw = strings.TrimPrefix(raw, "\ufeff")
		}
		l := parseLine(raw)
		l.Number = n
		l.Truncated = truncated
		if block != nil && !l.Parsed && l.Format == FormatUnknown && isPanicContinuation(raw) {
			if blockRaw.Len()+len(raw)+1 <= MaxLineBytes {
				blockRaw.WriteString("\n" + raw)
			} else {
				block.Truncated = true
			}
			if errors.Is(err, io.EOF) {
				break
			}
			continue
		}
		flush()
		if l.Format == FormatPanic {
			block = &l
			blockRaw.WriteString(raw)
		} else {
			out = append(out, l)
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	flush()
	return out, nil
}

// readLine returns the next line without its line ending, cut to
// MaxLineBytes (at a rune boundary) and made valid UTF-8.
func readLine(br *bufio.Reader) (string, bool, error) {
	const keep = MaxLineBytes + 2 // room for a CRLF after a line of exactly the cap
	var (
		buf  []byte
		over bool
	)
	for {
		chunk, err := br.ReadSlice('\n')
		if take := min(len(chunk), keep-len(buf)); take > 0 {
			buf = append(buf, chunk[:take]...)
			over = over || take < len(chunk)
		} else if len(chunk) > 0 {
			over = true
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		truncated := over
		if !over {
			buf = bytes.TrimSuffix(buf, []byte("\n"))
			buf = bytes.TrimSuffix(buf, []byte("\r"))
		}
		if len(buf) > MaxLineBytes {
			buf = buf[:MaxLineBytes]
			truncated = true
		}
		s := string(buf)
		if !utf8.ValidString(s) {
			// Also repairs a rune cut in half by the cap; the replacement
			// characters may lengthen the line, so cap it again.
			s = strings.ToValidUTF8(s, "\uFFFD")
			if len(s) > MaxLineBytes {
				s = capUTF8(s, MaxLineBytes)
				truncated = true
			}
		}
		return s, truncated, err
	}
}

// capUTF8 cuts valid UTF-8 to at most n bytes at a rune boundary.
func capUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

var (
	// kubectl logs --prefix
	kubectlPrefixRE = lazyre.New(`^\[pod/[^\]\s]+\] `)
	// kubectl logs --timestamps
	kubectlTimeRE = lazyre.New(`^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) `)
	ansiRE        = lazyre.New("\x1b\\[[0-9;]*[A-Za-z]")
	// the level, then [time] or (DisableTimestamp) a space
	ttyRE = lazyre.New(`^(TRAC|DEBU|INFO|WARN|ERRO|FATA|PANI)(?:\[([^\]]*)\] ?| )(.*)$`)
	// container runtime (CRI) log files: <time> <stream> <P|F> <line>
	criRE        = lazyre.New(`^(\d{4}-\d\d-\d\dT\S+) (?:stdout|stderr) [FP] `)
	klogRE       = lazyre.New(`^([IWEF])(\d{4}) (\d\d:\d\d:\d\d\.\d+)\s+\d+ [^\]\s]+\] ?(.*)$`)
	zapRE        = lazyre.New(`^(\d{4}-\d\d-\d\d[T ]\S+)\t(DEBUG|INFO|WARN|ERROR|DPANIC|PANIC|FATAL)\t(.*)$`)
	panicStartRE = lazyre.New(`^(panic: |fatal error: )`)
	frameRE      = lazyre.New(`^[\w.\-/*()\[\]]+\(.*\)$`)
)

func parseLine(raw string) Line {
	l := Line{Raw: raw}
	body := raw
	if m := kubectlPrefixRE().FindString(body); m != "" {
		body = body[len(m):]
	}
	var prefixTime time.Time
	if m := criRE().FindStringSubmatch(body); m != nil {
		prefixTime = parseTime(m[1])
		body = body[len(m[0]):]
	} else if m := kubectlTimeRE().FindStringSubmatch(body); m != nil {
		if t, err := time.Parse(time.RFC3339Nano, m[1]); err == nil {
			prefixTime = t
			body = body[len(m[0]):]
		}
	}
	trimmed := strings.TrimSpace(body)
	switch {
	case strings.HasPrefix(trimmed, "{") && parseJSON(trimmed, &l):
	case parseText(trimmed, &l):
	case parseTTY(trimmed, &l):
	case parseKlog(trimmed, &l):
	case parseZap(trimmed, &l):
	case panicStartRE().MatchString(trimmed):
		l.Format = FormatPanic
		l.Level = LevelFatal
		l.Msg = trimmed
	}
	if l.Time.IsZero() && !prefixTime.IsZero() {
		l.Time = prefixTime
	}
	return l
}

// isPanicContinuation reports whether an unparsed line belongs to the stack
// trace of a Go panic that started above it.
func isPanicContinuation(raw string) bool {
	t := strings.TrimSpace(raw)
	switch {
	case t == "":
		return true
	case raw[0] == '\t' || raw[0] == ' ':
		return true
	case strings.HasPrefix(t, "goroutine "), strings.HasPrefix(t, "created by "),
		strings.HasPrefix(t, "[signal "), strings.HasPrefix(t, "exit status "),
		strings.HasPrefix(t, "panic: "), strings.HasPrefix(t, "runtime stack:"),
		strings.HasPrefix(t, "...additional frames elided..."):
		return true
	}
	return frameRE().MatchString(t)
}

// NormalizeLevel maps the level spellings of logrus (text, JSON, terminal),
// zap and klog to the Level constants; unknown spellings give "".
func NormalizeLevel(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "trace", "trac":
		return LevelTrace
	case "debug", "debu", "dbg":
		return LevelDebug
	case "info", "information", "inf", "i":
		return LevelInfo
	case "warn", "warning", "w":
		return LevelWarning
	case "error", "erro", "err", "e":
		return LevelError
	case "fatal", "fata", "panic", "pani", "dpanic", "crit", "critical", "f":
		return LevelFatal
	}
	return ""
}

var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999 -0700 MST",
	"2006-01-02 15:04:05.999999999 -0700",
	"2006-01-02 15:04:05.999999999",
	"2006/01/02 15:04:05.999999999",
}

// parseTime reads the timestamp layouts logrus, zap and kubectl produce;
// unknown layouts give the zero time.
func parseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// parseText reads a logrus text line: space-separated key=value pairs, values
// quoted (Go syntax) when they contain anything but [A-Za-z0-9-._/@^+], keys
// in any order. It needs at least "level" and "msg".
func parseText(s string, l *Line) bool {
	if !strings.Contains(s, "level=") || !strings.Contains(s, "msg=") {
		return false
	}
	kv, ok := splitPairs(s, true)
	if !ok {
		return false
	}
	fields := make(map[string]string, len(kv))
	for _, p := range kv {
		fields[p.k] = p.v
	}
	lvl, hasLevel := fields["level"]
	msg, hasMsg := fields["msg"]
	if !hasLevel || !hasMsg {
		return false
	}
	l.Level = NormalizeLevel(lvl)
	l.Msg = msg
	l.Time = parseTime(fields["time"])
	delete(fields, "level")
	delete(fields, "msg")
	delete(fields, "time")
	l.Fields = fields
	l.Parsed = true
	l.Format = FormatLogrusText
	return true
}

type pair struct{ k, v string }

// splitPairs reads ` key=value` pairs up to the end of s. lenient accepts an
// unterminated quoted value (a truncated line) as running to the end.
func splitPairs(s string, lenient bool) ([]pair, bool) {
	var out []pair
	i := 0
	for {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			return out, len(out) > 0
		}
		eq := -1
		for j := i; j < len(s); j++ {
			c := s[j]
			if c == '=' {
				eq = j
				break
			}
			if c == ' ' || c == '"' || c == '\t' {
				return nil, false
			}
		}
		if eq <= i {
			return nil, false
		}
		key := s[i:eq]
		i = eq + 1
		var val string
		if i < len(s) && s[i] == '"' {
			end := closingQuote(s, i)
			if end < 0 {
				if !lenient {
					return nil, false
				}
				val = unquoteLenient(s[i:])
				i = len(s)
			} else {
				val = unquoteLenient(s[i : end+1])
				i = end + 1
				if i < len(s) && s[i] != ' ' {
					return nil, false
				}
			}
		} else {
			j := i
			for j < len(s) && s[j] != ' ' {
				j++
			}
			val = s[i:j]
			i = j
		}
		out = append(out, pair{key, val})
	}
}

// closingQuote returns the index of the quote closing the one at s[start], or -1.
func closingQuote(s string, start int) int {
	for j := start + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

// unquoteLenient undoes Go quoting; broken escapes or a missing closing quote
// are tolerated rather than rejected.
func unquoteLenient(q string) string {
	if u, err := strconv.Unquote(q); err == nil {
		return u
	}
	q = strings.TrimPrefix(q, `"`)
	q = strings.TrimSuffix(q, `"`)
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		if q[i] == '\\' && i+1 < len(q) {
			i++
			switch q[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(q[i])
			}
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// parseJSON reads one JSON object with a "msg" (or "message") member: logrus
// JSON and other structured loggers. Non-string members become their JSON text.
func parseJSON(s string, l *Line) bool {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return false
	}
	msgKey := "msg"
	if _, ok := obj[msgKey]; !ok {
		msgKey = "message"
		if _, ok := obj[msgKey]; !ok {
			return false
		}
	}
	fields := make(map[string]string, len(obj))
	for k, v := range obj {
		fields[k] = jsonString(v)
	}
	l.Msg = fields[msgKey]
	l.Level = NormalizeLevel(fields["level"])
	if t := fields["time"]; t != "" {
		l.Time = parseTime(t)
	} else if ts := fields["ts"]; ts != "" {
		if f, err := strconv.ParseFloat(ts, 64); err == nil && f > 0 && f < 1e11 {
			sec := int64(f)
			l.Time = time.Unix(sec, int64((f-float64(sec))*1e9)).UTC()
		} else {
			l.Time = parseTime(ts)
		}
		delete(fields, "ts")
	}
	delete(fields, msgKey)
	delete(fields, "level")
	delete(fields, "time")
	l.Fields = fields
	l.Parsed = true
	l.Format = FormatLogrusJSON
	return true
}

func jsonString(v json.RawMessage) string {
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		return s
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err == nil {
		return buf.String()
	}
	return string(v)
}

// ttyCounterKeys are keys that appear inside catalogued messages; a field
// split in terminal format never starts at one of them.
var ttyCounterKeys = map[string]bool{
	"applications": true, "images_considered": true, "images_skipped": true,
	"images_updated": true, "errors": true, "run": true,
}

// parseTTY reads logrus's terminal format: `INFO[0001] message   k=v`. The
// message is padded to 44 columns; the fields are the longest tail that is a
// sequence of key=value pairs starting at or after that column.
func parseTTY(s string, l *Line) bool {
	s = ansiRE().ReplaceAllString(s, "")
	m := ttyRE().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	l.Level = NormalizeLevel(m[1])
	l.Time = parseTime(m[2])
	rest := m[3]
	msg, fields := strings.TrimRight(rest, " "), map[string]string{}
	// %-44s then one space, then " key=value" per field: fields never start
	// before column 44. A bounded number of tries keeps long lines linear.
	tries := 0
	for p := 44; p < len(rest) && tries < 16; p++ {
		if rest[p] != ' ' || p+1 < len(rest) && rest[p+1] == ' ' {
			continue
		}
		tries++
		kv, ok := splitPairs(rest[p:], false)
		if !ok || ttyCounterKeys[kv[0].k] {
			continue
		}
		msg = strings.TrimRight(rest[:p], " ")
		for _, kvp := range kv {
			fields[kvp.k] = kvp.v
		}
		break
	}
	l.Msg = msg
	l.Fields = fields
	l.Parsed = true
	l.Format = FormatLogrusTTY
	return true
}

func parseKlog(s string, l *Line) bool {
	m := klogRE().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	// klog has no year; the time stays zero rather than being guessed.
	l.Level = NormalizeLevel(m[1])
	l.Msg = m[4]
	l.Format = FormatKlog
	return true
}

func parseZap(s string, l *Line) bool {
	m := zapRE().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	l.Time = parseTime(m[1])
	l.Level = NormalizeLevel(m[2])
	l.Msg = m[3]
	l.Format = FormatZap
	return true
}

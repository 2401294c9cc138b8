// Package secret is the one type for a value that must never print: a
// token, a password, a private key. Every way fmt, encoding/json,
// encoding/text and log/slog have of showing it shows its mask instead;
// Reveal returns the value, for the one place that sends it.
//
// A Secret is a string underneath, so that configuration decoders and
// literals fill it (Secret[Stars]("pw")) and == "" tests it. Its mask is a
// type parameter, so that every value of one kind prints the same: the
// model's credentials print "***" (updater.Secret), the bot's Slack tokens
// "[redacted]" (bot.Secret). Those two are aliases of this type, not
// types of their own.
//
// Two ways round it are left. encoding/json writes a map key of a string
// kind as it is, without MarshalText: never key a map by a Secret. And fmt
// answers %p, a pointer verb, before it looks for a Formatter, and reports
// a string given to it with its raw value (%!p(...=value)); go vet's printf
// check flags %p of a non-pointer, and no code of this module uses it. A
// type that holds a Secret and formats itself should print a copy whose
// Secret is the mask itself (see updater.Credentials).
package secret

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
)

// Mask is how a kind of Secret prints.
type Mask interface {
	// Mask is the text shown in place of the value.
	Mask() string
}

// Stars prints "***", as Image Updater's own log redaction does.
type Stars struct{}

// Mask is "***".
func (Stars) Mask() string { return "***" }

// Redacted prints "[redacted]".
type Redacted struct{}

// Mask is "[redacted]".
func (Redacted) Mask() string { return "[redacted]" }

// Secret is a value that prints as M's mask under every fmt verb, in
// JSON, as text and in slog.
type Secret[M Mask] string

func mask[M Mask]() string {
	var m M
	return m.Mask()
}

// String is the mask.
func (Secret[M]) String() string { return mask[M]() }

// GoString is the mask, quoted as a string literal is.
func (Secret[M]) GoString() string { return strconv.Quote(mask[M]()) }

// Format writes the mask for every verb: %q quotes it, %#v is GoString.
func (s Secret[M]) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'q':
		_, _ = io.WriteString(f, strconv.Quote(mask[M]()))
	case verb == 'v' && f.Flag('#'):
		_, _ = io.WriteString(f, s.GoString())
	default:
		_, _ = io.WriteString(f, mask[M]())
	}
}

// MarshalJSON is the mask as a JSON string.
func (Secret[M]) MarshalJSON() ([]byte, error) { return json.Marshal(mask[M]()) }

// MarshalText is the mask (YAML, and JSON map keys).
func (Secret[M]) MarshalText() ([]byte, error) { return []byte(mask[M]()), nil }

// LogValue keeps the value out of structured logs.
func (Secret[M]) LogValue() slog.Value { return slog.StringValue(mask[M]()) }

// Reveal returns the value. Call it only where the value leaves for the
// server that checks it, never to render.
func (s Secret[M]) Reveal() string { return string(s) }

// IsEmpty reports whether the value is "".
func (s Secret[M]) IsEmpty() bool { return s == "" }

// Package textutil holds the small text helpers the engine, the renderers,
// the bot and the CLI share: one line, the first line, clipping, and the
// nearest match for "did you mean". It is pure: no I/O, no state.
package textutil

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
)

// OneLine collapses every run of white space, newlines included, into one
// space and trims both ends: an error message fit for a title or a table
// cell.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// FirstLine is s up to its first newline.
func FirstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// Clip shortens s to n runes, the last of them "…", when it has more; it
// never cuts a rune in two. With n < 1 nothing fits: "".
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	return string([]rune(s)[:n-1]) + "…"
}

// ClipWords shortens s to n runes, the last of them "…", when it has
// more, cutting after the last whole word that fits (at a space), unless
// that would keep less than half: then as Clip.
func ClipWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	all := []rune(s)
	r := all[:n-1]
	if all[n-1] == ' ' {
		return strings.TrimRight(string(r), " ,;:·—-") + "…"
	}
	for i := len(r) - 1; i >= len(r)/2 && i > 0; i-- {
		if r[i] == ' ' {
			return strings.TrimRight(string(r[:i]), " ,;:·—-") + "…"
		}
	}
	return string(r) + "…"
}

// ClipBytes is s's first n bytes followed by "…" when s is longer: a bound
// on bytes, not runes (a multi-byte rune at the cut is cut), as the audit
// line and the chat grammar's echo of an argument have always done.
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Distance is the edit distance between a and b (Levenshtein, in runes).
func Distance(a, b string) int { return levenshtein.ComputeDistance(a, b) }

// Nearest returns up to n of candidates (n < 1: all) in order of their
// edit distance to s, nearest first and, on a tie, in the candidates'
// order, keeping only those near accepts (near nil: all).
func Nearest(s string, candidates []string, n int, near func(candidate string, distance int) bool) []string {
	return nearest(s, candidates, n, near, Distance)
}

// NearestFold is Nearest with the distance taken without case.
func NearestFold(s string, candidates []string, n int, near func(candidate string, distance int) bool) []string {
	return nearest(s, candidates, n, near, func(a, b string) int { return Distance(strings.ToLower(a), strings.ToLower(b)) })
}

func nearest(s string, candidates []string, n int, near func(string, int) bool, dist func(a, b string) int) []string {
	type scored struct {
		c string
		d int
	}
	var kept []scored
	for _, c := range candidates {
		d := dist(s, c)
		if near == nil || near(c, d) {
			kept = append(kept, scored{c, d})
		}
	}
	slices.SortStableFunc(kept, func(a, b scored) int { return a.d - b.d })
	var out []string
	for _, k := range kept {
		if n > 0 && len(out) == n {
			break
		}
		out = append(out, k.c)
	}
	return out
}

// NearestOne is the nearest candidate Nearest returns, or "".
func NearestOne(s string, candidates []string, near func(candidate string, distance int) bool) string {
	if m := Nearest(s, candidates, 1, near); len(m) > 0 {
		return m[0]
	}
	return ""
}

// ContainsFold reports whether list holds s, in any case (a configuration key as typed).
func ContainsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(x string) bool { return strings.EqualFold(x, s) })
}

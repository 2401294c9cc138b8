package diagnostics

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
)

// oneLine collapses whitespace, for error messages in titles and evidence.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip shortens s to n runes with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// closest returns up to n candidates nearest to s by edit distance.
func closest(s string, candidates []string, n int) []string {
	type scored struct {
		c string
		d int
	}
	var all []scored
	for _, c := range candidates {
		all = append(all, scored{c, levenshtein.ComputeDistance(strings.ToLower(s), strings.ToLower(c))})
	}
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && (all[j].d < all[j-1].d || all[j].d == all[j-1].d && all[j].c < all[j-1].c); j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	var out []string
	for _, x := range all {
		if len(out) == n {
			break
		}
		if x.d <= max(3, len(s)/2) || strings.Contains(x.c, s) || strings.Contains(s, x.c) {
			out = append(out, x.c)
		}
	}
	return out
}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	slices.Sort(out)
	return out
}

func keysOf(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return sortedStrings(out)
}

func shortHash(h string) string {
	if len(h) > 8 {
		return h[:8]
	}
	return h
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func lastN[T any](s []T, n int) []T {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

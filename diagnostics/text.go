package diagnostics

import (
	"slices"
	"strings"

	"github.com/imgupd/imgupd/internal/textutil"
)

// closest returns up to n candidates nearest to s by edit distance, without
// case, alphabetically on a tie; a candidate that contains s, or is
// contained in it, is near at any distance.
func closest(s string, candidates []string, n int) []string {
	return textutil.NearestFold(s, sortedStrings(candidates), n, func(c string, d int) bool {
		return d <= max(3, len(s)/2) || strings.Contains(c, s) || strings.Contains(s, c)
	})
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

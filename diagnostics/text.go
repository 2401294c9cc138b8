package diagnostics

import (
	"slices"
	"strings"

	"github.com/imgupd/imgupd/internal/textutil"
)

// oneLine collapses whitespace, for error messages in titles and evidence.
func oneLine(s string) string { return textutil.OneLine(s) }

// clip shortens s to n runes with an ellipsis.
func clip(s string, n int) string { return textutil.Clip(s, n) }

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

package helmchart

import "testing"

// YAML breaks lines where the cut would not (a CR alone, NEL, LS, PS): such an index is refused,
// not cut into a part that lacks the chart's entries.
func TestIndexPartRefusesOtherLineBreaks(t *testing.T) {
	for _, brk := range []string{"\r", "\u0085", "\u2028", "\u2029"} {
		data := []byte("apiVersion: v1\nentries:" + brk + "  app:\n  - version: 1.0.0\n")
		if part, err := indexPart(data, "app"); err == nil {
			t.Errorf("%q: cut into %q", brk, part)
		}
	}
	if _, err := indexPart([]byte("apiVersion: v1\r\nentries:\r\n  app:\r\n  - version: 1.0.0\r\n"), "app"); err != nil {
		t.Errorf("CRLF: %v", err)
	}
}

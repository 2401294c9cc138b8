package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindingsCatalogue: every error Kind has an entry in docs/findings.md.
func TestFindingsCatalogue(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "findings.md"))
	if err != nil {
		t.Fatal(err)
	}
	for k := Other; k <= Canceled; k++ {
		if !strings.Contains(string(doc), "| `"+k.String()+"` |") {
			t.Errorf("Kind %s is not in docs/findings.md", k)
		}
	}
}

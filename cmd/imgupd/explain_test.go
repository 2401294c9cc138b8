package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindingsDocCurrent: docs/findings.md is what `imgupd explain --all -o
// markdown` prints, so the one catalogue and its documentation agree.
func TestFindingsDocCurrent(t *testing.T) {
	code, out, errOut := runCLI(t, nil, "explain", "--all", "-o", "markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "findings.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(doc) != out {
		t.Fatal("docs/findings.md is out of date: run go run ./cmd/imgupd explain --all -o markdown > docs/findings.md")
	}
}

func TestExplain(t *testing.T) {
	code, out, _ := runCLI(t, nil, "explain", "live_image_not_live")
	if code != 0 || !strings.Contains(out, "LIVE_IMAGE_NOT_LIVE (live stage, fail)") || !strings.Contains(out, "Fix:") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, typed := range []string{"REGISTRY_UNAUTHORISED", "registry_unauth", "registry-unauthorized "} {
		code, _, errOut := runCLI(t, nil, "explain", typed)
		if code != exitUsage || !strings.Contains(errOut, "did you mean REGISTRY_UNAUTHORIZED?") {
			t.Errorf("explain %s: exit %d: %s", typed, code, errOut)
		}
	}
}

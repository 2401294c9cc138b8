package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCurrent: diagnostics/reportnames.go is what the generator writes.
func TestCurrent(t *testing.T) {
	want, err := Generate(filepath.Join("..", "..", "report"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", "reportnames.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("diagnostics/reportnames.go is out of date: run go run ./diagnostics/internal/reportnames from the module root")
	}
}

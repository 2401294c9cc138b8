package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// schemaHead is how every -o json answer opens.
const schemaHead = "{\n  \"schemaVersion\": 1,\n"

// TestJSONAnswersOpenWithSchemaVersion: a report, a checked configuration
// and the scenario list (in demo_test.go; the summary in
// demo_summary_test.go) open with "schemaVersion", the rest of the answer
// unchanged after it.
func TestJSONAnswersOpenWithSchemaVersion(t *testing.T) {
	for name, args := range map[string][]string{
		"report":       {"demo", "--scenario", "healthy-kustomize-argocd", "-o", "json"},
		"config check": {"config", "check", "--config", writeConfig(t, "access: {}\n"), "-o", "json"},
	} {
		_, out, errOut := runCLI(t, nil, args...)
		if !strings.HasPrefix(out, schemaHead) {
			t.Errorf("%s: %q does not open with %q (%s)", name, out[:min(len(out), 80)], schemaHead, errOut)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil || v["schemaVersion"] != float64(1) || len(v) < 2 {
			t.Errorf("%s: %v %v", name, v["schemaVersion"], err)
		}
	}
	var b bytes.Buffer
	if err := writeAnswerJSON(&b, map[string]any{}); err != nil || b.String() != "{\n  \"schemaVersion\": 1\n}\n" {
		t.Errorf("an empty object: %q %v", b.String(), err)
	}
	if err := writeAnswerJSON(&b, []int{1}); !errors.Is(err, errNotObject) {
		t.Errorf("a list: %v", err)
	}
}

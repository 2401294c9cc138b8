package report

import (
	"regexp"
	"strings"
	"testing"
)

// TestCatalogueEntries: every entry is complete and every code constant is
// catalogued.
func TestCatalogueEntries(t *testing.T) {
	for _, e := range Catalogue() {
		if e.Title == "" || e.Stage == "" || e.Severity == "" {
			t.Errorf("incomplete entry %+v", e)
		}
		if (e.Severity == Fail || e.Severity == Warn) && e.Fix == "" && e.Meaning == "" {
			t.Errorf("%s: a failing code needs a meaning or a fix", e.Code)
		}
		if strings.ToUpper(string(e.Code)) != string(e.Code) {
			t.Errorf("%s: codes are upper case", e.Code)
		}
	}
}

// vagueFix are phrases of a fix that sends the reader elsewhere instead of
// saying what to change.
var vagueFix = []string{"see the", "fix the error", "the part named", "error shown", "read the evidence",
	"the table shows", "as suggested", "fill it in", "fix the settings shown", "check the url", "the logged error"}

// concreteFix: a fix names a command, a field path, an annotation key or a
// value to write.
var concreteFix = regexp.MustCompile(`kubectl |argocd |git |docker |ssh-keyscan|curl |` + // a command
	`[a-zA-Z]+\.[a-zA-Z\[\]0-9]+|` + // a field path (spec.syncPolicy, images[0].imageName)
	`[a-z-]+:[^ ]|` + // a value form (pullsecret:<ns>/<name>, regexp:<re>, git:secret:)
	`\b[a-z]+[A-Z][a-zA-Z]+\b|` + // a CR field (namePattern, imageName, writeBackConfig)
	`\b[A-Z][A-Z_]{4,}\b|` + // an env var (HTTPS_PROXY)
	`--[a-z][a-z-]+|` + // a flag
	`<alias>\.[a-z]|` + // a per-alias annotation key
	`argocd-image-updater\.argoproj\.io/`)

// TestCatalogueFixesAreConcrete: every code that can stop an update, or
// could not be checked, says what to change or how to verify it — which
// object, which field, which value — never "see the error".
func TestCatalogueFixesAreConcrete(t *testing.T) {
	for _, e := range Catalogue() {
		if e.Severity == Pass || e.Severity == Info {
			continue
		}
		if e.Fix == "" {
			t.Errorf("%s (%s): no fix", e.Code, e.Severity)
			continue
		}
		low := strings.ToLower(e.Fix)
		for _, v := range vagueFix {
			if strings.Contains(low, v) {
				t.Errorf("%s: the fix %q says %q instead of what to change", e.Code, e.Fix, v)
			}
		}
		if !concreteFix.MatchString(e.Fix) {
			t.Errorf("%s: the fix %q names no command, field, annotation or value", e.Code, e.Fix)
		}
	}
}

// TestCatalogueStates: a failing code says which state it puts the report
// in; other codes carry none.
func TestCatalogueStates(t *testing.T) {
	valid := map[State]bool{}
	for _, s := range States() {
		valid[s] = true
	}
	for _, e := range Catalogue() {
		switch {
		case e.Severity == Fail && !valid[e.State]:
			t.Errorf("%s: failing code with state %q", e.Code, e.State)
		case e.Severity != Fail && e.State != "":
			t.Errorf("%s: %s code with state %q", e.Code, e.Severity, e.State)
		}
	}
}

// TestCatalogueRoles: context is for info and passing codes (the text report
// shows them without -v); each log role is held by one code.
func TestCatalogueRoles(t *testing.T) {
	held := map[Role][]Code{}
	for _, e := range Catalogue() {
		if e.Role == "" {
			continue
		}
		held[e.Role] = append(held[e.Role], e.Code)
		if e.Role == RoleContext && e.Severity != Info && e.Severity != Pass {
			t.Errorf("%s: a %s code with role context", e.Code, e.Severity)
		}
	}
	for _, r := range []Role{RoleLogsUnread, RoleLastCycle} {
		if len(held[r]) != 1 {
			t.Errorf("role %s is held by %v, want one code", r, held[r])
		}
	}
	if len(held[RoleContext]) == 0 {
		t.Error("no code has role context")
	}
}

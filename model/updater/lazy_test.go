package updater

import (
	"regexp"
	"testing"
)

// The patterns compile on first use (lazyRE), not at init: compile each here
// so a bad one fails the tests, not a user's first input that reaches it.
func TestLazyPatternsCompile(t *testing.T) {
	for name, re := range map[string]func() *regexp.Regexp{
		"constraintPart":            constraintPart,
		"specificitySetRE":          specificitySetRE,
		"versionRE":                 versionRE,
		"writeBackMethodCRDPattern": writeBackMethodCRDPattern,
	} {
		if re() == nil || re() != re() {
			t.Errorf("%s: not compiled once", name)
		}
	}
}

package updaterlog

import (
	"regexp"
	"testing"
)

// The patterns are compiled on first use, not at init (see lazyRE), so a bad
// one would only panic when a log line reaches it: compile every one here.
func TestLazyPatternsCompile(t *testing.T) {
	for name, re := range map[string]func() *regexp.Regexp{
		"kubectlPrefixRE": kubectlPrefixRE, "kubectlTimeRE": kubectlTimeRE, "ansiRE": ansiRE, "ttyRE": ttyRE,
		"criRE": criRE, "klogRE": klogRE, "zapRE": zapRE, "panicStartRE": panicStartRE, "frameRE": frameRE,
		"privateKeyRE": privateKeyRE, "authHeaderRE": authHeaderRE, "bearerRE": bearerRE, "keyValueRE": keyValueRE,
		"keyColonRE": keyColonRE, "secretRefRE": secretRefRE, "flagRE": flagRE, "secretKeyRE": secretKeyRE,
		"tokenShapeRE": tokenShapeRE, "credRefRE": credRefRE, "knownCredRE": knownCredRE, "credRefValueRE": credRefValueRE,
	} {
		if re() == nil || re() != re() {
			t.Errorf("%s: not compiled once", name)
		}
	}
	if len(catalogue()) != len(entries) {
		t.Errorf("catalogue: %d entries compiled, %d in the table", len(catalogue()), len(entries))
	}
	for _, e := range catalogue() { // each format's pattern, compiled when a message first has its prefix
		for i, p := range e.patterns {
			if p.re() == nil || p.re() != p.re() || p.re().NumSubexp() != len(e.Captures) {
				t.Errorf("%s, format %q: not compiled once, or not with a group per capture", e.Code, e.Formats[i])
			}
		}
	}
	if len(causes()) != len(causeTable) {
		t.Errorf("causes: %d compiled, %d in the table", len(causes()), len(causeTable))
	}
	for _, c := range causes() {
		if c.re == nil {
			t.Errorf("cause %s: not compiled", c.Code)
		}
	}
}

package updater

import (
	"fmt"
	"testing"

	"github.com/Masterminds/semver/v3"
)

func TestExactPin(t *testing.T) {
	pins := map[string]string{
		"1.0.0": "1.0.0", "=1.0.0": "1.0.0", "v1.0.0": "v1.0.0", " = 1.0.0 ": "1.0.0", "=v2.3.4": "v2.3.4",
		"1.0.0-rc.1": "1.0.0-rc.1", "1.0.0+build.7": "1.0.0+build.7", "0.0.1": "0.0.1",
	}
	for c, want := range pins {
		if got, ok := ExactPin(c); !ok || got != want {
			t.Errorf("ExactPin(%q) = %q, %v; want %q, true", c, got, ok, want)
		}
	}
	// Ranges, even those that happen to admit one version, are not pins:
	// "1.20" (>=1.20.0 <1.21.0) is the accident the downgrade finding is for.
	for _, c := range []string{"", "1.20", "=1.20", "1", "1.0.x", "1.x.0", "*", "~1.0.0", "^1.0.0", ">=1.0.0", "!=1.0.0",
		">=1.0.0 <=1.0.0", "1.0.0 || 1.1.0", "1.0.0 - 1.0.0", "1.0.0,1.0.0", "latest", "main", "1.0.0.0"} {
		if got, ok := ExactPin(c); ok {
			t.Errorf("ExactPin(%q) = %q, true; want no pin", c, got)
		}
	}
}

// FuzzExactPin: whatever ExactPin calls a pin, the library Image Updater
// uses admits that version and none of its neighbours.
func FuzzExactPin(f *testing.F) {
	for _, s := range []string{"1.0.0", "=v1.2.3", "1.20", "~1.0.0", "1.0.0-rc.1", "1.0.0 || 2.0.0", "01.2.3", "=1.0.0+x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, c string) {
		pin, ok := ExactPin(c)
		if !ok {
			return
		}
		cons, err := semver.NewConstraint(c)
		if err != nil {
			t.Fatalf("ExactPin(%q) is a pin, but the constraint does not parse: %v", c, err)
		}
		v, err := semver.NewVersion(pin)
		if err != nil {
			t.Fatalf("ExactPin(%q) = %q, not a version: %v", c, pin, err)
		}
		if !cons.Check(v) {
			t.Fatalf("%q does not admit its own pin %q", c, pin)
		}
		for _, n := range []string{
			fmt.Sprintf("%d.%d.%d", v.Major(), v.Minor(), v.Patch()+1),
			fmt.Sprintf("%d.%d.0", v.Major(), v.Minor()+1),
			fmt.Sprintf("%d.0.0", v.Major()+1),
		} {
			if nv, err := semver.NewVersion(n); err == nil && !nv.Equal(v) && cons.Check(nv) {
				t.Fatalf("%q, a pin of %q, also admits %s", c, pin, n)
			}
		}
	})
}

package updater

import (
	"testing"

	"github.com/Masterminds/semver/v3"
)

var parityVersions = []string{
	"0", "1", "1.2", "1.2.3", "v1.2.3", "01.02.03", "1.2.3-0", "1.2.3-01", "1.2.3-rc1", "1.2.3-rc.1", "1.2.3-rc.10",
	"1.2.3-rc.2", "1.2.3-alpha", "1.2.3-alpha.beta", "1.2.3-beta-2", "1.2.3+build.5", "1.2.3-rc.1+meta", "1.0.0-0",
	"2.0.0", "2.0.0-rc1", "1.20.0", "1.20.3", "1.21.0", "0.1.0", "0.1.5", "0.2.0", "0.0.3", "0.0.4", "10.0.0",
	"20240101", "2020.01.01", "latest", "main-abc123", "v", "1.", "1..2", "1.2.3.4", "1.2.3-", "1.2.3+", "1.2.3-a..b",
	"V1.2.3", "vv1", "-1", "1.2.3-rc_1", "18446744073709551615", "18446744073709551616", "1.2.3-18446744073709551616",
	"1-rc", "1.2-rc", "1.0.1-hotfix", "1.0.0-beta.2", "v1.1.5", "1.1", "0.10.0",
}

var parityConstraints = []string{
	"*", "x", "1", "1.x", "1.2", "1.2.x", "1.2.3", "=1.2.3", "v1.2", "!=1.2.3", "!=1.2", "!=1.x", ">1.2.3", ">1.2", ">1",
	">=1.2.3", "=>1.2", "<1.2.3", "<2", "<=1.2.3", "<=1.2", "=<1", "~1.2.3", "~1.2", "~1", "~>1.2", "~0.0.0", "^1.2.3",
	"^1.2", "^0.1", "^0.1.2", "^0.0.3", "^0.0", "^0", "^0.x", ">=1.0.0-0", ">=1.0.0-0,<1.0.1", ">=1.0.0-0 <1.0.1",
	"1.0.x-0", "1.0-0", "~1.2.3-0", ">= 1.2, < 2", "1.2 - 1.4", "1.2.3 - 2", "1.x || 3.x", "<1 || >=2.0.0-rc1",
	"~1.20", "1.20", ">1.2.x", "<=1.x", "!=1.2.x-rc", ">=v1.2.3+meta", "^1.2.3-beta.2", "*-0",
}

// TestSemverParityGrid checks the fast path against Masterminds/semver on a
// grid of versions and constraints, and that every constraint there compiles
// to the fast path.
func TestSemverParityGrid(t *testing.T) {
	for _, s := range parityVersions {
		checkParseParity(t, s)
		for _, o := range parityVersions {
			checkCompareParity(t, s, o)
		}
	}
	for _, c := range parityConstraints {
		lib, err := semver.NewConstraint(c)
		if err != nil {
			t.Fatalf("grid constraint %q does not parse: %v", c, err)
		}
		fast, ok := compileConstraint(lib)
		if !ok {
			t.Errorf("constraint %q (%s) did not compile to the fast path", c, lib.String())
			continue
		}
		for _, s := range parityVersions {
			lv, err := semver.NewVersion(s)
			if err != nil {
				continue
			}
			fv, _ := parseSemver(s)
			if got, want := fast.check(fv), lib.Check(lv); got != want {
				t.Errorf("check(%q, %q) = %v, library says %v", c, s, got, want)
			}
		}
	}
}

func checkParseParity(t *testing.T, s string) {
	t.Helper()
	lv, err := semver.NewVersion(s)
	fv, ok := parseSemver(s)
	if ok != (err == nil) {
		t.Fatalf("parse %q: fast ok=%v, library err=%v", s, ok, err)
	}
	if ok && (fv.maj != lv.Major() || fv.min != lv.Minor() || fv.pat != lv.Patch() || fv.pre != lv.Prerelease()) {
		t.Fatalf("parse %q: fast %+v, library %d.%d.%d-%s", s, fv, lv.Major(), lv.Minor(), lv.Patch(), lv.Prerelease())
	}
}

func checkCompareParity(t *testing.T, a, b string) {
	t.Helper()
	la, err1 := semver.NewVersion(a)
	lb, err2 := semver.NewVersion(b)
	if err1 != nil || err2 != nil {
		return
	}
	fa, _ := parseSemver(a)
	fb, _ := parseSemver(b)
	if got, want := fa.cmp(fb), la.Compare(lb); got != want {
		t.Fatalf("compare(%q, %q) = %d, library %d", a, b, got, want)
	}
}

// FuzzSemverParity: on any input the fast path and the library agree on
// what is a version, on order, and on every constraint the fast path compiles.
func FuzzSemverParity(f *testing.F) {
	for i, v := range parityVersions {
		f.Add(v, parityVersions[(i+7)%len(parityVersions)], parityConstraints[i%len(parityConstraints)])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		checkParseParity(t, a)
		checkParseParity(t, b)
		checkCompareParity(t, a, b)
		lib, err := semver.NewConstraint(c)
		if err != nil {
			return
		}
		fast, ok := compileConstraint(lib)
		if !ok {
			return // Select falls back to the library
		}
		for _, s := range []string{a, b} {
			lv, err := semver.NewVersion(s)
			if err != nil {
				continue
			}
			fv, _ := parseSemver(s)
			if got, want := fast.check(fv), lib.Check(lv); got != want {
				t.Fatalf("check(%q, %q) = %v, library %v (canonical %q)", c, s, got, want, lib.String())
			}
		}
	})
}

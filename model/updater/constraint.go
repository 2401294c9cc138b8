package updater

import (
	"fmt"
	"github.com/imgupd/imgupd/internal/lazyre"
	"strconv"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// ConstraintError says why a semver constraint does not parse.
type ConstraintError struct {
	Constraint string
	Err        error
}

func (e *ConstraintError) Error() string {
	return fmt.Sprintf("improper constraint %q: %v", e.Constraint, e.Err)
}
func (e *ConstraintError) Unwrap() error { return e.Err }

// ParseConstraint parses a semver constraint with the library and the version
// Image Updater uses (Masterminds/semver v3.4.0).
func ParseConstraint(s string) (*semver.Constraints, error) {
	c, err := semver.NewConstraint(s)
	if err != nil {
		return nil, &ConstraintError{Constraint: s, Err: err}
	}
	return c, nil
}

// constraintPart matches one Masterminds comparison: operator and operand.
var constraintPart = lazyre.New(`^\s*(!=|>=|=>|<=|=<|>|<|=|~>|~|\^)?\s*v?([0-9xX*]+)(?:\.([0-9xX*]+))?(?:\.([0-9xX*]+))?(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?\s*$`)

// ExplainConstraint says in plain words which versions a constraint admits,
// following Masterminds/semver v3 semantics ("1.20" is a tilde range, "^0.1"
// stays below 0.2.0, a word such as "latest" is no constraint at all). It
// never fails: for forms it cannot spell out it says what the library does.
func ExplainConstraint(c string, s Strategy, v Version) string {
	if s == StrategyDigest {
		if c == "" {
			return "no tag to follow"
		}
		return fmt.Sprintf("follows the digest of tag %q", c)
	}
	if strings.TrimSpace(c) == "" {
		if v.EmptyConstraintExcludesPrereleases() {
			return "any release version (no constraint means \"*\": pre-releases excluded)"
		}
		return "any version, pre-releases included (no constraint check before v1.3.0)"
	}
	if _, err := semver.NewConstraint(c); err != nil {
		return fmt.Sprintf("not a semver constraint (%v)", err)
	}
	var ors []string
	for _, group := range strings.Split(c, "||") {
		var ands []string
		for _, part := range splitAnd(group) {
			if e, ok := explainPart(part); ok {
				ands = append(ands, e)
			} else {
				return fmt.Sprintf("the semver range %q", c)
			}
		}
		ors = append(ors, strings.Join(ands, " and "))
	}
	out := strings.Join(ors, ", or ")
	if !strings.Contains(c, "-") {
		out += "; pre-releases excluded"
	}
	return out
}

// splitAnd splits an AND group on commas and spaces, keeping "a - b" ranges
// and "op version" pairs together.
func splitAnd(group string) []string {
	g := strings.TrimSpace(group)
	if strings.Contains(g, " - ") {
		return []string{g}
	}
	fields := strings.FieldsFunc(g, func(r rune) bool { return r == ',' || r == ' ' })
	var out []string
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if strings.Trim(f, "!=<>~^") == "" && i+1 < len(fields) {
			f += fields[i+1]
			i++
		}
		out = append(out, f)
	}
	return out
}

type ver3 struct{ maj, min, pat int }

func (v ver3) String() string { return fmt.Sprintf("%d.%d.%d", v.maj, v.min, v.pat) }

func explainPart(p string) (string, bool) {
	if lo, hi, ok := strings.Cut(p, " - "); ok {
		return fmt.Sprintf(">=%s and <=%s", strings.TrimSpace(lo), strings.TrimSpace(hi)), true
	}
	m := constraintPart().FindStringSubmatch(p)
	if m == nil {
		return "", false
	}
	op, pre := m[1], m[5]
	wild := func(s string) bool { return s == "" || s == "x" || s == "X" || s == "*" }
	if wild(m[2]) {
		return "any version", true
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	v := ver3{num(m[2]), 0, 0}
	depth := 1 // how many parts are given
	if !wild(m[3]) {
		v.min, depth = num(m[3]), 2
		if !wild(m[4]) {
			v.pat, depth = num(m[4]), 3
		}
	}
	next := func(d int) ver3 { // the first version above the given parts
		switch d {
		case 1:
			return ver3{v.maj + 1, 0, 0}
		case 2:
			return ver3{v.maj, v.min + 1, 0}
		}
		return ver3{v.maj, v.min, v.pat + 1}
	}
	base := v.String() + pre
	switch op {
	case "", "=":
		if depth == 3 {
			return "exactly " + base, true
		}
		return fmt.Sprintf(">=%s and <%s (no operator and a missing part make a tilde range)", base, next(depth)), true
	case "!=":
		if depth == 3 {
			return "not " + base, true
		}
		return fmt.Sprintf("outside %s.x", strings.TrimSuffix(v.String(), ".0")), true
	case "~", "~>":
		d := depth
		if d == 3 {
			d = 2
		}
		return fmt.Sprintf(">=%s and <%s", base, next(d)), true
	case "^":
		switch {
		case v.maj > 0 || depth == 1:
			return fmt.Sprintf(">=%s and <%s", base, ver3{v.maj + 1, 0, 0}), true
		case v.min > 0 || depth == 2:
			return fmt.Sprintf(">=%s and <%s", base, ver3{0, v.min + 1, 0}), true
		default:
			return fmt.Sprintf(">=%s and <%s", base, ver3{0, 0, v.pat + 1}), true
		}
	case ">":
		if depth == 3 {
			return ">" + base, true
		}
		return ">=" + next(depth).String(), true
	case ">=", "=>":
		return ">=" + base, true
	case "<":
		return "<" + base, true
	case "<=", "=<":
		if depth == 3 {
			return "<=" + base, true
		}
		return "<" + next(depth).String(), true
	}
	return "", false
}

// ExactPin reports whether a semver constraint admits exactly one version,
// and which: one comparison, with no operator or "=", naming a full
// major.minor.patch version (a pre-release and build part allowed, a "v"
// prefix too), as Masterminds/semver v3 reads "1.0.0", "=1.0.0" or
// "v1.0.0". A missing or wildcard part ("1.0", "=1.0", "1.0.x") makes a
// tilde range, and ranges, "||" and AND lists are not pins, even when they
// happen to admit one version. The version is returned as written, without
// the operator.
func ExactPin(constraint string) (string, bool) {
	c := strings.TrimSpace(constraint)
	if c == "" || strings.Contains(c, "||") || strings.Contains(c, " - ") {
		return "", false
	}
	parts := splitAnd(c)
	if len(parts) != 1 {
		return "", false
	}
	m := constraintPart().FindStringSubmatch(parts[0])
	if m == nil || (m[1] != "" && m[1] != "=") {
		return "", false
	}
	for _, p := range m[2:5] {
		if p == "" || p == "x" || p == "X" || p == "*" {
			return "", false
		}
	}
	// The library gets the constraint as written: a pin it cannot parse
	// (trailing "\v", which TrimSpace removes and semver does not) is none.
	if _, err := semver.NewConstraint(constraint); err != nil {
		return "", false
	}
	return strings.TrimSpace(strings.TrimPrefix(parts[0], "=")), true
}

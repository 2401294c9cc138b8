package updater

import (
	"strconv"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// This file is a fast path for the semver strategy. Image Updater uses
// Masterminds/semver v3.4.0, whose NewVersion runs a regular expression and
// whose Constraints.Check builds an error (with fmt) for every version that
// fails; over thousands of tags that costs more than listing them. The
// functions here decide exactly what the library decides — same accepted
// versions, same order, same constraint results — and the library stays the
// oracle: FuzzSemverParity and TestSemverParityGrid compare them on every
// input, and anything this path is unsure of falls back to the library.

// sver is a parsed version: the parts that ordering and constraints read
// (build metadata is ignored by both).
type sver struct {
	maj, min, pat uint64
	pre           string
}

// parseSemver accepts exactly what semver.NewVersion accepts in its default
// (coercing) mode: the loose grammar v?N(.N)?(.N)?(-pre)?(+meta)? with
// 64-bit parts, prerelease identifiers that are not numbers with a leading
// zero, and non-empty dot-separated [0-9A-Za-z-] identifiers.
func parseSemver(s string) (sver, bool) {
	var v sver
	i := 0
	if i < len(s) && s[i] == 'v' {
		i++
	}
	num := func() (uint64, bool) {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			return 0, false
		}
		n, err := strconv.ParseUint(s[i:j], 10, 64)
		if err != nil {
			return 0, false
		}
		i = j
		return n, true
	}
	var ok bool
	if v.maj, ok = num(); !ok {
		return v, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if v.min, ok = num(); !ok {
			return v, false
		}
		if i < len(s) && s[i] == '.' {
			i++
			if v.pat, ok = num(); !ok {
				return v, false
			}
		}
	}
	if i < len(s) && s[i] == '-' {
		end := strings.IndexByte(s[i:], '+')
		if end < 0 {
			end = len(s)
		} else {
			end += i
		}
		v.pre = s[i+1 : end]
		if !validIdents(v.pre, true) {
			return v, false
		}
		i = end
	}
	if i < len(s) && s[i] == '+' {
		if !validIdents(s[i+1:], false) {
			return v, false
		}
		i = len(s)
	}
	return v, i == len(s)
}

// validIdents checks dot-separated, non-empty [0-9A-Za-z-] identifiers;
// numeric prerelease identifiers may not have a leading zero.
func validIdents(s string, pre bool) bool {
	for _, id := range strings.Split(s, ".") {
		if id == "" {
			return false
		}
		digits := true
		for k := 0; k < len(id); k++ {
			c := id[k]
			switch {
			case c >= '0' && c <= '9':
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '-':
				digits = false
			default:
				return false
			}
		}
		if pre && digits && len(id) > 1 && id[0] == '0' {
			return false
		}
	}
	return true
}

// cmp orders versions as Version.Compare does.
func (a sver) cmp(b sver) int {
	switch {
	case a.maj != b.maj:
		return cmpU(a.maj, b.maj)
	case a.min != b.min:
		return cmpU(a.min, b.min)
	case a.pat != b.pat:
		return cmpU(a.pat, b.pat)
	}
	switch {
	case a.pre == "" && b.pre == "":
		return 0
	case a.pre == "":
		return 1
	case b.pre == "":
		return -1
	}
	return cmpPre(a.pre, b.pre)
}

func cmpU(a, b uint64) int {
	if a < b {
		return -1
	}
	return 1
}

// cmpPre compares prerelease strings identifier by identifier: numbers
// numerically and below words, words byte-wise, a missing identifier lowest.
func cmpPre(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	n := max(len(as), len(bs))
	for k := 0; k < n; k++ {
		var x, y string
		if k < len(as) {
			x = as[k]
		}
		if k < len(bs) {
			y = bs[k]
		}
		if d := cmpPrePart(x, y); d != 0 {
			return d
		}
	}
	return 0
}

func cmpPrePart(s, o string) int {
	if s == o {
		return 0
	}
	if s == "" {
		return -1
	}
	if o == "" {
		return 1
	}
	oi, oerr := strconv.ParseUint(o, 10, 64)
	si, serr := strconv.ParseUint(s, 10, 64)
	switch {
	case oerr != nil && serr != nil:
		if s > o {
			return 1
		}
		return -1
	case oerr != nil:
		return -1
	case serr != nil:
		return 1
	case si > oi:
		return 1
	case si < oi:
		return -1
	}
	return 0
}

// sprim is one comparison of a constraint.
type sprim struct {
	op                            string
	con                           sver
	dirty, minorDirty, patchDirty bool
}

// sconstraint is a constraint as OR groups of AND-ed comparisons.
type sconstraint struct {
	groups [][]sprim
	hasPre []bool
}

var constraintOpsFast = []string{"!=", ">=", "=>", "<=", "=<", "~>", "=", ">", "<", "~", "^"}

// compileConstraint rebuilds a constraint the library has already parsed,
// from its canonical String() form (ranges rewritten, one "op version" per
// comparison). ok is false for anything unexpected; callers then use the
// library's Check.
func compileConstraint(c *semver.Constraints) (sconstraint, bool) {
	var out sconstraint
	for _, group := range strings.Split(c.String(), " || ") {
		var g []sprim
		pre := false
		for _, part := range strings.Fields(group) {
			p, ok := compilePrim(part)
			if !ok {
				return out, false
			}
			pre = pre || p.con.pre != ""
			g = append(g, p)
		}
		if len(g) == 0 {
			return out, false
		}
		out.groups = append(out.groups, g)
		out.hasPre = append(out.hasPre, pre)
	}
	return out, true
}

func compilePrim(s string) (sprim, bool) {
	var p sprim
	for _, op := range constraintOpsFast {
		if strings.HasPrefix(s, op) {
			p.op, s = op, s[len(op):]
			break
		}
	}
	s = strings.TrimPrefix(s, "v")
	// Split off "-pre" and "+meta" (meta is dropped for dirty versions and
	// ignored by comparisons).
	core, rest := s, ""
	if k := strings.IndexAny(s, "-+"); k >= 0 {
		core, rest = s[:k], s[k:]
	}
	parts := strings.Split(core, ".")
	if len(parts) > 3 || parts[0] == "" {
		return p, false
	}
	isX := func(x string) bool { return x == "x" || x == "X" || x == "*" }
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	switch {
	case isX(parts[0]):
		parts = []string{"0", "0", "0"}
		p.dirty = true
	case isX(parts[1]) || parts[1] == "":
		parts[1], parts[2] = "0", "0"
		p.dirty, p.minorDirty = true, true
	case isX(parts[2]) || parts[2] == "":
		parts[2] = "0"
		p.dirty, p.patchDirty = true, true
	}
	pre := ""
	if strings.HasPrefix(rest, "-") {
		pre = rest
		if k := strings.IndexByte(rest, '+'); k >= 0 {
			pre = rest[:k]
		}
	}
	v, ok := parseSemver(strings.Join(parts, ".") + pre)
	if !ok {
		return p, false
	}
	p.con = v
	return p, true
}

// check is Constraints.Check (IncludePrerelease false, as Image Updater uses it).
func (c sconstraint) check(v sver) bool {
	for i, g := range c.groups {
		ok := true
		for _, p := range g {
			if !p.check(v, c.hasPre[i]) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func (p sprim) check(v sver, includePre bool) bool {
	if v.pre != "" && !includePre {
		return false
	}
	c := p.con
	switch p.op {
	case "", "=":
		if p.dirty {
			return p.tilde(v)
		}
		return v.cmp(c) == 0
	case "!=":
		if p.dirty {
			if c.maj != v.maj {
				return true
			}
			if c.min != v.min && !p.minorDirty {
				return true
			} else if p.minorDirty {
				return false
			} else if c.pat != v.pat && !p.patchDirty {
				return true
			} else if p.patchDirty {
				if v.pre != "" || c.pre != "" {
					return cmpPre(v.pre, c.pre) != 0
				}
				return false
			}
		}
		return v.cmp(c) != 0
	case ">":
		if !p.dirty {
			return v.cmp(c) == 1
		}
		switch {
		case v.maj > c.maj:
			return true
		case v.maj < c.maj:
			return false
		case p.minorDirty:
			return false
		case p.patchDirty:
			return v.min > c.min
		}
		return v.cmp(c) == 1
	case "<":
		return v.cmp(c) < 0
	case ">=", "=>":
		return v.cmp(c) >= 0
	case "<=", "=<":
		if !p.dirty {
			return v.cmp(c) <= 0
		}
		if v.maj > c.maj {
			return false
		}
		if v.maj == c.maj && v.min > c.min && !p.minorDirty {
			return false
		}
		return true
	case "~", "~>":
		return p.tilde(v)
	case "^":
		if v.cmp(c) < 0 {
			return false
		}
		if c.maj > 0 || p.minorDirty {
			return v.maj == c.maj
		}
		if c.maj == 0 && v.maj > 0 {
			return false
		}
		if c.min > 0 || p.patchDirty {
			return v.min == c.min
		}
		if c.min == 0 && v.min > 0 {
			return false
		}
		return c.pat == v.pat
	}
	return false
}

func (p sprim) tilde(v sver) bool {
	c := p.con
	if v.cmp(c) < 0 {
		return false
	}
	if c.maj == 0 && c.min == 0 && c.pat == 0 && !p.minorDirty && !p.patchDirty {
		return true
	}
	if v.maj != c.maj {
		return false
	}
	if v.min != c.min && !p.minorDirty {
		return false
	}
	return true
}

package helmchart

import (
	"errors"
	"slices"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/imgupd/imgupd/internal/errtext"
)

// errNoMatch: no version satisfies the revision.
var errNoMatch = errors.New("no version matches")

// isVersion is Argo CD's versions.IsVersion: the revision is an exact pin
// (Masterminds' lenient parse: "1.2.3", "v1.2", "1.2.3+build").
func isVersion(rev string) bool {
	_, err := semver.NewVersion(rev)
	return err == nil
}

// isConstraint is Argo CD's versions.IsConstraint: not a pin, but a valid
// constraint ("1.2.*", ">=1.0 <2", "^1.2", "1.2.x").
func isConstraint(rev string) bool {
	return !isVersion(rev) && validConstraint(rev)
}

func validConstraint(rev string) bool {
	_, err := semver.NewConstraint(rev)
	return err == nil
}

// pickPinned resolves an exact pin as `helm pull --version` does against an
// index (repo.IndexFile.Get): the version listed verbatim, else the
// highest one the pin matches as a constraint ("v1.2.0" finds "1.2.0",
// "1.2" finds the newest 1.2.x).
func pickPinned(rev string, versions []string) (string, error) {
	if slices.Contains(versions, rev) {
		return rev, nil
	}
	return pickConstraint(rev, versions)
}

// pickMax is Argo CD's versions.MaxVersion for a revision that is not a
// pin: the highest version satisfying the constraint (versions that are
// not semver are skipped), or, when revision is not a constraint either
// ("latest", "stable"), the version equal to it. An empty revision is
// taken as "*", the highest release.
func pickMax(rev string, versions []string) (string, error) {
	if rev == "" {
		rev = "*"
	}
	if !validConstraint(rev) {
		if slices.Contains(versions, rev) {
			return rev, nil
		}
		return "", errNoMatch
	}
	return pickConstraint(rev, versions)
}

func pickConstraint(rev string, versions []string) (string, error) {
	c, err := semver.NewConstraint(rev)
	if err != nil {
		return "", errNoMatch
	}
	var best *semver.Version
	for _, s := range versions {
		v, err := semver.NewVersion(s)
		if err != nil || !c.Check(v) {
			continue
		}
		if best == nil || v.GreaterThan(best) {
			best = v
		}
	}
	if best == nil {
		return "", errNoMatch
	}
	return best.Original(), nil
}

// newestFirst returns the versions to show in a VersionNotFound message:
// semver ones newest first, then the others by name, at most max, and how
// many were left out.
func newestFirst(versions []string, max int) ([]string, int) {
	type item struct {
		s string
		v *semver.Version
	}
	seen := map[string]bool{}
	items := make([]item, 0, len(versions))
	for _, s := range versions {
		if seen[s] {
			continue
		}
		seen[s] = true
		v, _ := semver.NewVersion(s)
		items = append(items, item{s, v})
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		switch {
		case a.v != nil && b.v != nil:
			if !a.v.Equal(b.v) {
				return a.v.GreaterThan(b.v)
			}
			return a.s < b.s
		case a.v != nil:
			return true
		case b.v != nil:
			return false
		}
		return a.s < b.s
	})
	n := min(len(items), max)
	out := make([]string, n)
	for i := range n {
		out[i] = errtext.OneLine(items[i].s)
	}
	return out, len(items) - n
}

// ociTag is the tag a chart version is stored under: OCI tags cannot hold
// "+", so Helm writes "_" (helm/helm#10166).
func ociTag(version string) string { return strings.ReplaceAll(version, "+", "_") }

// fromOCITag maps a tag back to the version it stands for.
func fromOCITag(tag string) string { return strings.ReplaceAll(tag, "_", "+") }

package lab

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/imgupd/imgupd/diagnostics"
)

//go:embed scenarios/*.yaml
var builtin embed.FS

// Builtins returns the scenarios shipped in the binary, by name.
func Builtins() ([]*Scenario, error) {
	names, err := fs.Glob(builtin, "scenarios/*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []*Scenario
	for _, n := range names {
		data, err := builtin.ReadFile(n)
		if err != nil {
			return nil, err
		}
		sc, err := Parse(data, path.Base(n))
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// Builtin returns one built-in scenario by name.
func Builtin(name string) (*Scenario, bool) {
	all, err := Builtins()
	if err != nil {
		return nil, false
	}
	for _, sc := range all {
		if sc.Name == name {
			return sc, true
		}
	}
	return nil, false
}

// Healthy is the Expect value of scenarios where nothing may fail or warn.
const Healthy = "healthy"

// Primary is what a report points the user at: the root cause's code, else
// the first warning's, else "healthy".
func Primary(r *diagnostics.Report) string {
	if r.RootCause != nil {
		return string(r.RootCause.Code)
	}
	for _, f := range r.Findings() {
		if f.Severity == diagnostics.Warn {
			return string(f.Code)
		}
	}
	if r.Verdict == diagnostics.VerdictUnknown {
		return "unknown"
	}
	return Healthy
}

// Matches reports whether a report gives the scenario's expected verdict.
func (s *Scenario) Matches(r *diagnostics.Report) bool {
	return strings.EqualFold(Primary(r), s.Expect)
}

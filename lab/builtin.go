package lab

import (
	"embed"
	"encoding/base64"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/report"
)

//go:embed scenarios/*.yaml
var builtin embed.FS

// Builtins returns the scenarios shipped in the binary, by name.
func Builtins() ([]*Scenario, error) { return embedded(builtin, "scenarios/*.yaml") }

// embedded parses the scenario files of fsys that match pattern, by name.
func embedded(fsys embed.FS, pattern string) ([]*Scenario, error) {
	names, err := fs.Glob(fsys, pattern)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []*Scenario
	for _, n := range names {
		data, err := fsys.ReadFile(n)
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
func Primary(r *report.Report) string {
	if r.RootCause != nil {
		return string(r.RootCause.Code)
	}
	for _, f := range r.Findings() {
		if f.Severity == report.Warn {
			return string(f.Code)
		}
	}
	if r.Verdict == report.VerdictUnknown {
		return "unknown"
	}
	return Healthy
}

// Matches reports whether a report gives the scenario's expected code and,
// when the scenario names one, its expected state.
func (s *Scenario) Matches(r *report.Report) bool {
	return strings.EqualFold(Primary(r), s.Expect) && (s.ExpectState == "" || string(r.State) == s.ExpectState)
}

// Secrets are the values no report or message may show: registry and git
// passwords and every Secret's data (raw and base64), when long enough to be
// told apart from ordinary words.
func (sc *Scenario) Secrets() []string { return sc.secretsIn(sc.Objects) }

// Secrets are the scenario's secrets as its running servers made them: the
// Secrets' data with the placeholders expanded (an SSH key the lab made)
// and each line of a PEM key, so a report that shows part of one is caught.
func (e *Env) Secrets() []string {
	out := e.Scenario.secretsIn(e.expand(e.Scenario.Objects))
	for _, k := range []string{e.Vars["GIT_SSH_KEY"], e.Vars["GITHUB_APP_KEY"]} {
		if k == "" {
			continue
		}
		for _, l := range strings.Split(k, "\n") {
			if len(l) >= 16 && !strings.HasPrefix(l, "-----") {
				out = append(out, l)
			}
		}
	}
	return out
}

func (sc *Scenario) secretsIn(objects string) []string {
	var out []string
	add := func(v string) {
		if len(v) >= 8 {
			out = append(out, v, base64.StdEncoding.EncodeToString([]byte(v)))
		}
	}
	if a := sc.Registry.Auth; a != nil {
		add(a.Password)
		add(a.Username + ":" + a.Password)
	}
	for _, a := range []*Auth{sc.Git.Auth, sc.Git.ReadOnly} {
		if a != nil {
			add(a.Password)
		}
	}
	for _, doc := range splitDocs(objects) {
		var sec struct {
			Kind       string            `json:"kind"`
			Data       map[string]string `json:"data"`
			StringData map[string]string `json:"stringData"`
		}
		if yaml.Unmarshal([]byte(doc), &sec) != nil || sec.Kind != "Secret" {
			continue
		}
		for k, v := range sec.StringData {
			if k != "url" && k != "type" && k != "project" {
				add(v)
			}
		}
		for k, v := range sec.Data {
			if raw, err := base64.StdEncoding.DecodeString(v); err == nil && k != "url" && k != "type" {
				add(string(raw))
			}
		}
	}
	return out
}

//go:embed fleets/*.yaml
var fleets embed.FS

// Fleets returns the lab fleets shipped in the binary, by name: scenarios
// whose objects hold several Applications (their App is one of them), for
// the commands that answer across apps (`imgupd where`).
func Fleets() ([]*Scenario, error) { return embedded(fleets, "fleets/*.yaml") }

// Fleet returns one lab fleet by name; the error names the others.
func Fleet(name string) (*Scenario, error) {
	all, err := Fleets()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, sc := range all {
		if sc.Name == name {
			return sc, nil
		}
		names = append(names, sc.Name)
	}
	return nil, fmt.Errorf("no lab fleet %q (the lab has %s)", name, strings.Join(names, ", "))
}

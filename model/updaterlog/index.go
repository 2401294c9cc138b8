package updaterlog

import (
	"strings"

	"github.com/imgupd/imgupd/model/updater"
)

// Index is one log read once for many Applications: the lines classified
// once, the log-wide analysis (cycles, start-up, errors) made once, and the
// lines that may be about each Application found by name, so that
// analyzing a fleet of apps costs one pass over the log plus each app's own
// lines, not one pass per app. It is read-only after NewIndex and safe for
// concurrent use.
type Index struct {
	lines   []Line
	matches []Match
	ok      []bool
	base    Analysis
	v       updater.Version
	// byName maps an Application's bare name to the lines that may be
	// about it (aboutApp decides).
	byName map[string][]int
}

// NewIndex parses nothing: it indexes lines already parsed.
func NewIndex(lines []Line, v updater.Version) *Index {
	x := &Index{lines: lines, matches: make([]Match, len(lines)), ok: make([]bool, len(lines)), v: v, byName: map[string][]int{}}
	x.base = Analyze(lines, AppRef{}, v)
	for i, l := range lines {
		x.matches[i], x.ok[i] = Classify(l)
		for _, s := range candidates(l, x.matches[i], x.ok[i]) {
			name := s
			if _, n, ok := strings.Cut(s, "/"); ok {
				name = n
			}
			x.byName[name] = append(x.byName[name], i)
		}
	}
	return x
}

// candidates are the Application names a line may be about.
func candidates(l Line, m Match, classified bool) []string {
	if f, has := l.Fields["application"]; has && f != "" {
		return []string{strings.Trim(strings.TrimSpace(f), `'"`)}
	}
	if !classified {
		return nil
	}
	var out []string
	for _, key := range []string{CaptureApp, "annotated_app"} {
		if s, has := m.Captures[key]; has {
			out = append(out, strings.Trim(strings.TrimSpace(s), `'"`))
		}
	}
	return out
}

// Analyze is Analyze(lines, app, v) for the indexed lines.
func (x *Index) Analyze(app AppRef) Analysis {
	a := x.base
	a.Codes = map[string]int{}
	a.ForApp, a.LastUpdate = nil, nil
	seen := map[int]bool{}
	for _, i := range x.byName[app.Name] {
		if seen[i] {
			continue
		}
		seen[i] = true
		if !aboutApp(x.lines[i], x.matches[i], x.ok[i], app, x.v) {
			continue
		}
		ev := Event{Line: x.lines[i], Match: x.matches[i]}
		a.ForApp = append(a.ForApp, ev)
		if x.ok[i] {
			a.Codes[ev.Code]++
			if ev.Code == CodeCommitLiveSpec || ev.Code == CodeCommitAppSpec {
				last := ev
				a.LastUpdate = &last
			}
		}
	}
	return a
}

// Lines is the number of lines indexed.
func (x *Index) Lines() int { return len(x.lines) }

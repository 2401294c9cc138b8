package updaterlog

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/imgupd/imgupd/model/updater"
)

// AppRef names an Argo CD Application.
type AppRef struct {
	Namespace, Name string
}

func (a AppRef) String() string {
	if a.Namespace == "" {
		return a.Name
	}
	return a.Namespace + "/" + a.Name
}

// CRRef names an ImageUpdater CR; zero for v0.x cycles, which are global.
type CRRef struct {
	Namespace, Name string
}

// Span is the time range a log covers.
type Span struct {
	From, To time.Time
}

// Cycle is one "Processing results" line.
type Cycle struct {
	Time time.Time
	CR   CRRef
	// The five counters as logged.
	Applications, ImagesConsidered, ImagesSkipped, ImagesUpdated, Errors int
	// Line is the Line.Number of the results line.
	Line int
	// WarmUp marks the start-up warm-up pass (dry run), not a real cycle.
	WarmUp bool
}

// Event is a line together with its classification (a zero Match when the
// message is not catalogued).
type Event struct {
	Line
	Match
}

// Analysis summarises a log for one Application.
type Analysis struct {
	// Lines and Parsed count Lines (a panic with its stack trace is one) and
	// those read as logrus/JSON.
	Lines, Parsed int
	// Span is the earliest and latest timestamp seen (zero if none).
	Span Span
	// Cycles lists every "Processing results" line, in log order.
	Cycles []Cycle
	// LastCycle is the last cycle that is not the start-up warm-up (the last
	// cycle if all are warm-up); nil without cycles.
	LastCycle *Cycle
	// CycleInterval is the median gap between consecutive non-warm-up cycles
	// of the same CR; 0 with fewer than two such cycles.
	CycleInterval time.Duration
	// ForApp holds the lines about the Application, in log order.
	ForApp []Event
	// Errors and Warnings hold every error/fatal and warning line, any app.
	Errors, Warnings []Event
	// Codes counts ForApp events by catalogue code.
	Codes map[string]int
	// LastUpdate is the last successful write-back for the Application.
	LastUpdate *Event
	// Startup: the log begins with the controller's start-up (banner,
	// manager start or cache warm-up) before the first cycle.
	Startup bool
	// DryRunOnly: outside the warm-up, the log shows dry-run write-backs and
	// no real ones (the controller runs with --dry-run).
	DryRunOnly bool
	// Version is the release the analysis assumed.
	Version updater.Version
}

// Analyze reads parsed lines for one Application and release v.
//
// A line is about the Application when its application field names it
// ("namespace/name" in v1.x, "name" in v0.x; a bare name is accepted in v1.x
// too, and an empty app.Namespace matches any namespace), or, for lines
// without that field, when a catalogued message names it (unsupported source
// type, commit messages, v0.x skip messages); from v1.2 a bare name there
// must also come from a CR in the Application's namespace. Names are
// compared whole, so "web" never matches "web-api".
func Analyze(lines []Line, app AppRef, v updater.Version) Analysis {
	a := Analysis{Lines: len(lines), Codes: map[string]int{}, Version: v}
	matches := make([]Match, len(lines))
	ok := make([]bool, len(lines))
	firstResults := -1
	warmUpDone := -1
	for i, l := range lines {
		if l.Parsed {
			a.Parsed++
		}
		if !l.Time.IsZero() {
			if a.Span.From.IsZero() || l.Time.Before(a.Span.From) {
				a.Span.From = l.Time
			}
			if l.Time.After(a.Span.To) {
				a.Span.To = l.Time
			}
		}
		matches[i], ok[i] = Classify(l)
		switch {
		case !ok[i]:
		case matches[i].Code == CodeCycleResults && firstResults < 0:
			firstResults = i
		case matches[i].Code == CodeStartupWarmUpDone && warmUpDone < 0:
			warmUpDone = i
		}
	}

	// Start-up: a banner, manager start or warm-up before the first cycle.
	limit := firstResults
	if limit < 0 {
		limit = len(lines)
	}
	for i := 0; i < limit; i++ {
		switch matches[i].Code {
		case CodeStartupBanner, CodeStartupController, CodeStartupWarmUp, CodeStartupWarmUpDone:
			a.Startup = a.Startup || ok[i]
		}
	}

	// Cycles. v0.x ends its warm-up with "Finished cache warm-up" and logs no
	// results for it; v1.x runs every CR once in dry run at start-up, so the
	// first results line of each CR after a start-up is the warm-up.
	warmUpEnd := -1
	if a.Startup && warmUpDone >= 0 {
		warmUpEnd = warmUpDone
	}
	seenCR := map[CRRef]bool{}
	warmUpOver := false
	realCR := map[CRRef]bool{} // CRs that already wrote back for real: past their warm-up
	for i, l := range lines {
		if ok[i] && isRealWriteBack(matches[i]) {
			realCR[lineCR(l, v)] = true
		}
		if !ok[i] || matches[i].Code != CodeCycleResults {
			continue
		}
		c := Cycle{Time: l.Time, Line: l.Number, CR: lineCR(l, v)}
		caps := matches[i].Captures
		c.Applications = atoi(caps["applications"])
		c.ImagesConsidered = atoi(caps["images_considered"])
		c.ImagesSkipped = atoi(caps["images_skipped"])
		c.ImagesUpdated = atoi(caps["images_updated"])
		c.Errors = atoi(caps["errors"])
		// The warm-up pass is over once any CR cycles a second time.
		warmUpOver = warmUpOver || seenCR[c.CR]
		if a.Startup && warmUpDone < 0 && v.UsesCRs() && !warmUpOver && !realCR[c.CR] {
			c.WarmUp = true
			warmUpEnd = i
		}
		seenCR[c.CR] = true
		a.Cycles = append(a.Cycles, c)
	}
	for i := len(a.Cycles) - 1; i >= 0; i-- {
		if !a.Cycles[i].WarmUp {
			a.LastCycle = &a.Cycles[i]
			break
		}
	}
	if a.LastCycle == nil && len(a.Cycles) > 0 {
		a.LastCycle = &a.Cycles[len(a.Cycles)-1]
	}
	a.CycleInterval = medianInterval(a.Cycles)

	// Events.
	dry, real := false, false
	for i, l := range lines {
		ev := Event{Line: l, Match: matches[i]}
		switch l.Level {
		case LevelError, LevelFatal:
			a.Errors = append(a.Errors, ev)
		case LevelWarning:
			a.Warnings = append(a.Warnings, ev)
		}
		// The warm-up only ever writes back in dry run, so real write-backs
		// count anywhere and dry ones only after it.
		if ok[i] {
			real = real || isRealWriteBack(matches[i])
			dry = dry || i > warmUpEnd && isDryWriteBack(matches[i])
		}
		if !aboutApp(l, matches[i], ok[i], app, v) {
			continue
		}
		a.ForApp = append(a.ForApp, ev)
		if ok[i] {
			a.Codes[ev.Code]++
			if ev.Code == CodeCommitLiveSpec || ev.Code == CodeCommitAppSpec {
				last := ev
				a.LastUpdate = &last
			}
		}
	}
	a.DryRunOnly = dry && !real
	return a
}

// lineCR is the CR that logged a line (zero in v0.x or without the fields).
func lineCR(l Line, v updater.Version) CRRef {
	if !v.UsesCRs() {
		return CRRef{}
	}
	return CRRef{Namespace: l.Fields["imageUpdater_namespace"], Name: l.Fields["imageUpdater_name"]}
}

// isRealWriteBack: the message only appears when the controller writes for real.
func isRealWriteBack(m Match) bool {
	switch m.Code {
	case CodeCommitStart, CodeCommitLiveSpec, CodeCommitAppSpec:
		return true
	case CodeImageUpdated:
		b, err := strconv.ParseBool(m.Captures["dry_run"])
		return err == nil && !b
	}
	return false
}

// isDryWriteBack: the message only appears in dry-run mode.
func isDryWriteBack(m Match) bool {
	switch m.Code {
	case CodeCommitDryRun:
		return true
	case CodeImageUpdated:
		b, err := strconv.ParseBool(m.Captures["dry_run"])
		return err == nil && b
	}
	return false
}

// aboutApp reports whether a line concerns the Application.
func aboutApp(l Line, m Match, classified bool, app AppRef, v updater.Version) bool {
	if app.Name == "" {
		return false
	}
	if f, has := l.Fields["application"]; has && f != "" {
		return sameApp(f, app)
	}
	if !classified {
		return false
	}
	for _, key := range []string{CaptureApp, "annotated_app"} {
		s, has := m.Captures[key]
		if !has || !sameApp(s, app) {
			continue
		}
		// A bare name in a v1.2+ message: the Application lives in the
		// namespace of the CR that logged it.
		crNS := l.Fields["imageUpdater_namespace"]
		if !strings.Contains(s, "/") && app.Namespace != "" && crNS != "" &&
			v.UsesCRs() && !v.AppNamespaceFromSpec() && crNS != app.Namespace {
			continue
		}
		return true
	}
	return false
}

// sameApp compares an Application as printed in a log with app, whole names only.
func sameApp(s string, app AppRef) bool {
	s = strings.Trim(strings.TrimSpace(s), `'"`)
	ns, name, qualified := strings.Cut(s, "/")
	if !qualified {
		// v0.x prints the bare name; v1.x may in free-text messages.
		return s == app.Name
	}
	return name == app.Name && (app.Namespace == "" || ns == app.Namespace)
}

// medianInterval is the median gap between consecutive timed, non-warm-up
// cycles of the same CR.
func medianInterval(cycles []Cycle) time.Duration {
	last := map[CRRef]time.Time{}
	var gaps []time.Duration
	for _, c := range cycles {
		if c.WarmUp || c.Time.IsZero() {
			continue
		}
		if prev, ok := last[c.CR]; ok && !c.Time.Before(prev) {
			gaps = append(gaps, c.Time.Sub(prev))
		}
		last[c.CR] = c.Time
	}
	if len(gaps) == 0 {
		return 0
	}
	slices.Sort(gaps)
	mid := len(gaps) / 2
	if len(gaps)%2 == 1 {
		return gaps[mid]
	}
	return gaps[mid-1] + (gaps[mid]-gaps[mid-1])/2
}

func atoi(s string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(s, "+"))
	if err != nil {
		return 0
	}
	return n
}

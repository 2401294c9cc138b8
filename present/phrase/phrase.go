// Package phrase is the one phrasebook of every medium: the words and marks
// a state, a stage, a count, an age or a where-answer is shown with, the same
// in a terminal, in Markdown and in Slack. The report holds data, never its
// words (report.State is a name; phrase.Title(state) is how people read it);
// present/render and present/blockkit both speak through this package.
package phrase

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/report"
)

// Title is the state in words, for headlines: "up to date", "held back by
// configuration"...
func Title(s report.State) string {
	switch s {
	case report.StateUpToDate:
		return "up to date"
	case report.StateOnItsWay:
		return "update on its way"
	case report.StateHeldBack:
		return "held back by configuration"
	case report.StateWrongUpdate:
		return "wrong update"
	case report.StateBlocked:
		return "blocked"
	case report.StateNotDeployed:
		return "not deployed"
	case report.StateWaitingForMerge:
		return "waiting for a merge"
	}
	return "unknown"
}

// Mark is the state's mark in a terminal, one per state: ✔ up to date,
// ➜ update on its way, ⊘ held back, ↯ wrong update, ◌ not deployed,
// ⑂ waiting for a merge, ✗ blocked, ? unknown.
func Mark(s report.State) string {
	switch s {
	case report.StateUpToDate:
		return "✔"
	case report.StateOnItsWay:
		return "➜"
	case report.StateHeldBack:
		return "⊘"
	case report.StateWrongUpdate:
		return "↯"
	case report.StateNotDeployed:
		return "◌"
	case report.StateWaitingForMerge:
		return "⑂"
	case report.StateBlocked:
		return "✗"
	}
	return "?"
}

// Colour is the state's colour word, one per state, as its Emoji shows it:
// green up to date, blue on its way, yellow held back, orange wrong update,
// purple not deployed, brown waiting for a merge, red blocked, grey unknown.
func Colour(s report.State) string {
	switch s {
	case report.StateUpToDate:
		return "green"
	case report.StateOnItsWay:
		return "blue"
	case report.StateHeldBack:
		return "yellow"
	case report.StateWrongUpdate:
		return "orange"
	case report.StateNotDeployed:
		return "purple"
	case report.StateWaitingForMerge:
		return "brown"
	case report.StateBlocked:
		return "red"
	}
	return "grey"
}

// Emoji is the state's mark in chat: a circle of its Colour (Unicode, so
// it shows in plain-text headers and notifications alike).
func Emoji(s report.State) string {
	switch Colour(s) {
	case "green":
		return "🟢"
	case "blue":
		return "🔵"
	case "yellow":
		return "🟡"
	case "orange":
		return "🟠"
	case "purple":
		return "🟣"
	case "brown":
		return "🟤"
	case "red":
		return "🔴"
	}
	return "⚪"
}

// Title is the answer in words, as a group heading.
func WhereTitle(a report.WhereAnswer) string {
	switch a {
	case report.WhereRunning:
		return "running"
	case report.WhereWritten:
		return "written, deploying"
	case report.WhereDue:
		return "will be picked next cycle"
	case report.WhereWaitingMerge:
		return "waiting for a merge"
	case report.WhereHeldBack:
		return "held back"
	case report.WhereBlocked:
		return "blocked"
	case report.WhereWrongUpdate:
		return "wrong update"
	case report.WhereNotDeployed:
		return "not deployed"
	}
	return "unknown"
}

// NoApp is what a summary says when its scope holds no managed app.
const NoApp = "no managed app in scope"

// CountPhrases are the states that have apps, in words, most urgent first
// ("2 blocked", "5 updates on their way"); none when no app is in scope.
func CountPhrases(s report.Summary) []string {
	var out []string
	for _, c := range s.StatesWithApps() {
		out = append(out, CountPhrase(c.State, c.Count))
	}
	return out
}

// CountPhrase is a count of apps in a state in words: "3 blocked", "1
// update on its way", "5 updates on their way".
func CountPhrase(st report.State, n int) string {
	if st == report.StateOnItsWay && n != 1 {
		return fmt.Sprintf("%d updates on their way", n)
	}
	return fmt.Sprintf("%d %s", n, Title(st))
}

// StageTitle names a summary group's stage ("Live image"); an app the scan
// did not get to has none.
func StageTitle(id report.StageID) string {
	if id == "" {
		return "no stage"
	}
	for _, st := range report.Stages() {
		if st.ID == id {
			return st.Title
		}
	}
	return string(id)
}

// LineTitle is an app's root-cause title, or why it has none.
func LineTitle(l report.SummaryLine) string {
	switch {
	case l.Title != "":
		return l.Title
	case l.NotReached:
		return "not diagnosed before the scan's deadline"
	}
	return Title(l.State)
}

// AnswerCause is the cause an answer gives, without the app and the state
// that open it: "argocd/web is blocked: the registry wants credentials
// (401)" is "the registry wants credentials (401)"; "argocd/web: update on
// its way: web 1.0.0 → 1.0.1 on Image Updater's next cycle" is "web 1.0.0
// → 1.0.1 on Image Updater's next cycle". An answer that says only the
// state has none (""); one in another form is kept whole.
func AnswerCause(answer string, st report.State) string {
	a := strings.TrimSpace(textutil.OneLine(answer))
	head, rest, ok := strings.Cut(a, ": ")
	switch {
	case a == "":
		return ""
	case !ok:
		if strings.Contains(a, " "+Title(st)) {
			return ""
		}
		return a
	case !strings.Contains(head, " "): // "APP: update on its way: …"
		if h, r, ok := strings.Cut(rest, ": "); ok && h == Title(st) {
			return r
		}
		return rest
	case strings.Contains(head, Title(st)), strings.HasPrefix(head, "cannot tell whether "):
		return rest
	}
	return a
}

// LineAges is "since 3d 4h, newer tag waiting 12d" (the parts that are
// known), as of at.
func LineAges(l report.SummaryLine, at time.Time) string {
	var parts []string
	if l.Since != nil {
		parts = append(parts, "since "+Age(at.Sub(*l.Since)))
	}
	if l.Waiting != nil {
		parts = append(parts, "newer tag waiting "+Age(at.Sub(*l.Waiting)))
	}
	return strings.Join(parts, ", ")
}

// Age is a duration as people say an age: "3d 4h", "5h 12m", "12m",
// "<1m"; past a month, days only ("45d").
func Age(d time.Duration) string {
	if d < time.Minute {
		return "<1m"
	}
	days, hours, mins := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case days >= 30:
		return fmt.Sprintf("%dd", days)
	case days > 0 && hours == 0:
		return fmt.Sprintf("%dd", days)
	case days > 0:
		return fmt.Sprintf("%dd %dh", days, hours)
	case hours > 0 && mins == 0:
		return fmt.Sprintf("%dh", hours)
	case hours > 0:
		return fmt.Sprintf("%dh %dm", hours, mins)
	}
	return fmt.Sprintf("%dm", mins)
}

// NextStep is the one step that would decide an unknown answer, as an
// instruction: what would verify the check that decides it (the Not verified
// entry of the root cause, else the first that decides the answer, else the
// first that says what would verify it). A verify text that is already an
// instruction ("grant imgupd get on pods/log in argocd") is said as it is;
// one that names a place to look ("Image Updater's log: …") is said as a
// check of it. Answers that are not unknown have none (""), as has an
// unknown answer whose root cause has a fix and no verify text (the fix is
// the step).
func NextStep(r *report.Report) string {
	if r == nil || r.State != report.StateUnknown {
		return ""
	}
	var pick *report.NotVerified
	for _, first := range []func(u report.NotVerified) bool{
		func(u report.NotVerified) bool {
			rc := r.RootCause
			return rc != nil && u.Code == rc.Code && u.Stage == rc.Stage && u.VerifyBy != ""
		},
		func(u report.NotVerified) bool { return u.Decides && u.VerifyBy != "" },
		func(u report.NotVerified) bool { return u.VerifyBy != "" },
	} {
		for i := range r.NotVerified {
			if first(r.NotVerified[i]) {
				pick = &r.NotVerified[i]
				break
			}
		}
		if pick != nil {
			break
		}
	}
	if pick == nil {
		if rc := r.RootCause; rc != nil && rc.Fix != nil && rc.Fix.Summary != "" {
			return ""
		}
		return "Re-run the diagnosis; if the answer stays unknown, imgupd diagnose " + r.App.String() + " -v in a terminal lists every check and why it was not made."
	}
	return Step(pick.VerifyBy)
}

// instructions are the verbs a verify text that is already an instruction
// opens with.
var instructions = []string{"grant", "re-run", "rerun", "run", "check", "pass", "tell", "give", "fix", "read", "add", "make", "let", "set", "use", "open", "mount", "allow", "install", "create", "ask"}

// Step is a verify text (report.NotVerified.VerifyBy) as a sentence that
// says what to do.
func Step(v string) string {
	v = strings.TrimRight(strings.TrimSpace(textutil.OneLine(v)), ".;, ")
	if v == "" {
		return ""
	}
	first, _, _ := strings.Cut(v, " ")
	imperative := false
	for _, w := range instructions {
		imperative = imperative || strings.EqualFold(strings.TrimRight(first, ":;,"), w)
	}
	if !imperative {
		v = "check " + v
	}
	r, n := utf8.DecodeRuneInString(v)
	return string(unicode.ToUpper(r)) + v[n:] + "."
}

// ClusterFailure is a cluster whose Applications could not be read, in one line: "cluster us:
// every Application unknown: cannot read its Applications: …". The reason is text the cluster
// or its Secret may have written: each medium escapes it.
func ClusterFailure(f report.ClusterFailure) string {
	return "cluster " + f.Cluster + ": every Application unknown: " + f.Reason
}

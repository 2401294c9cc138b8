package phrase

import (
	"testing"
	"time"

	"github.com/imgupd/imgupd/report"
)

const day = 24 * time.Hour

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                               "<1m",
		-time.Hour:                      "<1m",
		59 * time.Second:                "<1m",
		12 * time.Minute:                "12m",
		5*time.Hour + 12*time.Minute:    "5h 12m",
		5 * time.Hour:                   "5h",
		3*day + 4*time.Hour + time.Hour: "3d 5h",
		3 * day:                         "3d",
		29*day + 23*time.Hour:           "29d 23h",
		45*day + 7*time.Hour:            "45d",
	} {
		if got := Age(d); got != want {
			t.Errorf("Age(%s) = %q, want %q", d, got, want)
		}
	}
}

// TestAnswerCause: the cause is what an answer says after the app and its
// state, in every form the engine writes; an answer that says only the
// state has none; another form is kept whole.
func TestAnswerCause(t *testing.T) {
	for _, tc := range []struct {
		answer string
		st     report.State
		want   string
	}{
		{"argocd/web is blocked: the registry wants credentials (401)", report.StateBlocked, "the registry wants credentials (401)"},
		{"argocd/web gets a wrong update: the pick is lower than the running tag", report.StateWrongUpdate, "the pick is lower than the running tag"},
		{"argocd/web's update is not deployed: automated sync is off", report.StateNotDeployed, "automated sync is off"},
		{"argocd/web is held back by configuration: no tag is a candidate", report.StateHeldBack, "no tag is a candidate"},
		{"cannot tell whether argocd/web gets its new tag: the registry did not answer", report.StateUnknown, "the registry did not answer"},
		{"argocd/web: update on its way: web 1.0.0 → 1.0.1 on Image Updater's next cycle", report.StateOnItsWay, "web 1.0.0 → 1.0.1 on Image Updater's next cycle"},
		{"argocd/web is up to date: web runs 1.0.1, the tag Image Updater picks", report.StateUpToDate, "web runs 1.0.1, the tag Image Updater picks"},
		{"argocd/web is blocked: the cause: with a colon", report.StateBlocked, "the cause: with a colon"},
		{"argocd/web is up to date", report.StateUpToDate, ""},
		{"Application argocd/web does not exist", report.StateUnknown, "Application argocd/web does not exist"},
		{"no Application argocd/web: it was deleted", report.StateBlocked, "no Application argocd/web: it was deleted"},
		{"  ", report.StateBlocked, ""},
	} {
		if got := AnswerCause(tc.answer, tc.st); got != tc.want {
			t.Errorf("AnswerCause(%q, %s) = %q, want %q", tc.answer, tc.st, got, tc.want)
		}
	}
}

// TestEveryStateHasItsOwnWords: each state has a mark, a colour, an emoji
// and a title of its own, and no state falls back on another's.
func TestEveryStateHasItsOwnWords(t *testing.T) {
	seen := map[string]report.State{}
	for _, st := range report.States() {
		for _, w := range []string{"mark " + Mark(st), "colour " + Colour(st), "emoji " + Emoji(st), "title " + Title(st)} {
			if other, dup := seen[w]; dup {
				t.Errorf("%s and %s share the %s", st, other, w)
			}
			seen[w] = st
		}
	}
}

// TestNextStep: an unknown answer says the one step that decides it, from
// the Not verified entry of its root cause, as an instruction; other
// answers say none.
func TestNextStep(t *testing.T) {
	web := report.AppRef{Namespace: "argocd", Name: "web"}
	timeout := report.Finding{Code: report.CodeCheckTimeout, Stage: report.StageRegistry, Severity: report.Unknown, Title: "the registry stage ran out of time"}
	nv := []report.NotVerified{
		{Stage: report.StageWriteBack, Code: report.CodeCheckTimeout, What: "write-back", VerifyBy: "Image Updater's log: a write-back that fails logs Could not update application spec"},
		{Stage: report.StageRegistry, Code: report.CodeCheckTimeout, What: "the registry stage ran out of time", VerifyBy: "re-run with a longer --timeout", Decides: true},
	}
	for _, tc := range []struct {
		name string
		r    report.Report
		want string
	}{
		{"the root cause's entry", report.Report{App: web, State: report.StateUnknown, RootCause: &timeout, NotVerified: nv}, "Re-run with a longer --timeout."},
		{"a grant", report.Report{App: web, State: report.StateUnknown, NotVerified: []report.NotVerified{{Code: report.CodeReadForbidden, VerifyBy: "grant imgupd get on pods/log in argocd", Decides: true}}},
			"Grant imgupd get on pods/log in argocd."},
		{"a place to look", report.Report{App: web, State: report.StateUnknown, NotVerified: nv[:1]},
			"Check Image Updater's log: a write-back that fails logs Could not update application spec."},
		{"nothing says what would verify it", report.Report{App: web, State: report.StateUnknown},
			"Re-run the diagnosis; if the answer stays unknown, imgupd diagnose argocd/web -v in a terminal lists every check and why it was not made."},
		{"not unknown", report.Report{App: web, State: report.StateOnItsWay, NotVerified: nv}, ""},
	} {
		if got := NextStep(&tc.r); got != tc.want {
			t.Errorf("%s: NextStep = %q, want %q", tc.name, got, tc.want)
		}
	}
}

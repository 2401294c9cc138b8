package diagnostics

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
)

// The state rules over a finished Report: which stages decide the answer,
// a stage's status, the root cause, the state, the verdict and the headline.
// They read the Report only, never the run.

// decisiveStage: without these stages imgupd cannot say whether Image
// Updater processes the app and which tag it picks. The later stages look
// for further stoppers of a known pick, and what they cannot check is
// listed as not verified without changing the answer.
func decisiveStage(s report.StageID) bool {
	switch s {
	case report.StageHealth, report.StageTarget, report.StageLive, report.StageRegistry, report.StageCandidates:
		return true
	}
	return false
}

// finish sets the state, root cause, headline, verdict and what was not
// verified. The root cause is the first failing finding in stage order that
// blocks Image Updater; failing that, the first other failing finding (a
// wrong update, a deploy that will not happen, newer tags held back). With
// no failing finding, a check that decides the answer and could not be made
// makes the state unknown; otherwise the app is up to date or its update is
// on its way.
func finish(r *report.Report) {
	fs := r.Findings()
	for _, f := range fs {
		if f.Severity == report.Unknown {
			r.NotVerified = append(r.NotVerified, report.NotVerified{Stage: f.Stage, Code: f.Code, What: f.Title, VerifyBy: f.Verify, Decides: f.Decides})
		}
	}
	root := -1
	first := func(ok func(report.Finding) bool) int {
		for i, f := range fs {
			if ok(f) {
				return i
			}
		}
		return -1
	}
	if root = first(func(f report.Finding) bool {
		return f.Severity == report.Fail && stateOrBlocked(f) == report.StateBlocked
	}); root < 0 {
		if root = first(func(f report.Finding) bool { return f.Severity == report.Fail }); root < 0 {
			root = first(func(f report.Finding) bool { return f.Severity == report.Unknown && f.Decides })
		}
	}
	if root >= 0 {
		markRootCause(r, root)
		fs[root].RootCause = true
		settleSecondaryFixes(r, fs[root])
		fs = r.Findings()
	}
	for _, f := range fs {
		if f.Fix != nil && len(f.Fix.Steps) > 0 && f.Fix.Snippet == "" {
			f.Fix.Snippet, f.Fix.Lang = f.Fix.Script(), f.Fix.ScriptLang()
		}
	}
	switch {
	case root >= 0 && fs[root].Severity == report.Fail:
		f := fs[root]
		r.RootCause, r.State = &f, stateOrBlocked(f)
	case root >= 0:
		f := fs[root]
		r.RootCause, r.State = &f, report.StateUnknown
	default:
		r.State = healthyState(r)
	}
	r.Verdict = r.State.Verdict()
	r.Headline = headline(r)
	r.Answer = answer(r)
}

// answer is the answer in one line of at most report.MaxAnswer runes: the
// app, its state and the cause, the cause in the catalogue's words (the
// root cause's own title, with its particulars, is the report's to show).
func answer(r *report.Report) string {
	app := r.App.String()
	var t string
	switch r.State {
	case report.StateUpToDate, report.StateOnItsWay:
		t = r.Headline
		if utf8.RuneCountInString(t) > report.MaxAnswer && r.State == report.StateOnItsWay {
			n := 0
			for _, c := range r.Candidates {
				if pending(c.Decision) {
					n++
				}
			}
			if n > 1 {
				t = fmt.Sprintf("%s: update on its way for %d images", app, n)
			}
		}
	default:
		rc := r.RootCause
		if rc == nil && r.State == report.StateWaitingForMerge {
			// The headline names the pull request, its link and its age;
			// the answer says what the reader waits for in a line.
			t = app + " waits for a merge: Image Updater opens a pull request on its next cycle"
			if hasCode(r.Findings(), report.CodeWriteBackPROpen) {
				t = app + " waits for a merge: Image Updater's pull request is open"
			}
			break
		}
		if rc == nil {
			t = r.Headline
			break
		}
		cause := rc.Title
		if e, ok := report.Lookup(string(rc.Code)); ok && e.Title != "" {
			cause = e.Title
		}
		switch {
		case rc.Code == report.CodeAppNotFound:
			t = rc.Title
		case r.State == report.StateUnknown:
			t = "cannot tell whether " + app + " gets its new tag: " + cause
		default:
			t = app + stateVerb(r.State) + ": " + cause
		}
	}
	return textutil.ClipWords(textutil.OneLine(t), report.MaxAnswer)
}

// stateVerb joins an app to its state in a sentence.
func stateVerb(s report.State) string {
	switch s {
	case report.StateBlocked:
		return " is blocked"
	case report.StateHeldBack:
		return " is held back by configuration"
	case report.StateWrongUpdate:
		return " gets a wrong update"
	case report.StateNotDeployed:
		return "'s update is not deployed"
	case report.StateWaitingForMerge:
		return "'s update waits for a merge"
	}
	return ""
}

func stateOrBlocked(f report.Finding) report.State {
	if f.State == "" {
		return report.StateBlocked
	}
	return f.State
}

// healthyState is up to date or on its way, from the candidate tables:
// on its way when an image's update is due or already written but not yet
// running; waiting for a merge instead when Image Updater proposes updates
// as pull requests (it writes to a side branch, and nothing deploys before
// someone merges it). No table at all (no image's pick was computed) is
// unknown.
func healthyState(r *report.Report) report.State {
	if len(r.Candidates) == 0 {
		return report.StateUnknown
	}
	for _, c := range r.Candidates {
		switch c.Decision.Outcome {
		case updater.OutcomeUpdate, updater.OutcomeAlreadyInSpec:
			if r.HasCode(report.CodeWriteBackPullRequest) && !r.HasCode(report.CodeSyncBehind) {
				return report.StateWaitingForMerge
			}
			return report.StateOnItsWay
		}
	}
	if r.HasCode(report.CodeSyncBehind) {
		return report.StateOnItsWay
	}
	return report.StateUpToDate
}

// hasImageCode: an info finding with this code is about this image.
func hasImageCode(r *report.Report, c report.Code, alias string) bool {
	for _, f := range r.Findings() {
		if f.Code == c && f.Image == alias && f.Severity == report.Info {
			return true
		}
	}
	return false
}

// headline is the answer in one sentence; an up-to-date or on-its-way
// answer whose source could not be read says so, with what would verify it.
func headline(r *report.Report) string {
	h := stateHeadline(r)
	switch r.State {
	case report.StateUpToDate, report.StateOnItsWay:
		if verify, ok := sourceUnread(r); ok {
			h += "; source not read, so the mapping is not verified"
			if verify != "" {
				h += " (to verify: " + verify + ")"
			}
		}
	}
	return h
}

// sourceUnread: a check of the source stage could not be made because the
// source was not read (not the gate before Argo CD's repository Secrets,
// after which the source may still be read); verify is the one step that
// would make it: telling imgupd Argo CD's ServiceAccount when that is what
// kept the Secrets from the read, else the unread check's own.
func sourceUnread(r *report.Report) (verify string, unread bool) {
	gate := ""
	for _, nv := range r.NotVerified {
		if nv.Stage != report.StageSource {
			continue
		}
		switch nv.Code {
		case report.CodeSourceArgoSAUnknown:
			gate = nv.VerifyBy
		case report.CodeSecretAccessNotVerified:
		default:
			if !unread {
				verify, unread = nv.VerifyBy, true
			}
		}
	}
	if unread && gate != "" {
		verify = gate
	}
	return verify, unread
}

// stateHeadline is the answer in one sentence, from the state.
func stateHeadline(r *report.Report) string {
	app := r.App.String()
	switch r.State {
	case report.StateUpToDate:
		if len(r.Candidates) == 1 {
			c := r.Candidates[0]
			return fmt.Sprintf("%s is up to date: %s runs %s, the tag Image Updater picks", app, c.Alias, displayRunning(c.Decision))
		}
		return fmt.Sprintf("%s is up to date: its %d images run the tags Image Updater picks", app, len(r.Candidates))
	case report.StateOnItsWay:
		var parts []string
		for _, c := range r.Candidates {
			d := c.Decision
			if !pending(d) {
				continue
			}
			move := fmt.Sprintf("%s %s → %s", c.Alias, displayRunning(d), d.Selected)
			if _, ok := rollbackPin(d); ok {
				move += " (a rollback to the pinned version)"
			}
			if d.Outcome == updater.OutcomeAlreadyInSpec || hasImageCode(r, report.CodeHistoryWritten, c.Alias) {
				parts = append(parts, move+" written, Argo CD deploys it on its next sync")
			} else {
				parts = append(parts, move+" on Image Updater's next cycle")
			}
		}
		if len(parts) == 0 {
			return app + ": update on its way: Image Updater's commit is written, Argo CD deploys it on its next sync"
		}
		return app + ": update on its way: " + strings.Join(parts, "; ")
	case report.StateWaitingForMerge:
		return waitingHeadline(r)
	case report.StateUnknown:
		if rc := r.RootCause; rc != nil {
			if rc.Code == report.CodeAppNotFound {
				return rc.Title
			}
			return "cannot tell whether " + app + " gets its new tag: " + rc.Title
		}
		return "cannot tell whether " + app + " gets its new tag: no image's tag selection could be made"
	}
	verb := stateVerb(r.State)
	if rc := r.RootCause; rc != nil {
		return app + verb + ": " + rc.Title
	}
	return app + verb
}

func worst(fs []report.Finding) report.Severity {
	if len(fs) == 0 {
		return report.Pass
	}
	w := report.Skipped
	for _, f := range fs {
		if f.Severity.Rank() > w.Rank() {
			w = f.Severity
		}
	}
	if w == report.Info || w == report.Skipped {
		return report.Pass
	}
	return w
}

// markRootCause marks the i-th finding in stage order (as Report.Findings
// lists them) as the root cause, so that renderers know it without matching
// codes or titles.
// settleSecondaryFixes keeps the other findings' fixes from contradicting
// the root cause's: a commit failure in Image Updater's log under a
// write-back root cause is that root cause at work (its fix is the root
// cause's, not a generic one); a step that changes an object the root
// cause's fix changes is left to after that fix (its exact patch was made
// for the object as it is now).
func settleSecondaryFixes(r *report.Report, root report.Finding) {
	changed := map[string]bool{}
	if root.Fix != nil {
		for _, s := range root.Fix.Steps {
			if s.Patch != nil {
				changed[s.Patch.Object()] = true
			}
		}
	}
	for si := range r.Stages {
		fs := r.Stages[si].Findings
		for i := range fs {
			f := &fs[i]
			if f.RootCause || f.Fix == nil {
				continue
			}
			if f.Code == report.CodeWriteBackCommitFailed && root.Stage == report.StageWriteBack {
				f.Fix = nil
				f.Detail = strings.TrimSpace(f.Detail + " The root cause above is why the commit failed; its fix is this finding's.")
				continue
			}
			var keep []report.Step
			dropped := false
			for _, s := range f.Fix.Steps {
				if s.Patch != nil && changed[s.Patch.Object()] {
					dropped = true
					continue
				}
				keep = append(keep, s)
			}
			if dropped {
				fix := *f.Fix
				fix.Steps = keep
				fix.Summary += " (After the root cause's fix: it changes the same object, and this finding's patch was written for the object as it is now.)"
				f.Fix = &fix
			}
		}
	}
}

func markRootCause(r *report.Report, i int) {
	for s := range r.Stages {
		if fs := r.Stages[s].Findings; i < len(fs) {
			fs[i].RootCause = true
			return
		} else {
			i -= len(fs)
		}
	}
}

// waitingHeadline: the update is (or will be) a pull request that someone
// must merge. The open request, when the forge listed one, is named by its
// finding's title (number, age, whether it can merge); the root cause, when
// the request cannot merge as it is, says why.
func waitingHeadline(r *report.Report) string {
	app := r.App.String()
	var moves []string
	for _, c := range r.Candidates {
		if d := c.Decision; pending(d) {
			moves = append(moves, fmt.Sprintf("%s %s → %s", c.Alias, displayRunning(d), d.Selected))
		}
	}
	move := "the update"
	if len(moves) > 0 {
		move = strings.Join(moves, "; ")
	}
	if rc := r.RootCause; rc != nil {
		return app + ": " + move + " waits for a merge: " + rc.Title
	}
	for _, f := range r.Findings() {
		if f.Code == report.CodeWriteBackPROpen {
			return app + ": " + move + " waits for a merge: " + f.Title
		}
	}
	return app + ": " + move + " waits for a merge: Image Updater opens a pull request on its next cycle; it deploys once someone merges it"
}

package blockkit

import (
	"context"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// TestUnknownAnswerSaysItsNextStep: an unknown answer says, in the message,
// the one step that would decide it (what would verify the check that
// decides it), not only that the check could not be made; and it offers no
// button with nothing to show. No built-in scenario is unknown: the lab's
// own diagnosis is run out of time, and a forbidden read is built.
func TestUnknownAnswerSaysItsNextStep(t *testing.T) {
	sc, ok := lab.Builtin("healthy-up-to-date")
	if !ok {
		t.Fatal("no built-in scenario healthy-up-to-date")
	}
	env, err := lab.Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	env.Engine().Options.Timeout = 1 // a nanosecond: every stage runs out of time
	timedOut := env.Diagnose(context.Background())

	forbidden := stepsReport()
	rc := report.Finding{Code: report.CodeReadForbidden, Stage: report.StageHealth, Severity: report.Unknown, RootCause: true, Decides: true,
		Title:  "cannot read Deployments in argocd: forbidden",
		Detail: "The check was not made. imgupd needs read access to this object.",
		Verify: "grant imgupd list on deployments.apps in argocd"}
	forbidden.State, forbidden.RootCause, forbidden.Candidates, forbidden.UpdaterLog = report.StateUnknown, &rc, nil, nil
	forbidden.Answer = "cannot tell whether argocd/web gets its new tag: a read was forbidden by RBAC"
	forbidden.NotVerified = append([]report.NotVerified{{Stage: rc.Stage, Code: rc.Code, What: rc.Title, VerifyBy: rc.Verify, Decides: true}}, forbidden.NotVerified...)

	for name, tc := range map[string]struct {
		r    *report.Report
		want string
	}{
		"timed out": {timedOut, "*Next step:* Re-run with a longer --timeout"},
		"forbidden": {forbidden, "*Next step:* Grant imgupd list on deployments.apps in argocd."},
	} {
		t.Run(name, func(t *testing.T) {
			r := tc.r
			if r.State != report.StateUnknown || r.RootCause == nil {
				t.Fatalf("want an unknown answer with the check that decides it, got %s (%v)", r.State, r.RootCause)
			}
			p := Report(r, Options{Buttons: true})
			for _, e := range Validate(p) {
				t.Error(e)
			}
			texts, _ := messageTexts(p.Message)
			msg := strings.Join(texts, "\n")
			if !strings.Contains(msg, tc.want) {
				t.Errorf("the message does not say the next step %q:\n%s", tc.want, msg)
			}
			labels := buttonLabels(p.Message)
			if labels["Show candidate tags"] || labels["Show updater log lines"] {
				t.Errorf("buttons with nothing to show: %v", labels)
			}
			checkReadingRules(t, r, p)
			checkMessageShape(t, r, p)
		})
	}
}

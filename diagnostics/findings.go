package diagnostics

import (
	"context"
	"errors"

	"github.com/imgupd/imgupd/diagnostics/cluster"
)

// The finding builders every stage uses: a finding from the catalogue
// (find), its evidence, fix and image, a failed read or a stage out of time
// as a finding, and tests over a stage's findings.

// timeoutFinding is a stage that did not (fully) run in time: it decides
// the answer when the stage is one the pick depends on.
func timeoutFinding(stage StageID, title string) Finding {
	return Finding{Code: CodeCheckTimeout, Stage: stage, Severity: Unknown, Title: title,
		Detail:  "What the stage would have checked is not known.",
		Verify:  "re-run with a longer --timeout (the whole diagnosis) and check that imgupd reaches the registries and git servers",
		Decides: decisiveStage(stage)}
}

// readFailure turns a failed read into a finding: a forbidden read names
// the missing RBAC rule; anything else is an unknown. Whether it decides the
// answer follows the stage (decisiveStage); callers that know better set
// Decides themselves.
func readFailure(stage StageID, what string, err error) Finding {
	var ae *cluster.AccessError
	if errors.As(err, &ae) && ae.Forbidden {
		return Finding{Code: CodeReadForbidden, Stage: stage, Severity: Unknown,
			Title:    "cannot read " + what + ": forbidden",
			Detail:   "The check was not made. imgupd needs read access to this object.",
			Evidence: []Evidence{{Label: "missing rule", Value: ae.Rule()}},
			Fix:      &Fix{Summary: "Grant imgupd this read (deploy/rbac.yaml ships the rules).", Where: ae.RuleScope(), Snippet: ae.RuleYAML(), Lang: "yaml"},
			Verify:   "grant imgupd " + ae.Rule(),
			Decides:  decisiveStage(stage)}
	}
	f := Finding{Code: CodeCheckTimeout, Stage: stage, Severity: Unknown, Title: "cannot read " + what,
		Verify: "re-run when the API server answers", Decides: decisiveStage(stage)}
	if errors.Is(err, context.DeadlineExceeded) {
		f.Title = "reading " + what + " timed out"
		f.Verify = "re-run with a longer --timeout"
	} else {
		f.Detail = oneLine(err.Error())
	}
	return f
}

func find(code Code, sev Severity, title string) Finding {
	f := Finding{Code: code, Severity: sev, Title: title}
	if e, ok := catalogue[code]; ok {
		f.Stage = e.Stage
		f.State = e.State
		f.Detail = e.Meaning
		f.Role = e.Role
		if e.Fix != "" {
			f.Fix = &Fix{Summary: e.Fix}
		}
	}
	return f
}

func ev(label, value string) Evidence { return Evidence{Label: label, Value: value} }

func hasSeverity(fs []Finding, s Severity) bool {
	for _, f := range fs {
		if f.Severity == s {
			return true
		}
	}
	return false
}

func hasCode(fs []Finding, c Code) bool {
	for _, f := range fs {
		if f.Code == c {
			return true
		}
	}
	return false
}

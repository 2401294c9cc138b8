package diagnostics

import (
	"context"
	"errors"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

// The finding builders every stage uses: a finding from the catalogue
// (find), its evidence, fix and image, a failed read or a stage out of time
// as a finding, and tests over a stage's findings.

// timeoutFinding is a stage that did not (fully) run in time: it decides
// the answer when the stage is one the pick depends on.
func timeoutFinding(stage report.StageID, title string) report.Finding {
	return report.Finding{Code: report.CodeCheckTimeout, Stage: stage, Severity: report.Unknown, Title: title,
		Detail:  "What the stage would have checked is not known.",
		Verify:  "re-run with a longer --timeout (the whole diagnosis) and check that imgupd reaches the registries and git servers",
		Decides: decisiveStage(stage)}
}

// readFailure turns a failed read into a finding: a forbidden read names
// the missing RBAC rule; anything else is an unknown. Whether it decides the
// answer follows the stage (decisiveStage); callers that know better set
// Decides themselves.
func readFailure(stage report.StageID, what string, err error) report.Finding {
	var ae *cluster.AccessError
	if errors.As(err, &ae) && ae.Forbidden {
		return report.Finding{Code: report.CodeReadForbidden, Stage: stage, Severity: report.Unknown,
			Title:    "cannot read " + what + ": forbidden",
			Detail:   "The check was not made. imgupd needs read access to this object.",
			Evidence: []report.Evidence{{Label: "missing rule", Value: ae.Rule()}},
			Fix:      &report.Fix{Summary: "Grant imgupd this read (deploy/rbac.yaml ships the rules).", Where: ae.RuleScope(), Steps: []report.Step{ruleStep(ae)}},
			Verify:   "grant imgupd " + ae.Rule(),
			Decides:  decisiveStage(stage)}
	}
	f := report.Finding{Code: report.CodeCheckTimeout, Stage: stage, Severity: report.Unknown, Title: "cannot read " + what,
		Verify: "re-run when the API server answers", Decides: decisiveStage(stage)}
	if errors.Is(err, context.DeadlineExceeded) {
		f.Title = "reading " + what + " timed out"
		f.Verify = "re-run with a longer --timeout"
	} else {
		f.Detail = textutil.OneLine(err.Error())
	}
	return f
}

func find(code report.Code, sev report.Severity, title string) report.Finding {
	f := report.Finding{Code: code, Severity: sev, Title: title}
	if e, ok := catalogue()[code]; ok {
		f.Stage = e.Stage
		f.State = e.State
		f.Detail = e.Meaning
		f.Role = e.Role
		if e.Fix != "" {
			f.Fix = &report.Fix{Summary: e.Fix}
		}
	}
	return f
}

// ruleStep adds the rule imgupd was refused to its Role (or ClusterRole).
func ruleStep(ae *cluster.AccessError) report.Step {
	return report.Paste("add the rule to the rules of "+ae.RuleScope()+" (imgupd does not know which Role grants it, and a chart-managed one is changed in the chart's values)", ae.RuleScope(), nil, "rules:\n"+ae.RuleYAML())
}

func ev(label, value string) report.Evidence { return report.Evidence{Label: label, Value: value} }

func hasSeverity(fs []report.Finding, s report.Severity) bool {
	for _, f := range fs {
		if f.Severity == s {
			return true
		}
	}
	return false
}

func hasCode(fs []report.Finding, c report.Code) bool {
	for _, f := range fs {
		if f.Code == c {
			return true
		}
	}
	return false
}

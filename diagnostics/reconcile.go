package diagnostics

import (
	"fmt"

	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
)

// The reconcile pass: after the stage table, what later stages learnt
// changes earlier findings (an update that is not due, an image that is
// not live, a downgrade already committed, a misspelt alias).

// reconcile applies what later stages learnt to earlier findings: a
// mapping that the source does not read matters for the tag only when an
// update of that image is due; an annotation for a misspelt alias is a
// wrong update when it was meant to name the Helm or Kustomize target of an
// image whose update is due and the default names were not shown to work.
func (r *run) reconcile() {
	mappingOK := r.rep.HasCode(report.CodeSourceMappingChecked)
	for si := range r.rep.Stages {
		st := &r.rep.Stages[si]
		changed := false
		for i := range st.Findings {
			f := &st.Findings[i]
			if r.skippedNotLive(f) {
				f.Severity, f.Title, changed = report.Warn, f.Title+" (the image is not live: Image Updater skips it)", true
				continue
			}
			switch f.Code {
			case report.CodeSourceNotReadable:
				// A source imgupd was not allowed to read decides the answer
				// only when something is to be written into it.
				if f.Decides && !r.anyDue() {
					f.Decides = false
					changed = true
				}
			case report.CodeTargetWrittenTwice:
				if r.reconcileWrittenTwice(f) {
					changed = true
				}
			case report.CodeHistoryWritten:
				if r.overwrittenWrite(f) {
					changed = true
				}
			case report.CodeCandidatesDowngrade:
				if r.retitleCommittedDowngrade(f) {
					changed = true
				}
			case report.CodeHelmParamNotInValues, report.CodeHelmValueOverridden, report.CodeWriteBackTargetNotRead, report.CodeKustomizeNameNotUsed, report.CodeKustomizeImageOverride, report.CodeSourceImageElsewhere:
				if _, known := r.decision[f.Image]; known && !r.dueFor(f.Image) && f.Severity == report.Fail {
					f.Severity = report.Warn
					f.Title += " (no update is due now; the next one would change nothing)"
					changed = true
				}
			case report.Code(problemsByCode()[updater.ProblemAnnotationForUnknownAlias].code):
				for _, t := range r.aliasTypos {
					if t.title != f.Title || !t.targetKey || mappingOK || r.rendersWithWarning(t.alias) || !r.dueFor(t.alias) {
						continue
					}
					f.Severity, f.State, f.Image = report.Fail, report.StateWrongUpdate, t.alias
					f.Title += fmt.Sprintf("; image %s is written to the default parameters instead", t.alias)
					changed = true
				}
			}
		}
		if changed {
			st.Status = worst(st.Findings)
		}
	}
}

// retitleCommittedDowngrade: a downgrade that git write-back has already
// committed (HISTORY_PICK_WRITTEN) is said to be written, and its fix also
// reverts the commit: with the constraint fixed Image Updater commits
// nothing, and Argo CD would deploy the committed tag.
func (r *run) retitleCommittedDowngrade(f *report.Finding) bool {
	d, ok := r.decision[f.Image]
	if !ok || d.Outcome != updater.OutcomeUpdate || d.Selected == nil || !hasImageCode(r.rep, report.CodeHistoryWritten, f.Image) {
		return false
	}
	f.Title = fmt.Sprintf("image %s goes down from %s to %s when Argo CD syncs: Image Updater has committed %s, because the running tag is outside the constraint %q",
		f.Image, d.RunningTag, d.Selected, d.Selected, d.Constraint)
	if f.Fix != nil && r.iuCommit != "" && r.target.WriteBack != nil {
		f.Fix.Summary += fmt.Sprintf(" Then revert Image Updater's commit %s on %s before Argo CD syncs: with nothing to update, Image Updater leaves the committed %s in place.",
			shortHash(r.iuCommit), r.target.WriteBack.Repository, d.Selected)
		f.Fix.Steps = append(f.Fix.Steps, r.revertSteps(r.iuCommit)...)
	}
	return true
}

// rendersWithWarning: the image's Helm write was shown to render the pick
// with only an unread name path (the default image.name beside a chart's
// image.repository), so default names work. That is the one such finding
// the source stage builds as a warning and with no state (checkHelmRender:
// not a wrong update, the new tag runs); every other one implies a wrong
// update, also when reconcile demotes it because no update is due.
func (r *run) rendersWithWarning(alias string) bool {
	for _, f := range r.rep.Findings() {
		if f.Code == report.CodeHelmParamNotInValues && f.Image == alias && f.Severity == report.Warn && f.State == "" {
			return true
		}
	}
	return false
}

// skippedNotLive: f says an image's write would change nothing, but the
// image is not live while another configured image is, so Image Updater
// skips it and writes nothing for it (the live stage warns about it).
func (r *run) skippedNotLive(f *report.Finding) bool {
	switch f.Code {
	case report.CodeHelmParamNotInValues, report.CodeKustomizeNameNotUsed, report.CodeSourceImageElsewhere:
	default:
		return false
	}
	m, ok := r.live[f.Image]
	if f.Severity != report.Fail || f.Image == "" || !ok || m.Found || m.ForceAdded {
		return false
	}
	for _, o := range r.live {
		if o.Found || o.ForceAdded {
			return true
		}
	}
	return false
}

package diagnostics

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
)

// otherCRPicks runs the pick of every other ImageUpdater CR that selects
// the app for the images the followed CR updates (Image Updater reconciles
// each CR on its own and does not de-conflict them, see updater/crs.go),
// and judges them together. Findings come first when the CRs disagree, so
// that the fight, not what the followed CR alone would do, is the answer;
// the followed CR's own "held back" findings for that image become
// warnings, since another CR moves the image anyway.
func (r *run) otherCRPicks(ctx context.Context, own []report.Finding) (first, rest []report.Finding) {
	for _, im := range r.images {
		d, ok := r.decision[im.Alias]
		ir := r.reg[im.Alias]
		if !ok || ir == nil {
			continue
		}
		followed := updater.CRPick{CR: r.target.CR, RefIndex: r.target.RefIndex, NamePattern: r.target.NamePattern,
			Specificity: r.target.Specificity, Alias: im.Alias, Decision: d}
		var others []updater.CRPick
		for _, o := range r.target.Also {
			if !o.Selected {
				continue
			}
			for _, oi := range o.Images {
				if !oi.Image.SameImage(im.Image) {
					continue
				}
				in := updater.SelectInput{
					Version: r.version, Image: oi.Image, Settings: oi.Settings, Tags: ir.tags,
					TagSortMode: ir.endpoint.TagSortMode, ControllerPlatform: r.opts.ControllerPlatform,
					KustomizeName: kustomizeName(oi),
				}
				if m := r.live[im.Alias]; m.Found {
					live := m.Live
					in.Live = &live
				}
				if o.WriteBack == nil || o.WriteBack.Method != "git" {
					in.InSpec = r.specImage(oi)
				}
				od, err := r.selectWithMetadata(ctx, ir, in)
				if err != nil {
					f := readFailure(report.StageCandidates, fmt.Sprintf("image metadata of %s for ImageUpdater %s", aliasOr(oi), o.CR), err)
					f.Verify = "re-run; imgupd needs each candidate tag's manifest and config from " + ir.endpoint.Host()
					rest = append(rest, f)
					continue
				}
				others = append(others, updater.CRPick{CR: o.CR, RefIndex: o.RefIndex, NamePattern: o.NamePattern,
					Specificity: o.Specificity, Alias: oi.Alias, Decision: od})
			}
		}
		if len(others) == 0 {
			continue
		}
		c := updater.JudgeCRPicks(followed, others)
		if c.Kind == updater.ContestAgree {
			rest = append(rest, r.crsAgreeFinding(im, followed, others))
			continue
		}
		first = append(first, r.crsDisagreeFinding(im, c))
		demoteHeldBack(own, im.Alias, c)
	}
	return first, append(rest, r.otherCRImages()...)
}

// otherCRImages: the live images that only another selecting CR lists.
// Image Updater updates them with that CR's settings; imgupd does not pick
// for them, and says so.
func (r *run) otherCRImages() []report.Finding {
	var out []report.Finding
	for _, o := range r.target.Also {
		if !o.Selected {
			continue
		}
	next:
		for _, oi := range o.Images {
			for _, im := range r.images {
				if oi.Image.SameImage(im.Image) {
					continue next
				}
			}
			m := updater.MatchLive(oi.Image, kustomizeName(oi), oi.Settings.ForceUpdate, r.model.LiveImages, r.version)
			if !m.Found {
				continue // Image Updater skips an image that is not live
			}
			f := find(report.CodeCandidatesOtherCRImage, report.Unknown, fmt.Sprintf("image %s of ImageUpdater %s is updated by that CR too; imgupd judges only the images of ImageUpdater %s", aliasOr(oi), o.CR, r.target.CR)).
				With(ev("ImageUpdater "+o.CR, imageSettings(oi)), ev("live", m.Live.String()))
			f.Verify = fmt.Sprintf("Image Updater's log lines for %s with imageUpdater_name=%s, or imgupd simulate %s --update-strategy %s --current-tag %s",
				r.req.App, crName(o.CR), oi.Image.String(), oi.Settings.Strategy.String(), m.Live.Tag)
			out = append(out, f)
		}
	}
	return out
}

// demoteHeldBack turns the followed CR's "held back" and "no pick"
// findings for an image into warnings: another CR moves the image anyway.
func demoteHeldBack(fs []report.Finding, alias string, c updater.Contest) {
	for i := range fs {
		f := &fs[i]
		if f.Image != alias || f.Severity != report.Fail {
			continue
		}
		if st := stateOrBlocked(*f); st != report.StateHeldBack && st != report.StateBlocked {
			continue
		}
		f.Severity = report.Warn
		f.Title += fmt.Sprintf(" (what ImageUpdater %s alone does; %s moves the image)", c.Followed.CR, crList(c.Others))
	}
}

func crList(ps []updater.CRPick) string {
	var s []string
	for _, p := range ps {
		s = append(s, "ImageUpdater "+p.CR)
	}
	return strings.Join(s, " and ")
}

func pickWords(p updater.CRPick) string {
	d := p.Decision
	if t, ok := p.Tag(); ok {
		switch d.Outcome {
		case updater.OutcomeAlreadyInSpec:
			return t + " (already written in the spec)"
		case updater.OutcomeUpToDate:
			return t + " (the running tag)"
		}
		return t
	}
	if d.Outcome == updater.OutcomeError && d.Err != nil {
		return "nothing (" + d.Err.Log + ")"
	}
	if d.Outcome == updater.OutcomeNoCandidate {
		return "nothing (no tag is a candidate)"
	}
	return "nothing (" + string(d.Outcome) + ")"
}

func constraintWords(p updater.CRPick) string {
	if c := p.Decision.Constraint; c != "" {
		return fmt.Sprintf(" (constraint %s)", c)
	}
	return ""
}

func crPickEvidence(p updater.CRPick) report.Evidence {
	d := p.Decision
	words := pickWords(p)
	if d.Constraint != "" {
		words += " · constraint " + d.Constraint
	} else {
		words += " · no constraint"
	}
	words += fmt.Sprintf(" · strategy %s · applicationRefs[%d] namePattern %q", d.Strategy.String(), p.RefIndex, p.NamePattern)
	return ev("ImageUpdater "+p.CR+" picks", words)
}

func (r *run) crsAgreeFinding(im updater.ImageConfig, followed updater.CRPick, others []updater.CRPick) report.Finding {
	f := find(report.CodeCandidatesCRsAgree, report.Info, fmt.Sprintf("image %s: the %d ImageUpdater CRs that select the app pick the same tag (%s)", aliasOr(im), len(others)+1, pickWords(followed))).WithImage(im.Alias).
		With(crPickEvidence(followed))
	for _, o := range others {
		f = f.With(crPickEvidence(o))
	}
	return f
}

func (r *run) crsDisagreeFinding(im updater.ImageConfig, c updater.Contest) report.Finding {
	name := aliasOr(im)
	own := c.Followed
	ownTag, _ := own.Tag()
	running := displayRunning(own.Decision)
	var title string
	var other updater.CRPick = c.Others[0]
	otherTag, _ := other.Tag()
	switch c.Kind {
	case updater.ContestAlternate:
		title = fmt.Sprintf("image %s: ImageUpdater %s writes %s over ImageUpdater %s's pick %s%s, and %s writes %s back: each CR is reconciled on its own, so they rewrite %s in turn every cycle (running %s)",
			name, other.CR, otherTag, own.CR, ownTag, constraintWords(own), own.CR, ownTag, name, running)
	default:
		title = fmt.Sprintf("image %s: ImageUpdater %s moves it to %s, though ImageUpdater %s%s picks %s",
			name, other.CR, otherTag, own.CR, constraintWords(own), pickWords(own))
	}
	f := find(report.CodeCandidatesCRsDisagree, report.Fail, title).WithImage(im.Alias).With(crPickEvidence(own))
	for _, o := range c.Others {
		f = f.With(crPickEvidence(o))
	}
	f = f.With(ev("running", running))
	for _, p := range append([]updater.CRPick{own}, c.Others...) {
		if e := r.lastCRWrite(p.CR); e != "" {
			f = f.With(ev("ImageUpdater "+p.CR+"'s last write in the log", e))
		}
	}
	if r.logs != nil && r.logs.CycleInterval > 0 {
		f = f.With(ev("cycle interval in the log", r.logs.CycleInterval.String()))
	}
	// The fix narrows the broader CR: the followed one is the most
	// specific, so the others are team-wide (or as specific: either one).
	broad := other
	ns := r.req.Namespace
	label := "image-updater-cr"
	ownName := crName(own.CR)
	where := fmt.Sprintf("ImageUpdater %s spec.applicationRefs[%d] (namePattern %q); Application %s/%s", broad.CR, broad.RefIndex, broad.NamePattern, ns, r.req.App)
	summary := fmt.Sprintf("Let one CR own %s: narrow ImageUpdater %s's applicationRefs[%d] so it no longer selects %s (labelSelectors the app does not match, or a namePattern that leaves it out), or, if the team-wide settings are what you want, drop %s from ImageUpdater %s.",
		r.req.App, broad.CR, broad.RefIndex, r.req.App, r.req.App, own.CR)
	labelApp := report.Command(fmt.Sprintf("label the Application as owned by ImageUpdater %s", ownName),
		"kubectl", "-n", ns, "label", "application", r.req.App, label+"="+ownName)
	ref := strconv.Itoa(broad.RefIndex)
	expr := map[string]any{"key": label, "operator": "DoesNotExist"}
	op := report.PatchOp{Op: "add", Path: report.Pointer("spec", "applicationRefs", ref, "labelSelectors"), Value: map[string]any{"matchExpressions": []any{expr}}}
	switch sel, exprs := r.crRefSelector(broad); {
	case exprs:
		op = report.PatchOp{Op: "add", Path: report.Pointer("spec", "applicationRefs", ref, "labelSelectors", "matchExpressions", "-"), Value: expr}
	case sel:
		op = report.PatchOp{Op: "add", Path: report.Pointer("spec", "applicationRefs", ref, "labelSelectors", "matchExpressions"), Value: []any{expr}}
	}
	patch := report.Patch{Kind: "ImageUpdater", Resource: "imageupdater", Namespace: crNamespace(broad.CR), Name: crName(broad.CR), Type: report.PatchJSON,
		Ops: []report.PatchOp{{Op: "test", Path: report.Pointer("spec", "applicationRefs", ref, "namePattern"), Value: broad.NamePattern}, op}}
	return f.WithFix(summary, where, labelApp,
		report.PatchStep(fmt.Sprintf("let ImageUpdater %s leave out Applications with that label", broad.CR), patch))
}

// lastCRWrite is the last "Setting new image" line of the CR's reconcile
// about the app in Image Updater's log (redacted, one line), or "".
func (r *run) lastCRWrite(cr string) string {
	if r.logs == nil {
		return ""
	}
	for i := len(r.logs.ForApp) - 1; i >= 0; i-- {
		l := r.logs.ForApp[i].Redacted().Line
		if l.Field("imageUpdater_name") != crName(cr) || l.Field("imageUpdater_namespace") != crNamespace(cr) || !strings.HasPrefix(l.Msg, "Setting new image to ") {
			continue
		}
		return textutil.ClipWords(textutil.OneLine(l.Time.UTC().Format(time.RFC3339)+" "+l.Msg), 300)
	}
	return ""
}

// crRefSelector says whether the CR's selecting ref already has
// labelSelectors, and matchExpressions in them (a JSON patch must then add
// to them rather than replace them).
func (r *run) crRefSelector(p updater.CRPick) (selector, exprs bool) {
	for i := range r.crs {
		cr := &r.crs[i]
		if cr.Key() == p.CR && p.RefIndex >= 0 && p.RefIndex < len(cr.Spec.ApplicationRefs) {
			ls := cr.Spec.ApplicationRefs[p.RefIndex].LabelSelectors
			return ls != nil, ls != nil && len(ls.MatchExpressions) > 0
		}
	}
	return false, false
}

package diagnostics

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
)

// checkCandidates runs the updater model on the real tags of each image:
// the candidate table, why there are no candidates, whether an update is
// due, the tag that would be picked and the one running.
func checkCandidates(ctx context.Context, r *run) []report.Finding {
	var out []report.Finding
	for _, im := range r.images {
		ir := r.reg[im.Alias]
		if ir == nil || ir.err != nil || ir.tags == nil {
			continue
		}
		in := updater.SelectInput{
			Version: r.version, Image: im.Image, Settings: im.Settings, Tags: ir.tags,
			TagSortMode: ir.endpoint.TagSortMode, ControllerPlatform: r.opts.ControllerPlatform,
			KustomizeName: kustomizeName(im),
		}
		if m := r.live[im.Alias]; m.Found {
			live := m.Live
			in.Live = &live
		}
		if r.target.WriteBack == nil || r.target.WriteBack.Method != "git" {
			in.InSpec = r.specImage(im)
		}
		d, meta, err := r.selectWithMeta(ctx, ir, in)
		if err != nil {
			f := readFailure(report.StageCandidates, "image metadata of "+aliasOr(im), err)
			f.Verify = "re-run; imgupd needs each candidate tag's manifest and config from " + ir.endpoint.Host()
			out = append(out, f)
			continue
		}
		r.decision[im.Alias] = d
		fs := r.candidateFindings(im, d)
		if f, ok := r.defaultedStrategyPick(ctx, ir, in, im, d); ok {
			fs = append(fs, f)
		}
		if ir.partial != nil {
			fs = partialPick(im, d, ir.partial, fs)
		}
		fs = r.refusedMetadata(im, ir, d, meta, fs)
		fs = append(fs, r.signatureFindings(ctx, ir, im, d)...)
		out = append(out, fs...)
	}
	first, rest := r.otherCRPicks(ctx, out)
	return append(first, append(out, rest...)...)
}

// defaultedStrategyPick: when the CRD's default semver strategy hides the
// strategy the CR set a level up, run the model with the strategy that was
// asked for. A different pick means Image Updater writes the wrong tag.
func (r *run) defaultedStrategyPick(ctx context.Context, ir *imageRegistry, in updater.SelectInput, im updater.ImageConfig, got updater.Decision) (report.Finding, bool) {
	for _, d := range r.target.DefaultedOverrides {
		if d.Field != updater.FieldUpdateStrategy || (d.Alias != "" && d.Alias != im.Alias) {
			continue
		}
		want, _ := updater.ParseStrategy(d.Inherited)
		if want == in.Settings.Strategy {
			continue
		}
		alt := in
		alt.Settings.Strategy = want
		wd, err := r.selectWithMetadata(ctx, ir, alt)
		if err != nil {
			return report.Finding{}, false
		}
		r.wantedPick[im.Alias] = wd
		gotTag, wantTag := pickTag(got), pickTag(wd)
		if gotTag == wantTag {
			continue
		}
		block := fmt.Sprintf("spec.applicationRefs[%d].commonUpdateSettings", d.RefIndex)
		if d.Alias != "" {
			block = fmt.Sprintf("spec.applicationRefs[%d].images[%s].commonUpdateSettings", d.RefIndex, d.Alias)
		}
		f := find(report.Code(problemsByCode()[updater.ProblemCRDDefaultedOverride].code), report.Fail,
			fmt.Sprintf("image %s: the CRD-defaulted updateStrategy: %s in %s picks %s; the %s strategy set at %s level would pick %s",
				aliasOr(im), d.Value, block, gotTag, d.Inherited, d.InheritedFrom, wantTag)).WithImage(im.Alias).
			With(ev("stored block", block+".updateStrategy: "+d.Value+" (written by the v1.0–v1.3 CRD's default)"),
				ev("asked for", "updateStrategy: "+d.Inherited+" at "+string(d.InheritedFrom)+" level"),
				ev("Image Updater writes", gotTag), ev("the "+d.Inherited+" pick", wantTag))
		return f.WithFix("Write the strategy you want into the defaulted block, so the CRD default no longer hides it.", "ImageUpdater "+d.CR+" "+block,
			r.defaultedBlockPatch("write updateStrategy "+d.Inherited+" into the defaulted block", d)), true
	}
	return report.Finding{}, false
}

func pickTag(d updater.Decision) string {
	if d.Selected == nil {
		return "(nothing)"
	}
	return d.Selected.String()
}

// defaultedBlockPatch writes the inherited value of d's field into the
// block the CRD defaulted, in the CR d names: its ref's namePattern and the
// image's alias tested first.
func (r *run) defaultedBlockPatch(say string, d updater.DefaultedOverride) report.Step {
	var cr *updater.ImageUpdater
	for i := range r.crs {
		if r.crs[i].Key() == d.CR {
			cr = &r.crs[i]
		}
	}
	if cr == nil || d.RefIndex < 0 || d.RefIndex >= len(cr.Spec.ApplicationRefs) {
		return report.Value(say, crObject(d.CR), "(the CR could not be read back to write an exact patch: set "+d.Field+" to "+d.Inherited+")")
	}
	ref := strconv.Itoa(d.RefIndex)
	guards := []report.PatchOp{{Op: "test", Path: report.Pointer("spec", "applicationRefs", ref, "namePattern"), Value: d.NamePattern}}
	block := []string{"spec", "applicationRefs", ref, "commonUpdateSettings"}
	if d.Alias != "" {
		idx := -1
		for i, im := range cr.Spec.ApplicationRefs[d.RefIndex].Images {
			if im.Alias == d.Alias {
				idx = i
			}
		}
		if idx < 0 {
			return report.Value(say, crObject(d.CR), "(image "+d.Alias+" is not in the CR as read: set its "+d.Field+" to "+d.Inherited+")")
		}
		guards = append(guards, report.PatchOp{Op: "test", Path: report.Pointer("spec", "applicationRefs", ref, "images", strconv.Itoa(idx), "alias"), Value: d.Alias})
		block = []string{"spec", "applicationRefs", ref, "images", strconv.Itoa(idx), "commonUpdateSettings"}
	}
	var value any = d.Inherited
	if d.Field == updater.FieldForceUpdate {
		value = d.Inherited == "true"
	}
	return report.PatchStep(say, report.Patch{Kind: "ImageUpdater", Resource: "imageupdater", Namespace: cr.Namespace, Name: cr.Name, Type: report.PatchJSON,
		Ops: append(guards, report.PatchOp{Op: "replace", Path: report.Pointer(append(block, d.Field)...), Value: value})})
}

func (r *run) candidateFindings(im updater.ImageConfig, d updater.Decision) []report.Finding {
	name := aliasOr(im)
	counts := fateCounts(d)
	table := ev("tags", fmt.Sprintf("%d listed · %d after filters · %d candidates (%s)", d.Listed, d.Filtered, d.Candidates, counts))
	var out []report.Finding
	switch d.Outcome {
	case updater.OutcomeError:
		code := map[updater.SelectErrorKind]report.Code{
			updater.ErrImproperConstraint:      report.CodeCandidatesConstraint,
			updater.ErrDigestWithoutConstraint: report.CodeCandidatesDigestNoTag,
			updater.ErrRunningTagNotSemver:     report.CodeCandidatesRunningTag,
		}[d.Err.Kind]
		f := find(code, report.Fail, fmt.Sprintf("image %s: %s", name, d.Err.Log)).WithImage(im.Alias).With(table)
		out = append(out, r.errorFix(f, im, d))
	case updater.OutcomeNoCandidate:
		f := find(report.CodeCandidatesNone, report.Fail, fmt.Sprintf("no tag of image %s is a candidate", name)).WithImage(im.Alias).With(table)
		f.Detail = d.Reason
		out = append(out, r.heldBackFix(f, im, d, droppedTags(d)))
	case updater.OutcomeAlreadyInSpec:
		out = append(out, find(report.CodeCandidatesAlreadyInSpec, report.Info, fmt.Sprintf("image %s: the spec already asks for %s, %s still runs", name, d.Selected, d.RunningTag)).WithImage(im.Alias).With(table))
		// Written is not yet running: the pick is judged as before the write.
		out = append(out, r.movedDown(im, d)...)
	case updater.OutcomeUpdate:
		f := find(report.CodeCandidatesUpdate, report.Info, fmt.Sprintf("image %s: update due, %s → %s", name, displayRunning(d), d.Selected)).WithImage(im.Alias).With(table)
		f.Detail = d.Reason
		out = append(out, f)
		out = append(out, r.movedDown(im, d)...)
	case updater.OutcomeUpToDate:
		out = append(out, find(report.CodeCandidatesUpToDate, report.Pass, fmt.Sprintf("image %s is up to date at %s", name, displayRunning(d))).WithImage(im.Alias).With(table))
		if newer := newerDropped(d, im); len(newer) > 0 {
			f := find(report.CodeCandidatesNewerDropped, report.Fail, fmt.Sprintf("image %s stays on %s: %d newer tag(s) are not candidates (%s)", name, d.RunningTag, len(newer), heldBackBy(newer))).WithImage(im.Alias)
			for _, t := range lastFates(newer, 5) {
				f = f.With(ev(t.Tag, string(t.Fate)+": "+t.Why))
			}
			out = append(out, r.heldBackFix(f, im, d, newer))
		}
	}
	if tie := newestBuildTie(d); tie != "" {
		// A version tag losing the tie to a word (latest, main) is written
		// as that word: not the update anyone wanted.
		sev := report.Warn
		if pending(d) && !isVersion(d.Selected.Tag) {
			sev = report.Fail
			tie += "; Image Updater writes " + d.Selected.Tag + " instead of a version"
		}
		f := find(report.CodeCandidatesTie, sev, fmt.Sprintf("image %s: %s", name, tie)).WithImage(im.Alias)
		f.State = report.StateWrongUpdate
		p := r.imagePlace(im, updater.FieldIgnoreTags)
		out = append(out, f.WithFix(fmt.Sprintf("Ignore the tag that should not win (%s).", d.Selected.Tag), p.Where,
			p.step("ignore "+d.Selected.Tag, append(slices.Clone(im.Settings.IgnoreTags), d.Selected.Tag))))
	}
	if n := countFate(d, updater.FatePlatform); n > 0 && d.Platforms != nil && d.Outcome != updater.OutcomeNoCandidate {
		out = append(out, r.platformFinding(im, d, n))
	}
	return out
}

// movedDown judges a pick below the running version: an exact pin is a
// deliberate rollback, on its way; any other constraint that leaves the
// running version out moves the image down by accident, a wrong update.
func (r *run) movedDown(im updater.ImageConfig, d updater.Decision) []report.Finding {
	if pin, ok := rollbackPin(d); ok {
		return []report.Finding{r.rollbackFinding(im, d, pin)}
	}
	if isDowngrade(d) {
		return []report.Finding{r.downgradeFinding(im, d)}
	}
	return nil
}

// rollbackFinding: the pick is the exact version the configuration pins,
// below the running one. Image Updater writes it as asked and Argo CD
// deploys it; the finding says so, and how to follow releases again.
func (r *run) rollbackFinding(im updater.ImageConfig, d updater.Decision, pin string) report.Finding {
	verb := "rolls back"
	if d.Outcome == updater.OutcomeAlreadyInSpec {
		verb = "is rolling back"
	}
	by := fmt.Sprintf("the constraint %q names that one version", d.Constraint)
	if d.Strategy == updater.StrategyDigest {
		by = fmt.Sprintf("the digest strategy follows the tag %q", d.Constraint)
	}
	f := find(report.CodeCandidatesRollback, report.Info, fmt.Sprintf("image %s %s from %s to the pinned %s: %s", aliasOr(im), verb, d.RunningTag, d.Selected, by)).WithImage(im.Alias).
		With(ev("pin", pin), ev("running", displayRunning(d)))
	if d.Outcome == updater.OutcomeAlreadyInSpec {
		f = f.With(ev("written", fmt.Sprintf("the Application spec already asks for %s; Argo CD deploys it on its next sync", d.Selected)))
	}
	// The fix is for later: a range again once the rollback is over.
	if v, err := semver.NewVersion(d.RunningTag); err == nil && d.Strategy == updater.StrategySemver {
		c := fmt.Sprintf("~%d.%d", v.Major(), v.Minor())
		p := r.imagePlace(im, "imageName")
		return f.WithFix(fmt.Sprintf("Nothing to do for the rollback. When it is over, write a range in imageName again, e.g. %q, so Image Updater follows new releases (it would move back to the newest %d.%d.x).", c, v.Major(), v.Minor()),
			p.Where, p.step("after the rollback, follow "+c+" again", r.imageNameWith(im, c)))
	}
	return f
}

func isVersion(tag string) bool {
	_, err := semver.NewVersion(tag)
	return err == nil
}

func droppedTags(d updater.Decision) []updater.TagFate {
	var out []updater.TagFate
	for _, t := range d.Tags {
		if !t.Kept {
			out = append(out, t)
		}
	}
	return out
}

func fateCounts(d updater.Decision) string {
	c := map[updater.Fate]int{}
	var order []updater.Fate
	for _, f := range d.Tags {
		if !f.Kept {
			if c[f.Fate] == 0 {
				order = append(order, f.Fate)
			}
			c[f.Fate]++
		}
	}
	var parts []string
	for _, f := range order {
		parts = append(parts, fmt.Sprintf("%d %s", c[f], f))
	}
	if len(parts) == 0 {
		return "none dropped"
	}
	return strings.Join(parts, ", ")
}

func countFate(d updater.Decision, f updater.Fate) int {
	n := 0
	for _, t := range d.Tags {
		if t.Fate == f {
			n++
		}
	}
	return n
}

// newerDropped lists the dropped tags that are semver-greater than the
// running tag: what the user most likely pushed and expected.
func newerDropped(d updater.Decision, im updater.ImageConfig) []updater.TagFate {
	run, err := semver.NewVersion(d.RunningTag)
	if err != nil {
		return nil
	}
	var out []updater.TagFate
	for _, t := range d.Tags {
		if t.Kept {
			continue
		}
		if v, err := semver.NewVersion(t.Tag); err == nil && v.GreaterThan(run) {
			out = append(out, t)
		}
	}
	return out
}

func lastFates(s []updater.TagFate, n int) []updater.TagFate {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// newestBuildTie says which tags share the winner's build time, or "".
func newestBuildTie(d updater.Decision) string {
	if d.Strategy != updater.StrategyNewestBuild || d.Selected == nil || len(d.Tags) < 2 || d.Tags[0].Created == nil {
		return ""
	}
	var tied []string
	for _, t := range d.Tags[1:] {
		if t.Kept && t.Created != nil && t.Created.Equal(*d.Tags[0].Created) {
			tied = append(tied, t.Tag)
		}
	}
	if len(tied) == 0 {
		return ""
	}
	return fmt.Sprintf("%s won a tie on build time with %s (the greater name wins)", d.Selected.Tag, strings.Join(tied, ", "))
}

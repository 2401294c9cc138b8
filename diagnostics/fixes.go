package diagnostics

import (
	"fmt"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
)

// This file writes the fixes that name the object, the field and the value:
// where an image's setting lives (an ImageUpdater CR field or an
// Application annotation) and the snippet that sets it.

// place is where one setting of one image is written.
type place struct {
	// Where names the object and field, for Fix.Where.
	Where string
	// step is the step that writes value there (a string, a []string
	// list, a bool).
	step func(say string, value any) report.Step
}

// imagePlace is where to write field (updater.Field*, or "imageName") for
// an image: the image's own block of the selected applicationRef in CR
// mode, its per-alias annotation otherwise.
func (r *run) imagePlace(im updater.ImageConfig, field string) place {
	key := field
	if field != "imageName" {
		key = "commonUpdateSettings." + field
	}
	step := func(say string, v any) report.Step {
		return r.imagesStep(say, imageSetting{alias: im.Alias, kvs: []kv{{key, v}}})
	}
	if r.target.Mode == updater.ModeCR {
		cr := r.selectedCR()
		crKey, ref, imgIdx := r.target.CR, r.target.RefIndex, 0
		if cr != nil && ref >= 0 && ref < len(cr.Spec.ApplicationRefs) {
			for i, x := range cr.Spec.ApplicationRefs[ref].Images {
				if x.Alias == im.Alias {
					imgIdx = i
				}
			}
		}
		return place{Where: fmt.Sprintf("ImageUpdater %s, spec.applicationRefs[%d].images[%d].%s", crKey, ref, imgIdx, key), step: step}
	}
	ann := updater.AnnotationImageList
	if field != "imageName" {
		name := imageAnnotations[field]
		ann = updater.AnnotationPrefix + im.Alias + "." + name
		if im.Alias == "" {
			ann = updater.AnnotationPrefix + name
		}
	}
	return place{Where: fmt.Sprintf("Application %s/%s, annotation %s", r.req.Namespace, r.req.App, ann), step: step}
}

// imageNameWith is the image's configured name with another constraint,
// as the CR's imageName or the image-list entry spells it.
func (r *run) imageNameWith(im updater.ImageConfig, constraint string) string {
	name := im.Image.FullName()
	if constraint != "" {
		name += ":" + constraint
	}
	return r.imageNameAs(im, name)
}

// imageNameAs is name (with its constraint) as the CR's imageName or the
// image-list entry of the image spells it.
func (r *run) imageNameAs(im updater.ImageConfig, name string) string {
	if r.target.Mode == updater.ModeCR {
		return name
	}
	// The whole image-list is rewritten: keep the other entries.
	var parts []string
	for _, other := range r.images {
		entry := other.Image.FullName()
		if other.Alias == im.Alias {
			entry = name
		} else if c := other.Image.Constraint(); c != "" {
			entry += ":" + c
		}
		if other.Alias != "" {
			entry = other.Alias + "=" + entry
		}
		parts = append(parts, entry)
	}
	return strings.Join(parts, ",")
}

// heldBackFix writes the fix for tags kept out by the configuration: the
// rule that dropped the newest of them and the value that lets it in,
// checked with the model where a new constraint is proposed.
func (r *run) heldBackFix(f report.Finding, im updater.ImageConfig, d updater.Decision, dropped []updater.TagFate) report.Finding {
	if len(dropped) == 0 {
		return f
	}
	newest := newestOf(dropped)
	switch newest.Fate {
	case updater.FateConstraint:
		c := r.admittingConstraint(im, d, newest.Tag)
		if c == "" {
			break
		}
		p := r.imagePlace(im, "imageName")
		what := "newer releases"
		if isPrerelease(newest.Tag) {
			what = "pre-releases such as " + newest.Tag + " (a constraint without a pre-release part never matches one)"
		}
		// The constraint is what the image's owner wrote: holding the app
		// at it is their choice, not a fault; the fix is offered, not led with.
		return f.WithFix(fmt.Sprintf("The constraint %q (%s) is the owner's choice, and Image Updater keeps to it. If %s should come in, widen it: %q makes Image Updater pick %s (checked against the same tags) and still stops at the next major.",
			d.Constraint, p.Where, what, c, newest.Tag), p.Where, p.step("if you want "+newest.Tag+": widen the constraint to "+c, r.imageNameWith(im, c)))
	case updater.FateIgnoreTags:
		pat := updater.IgnoredBy(im.Settings.IgnoreTags, newest.Tag)
		rest := slices.DeleteFunc(slices.Clone(im.Settings.IgnoreTags), func(s string) bool { return s == pat })
		p := r.imagePlace(im, updater.FieldIgnoreTags)
		return f.WithFix(fmt.Sprintf("Remove the entry %q from ignoreTags: it drops %s.", pat, newest.Tag), p.Where, p.step("drop "+pat+" from ignoreTags", rest))
	case updater.FateAllowTags:
		p := r.imagePlace(im, updater.FieldAllowTags)
		re := suggestAllowRegexp(newest.Tag)
		return f.WithFix(fmt.Sprintf("allowTags %q does not match %s; write a pattern that does (or any), e.g. %q.", im.Settings.AllowTags.Raw, newest.Tag, "regexp:"+re),
			p.Where, p.step("let "+newest.Tag+" through allowTags", "regexp:"+re))
	case updater.FatePlatform:
		return r.platformFix(f, im, d, newest)
	}
	return f
}

// platformFix names the platforms the image has and the two ways out: set
// platforms to one of them, or build for the one Image Updater wants.
func (r *run) platformFix(f report.Finding, im updater.ImageConfig, d updater.Decision, t updater.TagFate) report.Finding {
	has := slices.DeleteFunc(slices.Clone(t.Platforms), func(s string) bool { return s == "no platform information" })
	want := "linux/amd64"
	if d.Platforms != nil {
		want = d.Platforms.String()
	}
	f = f.With(ev("platforms of "+t.Tag, orNone(strings.Join(has, ", "))), ev("platforms wanted", want))
	if len(has) == 0 {
		return f
	}
	p := r.imagePlace(im, updater.FieldPlatforms)
	return f.WithFix(fmt.Sprintf("Either set platforms to what %s is built for (%s), or build it for %s too (docker buildx build --platform %s,%s).",
		t.Tag, strings.Join(has, ", "), want, want, has[0]), p.Where, p.step("set platforms to what "+t.Tag+" is built for", has[:1]))
}

// preAt is the caret's patch and pre-release part for a pre-release
// proposal (^1.2.0-0 admits the pre-releases of 1.2.0 and after), "".
func preAt(pre string, v *semver.Version) string {
	if pre == "" {
		return ""
	}
	return fmt.Sprintf(".%d%s", v.Patch(), pre)
}

// admittingConstraint proposes a constraint that admits tag and checks it
// with the model on the same tags: "" when none of the proposals picks it.
func (r *run) admittingConstraint(im updater.ImageConfig, d updater.Decision, tag string) string {
	tv, err := semver.NewVersion(tag)
	if err != nil {
		return ""
	}
	// Every proposal keeps an upper bound (the next major), so that widening
	// a constraint never lets a 2.x in by the way: the caret from the
	// running version first, then from the tag, then a range.
	var props []string
	rv, rerr := semver.NewVersion(d.RunningTag)
	pre := ""
	if tv.Prerelease() != "" {
		pre = "-0"
	}
	if rerr == nil && rv.Major() == tv.Major() && rv.Major() > 0 {
		props = append(props, fmt.Sprintf("^%d.%d%s", rv.Major(), rv.Minor(), preAt(pre, rv)))
	}
	if tv.Major() > 0 {
		props = append(props, fmt.Sprintf("^%d.%d%s", tv.Major(), tv.Minor(), preAt(pre, tv)))
	}
	if rerr == nil {
		props = append(props, fmt.Sprintf(">=%d.%d.%d%s <%d.0.0%s", rv.Major(), rv.Minor(), rv.Patch(), pre, tv.Major()+1, pre))
	}
	props = append(props, fmt.Sprintf("%d.x%s", tv.Major(), pre))
	tags := make([]string, 0, len(d.Tags))
	for _, t := range d.Tags {
		tags = append(tags, t.Tag)
	}
	for _, c := range props {
		if im.Alias == "" && strings.Contains(c, "=") {
			continue // image-list would read the "=" as an alias separator
		}
		in := updater.SelectInput{Version: r.version, Image: updater.ParseImageRef(im.Alias+"="+im.Image.FullName()+":"+c, r.version),
			Settings: im.Settings, Tags: tags, ControllerPlatform: r.opts.ControllerPlatform}
		if im.Settings.Strategy.NeedsMetadata() {
			return "" // a constraint does not pick for metadata strategies
		}
		if got := updater.Select(in); got.Selected != nil && got.Selected.Tag == tag {
			return c
		}
	}
	return ""
}

// downgradeFinding: the running tag is outside the constraint and Image
// Updater moves it down.
func (r *run) downgradeFinding(im updater.ImageConfig, d updater.Decision) report.Finding {
	f := find(report.CodeCandidatesDowngrade, report.Fail, fmt.Sprintf("image %s would go down from %s to %s: the running tag is outside the constraint %q, and Image Updater moves it into it",
		aliasOr(im), d.RunningTag, d.Selected, d.Constraint)).WithImage(im.Alias).
		With(ev("constraint", d.Constraint+": "+d.ConstraintMeaning))
	if d.Outcome == updater.OutcomeAlreadyInSpec {
		// Written is not deployed: the downgrade still stands.
		f.Title = fmt.Sprintf("image %s goes down from %s to %s when Argo CD syncs: Image Updater has written %s into the Application spec, because the running tag is outside the constraint %q",
			aliasOr(im), d.RunningTag, d.Selected, d.Selected, d.Constraint)
		f = f.With(ev("written", "the Application spec asks for "+d.Selected.String()+"; "+displayRunning(d)+" still runs"))
	}
	if c := r.admittingConstraint(im, d, highestVersion(d)); c != "" {
		p := r.imagePlace(im, "imageName")
		f = f.WithFix(fmt.Sprintf("Widen the constraint so it contains the running %s: %q makes Image Updater pick %s (checked against the same tags), or pin the version you want.", d.RunningTag, c, highestVersion(d)),
			p.Where, p.step("widen the constraint so it contains "+d.RunningTag, r.imageNameWith(im, c)))
	}
	if restore := r.specRestore(im, d); restore != nil && f.Fix != nil {
		// Image Updater does not write a tag that needs no update: with the
		// constraint fixed, the spec would keep the written downgrade.
		f.Fix.Summary += " Then put the running tag back into the Application spec: with nothing to update, Image Updater leaves the written " + d.Selected.String() + " there, and Argo CD would still deploy it."
		f.Fix.Steps = append(f.Fix.Steps, report.Command("then, before Argo CD syncs, put "+d.RunningTag+" back into the Application spec", restore...))
	}
	return f
}

// specRestore is the command that writes the running tag back where argocd
// write-back wrote the pick (Kustomize images or Helm parameters), or nil.
func (r *run) specRestore(im updater.ImageConfig, d updater.Decision) []string {
	if d.Outcome != updater.OutcomeAlreadyInSpec || d.RunningTag == "" {
		return nil
	}
	src := r.editedSource(im.Target.Kind)
	if src == nil {
		return nil
	}
	app := r.argocdApp()
	running := updater.ImageRef{Tag: d.RunningTag, Digest: d.RunningDigest}.TagWithDigest()
	switch {
	case src.Kustomize != nil && im.Target.Kind != updater.TargetKindHelm:
		entry := im.Image.FullName() + ":" + running
		if k := kustomizeName(im); k != "" {
			entry = k + "=" + entry
		}
		return []string{"argocd", "app", "set", app, "--kustomize-image=" + entry}
	case src.Helm != nil:
		if t := im.Target; t.Spec != "" {
			return []string{"argocd", "app", "set", app, "--helm-set-string=" + t.Spec + "=" + im.Image.FullName() + ":" + running}
		}
		tagP := im.Target.Tag
		if tagP == "" {
			tagP = "image.tag"
		}
		return []string{"argocd", "app", "set", app, "--helm-set-string=" + tagP + "=" + running}
	}
	return nil
}

// errorFix adds the image's place to a failing pick (an improper
// constraint, the digest strategy without a tag).
func (r *run) errorFix(f report.Finding, im updater.ImageConfig, d updater.Decision) report.Finding {
	p := r.imagePlace(im, "imageName")
	switch d.Err.Kind {
	case updater.ErrImproperConstraint:
		return f.WithFix(fmt.Sprintf("%q is a tag, not a semver constraint: drop it from the image name (or write a range like ~1.2), or follow that tag with updateStrategy: digest.", d.Constraint),
			p.Where, p.step("drop the tag from the image name", r.imageNameWith(im, "")))
	case updater.ErrDigestWithoutConstraint:
		return f.WithFix("Name the tag the digest strategy follows in the image name.", p.Where, p.step("name the tag to follow", r.imageNameWith(im, "latest")))
	case updater.ErrRunningTagNotSemver:
		if r.install != nil {
			return f.WithFix(d.Reason, "Deployment "+r.install.Namespace+"/"+r.install.Name,
				report.Command("upgrade Image Updater to v1.3.0",
					"kubectl", "-n", r.install.Namespace, "set", "image", "deploy/"+r.install.Name, r.install.Container+"=quay.io/argoprojlabs/argocd-image-updater:v1.3.0"))
		}
	}
	if d.Reason != "" {
		f.Fix = &report.Fix{Summary: d.Reason, Where: p.Where}
	}
	return f
}

func (r *run) platformFinding(im updater.ImageConfig, d updater.Decision, n int) report.Finding {
	f := find(report.CodeCandidatesPlatform, report.Warn, fmt.Sprintf("image %s: %d tag(s) have no image for %s", aliasOr(im), n, d.Platforms.String())).WithImage(im.Alias)
	for _, t := range d.Tags {
		if t.Fate == updater.FatePlatform {
			return r.platformFix(f, im, d, t)
		}
	}
	return f
}

// heldBackBy names what dropped the newer tags, for the title.
func heldBackBy(ts []updater.TagFate) string {
	var parts []string
	seen := map[string]bool{}
	for _, t := range ts {
		why := strings.TrimPrefix(string(t.Fate), "dropped: ")
		if t.Fate == updater.FateConstraint && isPrerelease(t.Tag) {
			why = "pre-release"
		}
		if !seen[why] {
			seen[why] = true
			parts = append(parts, why)
		}
	}
	return "dropped by " + strings.Join(parts, ", ")
}

func newestOf(ts []updater.TagFate) updater.TagFate {
	best := ts[0]
	bv, _ := semver.NewVersion(best.Tag)
	for _, t := range ts[1:] {
		v, err := semver.NewVersion(t.Tag)
		if err == nil && (bv == nil || v.GreaterThan(bv)) {
			best, bv = t, v
		}
	}
	return best
}

// isDowngrade: the semver strategy picks a lower version than the running
// one.
func isDowngrade(d updater.Decision) bool {
	if d.Selected == nil || d.Strategy != updater.StrategySemver {
		return false
	}
	run, err1 := semver.NewVersion(d.RunningTag)
	pick, err2 := semver.NewVersion(d.Selected.Tag)
	return err1 == nil && err2 == nil && pick.LessThan(run)
}

// highestVersion is the highest semver tag listed.
func highestVersion(d updater.Decision) string {
	var best *semver.Version
	tag := d.RunningTag
	for _, t := range d.Tags {
		v, err := semver.NewVersion(t.Tag)
		if err != nil || v.Prerelease() != "" {
			continue
		}
		if best == nil || v.GreaterThan(best) {
			best, tag = v, t.Tag
		}
	}
	return tag
}

func isPrerelease(tag string) bool {
	v, err := semver.NewVersion(tag)
	return err == nil && v.Prerelease() != ""
}

// suggestAllowRegexp is an anchored pattern for tags shaped like tag.
func suggestAllowRegexp(tag string) string {
	if v, err := semver.NewVersion(tag); err == nil && v.Prerelease() == "" && v.Metadata() == "" {
		prefix := ""
		if strings.HasPrefix(tag, "v") {
			prefix = "v"
		}
		return "^" + prefix + `[0-9]+\.[0-9]+\.[0-9]+$`
	}
	return "^" + regexpQuote(tag) + "$"
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

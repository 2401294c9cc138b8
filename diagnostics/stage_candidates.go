package diagnostics

import (
	"context"
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/imgupd/imgupd/diagnostics/argo"
	"github.com/imgupd/imgupd/diagnostics/updater"
)

// checkCandidates runs the updater model on the real tags of each image:
// the candidate table, why there are no candidates, whether an update is
// due, the tag that would be picked and the one running.
func checkCandidates(ctx context.Context, r *run) []Finding {
	var out []Finding
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
		if want := updater.MetadataTags(in); len(want) > 0 {
			ps := updater.PlatformFilter(in)
			meta, err := r.e.Registry.Metadata(ctx, ir.target, want, ps.Wants)
			if err != nil {
				out = append(out, readFailure(StageCandidates, "image metadata of "+aliasOr(im), err))
				continue
			}
			in.Meta = meta
		}
		d := updater.Select(in)
		r.decision[im.Alias] = d
		out = append(out, candidateFindings(im, d)...)
	}
	return out
}

func candidateFindings(im updater.ImageConfig, d updater.Decision) []Finding {
	name := aliasOr(im)
	counts := fateCounts(d)
	table := ev("tags", fmt.Sprintf("%d listed · %d after filters · %d candidates (%s)", d.Listed, d.Filtered, d.Candidates, counts))
	var out []Finding
	switch d.Outcome {
	case updater.OutcomeError:
		code := map[updater.SelectErrorKind]Code{
			updater.ErrImproperConstraint:      CodeCandidatesConstraint,
			updater.ErrDigestWithoutConstraint: CodeCandidatesDigestNoTag,
			updater.ErrRunningTagNotSemver:     CodeCandidatesRunningTag,
		}[d.Err.Kind]
		out = append(out, find(code, Fail, fmt.Sprintf("image %s: %s", name, d.Err.Log)).image(im.Alias).with(table).
			fix(d.Reason, "the image's imageName / image-list entry", "", ""))
	case updater.OutcomeNoCandidate:
		f := find(CodeCandidatesNone, Fail, fmt.Sprintf("no tag of image %s is a candidate", name)).image(im.Alias).with(table)
		f.Detail = d.Reason
		out = append(out, f)
	case updater.OutcomeAlreadyInSpec:
		out = append(out, find(CodeCandidatesAlreadyInSpec, Warn, fmt.Sprintf("image %s: the spec already asks for %s, %s still runs", name, d.Selected, d.RunningTag)).image(im.Alias).with(table))
	case updater.OutcomeUpdate:
		f := find(CodeCandidatesUpdate, Info, fmt.Sprintf("image %s: update due, %s → %s", name, displayRunning(d), d.Selected)).image(im.Alias).with(table)
		f.Detail = d.Reason
		out = append(out, f)
		if strings.Contains(d.Reason, "DOWNGRADE") || strings.Contains(d.Reason, "downgrade") {
			out = append(out, find(CodeCandidatesDowngrade, Warn, fmt.Sprintf("image %s would go down from %s to %s", name, d.RunningTag, d.Selected)).image(im.Alias))
		}
	case updater.OutcomeUpToDate:
		out = append(out, find(CodeCandidatesUpToDate, Pass, fmt.Sprintf("image %s is up to date at %s", name, displayRunning(d))).image(im.Alias).with(table))
		if newer := newerDropped(d, im); len(newer) > 0 {
			f := find(CodeCandidatesNewerDropped, Warn, fmt.Sprintf("image %s: %d tag(s) newer than %s are not candidates", name, len(newer), d.RunningTag)).image(im.Alias)
			for _, t := range lastFates(newer, 5) {
				f = f.with(ev(t.Tag, string(t.Fate)+": "+t.Why))
			}
			out = append(out, f)
		}
	}
	if tie := newestBuildTie(d); tie != "" {
		out = append(out, find(CodeCandidatesTie, Warn, fmt.Sprintf("image %s: %s", name, tie)).image(im.Alias).
			fix("Ignore the tag that should not win.", "the image's ignoreTags", fmt.Sprintf("ignoreTags: [%q]", d.Selected.Tag), "yaml"))
	}
	if n := countFate(d, updater.FatePlatform); n > 0 && d.Platforms != nil {
		f := find(CodeCandidatesPlatform, Warn, fmt.Sprintf("image %s: %d tag(s) have no image for %s", name, n, d.Platforms.String())).image(im.Alias)
		if d.Platforms.FromController {
			f = f.fix("Set the platforms you build for.", "the image's platforms", "platforms: [\"linux/arm64\"]", "yaml")
		}
		out = append(out, f)
	}
	return out
}

func displayRunning(d updater.Decision) string {
	s := updater.ImageRef{Tag: d.RunningTag, Digest: d.RunningDigest}.TagWithDigest()
	if s == "" {
		return "(no tag)"
	}
	return s
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

// specImage is what the Application spec already holds for the image
// (argocd write-back: Helm parameters or Kustomize images), or nil.
func (r *run) specImage(im updater.ImageConfig) *updater.ImageRef {
	src := r.editedSource(im.Target.Kind)
	if src == nil {
		return nil
	}
	switch {
	case src.Helm != nil && im.Target.Kind != updater.TargetKindKustomize:
		t := im.Target
		if t.Spec != "" {
			if v, ok := src.HelmParameter(t.Spec); ok {
				ref := updater.ParseImageRef(v, r.version)
				return &ref
			}
			return nil
		}
		nameP, tagP := t.Name, t.Tag
		if nameP == "" {
			nameP = "image.name"
		}
		if tagP == "" {
			tagP = "image.tag"
		}
		n, ok1 := src.HelmParameter(nameP)
		tg, ok2 := src.HelmParameter(tagP)
		if !ok1 || !ok2 {
			return nil
		}
		ref := updater.ParseImageRef(n, r.version)
		ref.Tag = tg
		if name, digest, ok := strings.Cut(tg, "@"); ok {
			ref.Tag, ref.Digest = name, digest
		}
		return &ref
	case src.Kustomize != nil:
		want := im.Image
		if k := kustomizeName(im); k != "" {
			want = updater.ParseImageRef(k, r.version)
		}
		for _, e := range src.Kustomize.Images {
			ref := updater.ParseImageRef(e, r.version)
			if ref.SameImage(want) || ref.SameImage(im.Image) {
				img := updater.ParseImageRef(strings.TrimPrefix(e, ref.Alias+"="), r.version)
				return &img
			}
		}
	}
	return nil
}

// editedSource is the Argo CD source Image Updater writes to for a target kind.
func (r *run) editedSource(kind string) *argo.ApplicationSource {
	if r.app == nil {
		return nil
	}
	if r.app.Spec.Source != nil {
		return r.app.Spec.Source
	}
	want := map[string]string{updater.TargetKindHelm: updater.AppSourceHelm, updater.TargetKindKustomize: updater.AppSourceKustomize}[kind]
	ms, ok := r.model.EditedSource(want)
	if !ok {
		return nil
	}
	for i := range r.app.Spec.Sources {
		s := &r.app.Spec.Sources[i]
		if s.RepoURL == ms.RepoURL && s.Path == ms.Path && s.Chart == ms.Chart {
			return s
		}
	}
	return nil
}

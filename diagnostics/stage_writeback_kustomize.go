package diagnostics

import (
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
)

// checkKustomizeOverrides predicts spec.source.kustomize.images as Image
// Updater leaves it after its next cycle, for a Kustomize Application:
// every live image set in CR order, due ones with their pick and the others
// with their running tag, each merged by Argo CD's MergeImage
// (updater.MergeKustomizeWrites). Argo CD's KustomizeImage.Match compares
// the text before the first ":" of an override without a Kustomize name:
// with a registry port that is the host, so two images on one host:port
// take the same entry and only the last one set survives. Image Updater
// logs both as updated (and the CR status says so), but Kustomize never
// applies the lost override: that image keeps running its tag. The same
// in-memory list is what git write-back writes (the .argocd-source file or
// the kustomization's images), so the method does not matter. The answer is
// the same before the write and after it: the next cycle, from the spec as
// Image Updater left it, loses the same override again.
func (r *run) checkKustomizeOverrides() []report.Finding {
	if r.target.SourceKind != updater.AppSourceKustomize {
		return nil
	}
	src := r.editedSource(updater.TargetKindKustomize)
	if src == nil {
		return nil
	}
	var spec []string
	if src.Kustomize != nil {
		spec = src.Kustomize.Images
	}
	var writes []updater.KustomizeWrite
	byAlias := map[string]updater.ImageConfig{}
	for _, im := range r.images {
		if im.Target.Kind != "" && im.Target.Kind != updater.TargetKindKustomize {
			continue
		}
		m, d := r.live[im.Alias], r.decision[im.Alias]
		if !m.Found {
			continue // not live: skipped before it is set
		}
		w := updater.KustomizeWrite{Alias: im.Alias, Name: kustomizeName(im), Image: im.Image}
		switch d.Outcome {
		case updater.OutcomeUpdate, updater.OutcomeAlreadyInSpec:
			if d.Selected == nil {
				continue
			}
			w.Image.Tag, w.Image.Digest, w.Due = d.Selected.Tag, d.Selected.Digest, true
		case updater.OutcomeUpToDate:
			w.Image.Tag, w.Image.Digest = m.Live.Tag, m.Live.Digest
		default:
			continue // no candidate, an error: Image Updater sets nothing for it
		}
		w.Image.Alias = ""
		writes = append(writes, w)
		byAlias[im.Alias] = im
	}
	due := false
	for _, w := range writes {
		due = due || w.Due
	}
	if !due || len(writes)+len(spec) < 2 {
		return nil // nothing due is not written; one override alone cannot collide
	}
	merge := updater.MergeKustomizeWrites(spec, writes, r.version)
	if !merge.Written {
		return nil
	}
	var out []report.Finding
	for _, l := range merge.Lost {
		if l.ByAlias == "" {
			continue
		}
		im := byAlias[l.Alias]
		d := r.decision[l.Alias]
		sev := report.Fail
		title := fmt.Sprintf("image %s never moves: in spec.source.kustomize.images Argo CD's MergeImage puts %s's override %s in place of its %s (both read %q before the first ':')",
			aliasOr(im), l.ByAlias, l.ReplacedBy, l.Written, l.Compared)
		if !l.Due {
			// An image already on its pick loses its override: it falls
			// back to what the kustomization sets.
			sev = report.Warn
			title = fmt.Sprintf("image %s loses its override %s in spec.source.kustomize.images to %s (image %s): Kustomize then renders the tag the kustomization sets",
				aliasOr(im), l.Written, l.ReplacedBy, l.ByAlias)
		}
		f := find(report.CodeWriteBackKustomizeCollide, sev, title).WithImage(l.Alias).
			With(ev("kustomize.images now", listOrNone(merge.Before)),
				ev("kustomize.images after Image Updater's cycle", listOrNone(merge.After)),
				ev("compared by Argo CD", fmt.Sprintf("KustomizeImage.Match takes the text before the first '=' of the new override if it has one, else before the first ':': %q for both %s and %s", l.Compared, l.Written, l.ReplacedBy)))
		if l.Due {
			f = f.With(ev("running", displayRunning(d)),
				ev("what Image Updater reports", fmt.Sprintf("image %s updated to %s (its log and the CR's status.recentUpdates), while the override is gone", aliasOr(im), d.Selected)))
		}
		f = f.WithFix("Give each Kustomize image of this app on that registry a Kustomize name, the image name its manifests use: Image Updater then writes <name>=<image>:<tag> and Argo CD matches the overrides by the name before '=', so each keeps its own entry. (Git write-back does not help: it writes the same merged list, to the .argocd-source file or the kustomization's images.)",
			"spec.applicationRefs[].images[] of the ImageUpdater CR (annotation <alias>.kustomize.image-name)", r.kustomizeNameStep(writes))
		out = append(out, f)
	}
	for _, d := range merge.Dropped {
		im := byAlias[d.ByAlias]
		out = append(out, find(report.CodeWriteBackKustomizeCollide, report.Warn,
			fmt.Sprintf("image %s's override %s replaces %s in spec.source.kustomize.images, an override no image of the CR sets (both read %q before the first ':'): Kustomize no longer applies it",
				aliasOr(im), d.ReplacedBy, d.Entry, d.Compared)).WithImage(d.ByAlias).
			With(ev("kustomize.images now", listOrNone(merge.Before)),
				ev("kustomize.images after Image Updater's cycle", listOrNone(merge.After))).
			WithFix("Give the image a Kustomize name, the image name its manifests use: Image Updater then writes <name>=<image>:<tag>, which Argo CD matches by the name before '=' and appends instead of replacing the other override.",
				"spec.applicationRefs[].images[] of the ImageUpdater CR (annotation <alias>.kustomize.image-name)", r.kustomizeNameStep(writes)))
	}
	return out
}

// kustomizeNameStep sets a Kustomize name on the images written without
// one: the image name, as the manifests use it.
func (r *run) kustomizeNameStep(writes []updater.KustomizeWrite) report.Step {
	var sets []imageSetting
	for _, w := range writes {
		name := w.Name
		if name == "" {
			name = w.Image.FullName()
		}
		sets = append(sets, imageSetting{alias: w.Alias, kvs: []kv{{"manifestTargets.kustomize.name", name}}})
	}
	return r.imagesStep("give each image its Kustomize name", sets...)
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return "[" + strings.Join(s, ", ") + "]"
}

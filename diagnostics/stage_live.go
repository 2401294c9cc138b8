package diagnostics

import (
	"context"
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/diagnostics/updater"
)

// checkLive finds each configured image in status.summary.images the way
// Image Updater does (registry and name after normalisation, the Kustomize
// name first), and for an image that is not live says which running image
// it probably means and the exact name to write.
func checkLive(ctx context.Context, r *run) []Finding {
	var out []Finding
	live := r.model.LiveImages
	if len(live) == 0 {
		forced := true
		for _, im := range r.images {
			forced = forced && im.Settings.ForceUpdate
		}
		if !forced {
			out = append(out, find(CodeLiveSummaryEmpty, Fail, fmt.Sprintf("Application %s reports no running images (status.summary.images is empty)", r.req.App)).
				with(ev("sync status", r.app.Status.Sync.Status), ev("health", r.app.Status.Health.Status), ev("source type", orNone(r.app.Status.SourceType))).
				fix("Sync the Application once (or fix the render error in its conditions); to update anyway, set forceUpdate on the image.",
					"Application "+r.req.App, fmt.Sprintf("argocd app sync %s", r.req.App), "sh"))
		}
	}
	for _, im := range r.images {
		m := updater.MatchLive(im.Image, kustomizeName(im), im.Settings.ForceUpdate, live, r.version)
		r.live[im.Alias] = m
		switch {
		case m.ForceAdded:
			out = append(out, find(CodeLiveForced, Info, fmt.Sprintf("image %s is not live; forceUpdate adds it without a running tag", aliasOr(im))).image(im.Alias))
		case m.Found:
			out = append(out, find(CodeLiveOK, Pass, fmt.Sprintf("image %s is live: %s", aliasOr(im), m.Live.String())).image(im.Alias))
		case len(live) > 0:
			out = append(out, notLive(im, m, live))
		}
	}
	return out
}

func notLive(im updater.ImageConfig, m updater.LiveMatch, live []string) Finding {
	f := find(CodeLiveNotLive, Fail, fmt.Sprintf("image %s (%s) is not live in the Application", aliasOr(im), im.Image.FullName())).image(im.Alias).
		with(ev("configured", im.Image.FullName()+" (registry "+orNone(im.Image.Registry)+", name "+im.Image.Name+")"),
			ev("running", strings.Join(live, ", ")))
	if len(m.NearMisses) > 0 {
		nm := m.NearMisses[0]
		f = f.with(ev("closest running image", nm.Live+": "+nm.Reason))
		if nm.Write != "" {
			f = f.fix(nm.Fix, "the image's imageName (or image-list entry)", nm.Write, "text")
		}
	}
	for _, n := range m.Notes {
		f = f.with(ev("note", n))
	}
	return f
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// kustomizeName is the image's Kustomize name override, if any.
func kustomizeName(im updater.ImageConfig) string {
	if im.Target.Kind == updater.TargetKindKustomize {
		return im.Target.Name
	}
	return ""
}

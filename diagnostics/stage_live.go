package diagnostics

import (
	"context"
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
)

// checkLive finds each configured image in status.summary.images the way
// Image Updater does (registry and name after normalisation, the Kustomize
// name first), and for an image that is not live says which running image
// it probably means and the exact name to write.
//
// Image Updater skips an image that is not live and goes on with the others
// (UpdateApplication: "Image '%s' seems not to be live in this application,
// skipping", images_skipped++), so such an image stops the app only when no
// configured image is live (or forced): then nothing is updated at all. When
// another image is live, the app's answer comes from the live images and the
// one not live is a warning that Image Updater skips it (a multi-image CR
// whose chart runs some of its images is a supported setup, upstream issue
// #1584 and its test 1-008-helmvalues-non-live-images).
func checkLive(ctx context.Context, r *run) []report.Finding {
	var out []report.Finding
	live := r.model.LiveImages
	if len(live) == 0 {
		forced := true
		for _, im := range r.images {
			forced = forced && im.Settings.ForceUpdate
		}
		if !forced {
			out = append(out, find(report.CodeLiveSummaryEmpty, report.Fail, fmt.Sprintf("Application %s reports no running images (status.summary.images is empty)", r.req.App)).
				With(ev("sync status", r.app.Status.Sync.Status), ev("health", r.app.Status.Health.Status), ev("source type", orNone(r.app.Status.SourceType))).
				WithFix("Sync the Application once (or fix the render error in its conditions); to update anyway, set forceUpdate on the image.",
					"Application "+r.req.App, report.Command("sync the Application once", "argocd", "app", "sync", r.argocdApp())))
		}
	}
	processed := 0
	for _, im := range r.images {
		m := updater.MatchLive(im.Image, kustomizeName(im), im.Settings.ForceUpdate, live, r.version)
		r.live[im.Alias] = m
		if m.Found || m.ForceAdded {
			processed++
		}
	}
	for _, im := range r.images {
		m := r.live[im.Alias]
		switch {
		case m.ForceAdded:
			out = append(out, find(report.CodeLiveForced, report.Info, fmt.Sprintf("image %s is not live; forceUpdate adds it without a running tag", aliasOr(im))).WithImage(im.Alias))
		case m.Found:
			out = append(out, find(report.CodeLiveOK, report.Pass, fmt.Sprintf("image %s is live: %s", aliasOr(im), m.Live.String())).WithImage(im.Alias))
		case len(live) > 0:
			out = append(out, r.notLive(im, m, live, processed))
		}
	}
	return out
}

// notLive is the finding for a configured image the Application does not
// run: the root cause when no configured image is live (others == 0), a
// warning that Image Updater skips it when others are.
func (r *run) notLive(im updater.ImageConfig, m updater.LiveMatch, live []string, others int) report.Finding {
	sev, title := report.Fail, fmt.Sprintf("image %s (%s) is not live in the Application", aliasOr(im), im.Image.FullName())
	if others > 0 {
		sev = report.Warn
		title = fmt.Sprintf("image %s (%s) is not live in the Application: Image Updater skips it; the answer comes from the live image(s)", aliasOr(im), im.Image.FullName())
	}
	f := find(report.CodeLiveNotLive, sev, title).WithImage(im.Alias).
		With(ev("configured", im.Image.FullName()+" (registry "+orNone(im.Image.Registry)+", name "+im.Image.Name+")"),
			ev("running", strings.Join(live, ", ")))
	if len(m.NearMisses) > 0 {
		nm := m.NearMisses[0]
		f = f.With(ev("closest running image", nm.Live+": "+nm.Reason))
		if nm.Write != "" {
			step := r.imagePlace(im, "imageName").step("write the image name as the app runs it", r.imageNameAs(im, nm.Write))
			if nm.Against == "kustomize-name" {
				step = r.imagesStep("write the Kustomize name as the app runs it", imageSetting{alias: im.Alias, kvs: []kv{{"manifestTargets.kustomize.name", nm.Write}}})
			}
			f = f.WithFix(nm.Fix, "the image's imageName (or image-list entry)", step)
		}
	}
	for _, n := range m.Notes {
		f = f.With(ev("note", n))
	}
	if others > 0 {
		f = f.With(ev("live configured images", fmt.Sprint(others)))
		if f.Fix == nil || len(f.Fix.Steps) == 0 {
			f = f.WithFix("Nothing to change if the app does not run this image now (an optional component): Image Updater skips it each cycle and updates it once it runs. If it should run, write imageName exactly as the running image; to stop the warning, remove the image from the CR.",
				"the image's entry in the ImageUpdater CR (or image-list annotation)")
		}
	}
	return f
}

package diagnostics

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/model/updaterlog"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

// checkHistory builds the timeline Image Updater and Argo CD leave behind:
// ImagesUpdated events on the Application, the CR's status.recentUpdates and
// conditions, and the Application's deploy history.
func checkHistory(ctx context.Context, r *run) []report.Finding {
	var out []report.Finding
	events, err := r.e.Cluster.Events(ctx, r.req.Namespace, "Application", r.req.App)
	if err != nil && !cluster.IsNotFound(err) {
		out = append(out, readFailure(report.StageHistory, "events of the Application", err))
	}
	var lines []string
	for _, e := range events {
		if e.Reason != "ImagesUpdated" {
			continue
		}
		t := e.LastTimestamp.Time
		if t.IsZero() {
			t = e.EventTime.Time
		}
		lines = append(lines, t.UTC().Format("2006-01-02 15:04Z")+" "+imagesUpdated(e.Annotations, e.Message))
	}
	// Under --dry-run the CR's status.recentUpdates lists the changes a dry
	// run counted (upstream internal/controller/status.go builds it from the
	// cycle's changes whether or not they were committed): not writes.
	var dry []string
	if cr := r.selectedCR(); cr != nil {
		for _, u := range cr.Status.RecentUpdates {
			l := fmt.Sprintf("%s %s → %s (ImageUpdater %s status, %d app(s))",
				u.UpdatedAt.UTC().Format("2006-01-02 15:04Z"), u.Image, u.NewVersion, r.target.CR, u.ApplicationsUpdated)
			if r.dryRun() {
				dry = append(dry, l+", counted by a dry run: not written")
				continue
			}
			lines = append(lines, l)
		}
		for _, c := range cr.Status.Conditions {
			if c.Type == "Error" && c.Status == "True" || c.Type == "Ready" && c.Status == "False" {
				out = append(out, find(report.CodeHistoryCRStatus, report.Warn, fmt.Sprintf("ImageUpdater %s reports %s: %s", r.target.CR, c.Reason, textutil.ClipWords(textutil.OneLine(c.Message), 200))))
			}
		}
	}
	sort.Strings(lines)
	sort.Strings(dry)
	var f report.Finding
	if len(lines) == 0 {
		f = find(report.CodeHistoryNone, report.Info, "no recorded image update for this Application")
		if len(dry) > 0 {
			f.Title = fmt.Sprintf("no image update written for this Application: the %d in ImageUpdater %s's status.recentUpdates were counted by Image Updater running with --dry-run", len(dry), r.target.CR)
		}
	} else {
		f = find(report.CodeHistoryUpdates, report.Info, fmt.Sprintf("%d recorded update(s); last: %s", len(lines), lines[len(lines)-1]))
		for i, l := range lastN(lines, 5) {
			f = f.With(ev(fmt.Sprintf("update %d", i+1), l))
		}
	}
	for i, l := range lastN(dry, 5) {
		f = f.With(ev(fmt.Sprintf("dry run %d", i+1), l))
	}
	out = append(out, f)
	out = append(out, r.writtenFindings(events)...)
	if h := r.app.Status.History; len(h) > 0 {
		last := h[len(h)-1]
		out = append(out, find(report.CodeHistoryImageDate, report.Info, fmt.Sprintf("last deploy by Argo CD: %s (revision %s)", last.DeployedAt.UTC().Format("2006-01-02 15:04Z"), shortHash(last.Revision))))
	}
	return out
}

func imagesUpdated(ann map[string]string, msg string) string {
	var parts []string
	for i := 0; ; i++ {
		p := fmt.Sprintf("argocd-image-updater.image-%d/", i)
		name, ok := ann[p+"full-image-name"]
		if !ok {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s → %s", name, ann[p+"old-tag"], ann[p+"new-tag"]))
	}
	if len(parts) == 0 {
		return msg
	}
	return strings.Join(parts, "; ")
}

// writtenFindings: for each image whose pick is not running yet, what the
// controller left that shows it has written that pick already (the spec,
// an ImagesUpdated event, the CR's status.recentUpdates, its log, its
// commit). The pick is judged in the candidates stage either way; this
// says the write happened, so the answer reads "written", not "next cycle".
func (r *run) writtenFindings(events []corev1.Event) []report.Finding {
	var out []report.Finding
	for _, im := range r.images {
		d, ok := r.decision[im.Alias]
		if !ok || !pending(d) {
			continue
		}
		evs := r.writtenEvidence(im, d, events)
		if len(evs) == 0 {
			continue
		}
		if r.iuCommit != "" && r.target.WriteBack != nil && r.target.WriteBack.Method == "git" {
			c := shortHash(r.iuCommit)
			if r.iuCommitUndeployed {
				c += ", not yet in Argo CD's revision " + shortHash(r.app.Status.Sync.Revision)
			}
			evs = append(evs, ev("Image Updater's last commit", c))
		}
		f := find(report.CodeHistoryWritten, report.Info, fmt.Sprintf("image %s: Image Updater has written %s; %s still runs", aliasOr(im), d.Selected, displayRunning(d))).WithImage(im.Alias)
		if d.Outcome != updater.OutcomeAlreadyInSpec && (r.target.WriteBack == nil || r.target.WriteBack.Method != "git") && r.specReadable(im) && r.overrideLost(im.Alias) {
			// The write-back stage already showed why the spec does not hold
			// it: another image's override took its entry.
			f.Title = fmt.Sprintf("image %s: Image Updater wrote %s, but another image's override replaced it in spec.source.kustomize.images (%s)", aliasOr(im), d.Selected, report.CodeWriteBackKustomizeCollide)
		} else if d.Outcome != updater.OutcomeAlreadyInSpec && (r.target.WriteBack == nil || r.target.WriteBack.Method != "git") && r.specReadable(im) {
			// argocd write-back: the spec is where the write lives, and it
			// holds another tag. Something reverts it.
			f.Severity = report.Warn
			f.Title = fmt.Sprintf("image %s: Image Updater wrote %s, but the Application spec no longer asks for it: something reverts the spec, and Image Updater writes it again each cycle", aliasOr(im), d.Selected)
		}
		out = append(out, f.With(evs...))
	}
	return out
}

// overrideLost reports whether the write-back stage found that Argo CD's
// MergeImage drops the image's Kustomize override (WRITEBACK_KUSTOMIZE_OVERRIDES_COLLIDE).
func (r *run) overrideLost(alias string) bool {
	for _, f := range r.rep.Findings() {
		if f.Code == report.CodeWriteBackKustomizeCollide && f.Image == alias && f.Severity == report.Fail {
			return true
		}
	}
	return false
}

// writtenEvidence lists what records the write of d's pick for im.
func (r *run) writtenEvidence(im updater.ImageConfig, d updater.Decision, events []corev1.Event) []report.Evidence {
	var out []report.Evidence
	pick := d.Selected
	// Image Updater records NewTag.String(): the digest when there is one.
	isPick := func(v string) bool { return v != "" && (v == pick.Tag || v == pick.Digest || v == pick.String()) }
	name := im.Image.FullName()
	if d.Outcome == updater.OutcomeAlreadyInSpec {
		out = append(out, ev("Application spec", "asks for "+name+":"+pick.String()))
	}
	for _, e := range events {
		if e.Reason != "ImagesUpdated" {
			continue
		}
		for i := 0; ; i++ {
			p := fmt.Sprintf("argocd-image-updater.image-%d/", i)
			n, ok := e.Annotations[p+"full-image-name"]
			if !ok {
				break
			}
			if n == name && isPick(e.Annotations[p+"new-tag"]) {
				t := e.LastTimestamp.Time
				if t.IsZero() {
					t = e.EventTime.Time
				}
				out = append(out, ev("event ImagesUpdated", textutil.ClipWords(fmt.Sprintf("%s %s → %s", t.UTC().Format("2006-01-02 15:04Z"), e.Annotations[p+"old-tag"], e.Annotations[p+"new-tag"]), 200)))
			}
		}
	}
	if cr := r.selectedCR(); cr != nil && !r.dryRun() {
		alias := im.Alias
		if alias == "" {
			alias = im.Image.Name
		}
		for _, u := range cr.Status.RecentUpdates {
			if (u.Alias == alias || u.Image == name) && isPick(u.NewVersion) {
				out = append(out, ev("ImageUpdater "+r.target.CR+" status.recentUpdates", textutil.ClipWords(fmt.Sprintf("%s %s %s", u.UpdatedAt.UTC().Format("2006-01-02 15:04Z"), u.Alias, textutil.OneLine(u.Message)), 200)))
			}
		}
	}
	if r.logs != nil {
		want := name + ":" + pick.String()
		var last *updaterlog.Event
		for i, e := range r.logs.ForApp {
			switch e.Code {
			case updaterlog.CodeImageAlreadyInSpec:
				if e.Captures[updaterlog.CaptureImage] == want {
					last = &r.logs.ForApp[i]
				}
			case updaterlog.CodeImageUpdated:
				// Set in memory; written once the commit that follows succeeds.
				if e.Captures[updaterlog.CaptureImage] == want && e.Captures["dry_run"] == "false" && r.logs.LastUpdate != nil && !r.logs.LastUpdate.Time.Before(e.Time) {
					last = &r.logs.ForApp[i]
				}
			}
		}
		if last != nil {
			out = append(out, ev("Image Updater's log", textutil.ClipWords(last.Time.UTC().Format("2006-01-02 15:04:05Z")+" "+textutil.OneLine(last.Redacted().Line.Msg), 200)))
		}
	}
	return out
}

// specReadable: imgupd reads what argocd write-back wrote for im (Helm
// parameters, Kustomize images; not plugin env), so a spec without the
// pick is one that does not hold it.
func (r *run) specReadable(im updater.ImageConfig) bool {
	src := r.editedSource(im.Target.Kind)
	return src != nil && src.Plugin == nil && im.Target.Kind != updater.TargetKindPlugin
}

// dryRun: Image Updater's command line sets --dry-run, so nothing it
// counts as updated was written.
func (r *run) dryRun() bool { return r.install != nil && r.install.DryRun.On }

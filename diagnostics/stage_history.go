package diagnostics

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/imgupd/imgupd/diagnostics/cluster"
	"github.com/imgupd/imgupd/diagnostics/updater"
)

// checkHistory builds the timeline Image Updater and Argo CD leave behind:
// ImagesUpdated events on the Application, the CR's status.recentUpdates and
// conditions, and the Application's deploy history.
func checkHistory(ctx context.Context, r *run) []Finding {
	var out []Finding
	events, err := r.e.Cluster.Events(ctx, r.req.Namespace, "Application", r.req.App)
	if err != nil && !cluster.IsNotFound(err) {
		out = append(out, readFailure(StageHistory, "events of the Application", err))
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
	if cr := r.selectedCR(); cr != nil {
		for _, u := range cr.Status.RecentUpdates {
			lines = append(lines, fmt.Sprintf("%s %s → %s (ImageUpdater %s status, %d app(s))",
				u.UpdatedAt.UTC().Format("2006-01-02 15:04Z"), u.Image, u.NewVersion, r.target.CR, u.ApplicationsUpdated))
		}
		for _, c := range cr.Status.Conditions {
			if c.Type == "Error" && c.Status == "True" || c.Type == "Ready" && c.Status == "False" {
				out = append(out, find(CodeHistoryCRStatus, Warn, fmt.Sprintf("ImageUpdater %s reports %s: %s", r.target.CR, c.Reason, clip(oneLine(c.Message), 200))))
			}
		}
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		out = append(out, find(CodeHistoryNone, Info, "no recorded image update for this Application"))
	} else {
		f := find(CodeHistoryUpdates, Info, fmt.Sprintf("%d recorded update(s); last: %s", len(lines), lines[len(lines)-1]))
		for i, l := range lastN(lines, 5) {
			f = f.with(ev(fmt.Sprintf("update %d", i+1), l))
		}
		out = append(out, f)
	}
	if h := r.app.Status.History; len(h) > 0 {
		last := h[len(h)-1]
		out = append(out, find(CodeHistoryImageDate, Info, fmt.Sprintf("last deploy by Argo CD: %s (revision %s)", last.DeployedAt.UTC().Format("2006-01-02 15:04Z"), shortHash(last.Revision))))
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

// selectedCR is the ImageUpdater CR that selects the app, if any.
func (r *run) selectedCR() *updater.ImageUpdater {
	for i := range r.crs {
		if r.crs[i].Namespace+"/"+r.crs[i].Name == r.target.CR {
			return &r.crs[i]
		}
	}
	return nil
}

package diagnostics

import (
	"context"
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/diagnostics/cluster"
	"github.com/imgupd/imgupd/diagnostics/updater"
)

// checkSync says whether Argo CD will deploy what Image Updater writes:
// automated sync, sync windows of the AppProject (which Image Updater
// ignores), the last sync operation, conditions, and whether the deployed
// revision contains Image Updater's last commit.
func checkSync(ctx context.Context, r *run) []Finding {
	app := r.app
	var out []Finding
	pending := r.updatePending() || r.iuCommitUndeployed
	if !app.AutomatedSync() {
		sev := Warn
		title := "automated sync is off: Argo CD deploys updates only when someone syncs"
		if pending {
			sev = Fail
			title = "an update is written but automated sync is off, so Argo CD does not deploy it"
		}
		out = append(out, find(CodeSyncManual, sev, title).
			fix("Enable automated sync (or sync by hand).", "Application "+r.req.App,
				fmt.Sprintf("kubectl -n %s patch application %s --type merge -p '{\"spec\":{\"syncPolicy\":{\"automated\":{}}}}'", r.req.Namespace, r.req.App), "sh"))
	}
	if proj := app.Spec.Project; proj != "" && app.AutomatedSync() {
		ns := r.req.UpdaterNamespace
		if r.install != nil && r.install.ArgoCDNamespace != "" {
			ns = r.install.ArgoCDNamespace
		}
		p, err := r.e.Cluster.AppProject(ctx, ns, proj)
		switch {
		case err == nil:
			if blocked, why := autoSyncBlocked(p, app, r.opts.Now()); blocked {
				out = append(out, find(CodeSyncWindow, Fail, fmt.Sprintf("AppProject %s blocks automated syncs now: %s", proj, why)).
					with(ev("project", ns+"/"+proj)))
			}
		case !cluster.IsNotFound(err):
			out = append(out, readFailure(StageSync, "AppProject "+proj, err))
		}
	}
	if op := app.Status.OperationState; op != nil && (op.Phase == "Failed" || op.Phase == "Error") {
		out = append(out, find(CodeSyncFailed, Fail, "the last sync failed: "+clip(oneLine(op.Message), 300)).
			with(ev("phase", op.Phase), ev("started", op.StartedAt.UTC().Format("2006-01-02 15:04Z"))))
	}
	for _, c := range app.Status.Conditions {
		if strings.HasSuffix(c.Type, "Error") {
			out = append(out, find(CodeSyncConditions, Warn, c.Type+": "+clip(oneLine(c.Message), 300)))
		}
	}
	if h := app.Status.Health.Status; h == "Degraded" || h == "Missing" {
		out = append(out, find(CodeSyncUnhealthy, Warn, "the Application is "+h).with(ev("message", clip(app.Status.Health.Message, 300))))
	}
	if s := app.Status.Sync.Status; s == "OutOfSync" {
		out = append(out, find(CodeSyncOutOfSync, Info, "the Application is out of sync"))
	}
	if r.iuCommitUndeployed {
		out = append(out, find(CodeSyncBehind, Warn, fmt.Sprintf("Argo CD's revision %s does not contain Image Updater's newer commit %s yet", shortHash(app.Status.Sync.Revision), shortHash(r.iuCommit))).
			fix("Refresh and sync the Application.", "Application "+r.req.App, fmt.Sprintf("argocd app get %s --refresh && argocd app sync %s", r.req.App, r.req.App), "sh"))
	}
	if !hasSeverity(out, Fail) {
		out = append(out, find(CodeSyncOK, Pass, fmt.Sprintf("sync %s, health %s", orNone(app.Status.Sync.Status), orNone(app.Status.Health.Status))))
	}
	return out
}

// updatePending: an update is due but not running (already in the spec).
func (r *run) updatePending() bool {
	for _, d := range r.decision {
		if d.Outcome == updater.OutcomeAlreadyInSpec {
			return true
		}
	}
	return false
}

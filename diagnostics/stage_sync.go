package diagnostics

import (
	"context"
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

// checkSync says whether Argo CD will deploy what Image Updater writes:
// automated sync, sync windows of the AppProject (which Image Updater
// ignores), the last sync operation, conditions, and whether the deployed
// revision contains Image Updater's last commit.
func checkSync(ctx context.Context, r *run) []report.Finding {
	app := r.app
	var out []report.Finding
	pending := r.anyDue()
	// notDeployed: what keeps Argo CD from deploying stops the tag only when
	// there is something to deploy; otherwise it is a warning about the
	// next update.
	notDeployed := func(f report.Finding, later string) report.Finding {
		if !pending {
			f.Severity = report.Warn
			f.Title += "; " + later
		}
		return f
	}
	if !app.AutomatedSync() {
		title := "automated sync is off"
		if pending {
			title = "automated sync is off: " + r.pendingWhat() + ", and Argo CD does not deploy it until someone syncs"
		}
		out = append(out, notDeployed(find(report.CodeSyncManual, report.Fail, title), "the next update Image Updater writes will wait for a manual sync").
			With(ev("spec.syncPolicy.automated", "not set")).
			WithFix("Enable automated sync (or sync by hand after each update: argocd app sync "+r.req.App+").", "Application "+r.req.Namespace+"/"+r.req.App+", spec.syncPolicy.automated",
				report.PatchStep("enable automated sync", report.Patch{Kind: "Application", Resource: "application", Namespace: r.req.Namespace, Name: r.req.App, Type: report.PatchMerge,
					Merge: map[string]any{"spec": map[string]any{"syncPolicy": map[string]any{"automated": map[string]any{}}}}})))
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
				out = append(out, notDeployed(find(report.CodeSyncWindow, report.Fail, fmt.Sprintf("AppProject %s blocks automated syncs now: %s", proj, why)), "an update written now would wait for the window").
					With(ev("project", ns+"/"+proj)).
					WithFix("Wait for the window to end, sync by hand where the window allows manual syncs, or change the project's windows.", "AppProject "+ns+"/"+proj+", spec.syncWindows",
						report.Command("list the project's sync windows", "argocd", "proj", "windows", "list", proj),
						report.Command("sync by hand, where the window sets manualSync: true", "argocd", "app", "sync", r.argocdApp())))
			}
		case !cluster.IsNotFound(err):
			f := readFailure(report.StageSync, "AppProject "+proj, err)
			f.Title += " (its sync windows were not checked)"
			out = append(out, f)
		}
	}
	if op := app.Status.OperationState; op != nil && (op.Phase == "Failed" || op.Phase == "Error") {
		out = append(out, notDeployed(find(report.CodeSyncFailed, report.Fail, "the last sync failed: "+textutil.ClipWords(textutil.OneLine(op.Message), 300)), "the next update will not deploy until a sync succeeds").
			With(ev("phase", op.Phase), ev("started", op.StartedAt.UTC().Format("2006-01-02 15:04Z"))).
			WithFix("Fix what the sync reports (status.operationState.message), then sync again.", "Application "+r.req.Namespace+"/"+r.req.App,
				report.Command("show what the sync reports", "argocd", "app", "get", r.argocdApp(), "--show-operation"),
				report.Command("sync again once it is fixed", "argocd", "app", "sync", r.argocdApp())))
	}
	for _, c := range app.Status.Conditions {
		if strings.HasSuffix(c.Type, "Error") {
			out = append(out, find(report.CodeSyncConditions, report.Warn, c.Type+": "+textutil.ClipWords(textutil.OneLine(c.Message), 300)).
				WithFix("Fix the condition; a ComparisonError means the manifests do not render.", "Application "+r.req.Namespace+"/"+r.req.App+", status.conditions",
					report.Command("show the render error", "argocd", "app", "manifests", r.argocdApp()),
					report.Command("refresh the Application once it is fixed", "argocd", "app", "get", r.argocdApp(), "--refresh")))
		}
	}
	if h := app.Status.Health.Status; h == "Degraded" || h == "Missing" {
		out = append(out, find(report.CodeSyncUnhealthy, report.Warn, "the Application is "+h).With(ev("message", textutil.ClipWords(app.Status.Health.Message, 300))).
			WithFix("Find the unhealthy resources and fix them.", "Application "+r.req.Namespace+"/"+r.req.App,
				report.Command("list the Application's resources and their health", "argocd", "app", "resources", r.argocdApp())))
	}
	if s := app.Status.Sync.Status; s == "OutOfSync" {
		out = append(out, find(report.CodeSyncOutOfSync, report.Info, "the Application is out of sync"))
	}
	if r.iuCommitUndeployed {
		out = append(out, find(report.CodeSyncBehind, report.Info, fmt.Sprintf("Argo CD's revision %s does not contain Image Updater's newer commit %s yet", shortHash(app.Status.Sync.Revision), shortHash(r.iuCommit))).
			WithFix("To deploy it now instead of at the next refresh:", "Application "+r.req.App, report.Command("refresh the Application", "argocd", "app", "get", r.argocdApp(), "--refresh"),
				report.Command("sync it", "argocd", "app", "sync", r.argocdApp())))
	}
	if !hasSeverity(out, report.Fail) {
		out = append(out, find(report.CodeSyncOK, report.Pass, fmt.Sprintf("sync %s, health %s", orNone(app.Status.Sync.Status), orNone(app.Status.Health.Status))))
	}
	return out
}

// pendingWhat says what waits, for titles: "Image Updater writes web
// 1.0.0 → 1.0.1" or "the spec already asks for web 1.0.1".
func (r *run) pendingWhat() string {
	var parts []string
	for _, im := range r.images {
		d, ok := r.decision[im.Alias]
		if !ok {
			continue
		}
		switch d.Outcome {
		case updater.OutcomeUpdate:
			parts = append(parts, fmt.Sprintf("Image Updater writes %s %s → %s", aliasOr(im), displayRunning(d), d.Selected))
		case updater.OutcomeAlreadyInSpec:
			parts = append(parts, fmt.Sprintf("the spec already asks for %s %s (%s runs)", aliasOr(im), d.Selected, displayRunning(d)))
		}
	}
	if len(parts) == 0 && r.iuCommitUndeployed {
		parts = append(parts, "Image Updater's commit "+shortHash(r.iuCommit)+" is not deployed")
	}
	return strings.Join(parts, "; ")
}

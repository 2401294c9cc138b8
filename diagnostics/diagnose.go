package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/model/updaterlog"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/registry"
)

// Diagnose: the run's set-up, the stage table it walks (each stage with
// the reason it cannot run), the reconcile pass and the finished report.

// stage is one step of the pipeline.
type stage struct {
	id report.StageID
	// prereq returns why the stage cannot run, or "".
	prereq func(r *run) string
	check  func(ctx context.Context, r *run) []report.Finding
}

func (e *Engine) stages() []stage {
	needApp := func(r *run) string {
		if r.app == nil {
			return "the Application could not be read"
		}
		return ""
	}
	// skipsSourceType: what stops Image Updater is the source type itself.
	skipsSourceType := func(r *run) bool {
		return r.target.HasProblem(updater.ProblemUnsupportedSourceType) || r.target.HasProblem(updater.ProblemPluginNotSupportedBeforeV13)
	}
	needTarget := func(r *run) string {
		if s := needApp(r); s != "" {
			return s
		}
		if !r.target.Selected || len(r.images) == 0 {
			if skipsSourceType(r) {
				return "Image Updater skips this Application's source type (see the source and mapping stage)"
			}
			return "Image Updater does not pick up this Application (see the target stage)"
		}
		return ""
	}
	// The write-back stage also runs when what stops Image Updater is the
	// write-back configuration itself (v0.x fails the app's cycle on it), so
	// that the reason is reported where it belongs.
	needWriteBack := func(r *run) string {
		if r.app != nil && !r.target.Selected && r.target.WriteBack == nil && r.target.HasProblem(updater.ProblemWriteBackConfig) &&
			r.target.SourceSupported && len(r.images) > 0 {
			return ""
		}
		return needTarget(r)
	}
	// The source stage also runs when the only thing that stops Image
	// Updater is the source type itself.
	needConfig := func(r *run) string {
		if s := needApp(r); s != "" {
			return s
		}
		if r.target.Selected && len(r.images) > 0 || skipsSourceType(r) {
			return ""
		}
		return "Image Updater does not pick up this Application (see the target stage)"
	}
	// Image Updater only queries registries for images that are live (or
	// forced).
	needLive := func(r *run) string {
		if s := needTarget(r); s != "" {
			return s
		}
		for _, m := range r.live {
			if m.Found {
				return ""
			}
		}
		return "no configured image is live, so Image Updater queries no registry (see the live image stage)"
	}
	needTags := func(r *run) string {
		if s := needTarget(r); s != "" {
			return s
		}
		for _, ir := range r.reg {
			if ir.err == nil && ir.tags != nil {
				return ""
			}
		}
		return "no image's tags could be listed (see the live image and registry stages)"
	}
	return []stage{
		{report.StageHealth, nil, checkHealth},
		{report.StageTarget, nil, checkTarget},
		{report.StageSource, needConfig, checkSource},
		{report.StageLive, needTarget, checkLive},
		{report.StageRegistry, needLive, checkRegistry},
		{report.StageCandidates, needTags, checkCandidates},
		{report.StageWriteBack, needWriteBack, checkWriteBack},
		{report.StageSync, needApp, checkSync},
		{report.StageHistory, needApp, checkHistory},
	}
}

// Diagnose runs every stage for one Application and returns the report. It
// always returns a report: failures to read become findings.
func (e *Engine) Diagnose(ctx context.Context, req Request) *report.Report {
	if !e.shared {
		e, ctx = e.Share(ctx)
	}
	opts := e.Options.withDefaults()
	if req.UpdaterNamespace == "" {
		req.UpdaterNamespace = "argocd"
	}
	start := opts.Now()
	rep := &report.Report{
		App:            report.AppRef{Namespace: req.Namespace, Name: req.App},
		Cluster:        opts.ClusterName,
		UpdaterVersion: opts.DefaultVersion.String(),
		StartedAt:      start,
	}
	r := newRun(e, opts, req, rep)
	var before registry.Stats
	if e.Registry != nil {
		before = e.Registry.Stats()
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	// The Application is read once, before any stage, with a stage's bound.
	actx, acancel := context.WithTimeout(ctx, opts.StageTimeout)
	r.loadApp(actx)
	acancel()

	infos := map[report.StageID]report.StageInfo{}
	for _, s := range report.Stages() {
		infos[s.ID] = s
	}
	for _, st := range e.stages() {
		res := report.StageResult{StageInfo: infos[st.id]}
		switch {
		case ctx.Err() != nil:
			res.Status, res.SkipReason = report.Unknown, fmt.Sprintf("the diagnosis ran out of time (%s) before this stage", opts.Timeout)
			res.Findings = []report.Finding{timeoutFinding(st.id, fmt.Sprintf("the %s stage did not run: the diagnosis ran out of time (%s)", st.id, opts.Timeout))}
		case st.prereq != nil && st.prereq(r) != "":
			res.Status, res.SkipReason = report.Skipped, st.prereq(r)
		default:
			if opts.OnStage != nil {
				opts.OnStage(res.StageInfo)
			}
			sctx, scancel := context.WithTimeout(ctx, opts.StageTimeout)
			t0 := time.Now()
			res.Findings = st.check(sctx, r)
			res.Duration = time.Since(t0)
			if errors.Is(sctx.Err(), context.DeadlineExceeded) {
				res.Findings = append(res.Findings, timeoutFinding(st.id, fmt.Sprintf("the %s stage did not finish before its deadline; some of its checks were not made", st.id)))
			}
			scancel()
			for i := range res.Findings {
				res.Findings[i].Stage = st.id
			}
			res.Status = worst(res.Findings)
		}
		rep.Stages = append(rep.Stages, res)
	}
	r.reconcile()
	rep.UpdaterVersion = r.version.String()
	for _, a := range r.images {
		if d, ok := r.decision[a.Alias]; ok {
			rep.Candidates = append(rep.Candidates, report.CandidateTable{Alias: a.Alias, Image: a.Image.FullName(), Decision: d})
		}
	}
	if e.Registry != nil {
		rep.RegistryRequests = e.Registry.Stats().Total() - before.Total()
	}
	rep.UpdaterLog = appLogLines(r.logs)
	finish(rep)
	rep.Duration = opts.Now().Sub(start)
	return rep
}

// appLogLines keeps the last MaxLogLines lines about the app, masked.
func appLogLines(a *updaterlog.Analysis) []report.LogLine {
	if a == nil {
		return nil
	}
	evs := a.ForApp
	if len(evs) > report.MaxLogLines {
		evs = evs[len(evs)-report.MaxLogLines:]
	}
	out := make([]report.LogLine, 0, len(evs))
	for _, e := range evs {
		l := e.Redacted().Line
		msg := l.Msg
		if !l.Parsed || msg == "" {
			msg = l.Raw
		}
		keys := make([]string, 0, len(l.Fields))
		for k := range l.Fields {
			if k != "msg" && k != "level" && k != "time" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			msg += " " + k + "=" + l.Fields[k]
		}
		out = append(out, report.LogLine{Time: l.Time, Level: l.Level, Message: textutil.OneLine(msg), Code: e.Code})
	}
	return out
}

// newRun is a diagnosis of req before its first stage.
func newRun(e *Engine, opts Options, req Request, rep *report.Report) *run {
	return &run{e: e, opts: opts, req: req, rep: rep, version: opts.DefaultVersion,
		live: map[string]updater.LiveMatch{}, reg: map[string]*imageRegistry{}, decision: map[string]updater.Decision{}, wantedPick: map[string]updater.Decision{}, cms: map[string]cmEntry{}, sources: map[string]sourceContent{}, access: map[string]accessResult{}}
}

// Warm reads, into a shared engine's scope (Share), what a diagnosis of app
// reads before its first answer and the scope's other diagnoses share:
// Argo CD's identity and repository credentials, and the app's source (a
// git snapshot, or a chart) as Argo CD reads it. A fleet scan calls it
// with its first app while it still lists the CRs, which its diagnoses
// wait for, so that they find these read. It reports nothing and changes
// no answer: a diagnosis makes the same reads, answered from the scope
// whether they were warmed or not. inst is Image Updater's installation
// (nil: not found), updNS the namespace it was looked for in. An engine
// that is not shared, and an app with several sources (which one a
// diagnosis reads depends on its selection), are not warmed.
func (e *Engine) Warm(ctx context.Context, app *argo.Application, inst *cluster.UpdaterInstall, updNS string) {
	if !e.shared || app == nil || app.Spec.Source == nil || len(app.Spec.Sources) > 0 {
		return
	}
	r, ctx, cancel := e.warmRun(ctx, Request{App: app.Name, Namespace: app.Namespace, UpdaterNamespace: updNS}, inst)
	defer cancel()
	r.app = app
	r.readSource(ctx, app.Spec.Source)
}

// warmRun is a warm-up's run for req (its report dropped) and its context,
// bounded as a stage.
func (e *Engine) warmRun(ctx context.Context, req Request, inst *cluster.UpdaterInstall) (*run, context.Context, context.CancelFunc) {
	opts := e.Options.withDefaults()
	r := newRun(e, opts, req, &report.Report{})
	r.install = inst
	ctx, cancel := context.WithTimeout(ctx, opts.StageTimeout)
	return r, ctx, cancel
}

// WarmArgo reads, into a shared engine's scope (Share), what every view of
// a repository as Argo CD reads it starts with, whatever the app and its
// repository: Argo CD's identity (its application controller's
// ServiceAccount), whether the API server lets it list its repository
// Secrets, and, when it does, those Secrets. A "where" calls it while it
// reads the apps it will diagnose, so that their diagnoses find these
// read. It reports nothing and changes no answer: a diagnosis makes the
// same reads, answered from the scope whether they were warmed or not.
// inst and updNS are as Warm's. An engine that is not shared is not
// warmed.
func (e *Engine) WarmArgo(ctx context.Context, inst *cluster.UpdaterInstall, updNS string) {
	if !e.shared {
		return
	}
	r, ctx, cancel := e.warmRun(ctx, Request{UpdaterNamespace: updNS}, inst)
	defer cancel()
	_, _ = r.repoCredsFor(ctx, r.argoUser(ctx))
}

package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/imgupd/imgupd/diagnostics/argo"
	"github.com/imgupd/imgupd/diagnostics/cluster"
	"github.com/imgupd/imgupd/diagnostics/gitsource"
	"github.com/imgupd/imgupd/diagnostics/helmchart"
	"github.com/imgupd/imgupd/diagnostics/internal/hostfail"
	"github.com/imgupd/imgupd/diagnostics/registry"
	"github.com/imgupd/imgupd/diagnostics/updater"
	"github.com/imgupd/imgupd/diagnostics/updaterlog"
)

// Options tune a diagnosis. The zero value gets the defaults.
type Options struct {
	// Timeout bounds the whole diagnosis (default 20 s); what did not finish
	// is reported, never waited for.
	Timeout time.Duration
	// StageTimeout bounds each stage (default 10 s).
	StageTimeout time.Duration
	// LogWindow is how far back Image Updater's logs are read (default 30 min).
	LogWindow time.Duration
	// LogLimit caps the bytes of logs read (default 4 MiB).
	LogLimit int64
	// DefaultVersion is assumed when Image Updater's version cannot be read
	// (default the newest release the model knows).
	DefaultVersion updater.Version
	// ControllerPlatform is the platform Image Updater runs on (default linux/amd64).
	ControllerPlatform updater.Platform
	// ClusterName is shown in the report.
	ClusterName string
	// Now is the clock (default time.Now).
	Now func() time.Time
	// OwnProxy says which proxy imgupd itself uses for a URL (default
	// http.ProxyFromEnvironment); it is compared with Image Updater's.
	OwnProxy func(*http.Request) (*url.URL, error)
	// ArgoCDServiceAccount is the ServiceAccount, in Argo CD's namespace,
	// that reads Argo CD's repository Secrets (default
	// argocd-application-controller, as Argo CD's own install names it).
	// Before imgupd reads them for the source stage it asks the API server
	// whether this ServiceAccount may list them.
	ArgoCDServiceAccount string
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 20 * time.Second
	}
	if o.StageTimeout <= 0 {
		o.StageTimeout = 10 * time.Second
	}
	if o.LogWindow <= 0 {
		o.LogWindow = 30 * time.Minute
	}
	if o.LogLimit <= 0 {
		o.LogLimit = 4 << 20
	}
	if o.DefaultVersion == (updater.Version{}) {
		o.DefaultVersion = updater.Latest
	}
	if o.ControllerPlatform == (updater.Platform{}) {
		o.ControllerPlatform = updater.DefaultControllerPlatform
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.OwnProxy == nil {
		o.OwnProxy = http.ProxyFromEnvironment
	}
	if o.ArgoCDServiceAccount == "" {
		o.ArgoCDServiceAccount = DefaultArgoCDServiceAccount
	}
	return o
}

// Engine runs diagnoses. It holds no state between them: many may run at
// once, and each reads the cluster, git, Helm repositories and registries
// as they are when it runs. Within one diagnosis (or one scope, see Share)
// each repository, branch, chart and host is read once.
type Engine struct {
	Cluster  Cluster
	Registry Registry
	Git      Git
	// Forge (optional) answers whether a write-back branch is protected;
	// without it a push rejection is not verified.
	Forge Forge
	// Charts (optional) reads charts from Helm and OCI repositories;
	// without it their values are not checked.
	Charts  Charts
	Options Options

	// shared: Git and Charts are one scope's already (Share).
	shared bool
}

// Share returns a copy of the engine whose diagnoses, run with the
// returned context, share one scope: each git repository's ls-remote,
// snapshot and push check, and each chart, is read once for all of them
// (failures included, except a caller's own deadline), and a host whose
// connection failed (DNS, refused, TLS, proxy, timeout) is met once. The
// scope keeps what it read until it is dropped: make one per fleet scan,
// never one for a server's life. Diagnose makes its own unless the engine
// is a shared one. A Git or Charts that cannot share is used as is.
func (e *Engine) Share(ctx context.Context) (*Engine, context.Context) {
	cp := *e
	cp.shared = true
	if g, ok := e.Git.(interface{ Share() *gitsource.Shared }); ok {
		cp.Git = g.Share()
	}
	if c, ok := e.Charts.(interface{ Share() *helmchart.Shared }); ok {
		cp.Charts = c.Share()
	}
	if hostfail.FromContext(ctx) == nil {
		ctx = hostfail.NewContext(ctx, hostfail.New())
	}
	return &cp, ctx
}

// Request names the Application to diagnose.
type Request struct {
	App       string
	Namespace string
	// UpdaterNamespace is where Image Updater is expected (default argocd);
	// other namespaces are searched when it is not there.
	UpdaterNamespace string
	// UpdaterLog, when set, is Image Updater's log to read instead of its
	// pod's (a cluster that does not grant pods/log, a log store export);
	// it is parsed and redacted the same way.
	UpdaterLog *string
	// SharedLog, when set, is Image Updater's log already read and indexed
	// for many Applications (the fleet scan reads it once), used instead of
	// reading the pod.
	SharedLog *SharedLog
}

// SharedLog is Image Updater's log read once: its index, where it came
// from, or why it could not be read.
type SharedLog struct {
	Index *updaterlog.Index
	// Window says where the lines came from ("last 30m0s of POD").
	Window string
	// Pod is the pod it was read from; Err why it could not be.
	Pod string
	Err error
}

// ReadSharedLog reads Image Updater's log once, as a diagnosis would (the
// running pod of inst, LogWindow and LogLimit), and indexes it for the
// apps of a fleet scan under version v. It is nil without an installation
// or a pod.
func (e *Engine) ReadSharedLog(ctx context.Context, inst *cluster.UpdaterInstall, v updater.Version) *SharedLog {
	if inst == nil {
		return nil
	}
	pod := updaterPod(inst)
	if pod == nil {
		return nil
	}
	o := e.Options.withDefaults()
	text, err := e.Cluster.PodLogs(ctx, inst.Namespace, pod.Name, inst.Container, o.LogWindow, o.LogLimit)
	if err != nil {
		return &SharedLog{Pod: pod.Name, Err: err}
	}
	return &SharedLog{Index: updaterlog.NewIndex(updaterlog.ParseString(text), v), Window: logWindow(o, pod.Name), Pod: pod.Name}
}

// logWindow says where the log lines came from.
func logWindow(o Options, pod string) string { return fmt.Sprintf("last %s of %s", o.LogWindow, pod) }

// run is one diagnosis in progress: what the stages have learnt so far.
type run struct {
	e    *Engine
	opts Options
	req  Request
	rep  *Report

	app      *argo.Application
	model    updater.Application
	appErr   error
	install  *cluster.UpdaterInstall
	version  updater.Version
	conf     updater.RegistriesConf
	logs     *updaterlog.Analysis
	crs      []updater.ImageUpdater
	target   updater.Targeting
	images   []updater.ImageConfig
	live     map[string]updater.LiveMatch
	reg      map[string]*imageRegistry
	decision map[string]updater.Decision
	// wantedPick is the pick with the strategy the CR asked for, where the
	// CRD's default hides it.
	wantedPick map[string]updater.Decision
	aliasTypos []aliasTypo
	// Argo CD's repository Secrets and ConfigMaps, read once.
	repoCredsDone bool
	repoCredsList []cluster.RepoCred
	repoCredsErr  error
	cms           map[string]cmEntry
	sources       map[string]sourceContent
	// writeBackRepo is the repository configuration git:repocreds uses.
	writeBackRepo *repoView
	iuCommit      string // last commit by Image Updater on the write-back branch
	// iuCommitUndeployed: that commit is newer than Argo CD's revision.
	iuCommitUndeployed bool
	// access holds the API server's answers about who may read which
	// Secret, asked once per diagnosis (secretaccess.go).
	access map[string]accessResult
}

// imageRegistry is what the registry stage learnt about one image.
type imageRegistry struct {
	endpoint updater.Endpoint
	target   registry.Target
	tags     []string
	err      error
	// partial, when the tag list stopped at imgupd's read bound, says
	// where: tags then holds the tags read before it.
	partial *registry.ListLimit
}

// stage is one step of the pipeline.
type stage struct {
	id StageID
	// prereq returns why the stage cannot run, or "".
	prereq func(r *run) string
	check  func(ctx context.Context, r *run) []Finding
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
		{StageHealth, nil, checkHealth},
		{StageTarget, nil, checkTarget},
		{StageSource, needConfig, checkSource},
		{StageLive, needTarget, checkLive},
		{StageRegistry, needLive, checkRegistry},
		{StageCandidates, needTags, checkCandidates},
		{StageWriteBack, needWriteBack, checkWriteBack},
		{StageSync, needApp, checkSync},
		{StageHistory, needApp, checkHistory},
	}
}

// Diagnose runs every stage for one Application and returns the report. It
// always returns a report: failures to read become findings.
func (e *Engine) Diagnose(ctx context.Context, req Request) *Report {
	if !e.shared {
		e, ctx = e.Share(ctx)
	}
	opts := e.Options.withDefaults()
	if req.UpdaterNamespace == "" {
		req.UpdaterNamespace = "argocd"
	}
	start := opts.Now()
	rep := &Report{
		App:            AppRef{Namespace: req.Namespace, Name: req.App},
		Cluster:        opts.ClusterName,
		UpdaterVersion: opts.DefaultVersion.String(),
		StartedAt:      start,
	}
	r := &run{e: e, opts: opts, req: req, rep: rep, version: opts.DefaultVersion,
		live: map[string]updater.LiveMatch{}, reg: map[string]*imageRegistry{}, decision: map[string]updater.Decision{}, wantedPick: map[string]updater.Decision{}, cms: map[string]cmEntry{}, sources: map[string]sourceContent{}, access: map[string]accessResult{}}
	var before registry.Stats
	if e.Registry != nil {
		before = e.Registry.Stats()
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()

	infos := map[StageID]StageInfo{}
	for _, s := range Stages() {
		infos[s.ID] = s
	}
	for _, st := range e.stages() {
		res := StageResult{StageInfo: infos[st.id]}
		switch {
		case ctx.Err() != nil:
			res.Status, res.SkipReason = Unknown, fmt.Sprintf("the diagnosis ran out of time (%s) before this stage", opts.Timeout)
			res.Findings = []Finding{timeoutFinding(st.id, fmt.Sprintf("the %s stage did not run: the diagnosis ran out of time (%s)", st.id, opts.Timeout))}
		case st.prereq != nil && st.prereq(r) != "":
			res.Status, res.SkipReason = Skipped, st.prereq(r)
		default:
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
			rep.Candidates = append(rep.Candidates, CandidateTable{Alias: a.Alias, Image: a.Image.FullName(), Decision: d})
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

// reconcile applies what later stages learnt to earlier findings: a
// mapping that the source does not read matters for the tag only when an
// update of that image is due; an annotation for a misspelt alias is a
// wrong update when it was meant to name the Helm or Kustomize target of an
// image whose update is due and the default names were not shown to work.
func (r *run) reconcile() {
	mappingOK := r.rep.HasCode(CodeSourceMappingChecked)
	for si := range r.rep.Stages {
		st := &r.rep.Stages[si]
		changed := false
		for i := range st.Findings {
			f := &st.Findings[i]
			if r.skippedNotLive(f) {
				f.Severity, f.Title, changed = Warn, f.Title+" (the image is not live: Image Updater skips it)", true
				continue
			}
			switch f.Code {
			case CodeSourceNotReadable:
				// A source imgupd was not allowed to read decides the answer
				// only when something is to be written into it.
				if f.Decides && !r.anyDue() {
					f.Decides = false
					changed = true
				}
			case CodeCandidatesDowngrade:
				if r.retitleCommittedDowngrade(f) {
					changed = true
				}
			case CodeHelmParamNotInValues, CodeHelmValueOverridden, CodeWriteBackTargetNotRead, CodeKustomizeNameNotUsed, CodeKustomizeImageOverride, CodeSourceImageElsewhere:
				if _, known := r.decision[f.Image]; known && !r.dueFor(f.Image) && f.Severity == Fail {
					f.Severity = Warn
					f.Title += " (no update is due now; the next one would change nothing)"
					changed = true
				}
			case Code(problemsByCode[updater.ProblemAnnotationForUnknownAlias].code):
				for _, t := range r.aliasTypos {
					if t.title != f.Title || !t.targetKey || mappingOK || r.rendersWithWarning(t.alias) || !r.dueFor(t.alias) {
						continue
					}
					f.Severity, f.State, f.Image = Fail, StateWrongUpdate, t.alias
					f.Title += fmt.Sprintf("; image %s is written to the default parameters instead", t.alias)
					changed = true
				}
			}
		}
		if changed {
			st.Status = worst(st.Findings)
		}
	}
}

// retitleCommittedDowngrade: a downgrade that git write-back has already
// committed (HISTORY_PICK_WRITTEN) is said to be written, and its fix also
// reverts the commit: with the constraint fixed Image Updater commits
// nothing, and Argo CD would deploy the committed tag.
func (r *run) retitleCommittedDowngrade(f *Finding) bool {
	d, ok := r.decision[f.Image]
	if !ok || d.Outcome != updater.OutcomeUpdate || d.Selected == nil || !hasImageCode(r.rep, CodeHistoryWritten, f.Image) {
		return false
	}
	f.Title = fmt.Sprintf("image %s goes down from %s to %s when Argo CD syncs: Image Updater has committed %s, because the running tag is outside the constraint %q",
		f.Image, d.RunningTag, d.Selected, d.Selected, d.Constraint)
	if f.Fix != nil && r.iuCommit != "" && r.target.WriteBack != nil {
		f.Fix.Summary += fmt.Sprintf(" Then revert Image Updater's commit %s on %s before Argo CD syncs: with nothing to update, Image Updater leaves the committed %s in place.",
			shortHash(r.iuCommit), r.target.WriteBack.Repository, d.Selected)
		f.Fix.Snippet += fmt.Sprintf("\n\n# then, before Argo CD syncs:\ngit revert %s && git push", r.iuCommit)
		if f.Fix.Lang != "sh" {
			f.Fix.Lang = "text"
		}
	}
	return true
}

// rendersWithWarning: the image's Helm write was shown to render the pick
// with only an unread name path (the default image.name beside a chart's
// image.repository), so default names work.
func (r *run) rendersWithWarning(alias string) bool {
	for _, f := range r.rep.Findings() {
		if f.Code == CodeHelmParamNotInValues && f.Image == alias && f.Severity == Warn && !strings.Contains(f.Title, "no update is due") {
			return true
		}
	}
	return false
}

// aliasTypo is an annotation for an alias image-list does not have.
type aliasTypo struct {
	title string
	// alias is the image-list alias it was most likely meant for.
	alias string
	// targetKey: it names a Helm parameter or a Kustomize image.
	targetKey bool
}

// timeoutFinding is a stage that did not (fully) run in time: it decides
// the answer when the stage is one the pick depends on.
func timeoutFinding(stage StageID, title string) Finding {
	return Finding{Code: CodeCheckTimeout, Stage: stage, Severity: Unknown, Title: title,
		Detail:  "What the stage would have checked is not known.",
		Verify:  "re-run with a longer --timeout (the whole diagnosis) and check that imgupd reaches the registries and git servers",
		Decides: decisiveStage(stage)}
}

// decisiveStage: without these stages imgupd cannot say whether Image
// Updater processes the app and which tag it picks. The later stages look
// for further stoppers of a known pick, and what they cannot check is
// listed as not verified without changing the answer.
func decisiveStage(s StageID) bool {
	switch s {
	case StageHealth, StageTarget, StageLive, StageRegistry, StageCandidates:
		return true
	}
	return false
}

// finish sets the state, root cause, headline, verdict and what was not
// verified. The root cause is the first failing finding in stage order that
// blocks Image Updater; failing that, the first other failing finding (a
// wrong update, a deploy that will not happen, newer tags held back). With
// no failing finding, a check that decides the answer and could not be made
// makes the state unknown; otherwise the app is up to date or its update is
// on its way.
func finish(r *Report) {
	fs := r.Findings()
	for _, f := range fs {
		if f.Severity == Unknown {
			r.NotVerified = append(r.NotVerified, NotVerified{Stage: f.Stage, Code: f.Code, What: f.Title, VerifyBy: f.Verify, Decides: f.Decides})
		}
	}
	var root *Finding
	for i := range fs {
		if fs[i].Severity == Fail && stateOrBlocked(fs[i]) == StateBlocked {
			root = &fs[i]
			break
		}
	}
	if root == nil {
		for i := range fs {
			if fs[i].Severity == Fail {
				root = &fs[i]
				break
			}
		}
	}
	if root == nil {
		for i := range fs {
			if fs[i].Severity == Unknown && fs[i].Decides {
				root = &fs[i]
				break
			}
		}
	}
	switch {
	case root != nil && root.Severity == Fail:
		f := *root
		r.RootCause, r.State = &f, stateOrBlocked(f)
	case root != nil:
		f := *root
		r.RootCause, r.State = &f, StateUnknown
	default:
		r.State = healthyState(r)
	}
	r.Verdict = r.State.Verdict()
	r.Headline = headline(r)
}

func stateOrBlocked(f Finding) State {
	if f.State == "" {
		return StateBlocked
	}
	return f.State
}

// healthyState is up to date or on its way, from the candidate tables:
// on its way when an image's update is due or already written but not yet
// running. No table at all (no image's pick was computed) is unknown.
func healthyState(r *Report) State {
	if len(r.Candidates) == 0 {
		return StateUnknown
	}
	for _, c := range r.Candidates {
		switch c.Decision.Outcome {
		case updater.OutcomeUpdate, updater.OutcomeAlreadyInSpec:
			return StateOnItsWay
		}
	}
	if r.HasCode(CodeSyncBehind) {
		return StateOnItsWay
	}
	return StateUpToDate
}

// hasImageCode: an info finding with this code is about this image.
func hasImageCode(r *Report, c Code, alias string) bool {
	for _, f := range r.Findings() {
		if f.Code == c && f.Image == alias && f.Severity == Info {
			return true
		}
	}
	return false
}

// headline is the answer in one sentence.
func headline(r *Report) string {
	app := r.App.String()
	switch r.State {
	case StateUpToDate:
		if len(r.Candidates) == 1 {
			c := r.Candidates[0]
			return fmt.Sprintf("%s is up to date: %s runs %s, the tag Image Updater picks", app, c.Alias, displayRunning(c.Decision))
		}
		return fmt.Sprintf("%s is up to date: its %d images run the tags Image Updater picks", app, len(r.Candidates))
	case StateOnItsWay:
		var parts []string
		for _, c := range r.Candidates {
			d := c.Decision
			if !pending(d) {
				continue
			}
			move := fmt.Sprintf("%s %s → %s", c.Alias, displayRunning(d), d.Selected)
			if _, ok := rollbackPin(d); ok {
				move += " (a rollback to the pinned version)"
			}
			if d.Outcome == updater.OutcomeAlreadyInSpec || hasImageCode(r, CodeHistoryWritten, c.Alias) {
				parts = append(parts, move+" written, Argo CD deploys it on its next sync")
			} else {
				parts = append(parts, move+" on Image Updater's next cycle")
			}
		}
		if len(parts) == 0 {
			return app + ": update on its way: Image Updater's commit is written, Argo CD deploys it on its next sync"
		}
		return app + ": update on its way: " + strings.Join(parts, "; ")
	case StateUnknown:
		if rc := r.RootCause; rc != nil {
			if rc.Code == CodeAppNotFound {
				return rc.Title
			}
			return "cannot tell whether " + app + " gets its new tag: " + rc.Title
		}
		return "cannot tell whether " + app + " gets its new tag: no image's tag selection could be made"
	}
	verb := map[State]string{StateBlocked: " is blocked", StateHeldBack: " is held back by configuration",
		StateWrongUpdate: " gets a wrong update", StateNotDeployed: "'s update is not deployed"}[r.State]
	if rc := r.RootCause; rc != nil {
		return app + verb + ": " + rc.Title
	}
	return app + verb
}

func worst(fs []Finding) Severity {
	if len(fs) == 0 {
		return Pass
	}
	w := Skipped
	for _, f := range fs {
		if f.Severity.Rank() > w.Rank() {
			w = f.Severity
		}
	}
	if w == Info || w == Skipped {
		return Pass
	}
	return w
}

// readFailure turns a failed read into a finding: a forbidden read names
// the missing RBAC rule; anything else is an unknown. Whether it decides the
// answer follows the stage (decisiveStage); callers that know better set
// Decides themselves.
func readFailure(stage StageID, what string, err error) Finding {
	var ae *cluster.AccessError
	if errors.As(err, &ae) && ae.Forbidden {
		return Finding{Code: CodeReadForbidden, Stage: stage, Severity: Unknown,
			Title:    "cannot read " + what + ": forbidden",
			Detail:   "The check was not made. imgupd needs read access to this object.",
			Evidence: []Evidence{{Label: "missing rule", Value: ae.Rule()}},
			Fix:      &Fix{Summary: "Grant imgupd this read (deploy/rbac.yaml ships the rules).", Where: ae.RuleScope(), Snippet: ae.RuleYAML(), Lang: "yaml"},
			Verify:   "grant imgupd " + ae.Rule(),
			Decides:  decisiveStage(stage)}
	}
	f := Finding{Code: CodeCheckTimeout, Stage: stage, Severity: Unknown, Title: "cannot read " + what,
		Verify: "re-run when the API server answers", Decides: decisiveStage(stage)}
	if errors.Is(err, context.DeadlineExceeded) {
		f.Title = "reading " + what + " timed out"
		f.Verify = "re-run with a longer --timeout"
	} else {
		f.Detail = oneLine(err.Error())
	}
	return f
}

func find(code Code, sev Severity, title string) Finding {
	f := Finding{Code: code, Severity: sev, Title: title}
	if e, ok := catalogue[code]; ok {
		f.Stage = e.Stage
		f.State = e.State
		f.Detail = e.Meaning
		f.Role = e.Role
		if e.Fix != "" {
			f.Fix = &Fix{Summary: e.Fix}
		}
	}
	return f
}

func ev(label, value string) Evidence { return Evidence{Label: label, Value: value} }

// appLogLines keeps the last MaxLogLines lines about the app, masked.
func appLogLines(a *updaterlog.Analysis) []LogLine {
	if a == nil {
		return nil
	}
	evs := a.ForApp
	if len(evs) > MaxLogLines {
		evs = evs[len(evs)-MaxLogLines:]
	}
	out := make([]LogLine, 0, len(evs))
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
		out = append(out, LogLine{Time: l.Time, Level: l.Level, Message: oneLine(msg), Code: e.Code})
	}
	return out
}

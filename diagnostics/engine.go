package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"time"

	"github.com/imgupd/imgupd/diagnostics/argo"
	"github.com/imgupd/imgupd/diagnostics/cluster"
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
	return o
}

// Engine runs diagnoses. It holds no state between them: many may run at once.
type Engine struct {
	Cluster  Cluster
	Registry Registry
	Git      Git
	Options  Options
}

// Request names the Application to diagnose.
type Request struct {
	App       string
	Namespace string
	// UpdaterNamespace is where Image Updater is expected (default argocd);
	// other namespaces are searched when it is not there.
	UpdaterNamespace string
}

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
	gitHead  map[string]string // write-back branch → head hash seen
	iuCommit string            // last commit by Image Updater on the write-back branch
	// iuCommitUndeployed: that commit is newer than Argo CD's revision.
	iuCommitUndeployed bool
}

// imageRegistry is what the registry stage learnt about one image.
type imageRegistry struct {
	endpoint updater.Endpoint
	target   registry.Target
	tags     []string
	err      error
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
		{StageWriteBack, needTarget, checkWriteBack},
		{StageSync, needApp, checkSync},
		{StageHistory, needApp, checkHistory},
	}
}

// Diagnose runs every stage for one Application and returns the report. It
// always returns a report: failures to read become findings.
func (e *Engine) Diagnose(ctx context.Context, req Request) *Report {
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
		live: map[string]updater.LiveMatch{}, reg: map[string]*imageRegistry{}, decision: map[string]updater.Decision{}}
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
			rep.Unchecked = append(rep.Unchecked, res.Title+": "+res.SkipReason)
		case st.prereq != nil && st.prereq(r) != "":
			res.Status, res.SkipReason = Skipped, st.prereq(r)
		default:
			sctx, scancel := context.WithTimeout(ctx, opts.StageTimeout)
			t0 := time.Now()
			res.Findings = st.check(sctx, r)
			res.Duration = time.Since(t0)
			if errors.Is(sctx.Err(), context.DeadlineExceeded) {
				res.Findings = append(res.Findings, Finding{Code: CodeCheckTimeout, Stage: st.id, Severity: Unknown,
					Title: fmt.Sprintf("the %s stage did not finish in time", st.id), Detail: "Some of its checks were not made."})
				rep.Unchecked = append(rep.Unchecked, res.Title+": ran out of time")
			}
			scancel()
			for i := range res.Findings {
				res.Findings[i].Stage = st.id
			}
			res.Status = worst(res.Findings)
		}
		rep.Stages = append(rep.Stages, res)
	}
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
	rep.finish()
	rep.Duration = opts.Now().Sub(start)
	return rep
}

// finish sets the verdict and root cause.
func (r *Report) finish() {
	r.Verdict = VerdictHealthy
	for _, s := range r.Stages {
		for i, f := range s.Findings {
			if f.Severity == Fail {
				f := s.Findings[i]
				r.RootCause = &f
				r.Verdict = VerdictBroken
				return
			}
		}
	}
	for _, s := range r.Stages {
		if s.Status == Unknown {
			r.Verdict = VerdictUnknown
		}
	}
}

func worst(fs []Finding) Severity {
	if len(fs) == 0 {
		return Pass
	}
	w := Skipped
	for _, f := range fs {
		if f.Severity.rank() > w.rank() {
			w = f.Severity
		}
	}
	if w == Info || w == Skipped {
		return Pass
	}
	return w
}

// readFailure turns a failed read into a finding: a forbidden read names
// the missing RBAC rule; anything else is an unknown.
func readFailure(stage StageID, what string, err error) Finding {
	var ae *cluster.AccessError
	if errors.As(err, &ae) && ae.Forbidden {
		return Finding{Code: CodeReadForbidden, Stage: stage, Severity: Unknown,
			Title:    "cannot read " + what + ": forbidden",
			Detail:   "The check was not made. imgupd needs read access to this object.",
			Evidence: []Evidence{{Label: "missing rule", Value: ae.Rule()}},
			Fix:      &Fix{Summary: "Add this rule to imgupd's ClusterRole.", Snippet: "- " + ae.Rule(), Lang: "yaml"}}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return Finding{Code: CodeCheckTimeout, Stage: stage, Severity: Unknown, Title: "reading " + what + " timed out"}
	}
	return Finding{Code: CodeCheckTimeout, Stage: stage, Severity: Unknown, Title: "cannot read " + what,
		Detail: oneLine(err.Error())}
}

func find(code Code, sev Severity, title string) Finding {
	f := Finding{Code: code, Severity: sev, Title: title}
	if e, ok := catalogue[code]; ok {
		f.Stage = e.Stage
		f.Detail = e.Meaning
		if e.Fix != "" {
			f.Fix = &Fix{Summary: e.Fix}
		}
	}
	return f
}

func (f Finding) with(ev ...Evidence) Finding {
	f.Evidence = append(f.Evidence, ev...)
	return f
}

func (f Finding) fix(summary, where, snippet, lang string) Finding {
	f.Fix = &Fix{Summary: summary, Where: where, Snippet: snippet, Lang: lang}
	return f
}

func (f Finding) image(alias string) Finding {
	f.Image = alias
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

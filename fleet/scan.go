package fleet

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

// Defaults of a scan.
const (
	DefaultConcurrency = 8
	DefaultDeadline    = 2 * time.Minute
)

// Scanner scans fleets. Engine is the prototype: its Cluster, Registry,
// Git, Forge, Charts and Options serve every app; the Scanner wraps Cluster
// and Registry to share their reads. A Scanner holds no state between
// scans.
type Scanner struct {
	Engine *diagnostics.Engine
	// UpdaterNamespace is where Image Updater is looked for first (default
	// argocd).
	UpdaterNamespace string
	// Concurrency bounds the apps diagnosed at once (default 8).
	Concurrency int
	// Deadline bounds the whole scan (default 2 min); what did not finish
	// is unknown.
	Deadline time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Result is one scan.
type Result struct {
	Scope     report.Scope  `json:"scope"`
	Cluster   string        `json:"cluster,omitempty"`
	StartedAt time.Time     `json:"startedAt"`
	Duration  time.Duration `json:"durationNs"`
	// Apps are every managed Application in the scope, by namespace and
	// name.
	Apps []report.AppResult `json:"apps"`
	// Partial is true when the deadline ended the scan before every app
	// finished (those are unknown, code CHECK_TIMEOUT).
	Partial bool `json:"partial,omitempty"`
	// Unmanaged counts the Applications in the scope Image Updater does not
	// manage (not listed); with a Visible filter, only visible ones.
	Unmanaged int              `json:"unmanaged"`
	Stats     report.ScanStats `json:"stats"`
}

// Counts is the number of apps in each state.
func (r *Result) Counts() map[report.State]int {
	m := map[report.State]int{}
	for _, a := range r.Apps {
		m[a.State]++
	}
	return m
}

// Worst is the most urgent state of the scan (up-to-date for none).
func (r *Result) Worst() report.State {
	c := r.Counts()
	for _, s := range report.States() {
		if c[s] > 0 {
			return s
		}
	}
	return report.StateUpToDate
}

// ErrNoUpdater is returned when Image Updater's installation cannot be
// read at all (the scan has nothing to go on): its read error wraps it.
var ErrNoUpdater = errors.New("image updater's installation could not be read")

// Scan diagnoses every managed Application in scope. It fails only when
// nothing can be listed (Applications, or CRs on v1.x); everything else
// becomes an app's answer.
func (s *Scanner) Scan(ctx context.Context, scope Query) (*Result, error) {
	p, cancel, err := s.prepare(ctx, scope, false)
	if err != nil {
		return nil, err
	}
	defer cancel()
	res := p.result(p.managed)
	p.diagnose(p.managed, func(i int, a *argo.Application, rep *report.Report) {
		// The report is dropped here: only its answer is kept.
		res.Apps[i] = ResultOf(rep, project(a))
	})
	p.warming.Wait()
	p.finish(res)
	return res, nil
}

// scan is one scan's shared reads and settings, between listing the
// managed Applications and diagnosing them.
type scan struct {
	s        *Scanner
	ctx      context.Context
	eng      *diagnostics.Engine
	cc       *clusterCache
	rc       *registryCache
	scope    Query
	start    time.Time
	now      func() time.Time
	deadline time.Duration
	conc     int
	updNS    string
	version  updater.Version
	crs      []updater.ImageUpdater
	sel      updater.SelectOptions
	// selector is the CRs prepared once: every app's selection reads it.
	selector *updater.Selector
	// managed are the Applications Image Updater manages in scope, by
	// namespace and name; unmanaged counts the others the asker may see.
	managed   []*argo.Application
	unmanaged int
	// targets are the managed apps' selections (v1.x, kept for a "where",
	// which reads their images before it diagnoses some of them): a
	// diagnosis is handed its app's, made once.
	targets map[*argo.Application]*updater.Targeting
	shared  *diagnostics.SharedLog
	logOnce sync.Once // a "where" reads the log when it needs it (readLog)
	// early are the diagnoses a "where" started before the Applications
	// were listed (diagnoseNamed), by app; set before the list is read.
	early map[updater.AppKey]*early
	// warmFirst: the first app's shared reads are made while the CRs are
	// listed (a scan's, warm); warming is that read.
	warmFirst bool
	warming   sync.WaitGroup
	// argoWarm: a "where" warms Argo CD's reads once (warmArgo).
	argoWarm  sync.Once
	inst      *cluster.UpdaterInstall
	regBefore int64
	done      int
}

// prepare reads what every app shares (the installation, its version, the
// CRs, the log) and lists the managed Applications in scope; the returned
// cancel ends the scan's deadline. With keepTargets it keeps the selection
// that found each app managed (a "where" reads the apps' images from it).
func (s *Scanner) prepare(ctx context.Context, scope Query, keepTargets bool) (*scan, context.CancelFunc, error) {
	p, cancel, err := s.begin(ctx, scope, keepTargets)
	if err != nil {
		return nil, nil, err
	}
	p.warmFirst = !keepTargets // a scan diagnoses every app, a "where" some
	apps, err := p.readShared(p.cc.Applications, false, nil)
	if err != nil {
		cancel()
		p.warming.Wait()
		return nil, nil, err
	}
	p.classify(apps)
	return p, cancel, nil
}

// begin is a scan before its reads: its settings, its deadline (the
// returned cancel ends it) and its shared clients.
func (s *Scanner) begin(ctx context.Context, scope Query, keepTargets bool) (*scan, context.CancelFunc, error) {
	if err := scope.Validate(); err != nil {
		return nil, nil, err
	}
	p := &scan{s: s, scope: scope, now: s.Now, deadline: s.Deadline, conc: s.Concurrency, updNS: s.UpdaterNamespace}
	if p.now == nil {
		p.now = time.Now
	}
	if p.deadline <= 0 {
		p.deadline = DefaultDeadline
	}
	if p.conc <= 0 {
		p.conc = DefaultConcurrency
	}
	if p.updNS == "" {
		p.updNS = "argocd"
	}
	if keepTargets {
		p.targets = map[*argo.Application]*updater.Targeting{}
	}
	p.start = p.now()
	ctx, cancel := context.WithTimeout(ctx, p.deadline)
	p.eng, p.ctx, p.cc, p.rc = shareScan(ctx, s.Engine)
	if s.Engine.Registry != nil {
		p.regBefore = s.Engine.Registry.Stats().Total()
	}
	return p, cancel, nil
}

// readShared reads what every app shares: Image Updater's installation
// and (with withLog) its log, the Applications in scope (through list,
// one namespace at a time) and, on v1.x, the CRs; it settles the version
// and prepares the CRs' selector.
//
// With light (a "where"), the CRs are listed beside the Applications,
// not after them, and the log is not read; settled (when not nil) is
// called as soon as the installation and the CRs are read and settled,
// while the Applications are still being listed (never when those reads
// failed).
func (p *scan) readShared(list func(ctx context.Context, ns string) ([]argo.Application, error), light bool, settled func()) ([]argo.Application, error) {
	ctx, s, scope := p.ctx, p.s, p.scope

	// The shared reads do not depend on one another: Image Updater's
	// installation and then its log (a round trip of up to LogLimit bytes,
	// parsed and indexed) are read while the Applications and the CRs are
	// listed. The CRs are needed on v1.x only, and the version comes with
	// the installation: they are listed when the version assumed until
	// then uses them (a v0.x installation then drops them), after it
	// otherwise. The two lists are read one after the other: each can be
	// thousands of objects, decoded whole (a fleet of 5,000 apps and as
	// many CRs held both lists' decoding at once past the memory budget).
	p.version = s.Engine.Options.DefaultVersion
	if p.version == (updater.Version{}) {
		p.version = updater.Latest
	}
	assumed := p.version
	var inst *cluster.UpdaterInstall
	var instErr, crsErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		inst, instErr = p.cc.FindUpdater(ctx, p.updNS)
		if instErr == nil && !light {
			p.shared = p.eng.ReadSharedLog(ctx, inst, versionOf(inst, assumed)) // through cc: read once
		}
	})
	crsBeside := light && assumed.UsesCRs()
	if crsBeside {
		wg.Go(func() { p.crs, crsErr = p.cc.ImageUpdaters(ctx, "") })
	}
	var apps []argo.Application
	var listErr error
	listAll := func() {
		for _, ns := range listNamespaces(scope) {
			list, err := list(ctx, ns)
			if err != nil {
				listErr = err
				break
			}
			apps = append(apps, list...)
		}
	}
	if crsBeside {
		// Everything but the Applications is known once the installation
		// and the CRs are read: settled may start on it while they are
		// listed.
		var listed sync.WaitGroup
		listed.Go(listAll)
		wg.Wait()
		err := p.settle(inst, instErr, crsErr, assumed, true)
		if err == nil && settled != nil {
			settled()
		}
		listed.Wait()
		if listErr != nil {
			return nil, fmt.Errorf("listing Applications: %w", listErr)
		}
		return apps, err
	}
	listAll()
	if p.warmFirst && listErr == nil {
		p.warm(apps)
	}
	crsRead := listErr == nil && assumed.UsesCRs()
	if crsRead {
		p.crs, crsErr = p.cc.ImageUpdaters(ctx, "")
	}
	wg.Wait()
	if listErr != nil {
		return nil, fmt.Errorf("listing Applications: %w", listErr)
	}
	return apps, p.settle(inst, instErr, crsErr, assumed, crsRead)
}

// warm starts the engine's warm-up (diagnostics.Engine.Warm) with the
// first of apps in scope, the first a scan diagnoses when Image Updater
// manages it: the reads every diagnosis waits for at first (Argo CD's
// repository credentials, the app's git snapshot) are made while the CRs
// are listed and the apps classified, not after. The scan waits for it
// (warming) before it ends.
func (p *scan) warm(apps []argo.Application) {
	var first *argo.Application
	for i := range apps {
		a := &apps[i]
		if !matches(p.scope, a) {
			continue
		}
		if first == nil || diagnosedBefore(a, first) {
			first = a
		}
	}
	if first == nil {
		return
	}
	p.warming.Go(func() {
		inst, err := p.cc.FindUpdater(p.ctx, p.updNS) // the read under way: joined, not repeated
		if err != nil {
			inst = nil
		}
		p.eng.Warm(p.ctx, first, inst, p.updNS)
	})
}

// settle keeps the installation read (inst, unless instErr), settles the
// version (the installation's, else assumed), reads the CRs when the
// version needs them and they were not read (crsRead) and prepares their
// selector.
func (p *scan) settle(inst *cluster.UpdaterInstall, instErr, crsErr error, assumed updater.Version, crsRead bool) error {
	if instErr == nil {
		p.inst = inst
	}
	p.version = versionOf(inst, assumed)
	switch {
	case !p.version.UsesCRs():
		p.crs = nil
	case !crsRead:
		p.crs, crsErr = p.cc.ImageUpdaters(p.ctx, "")
	}
	if p.version.UsesCRs() && crsErr != nil {
		return fmt.Errorf("listing ImageUpdater CRs: %w", crsErr)
	}
	p.sel = updater.SelectOptions{Version: p.version}
	if inst != nil {
		p.sel.ControllerNamespace = inst.Namespace
		if w := strings.TrimSpace(inst.WatchNamespaces); w != "" {
			p.sel.WatchNamespaces = []string{w}
		}
	}
	p.selector = updater.NewSelector(p.crs, p.sel)
	return nil
}

// classify keeps the Applications in scope Image Updater manages, by
// namespace and name (with their selections when the scan keeps them),
// and counts the others.
func (p *scan) classify(apps []argo.Application) {
	scope := p.scope
	for i := range apps {
		a := &apps[i]
		if !matches(scope, a) { // the asker's visibility first: a hidden app is not even counted
			continue
		}
		m := a.ToModel()
		if managed(m, p.selector) {
			p.managed = append(p.managed, a)
			if p.targets != nil {
				if t := selection(m, p.selector, p.version); t != nil {
					p.targets[a] = t
				}
			}
		} else {
			p.unmanaged++
		}
	}
	sort.Slice(p.managed, func(i, j int) bool { return diagnosedBefore(p.managed[i], p.managed[j]) })
}

// diagnosedBefore is the order a scan diagnoses its apps in (namespace,
// then name), which warm's first app follows.
func diagnosedBefore(a, b *argo.Application) bool {
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

// versionOf is the installation's Image Updater version, or assumed when
// it has none (or none was found).
func versionOf(inst *cluster.UpdaterInstall, assumed updater.Version) updater.Version {
	if inst != nil && inst.Version != (updater.Version{}) {
		return inst.Version
	}
	return assumed
}

// result is the scan's Result before any app is diagnosed: every app in
// apps unknown, "not diagnosed before the scan's deadline", until its
// answer comes.
func (p *scan) result(apps []*argo.Application) *Result {
	res := &Result{Scope: p.scope.Scope, Cluster: p.s.Engine.Options.ClusterName, StartedAt: p.start, Unmanaged: p.unmanaged}
	res.Apps = make([]report.AppResult, len(apps))
	for i, a := range apps {
		res.Apps[i] = notReached(a, p.deadline)
	}
	return res
}

// notReached is the answer of an app the scan's deadline left undiagnosed.
func notReached(a *argo.Application, deadline time.Duration) report.AppResult {
	return report.AppResult{App: report.AppRef{Namespace: a.Namespace, Name: a.Name}, Project: project(a),
		State: report.StateUnknown, Code: report.CodeCheckTimeout, NotReached: true,
		Title:    fmt.Sprintf("not diagnosed before the scan's deadline (%s)", deadline),
		Headline: fmt.Sprintf("%s/%s was not diagnosed before the scan's deadline (%s)", a.Namespace, a.Name, deadline)}
}

// diagnose diagnoses apps, Concurrency at a time, until the deadline, and
// hands each report to keep (called from several goroutines, never twice
// for one i; keep must not hold the report longer than it needs).
func (p *scan) diagnose(apps []*argo.Application, keep func(i int, a *argo.Application, rep *report.Report)) {
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range min(p.conc, max(1, len(apps))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				a := apps[i]
				var rep *report.Report
				if e := p.early[updater.AppKey{Namespace: a.Namespace, Name: a.Name}]; e != nil {
					<-e.done
					if e.app == a { // the object listed and read: its diagnosis is this one's
						rep, e.rep = e.rep, nil // held no longer than keep holds it
					}
				}
				if rep == nil {
					rep = p.eng.Diagnose(p.ctx, p.request(a, p.selectionOf(a)))
				}
				keep(i, a, rep)
				mu.Lock()
				p.done++
				d := p.done
				mu.Unlock()
				if f := progressOf(p.ctx); f != nil {
					f(d, len(apps))
				}
			}
		}()
	}
feed:
	for i := range apps {
		select {
		case work <- i:
		case <-p.ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
}

// request is the diagnosis of app a under the selection t (nil: the
// diagnosis makes its own).
func (p *scan) request(a *argo.Application, t *updater.Targeting) diagnostics.Request {
	req := diagnostics.Request{App: a.Name, Namespace: a.Namespace, UpdaterNamespace: p.updNS, SharedLog: p.shared}
	if t != nil {
		req.Selection = &diagnostics.Selection{Target: *t, CRs: p.crs, Options: p.sel}
	}
	return req
}

// selectionOf is the app's target selection: the one a "where" kept, else
// made now, once for the app (nil: the diagnosis makes its own).
func (p *scan) selectionOf(a *argo.Application) *updater.Targeting {
	if t, ok := p.targets[a]; ok {
		return t
	}
	return selection(a.ToModel(), p.selector, p.version)
}

// finish records whether the deadline cut the scan short, its duration and
// what it read.
func (p *scan) finish(res *Result) {
	res.Partial = p.done < len(res.Apps) || p.ctx.Err() != nil && anyTimedOut(res.Apps)
	res.Duration = p.now().Sub(p.start)
	res.Stats = report.ScanStats{KubernetesReads: p.cc.reads.Load(), TagLists: p.rc.lists.Load()}
	if p.s.Engine.Registry != nil {
		res.Stats.RegistryRequests = p.s.Engine.Registry.Stats().Total() - p.regBefore
	}
}

// ResultOf is one app's answer from its report (proj is its Argo CD
// project): what a summary shows. It keeps nothing of the report but
// strings and a time.
func ResultOf(rep *report.Report, proj string) report.AppResult {
	r := report.AppResult{App: rep.App, Project: proj, State: rep.State, Headline: rep.Headline, Answer: rep.Answer}
	if rc := rep.RootCause; rc != nil {
		r.Code, r.Stage, r.Title = rc.Code, rc.Stage, rc.Title
	}
	r.Waiting = waiting(rep)
	return r
}

// waiting is the build time of the tag that waits: the pick of an image
// whose update is due, or the oldest of the newer tags held back.
func waiting(rep *report.Report) *time.Time {
	var best *time.Time
	heldBack := rep.State == report.StateHeldBack
	for _, c := range rep.Candidates {
		d := c.Decision
		var running *semver.Version
		if heldBack {
			running, _ = semver.NewVersion(d.RunningTag)
		}
		for _, t := range d.Tags {
			if t.Created == nil {
				continue
			}
			pick := d.Selected != nil && t.Tag == d.Selected.Tag && t.Tag != d.RunningTag
			if pick || heldBack && !t.Kept && newerThan(t.Tag, running) {
				if best == nil || t.Created.Before(*best) {
					tt := *t.Created
					best = &tt
				}
			}
		}
	}
	return best
}

// newerThan: tag is a version above running (false when either is not one).
func newerThan(tag string, running *semver.Version) bool {
	if running == nil {
		return false
	}
	v, err := semver.NewVersion(tag)
	return err == nil && v.GreaterThan(running)
}

func project(a *argo.Application) string {
	if a.Spec.Project == "" {
		return "default"
	}
	return a.Spec.Project
}

func anyTimedOut(apps []report.AppResult) bool {
	for _, a := range apps {
		if a.Code == report.CodeCheckTimeout {
			return true
		}
	}
	return false
}

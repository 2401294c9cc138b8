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
	"github.com/imgupd/imgupd/diagnostics/argo"
	"github.com/imgupd/imgupd/diagnostics/report"
	"github.com/imgupd/imgupd/diagnostics/updater"
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
	// Progress, when set, is called after each app (done of total).
	Progress func(done, total int)
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
func (s *Scanner) Scan(ctx context.Context, scope report.Scope) (*Result, error) {
	if err := scope.Validate(); err != nil {
		return nil, err
	}
	now := s.Now
	if now == nil {
		now = time.Now
	}
	deadline := s.Deadline
	if deadline <= 0 {
		deadline = DefaultDeadline
	}
	conc := s.Concurrency
	if conc <= 0 {
		conc = DefaultConcurrency
	}
	updNS := s.UpdaterNamespace
	if updNS == "" {
		updNS = "argocd"
	}
	start := now()
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	res := &Result{Scope: scope.Asked(), Cluster: s.Engine.Options.ClusterName, StartedAt: start}

	eng, ctx, cc, rc := shareScan(ctx, s.Engine)
	var regBefore int64
	if s.Engine.Registry != nil {
		regBefore = s.Engine.Registry.Stats().Total()
	}

	// What every app shares: the installation, its version, the CRs, the log.
	inst, instErr := cc.FindUpdater(ctx, updNS)
	version := s.Engine.Options.DefaultVersion
	if version == (updater.Version{}) {
		version = updater.Latest
	}
	if inst != nil && inst.Version != (updater.Version{}) {
		version = inst.Version
	}
	var apps []argo.Application
	for _, ns := range listNamespaces(scope) {
		list, err := cc.Applications(ctx, ns)
		if err != nil {
			return nil, fmt.Errorf("listing Applications: %w", err)
		}
		apps = append(apps, list...)
	}
	var crs []updater.ImageUpdater
	if version.UsesCRs() {
		var err error
		if crs, err = cc.ImageUpdaters(ctx, ""); err != nil {
			return nil, fmt.Errorf("listing ImageUpdater CRs: %w", err)
		}
	}
	sel := updater.SelectOptions{Version: version}
	if inst != nil {
		sel.ControllerNamespace = inst.Namespace
		if w := strings.TrimSpace(inst.WatchNamespaces); w != "" {
			sel.WatchNamespaces = []string{w}
		}
	}
	var managed []*argo.Application
	for i := range apps {
		a := &apps[i]
		if !matches(scope, a) { // the asker's visibility first: a hidden app is not even counted
			continue
		}
		if Managed(a, crs, sel) {
			managed = append(managed, a)
		} else {
			res.Unmanaged++
		}
	}
	sort.Slice(managed, func(i, j int) bool {
		if managed[i].Namespace != managed[j].Namespace {
			return managed[i].Namespace < managed[j].Namespace
		}
		return managed[i].Name < managed[j].Name
	})
	var shared *diagnostics.SharedLog
	if instErr == nil {
		shared = eng.ReadSharedLog(ctx, inst, version) // through cc: read once
	}

	res.Apps = make([]report.AppResult, len(managed))
	for i, a := range managed {
		res.Apps[i] = report.AppResult{App: report.AppRef{Namespace: a.Namespace, Name: a.Name}, Project: project(a),
			State: report.StateUnknown, Code: report.CodeCheckTimeout, NotReached: true,
			Title:    fmt.Sprintf("not diagnosed before the scan's deadline (%s)", deadline),
			Headline: fmt.Sprintf("%s/%s was not diagnosed before the scan's deadline (%s)", a.Namespace, a.Name, deadline)}
	}
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range min(conc, max(1, len(managed))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				a := managed[i]
				// The report is dropped here: only its answer is kept.
				r := ResultOf(eng.Diagnose(ctx, diagnostics.Request{App: a.Name, Namespace: a.Namespace, UpdaterNamespace: updNS, SharedLog: shared}), project(a))
				mu.Lock()
				res.Apps[i] = r
				done++
				d := done
				mu.Unlock()
				if s.Progress != nil {
					s.Progress(d, len(managed))
				}
			}
		}()
	}
feed:
	for i := range managed {
		select {
		case work <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	res.Partial = done < len(managed) || ctx.Err() != nil && anyTimedOut(res.Apps)
	res.Duration = now().Sub(start)
	res.Stats = report.ScanStats{KubernetesReads: cc.reads.Load(), TagLists: rc.lists.Load()}
	if s.Engine.Registry != nil {
		res.Stats.RegistryRequests = s.Engine.Registry.Stats().Total() - regBefore
	}
	return res, nil
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

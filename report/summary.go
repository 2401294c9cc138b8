package report

// The fleet summary's data: what a scan of many Applications found, as the
// renderers, the bot and the scheduled summaries read it (fleet
// scans and summarizes; it holds no I/O here).

import (
	"fmt"
	"path"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"
)

// Summary is a scan as people read it: how many apps are in each state,
// then the apps that need someone, most urgent state first and, within a
// state, grouped by the stage that stops them.
type Summary struct {
	Scope     Scope         `json:"scope"`
	Cluster   string        `json:"cluster,omitempty"`
	At        time.Time     `json:"at"`
	Duration  time.Duration `json:"durationNs"`
	Partial   bool          `json:"partial,omitempty"`
	Total     int           `json:"total"`
	Unmanaged int           `json:"unmanaged"`
	// Counts has every state, zero counts included, in States() order.
	Counts []StateCount `json:"counts"`
	// Attention are the apps not up to date nor on their way.
	Attention []SummaryGroup `json:"attention"`
	// Fine are the apps up to date or on their way.
	Fine []SummaryLine `json:"fine,omitempty"`
	// Hash identifies the set of states (which app is in which state,
	// with which root cause), not the text: a summary whose hash did not
	// change needs no new message.
	Hash  string    `json:"hash"`
	Stats ScanStats `json:"stats"`
	// Worst is the most urgent state present.
	Worst State `json:"worst"`
	// Clusters are the clusters the summary covers, when imgupd reads several; ClusterFailures
	// those of them whose Applications could not be read (all unknown).
	Clusters        []string         `json:"clusters,omitempty"`
	ClusterFailures []ClusterFailure `json:"clusterFailures,omitempty"`
}

// Key is the app with its cluster, when it has one (AppResult.Key).
func (t Transition) Key() string { return ClusterApp(t.Cluster, t.App, t.Cluster != "") }

// Spans reports whether the summary covers more than one cluster: each app is then shown
// with its cluster.
func (s Summary) Spans() bool { return len(s.Clusters) > 1 }

// ClusterFailure is a cluster whose Applications could not be read: its Secret is missing,
// its API server unreachable. Every app of it is unknown, and Reason says why, in one line.
type ClusterFailure struct {
	Cluster string `json:"cluster"`
	Reason  string `json:"reason"`
}

// Shown is the app as an answer that spans several clusters names it (CLUSTER:NAMESPACE/APP),
// else NAMESPACE/APP.
func (l SummaryLine) Shown(spans bool) string { return ClusterApp(l.Cluster, l.App, spans) }

// Key is the app with its cluster, when it has one: what tells apps apart across clusters.
func (a AppResult) Key() string { return ClusterApp(a.Cluster, a.App, a.Cluster != "") }

// ClusterApp is app named with its cluster (CLUSTER:NAMESPACE/APP) when spans and it has one.
func ClusterApp(cluster string, app AppRef, spans bool) string {
	if spans && cluster != "" {
		return cluster + ":" + app.String()
	}
	return app.String()
}

// NeedAttention counts the apps that need someone.
func (s Summary) NeedAttention() int {
	n := 0
	for _, g := range s.Attention {
		n += len(g.Apps)
	}
	return n
}

// StateCount is the number of apps in a state.
type StateCount struct {
	State State `json:"state"`
	Count int   `json:"count"`
}

// SummaryGroup is the apps of one state stopped at one stage.
type SummaryGroup struct {
	State State         `json:"state"`
	Stage StageID       `json:"stage,omitempty"`
	Apps  []SummaryLine `json:"apps"`
}

// SummaryLine is one app in a summary.
type SummaryLine struct {
	// Cluster is the app's cluster, when imgupd reads several ("" for one).
	Cluster string  `json:"cluster,omitempty"`
	App     AppRef  `json:"app"`
	State   State   `json:"state"`
	Code    Code    `json:"code,omitempty"`
	Stage   StageID `json:"stage,omitempty"`
	Title   string  `json:"title,omitempty"`
	// Answer is the app's answer in one line (AppResult.Answer: app,
	// state and the cause in the catalogue's words), when known.
	Answer string `json:"answer,omitempty"`
	// Since is when the app entered its state, as far as imgupd has seen
	// (kept between scans; the scan's time for a new one).
	Since *time.Time `json:"since,omitempty"`
	// Waiting is since when the tag that should be picked has been in the
	// registry, when its build time is known.
	Waiting *time.Time `json:"waiting,omitempty"`
	// NotReached: the scan's deadline left the app undiagnosed (see
	// AppResult).
	NotReached bool `json:"notReached,omitempty"`
}

// AppResult is one Application's answer. It holds no report: a scan keeps
// per app only what its summary, the scheduled summary's memory and its
// alerts show, and drops each report as soon as the app is done, so that
// the scan's memory grows with the repositories and tag tables it reads,
// not with the apps (a report holds the app's candidate tables, up to
// thousands of rows each). The full report is one diagnosis away.
type AppResult struct {
	// Cluster is the app's cluster, when imgupd reads several ("" for one).
	Cluster string `json:"cluster,omitempty"`
	App     AppRef `json:"app"`
	Project string `json:"project"`
	State   State  `json:"state"`
	// Code and Stage are the root cause's (empty when nothing stops the
	// tag); Title its one line.
	Code     Code    `json:"code,omitempty"`
	Stage    StageID `json:"stage,omitempty"`
	Title    string  `json:"title,omitempty"`
	Headline string  `json:"headline"`
	// Answer is the report's answer in one line (Report.Answer).
	Answer string `json:"answer,omitempty"`
	// Waiting is since when the newest tag Image Updater should pick (or,
	// held back, the newest tag kept out) has been in the registry, when
	// its build time is known.
	Waiting *time.Time `json:"waiting,omitempty"`
	// NotReached is true for an app the scan's deadline left undiagnosed
	// (unknown, CHECK_TIMEOUT): it says nothing about the app's state.
	NotReached bool `json:"notReached,omitempty"`
}

// ScanStats is what a scan cost.
type ScanStats struct {
	KubernetesReads  int64 `json:"kubernetesReads"`
	RegistryRequests int64 `json:"registryRequests"`
	TagLists         int64 `json:"tagLists"`
}

// Transition is an app that changed state in a scan.
type Transition struct {
	// Cluster is the app's cluster, when the scan spans several ("" for one).
	Cluster string `json:"cluster,omitempty"`
	App     AppRef `json:"app"`
	From    State  `json:"from,omitempty"`
	To      State  `json:"to"`
	Code    Code   `json:"code,omitempty"`
	// New is true for an app not seen before (From is empty).
	New bool `json:"new,omitempty"`
}

// Healthy reports whether a state means nothing stops the tag.
func Healthy(s State) bool {
	return s == StateUpToDate || s == StateOnItsWay
}

// Alerting reports whether a transition is one people are told about: an
// app that was fine and now is blocked, gets a wrong update, or is not
// deployed (an alert), or one that was and now is fine (a recovery).
// Held back and unknown are for the summary, not for an alert.
func (t Transition) Alerting() (alert, recovery bool) {
	if t.New {
		return false, false
	}
	bad := func(s State) bool {
		return s == StateBlocked || s == StateWrongUpdate || s == StateNotDeployed
	}
	return Healthy(t.From) && bad(t.To), bad(t.From) && Healthy(t.To)
}

// StatesWithApps are the counts of the states that have apps, most urgent
// first: what a summary shows (it leaves the empty ones out).
func (s Summary) StatesWithApps() []StateCount {
	var out []StateCount
	for _, c := range s.Counts {
		if c.Count > 0 {
			out = append(out, c)
		}
	}
	return out
}

// Scope selects Applications: each non-empty part must match. Namespaces
// and Names are globs (path.Match), Projects exact names ("" counts as
// "default").
type Scope struct {
	Namespaces []string `json:"namespaces,omitempty"`
	Projects   []string `json:"projects,omitempty"`
	Names      []string `json:"names,omitempty"`
	// Selector is a label selector (kubectl's syntax), "" for any.
	Selector string `json:"selector,omitempty"`
}

// String is the scope in one line, for headers: "namespaces payments-*,
// projects payments" or "every Application".
func (s Scope) String() string {
	var parts []string
	if len(s.Namespaces) > 0 {
		parts = append(parts, "namespaces "+strings.Join(s.Namespaces, ","))
	}
	if len(s.Projects) > 0 {
		parts = append(parts, "projects "+strings.Join(s.Projects, ","))
	}
	if len(s.Names) > 0 {
		parts = append(parts, "names "+strings.Join(s.Names, ","))
	}
	if s.Selector != "" {
		parts = append(parts, "labels "+s.Selector)
	}
	if len(parts) == 0 {
		return "every Application"
	}
	return strings.Join(parts, ", ")
}

// Validate checks the globs and the selector.
func (s Scope) Validate() error {
	for _, g := range append(append([]string{}, s.Namespaces...), s.Names...) {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("scope: %q is not a glob: %w", g, err)
		}
	}
	if _, err := labels.Parse(s.Selector); err != nil {
		return fmt.Errorf("scope: selector %q: %w", s.Selector, err)
	}
	return nil
}

package bot

import (
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/report"
)

// DefaultMaxAppSeries bounds imgupd_app_state and imgupd_app_state_since_timestamp_seconds: at
// most this many apps have a series of each; the others are counted in
// imgupd_app_state_dropped_total (and still in imgupd_apps and imgupd_apps_by_cause).
const DefaultMaxAppSeries = 2000

// DefaultClusterLabel is the cluster label of the apps' metrics when serve --cluster is not set.
const DefaultClusterLabel = "default"

// appStates is the collector of the apps' states from the scheduled scans: each schedule's
// last scan, merged (an app several schedules scan takes its state from the latest of them).
// Each app has one series, of its current state (the series of its former state is gone, not
// 0); an app no schedule's last scan lists is gone too. The per-state and per-cause counts
// cover every app; the per-app series at most max apps, those that need attention first.
type appStates struct {
	mu         sync.Mutex
	max        int
	bySchedule map[string]appSnapshot

	state, since, apps, byCause *prometheus.Desc
	dropped                     *prometheus.CounterVec
}

type appSnapshot struct {
	at      time.Time
	cluster string
	apps    []appSeries
}

type appSeries struct {
	// cluster is the app's own cluster when the scan spans several ("": the snapshot's).
	cluster         string
	namespace, name string
	state           report.State
	code            report.Code
	since           time.Time
}

func newAppStates() *appStates {
	return &appStates{
		max:        DefaultMaxAppSeries,
		bySchedule: map[string]appSnapshot{},
		state: prometheus.NewDesc("imgupd_app_state",
			"1 for each Application's state in the last scheduled scans (one series per app: its current state).",
			[]string{"cluster", "namespace", "app", "state"}, nil),
		since: prometheus.NewDesc("imgupd_app_state_since_timestamp_seconds",
			"Since when (Unix time) each Application has been in its current state, as the scheduled summaries remember it (kept across restarts and leader changes).",
			[]string{"cluster", "namespace", "app", "state"}, nil),
		apps: prometheus.NewDesc("imgupd_apps",
			"Applications per state in the last scheduled scans (every app, never capped).",
			[]string{"cluster", "state"}, nil),
		byCause: prometheus.NewDesc("imgupd_apps_by_cause",
			"Applications per root-cause code in the last scheduled scans (apps with a root cause; every app, never capped).",
			[]string{"cluster", "code"}, nil),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "imgupd_app_state_dropped_total",
			Help: "Apps left out of imgupd_app_state by its cap on series, summed over the scheduled scans."}, []string{"cluster"}),
	}
}

// record keeps a schedule's scan: every app it listed, in the state the memory holds (an app
// the scan did not reach keeps its last known state).
func (a *appStates) record(schedule, cluster string, res *fleet.Result, mem *fleet.Memory, now time.Time) {
	snap := appSnapshot{at: now, cluster: cluster}
	for _, r := range res.Apps {
		s := appSeries{cluster: r.Cluster, namespace: r.App.Namespace, name: r.App.Name, state: r.State, code: r.Code, since: now}
		if seen, ok := mem.Apps[r.Key()]; ok {
			s.state, s.code, s.since = seen.State, seen.Code, seen.Since
		} else if r.NotReached {
			continue // never seen, not reached: nothing known
		}
		snap.apps = append(snap.apps, s)
	}
	a.mu.Lock()
	a.bySchedule[schedule] = snap
	merged := a.merged()
	a.mu.Unlock()
	if n := len(merged) - a.max; n > 0 {
		a.dropped.WithLabelValues(cluster).Add(float64(n))
	}
}

// reset forgets every scan (the replica no longer leads: the new leader's scans count).
func (a *appStates) reset() {
	a.mu.Lock()
	a.bySchedule = map[string]appSnapshot{}
	a.mu.Unlock()
}

type appKey struct{ cluster, namespace, name string }

type mergedApp struct {
	appSeries
	cluster string
	at      time.Time
}

// merged is every app of the schedules' last scans, each from the latest scan that lists it.
// Called with mu held.
func (a *appStates) merged() map[appKey]mergedApp {
	out := map[appKey]mergedApp{}
	for _, snap := range a.bySchedule {
		for _, s := range snap.apps {
			cluster := snap.cluster
			if s.cluster != "" {
				cluster = s.cluster
			}
			k := appKey{cluster, s.namespace, s.name}
			if old, ok := out[k]; ok && !snap.at.After(old.at) {
				continue
			}
			out[k] = mergedApp{appSeries: s, cluster: cluster, at: snap.at}
		}
	}
	return out
}

func (a *appStates) Describe(ch chan<- *prometheus.Desc) {
	ch <- a.state
	ch <- a.since
	ch <- a.apps
	ch <- a.byCause
	a.dropped.Describe(ch)
}

func (a *appStates) Collect(ch chan<- prometheus.Metric) {
	a.mu.Lock()
	merged := a.merged()
	a.mu.Unlock()
	type count struct{ cluster, label string }
	states, causes := map[count]int{}, map[count]int{}
	list := make([]mergedApp, 0, len(merged))
	for _, m := range merged {
		states[count{m.cluster, string(m.state)}]++
		if m.code != "" {
			causes[count{m.cluster, string(m.code)}]++
		}
		list = append(list, m)
	}
	for c, n := range states {
		ch <- prometheus.MustNewConstMetric(a.apps, prometheus.GaugeValue, float64(n), c.cluster, c.label)
	}
	for c, n := range causes {
		ch <- prometheus.MustNewConstMetric(a.byCause, prometheus.GaugeValue, float64(n), c.cluster, c.label)
	}
	// Over the cap, the apps that need attention keep their series: those are what the
	// alerts and the stuck-apps panel look at.
	sort.Slice(list, func(i, j int) bool {
		hi, hj := healthyState(list[i].state), healthyState(list[j].state)
		if hi != hj {
			return hj
		}
		x, y := list[i], list[j]
		if x.cluster != y.cluster {
			return x.cluster < y.cluster
		}
		if x.namespace != y.namespace {
			return x.namespace < y.namespace
		}
		return x.name < y.name
	})
	if len(list) > a.max {
		list = list[:a.max]
	}
	for _, m := range list {
		ch <- prometheus.MustNewConstMetric(a.state, prometheus.GaugeValue, 1, m.cluster, m.namespace, m.name, string(m.state))
		ch <- prometheus.MustNewConstMetric(a.since, prometheus.GaugeValue, float64(m.since.Unix()), m.cluster, m.namespace, m.name, string(m.state))
	}
	a.dropped.Collect(ch)
}

func healthyState(s report.State) bool {
	return s == report.StateUpToDate || s == report.StateOnItsWay
}

package clusters

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/report"
)

// Outcome is one cluster's part of a scan or a where: its result, or why it has none.
type Outcome[T any] struct {
	Cluster string
	Result  T
	Err     error
	// Took is how long the cluster's part took (0: not measured).
	Took time.Duration
}

// Scan is a fleet scan over one or more clusters: the apps of each, named with their cluster,
// and the clusters whose Applications could not be read.
type Scan struct {
	*fleet.Result
	Clusters []string
	Failures []report.ClusterFailure
	// Parts are the clusters' scans, in order: how each went (the metrics' per-cluster scan
	// durations).
	Parts []Part
}

// Part is one cluster's scan in a Scan: how long it took, and whether the deadline ended it or
// it failed.
type Part struct {
	Cluster string
	Took    time.Duration
	Partial bool
	Err     error
}

// Summary is the scan's summary (fleet.Summarize, mem may be nil) with its clusters: a cluster
// that could not be read is a failure line and makes the worst state at least unknown.
func (s Scan) Summary(mem *fleet.Memory) report.Summary {
	sum := fleet.Summarize(s.Result, mem)
	if len(s.Clusters) > 1 {
		sum.Clusters = s.Clusters
	}
	sum.ClusterFailures = s.Failures
	if len(s.Failures) > 0 {
		sum.Worst = worse(sum.Worst, report.StateUnknown)
	}
	return sum
}

// worse is the more urgent of a and b (report.States' order).
func worse(a, b report.State) report.State {
	for _, s := range report.States() {
		if s == a || s == b {
			return s
		}
	}
	return a
}

// errNoResult is a cluster's part that has neither a result nor an error.
var errNoResult = errors.New("no scan result")

// MergeScans merges the clusters' scans of scope (in the outcomes' order): every app named with
// its cluster, counts and costs added, partial when one is. A cluster whose scan failed is a
// failure, reason(err) in one line. When every cluster failed, the first error is returned.
func MergeScans(scope report.Scope, outs []Outcome[*fleet.Result], reason func(error) string) (Scan, error) {
	merged := &fleet.Result{Scope: scope, Apps: []report.AppResult{}}
	sc := Scan{Result: merged}
	var first error
	for _, o := range outs {
		sc.Clusters = append(sc.Clusters, o.Cluster)
		part := Part{Cluster: o.Cluster, Took: o.Took, Err: o.Err}
		if o.Err == nil && o.Result == nil {
			part.Err = errNoResult
		}
		if o.Result != nil {
			part.Partial = o.Result.Partial
		}
		sc.Parts = append(sc.Parts, part)
		if o.Err != nil || o.Result == nil {
			if first == nil {
				first = o.Err
			}
			sc.Failures = append(sc.Failures, report.ClusterFailure{Cluster: o.Cluster, Reason: reason(o.Err)})
			continue
		}
		r := o.Result
		if len(outs) == 1 {
			merged.Cluster = r.Cluster
		}
		if merged.StartedAt.IsZero() || (!r.StartedAt.IsZero() && r.StartedAt.Before(merged.StartedAt)) {
			merged.StartedAt = r.StartedAt
		}
		merged.Duration = max(merged.Duration, r.Duration)
		merged.Partial = merged.Partial || r.Partial
		merged.Unmanaged += r.Unmanaged
		addStats(&merged.Stats, r.Stats)
		for _, a := range r.Apps {
			a.Cluster = o.Cluster
			merged.Apps = append(merged.Apps, a)
		}
	}
	if len(sc.Failures) == len(outs) && first != nil {
		return sc, first
	}
	if merged.StartedAt.IsZero() {
		merged.StartedAt = time.Now()
	}
	if len(outs) > 1 {
		sort.SliceStable(merged.Apps, func(i, j int) bool {
			a, b := merged.Apps[i], merged.Apps[j]
			if c := compareApps(a.App, b.App); c != 0 {
				return c < 0
			}
			return slices.Index(sc.Clusters, a.Cluster) < slices.Index(sc.Clusters, b.Cluster)
		})
	}
	return sc, nil
}

// MergeWhere merges the clusters' answers to one where (in the outcomes' order): every line
// named with its cluster, grouped by answer as one cluster's are, the tag and registry facts of
// the first cluster that has them. A cluster whose answer failed is a failure, reason(err) in
// one line. When every cluster failed, the first error is returned.
func MergeWhere(outs []Outcome[*report.Where], reason func(error) string) (*report.Where, error) {
	var clusters []string
	var failures []report.ClusterFailure
	var first error
	var ok []*report.Where
	var base *report.Where
	for _, o := range outs {
		clusters = append(clusters, o.Cluster)
		if o.Err != nil || o.Result == nil {
			if first == nil {
				first = o.Err
			}
			failures = append(failures, report.ClusterFailure{Cluster: o.Cluster, Reason: reason(o.Err)})
			continue
		}
		w := *o.Result
		lines := make([]report.WhereLine, len(w.Apps))
		for i, l := range w.Apps {
			l.Cluster = o.Cluster
			lines[i] = l
		}
		w.Apps = lines
		ok = append(ok, &w)
		if base == nil || (len(base.Apps) == 0 && len(w.Apps) > 0) {
			base = &w
		}
	}
	if base == nil {
		return nil, first
	}
	merged := *base
	if len(outs) > 1 {
		merged.Cluster = ""
		merged.Clusters = clusters
		merged.Apps, merged.Managed, merged.Unmanaged = nil, 0, 0
		merged.Stats = report.ScanStats{}
		for _, w := range ok {
			merged.Apps = append(merged.Apps, w.Apps...)
			merged.Managed += w.Managed
			merged.Unmanaged += w.Unmanaged
			merged.Partial = merged.Partial || w.Partial
			merged.Duration = max(merged.Duration, w.Duration)
			addStats(&merged.Stats, w.Stats)
		}
		merged.Repositories = nil
		if len(merged.Apps) == 0 {
			merged.Repositories = nearestRepos(outs)
		}
	}
	merged.ClusterFailures = failures
	sort.SliceStable(merged.Apps, func(i, j int) bool {
		a, b := merged.Apps[i], merged.Apps[j]
		if ra, rb := a.Answer.Rank(), b.Answer.Rank(); ra != rb {
			return ra < rb
		}
		if c := compareApps(a.App, b.App); c != 0 {
			return c < 0
		}
		return slices.Index(clusters, a.Cluster) < slices.Index(clusters, b.Cluster)
	})
	return &merged, nil
}

func nearestRepos(outs []Outcome[*report.Where]) []string {
	var out []string
	for _, o := range outs {
		if o.Result == nil {
			continue
		}
		for _, r := range o.Result.Repositories {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}

func addStats(dst *report.ScanStats, s report.ScanStats) {
	dst.KubernetesReads += s.KubernetesReads
	dst.RegistryRequests += s.RegistryRequests
	dst.TagLists += s.TagLists
}

// compareApps orders apps by namespace, then name (a scan's order).
func compareApps(a, b report.AppRef) int {
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

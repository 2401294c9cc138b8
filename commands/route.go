package commands

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/imgupd/imgupd/clusters"
	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/report"
)

// This file routes a command to its clusters: --cluster, else the asker's default cluster (the
// first admitting rule's defaultCluster), else the only cluster, else every cluster the asker
// may see, read in parallel. A cluster the asker may not see is answered exactly as one that is
// not configured.

// targets are the clusters a command of pr reads: the one asked (requested), else the default
// one, else every one pr may see; or the answer when there is none to read.
func (s *Service) targets(pr Principal, cmd Command, requested string) ([]Cluster, *Result) {
	all := s.members()
	if len(s.Clusters) == 0 && all[0].Name == "" {
		if requested != "" {
			return nil, &Result{Kind: KindError, Command: cmd, Text: fmt.Sprintf("this imgupd reads one cluster and has no name (no `clusters:` in its configuration, nor `imgupd serve --cluster NAME`), so `--cluster %s` cannot be checked: leave it out", requested)}
		}
		return all, nil
	}
	var visible []Cluster
	for _, m := range all {
		if s.Policy.ClusterVisible(pr, m.Name) {
			visible = append(visible, m)
		}
	}
	names := make([]string, len(visible))
	for i, m := range visible {
		names[i] = m.Name
	}
	if requested != "" {
		if i := slices.Index(names, requested); i >= 0 {
			return visible[i : i+1], nil
		}
		text := fmt.Sprintf("no cluster `%s` here", requested)
		switch {
		case len(names) == 0:
		case len(names) == 1:
			text += fmt.Sprintf("; you may read cluster `%s`", names[0])
		default:
			text += "; you may read clusters `" + strings.Join(names, "`, `") + "`"
		}
		if near := textutil.NearestOne(requested, names, func(_ string, d int) bool { return d <= 2 }); near != "" {
			text += fmt.Sprintf("; did you mean `--cluster %s`?", near)
		}
		return nil, &Result{Kind: KindNotFound, Command: cmd, Text: text}
	}
	if len(visible) == 0 {
		return nil, &Result{Kind: KindDenied, Command: cmd, Text: fmt.Sprintf("no access rule grants %s, in %s, any of the clusters imgupd reads: ask an imgupd admin to add one (the clusters of an access rule)", who(pr), where(pr))}
	}
	if d := s.Policy.DefaultCluster(pr); d != "" {
		if i := slices.Index(names, d); i >= 0 {
			return visible[i : i+1], nil
		}
	}
	return visible, nil
}

// app finds the Application in the clusters the command reads and diagnoses it. Over several
// clusters each is searched in parallel: one match is diagnosed, several are an answer naming
// the clusters to choose from, none the not-found answer with suggestions from every cluster
// the asker may see.
func (s *Service) app(ctx context.Context, pr Principal, cmd Command, cluster, name, ns string, kind Kind) Result {
	ms, refusal := s.targets(pr, cmd, cluster)
	if refusal != nil {
		return *refusal
	}
	if len(ms) == 1 {
		return s.withApp(ctx, pr, ms[0], cmd, name, ns, kind)
	}
	type found struct {
		app Result // the not-found (or error) answer when app is nil
		hit *foundApp
	}
	outs := make([]found, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Go(func() {
			app, d, res := m.find(ctx, s.Policy, pr, cmd, name, ns)
			outs[i].app = res
			if app != nil {
				outs[i].hit = &foundApp{m: m, app: app, d: d}
			}
		})
	}
	wg.Wait()
	var hits []*foundApp
	for _, o := range outs {
		if o.hit != nil {
			hits = append(hits, o.hit)
		}
	}
	switch len(hits) {
	case 1:
		h := hits[0]
		return s.diagnose(ctx, pr, h.m, cmd, h.app, h.d, name, ns, kind)
	case 0:
	default:
		names := make([]string, len(hits))
		res := Result{Kind: KindNotFound, Command: cmd}
		for i, h := range hits {
			names[i] = h.m.Name
			if h.d.Private && res.Private == "" {
				res.Private = PrivateText(h.d.Rule, "Applications this answer names")
			}
		}
		res.Text = fmt.Sprintf("there are Applications named `%s` in clusters %s: add `--cluster NAME`", name, "`"+strings.Join(names, "`, `")+"`")
		return res
	}
	// Not in any: the first cluster's answer (an ambiguity or a read error wins), with the
	// suggestions of every cluster.
	var res Result
	var suggestions []string
	var down []string
	for i, o := range outs {
		r := o.app
		switch {
		case r.Kind == KindError && ms[i].Down != nil:
			down = append(down, r.Text)
			continue
		case r.Kind != KindNotFound || r.App == (report.AppRef{}):
			// A read error, or several Applications of that name in this cluster's namespaces.
			return r
		}
		if res.Kind == "" {
			res = r
		}
		for _, sg := range r.Suggestions {
			suggestions = append(suggestions, ms[i].Name+":"+sg)
		}
		if r.Private != "" && res.Private == "" {
			res.Private = r.Private
		}
	}
	if res.Kind == "" {
		return Result{Kind: KindError, Command: cmd, Text: strings.Join(down, "; ")}
	}
	sort.SliceStable(suggestions, func(i, j int) bool {
		return textutil.Distance(name, appOf(suggestions[i])) < textutil.Distance(name, appOf(suggestions[j]))
	})
	if len(suggestions) > 3 {
		suggestions = suggestions[:3]
	}
	res.Suggestions = suggestions
	if len(down) > 0 {
		res.Text += " (and " + strings.Join(down, "; ") + ")"
	}
	return withSuggestions(res)
}

type foundApp struct {
	m   Cluster
	app *argo.Application
	d   Decision
}

// appOf is the app's name of "cluster:ns/app".
func appOf(s string) string {
	_, app, _ := strings.Cut(s, "/")
	return app
}

// scan scans scope in the clusters the command reads, each narrowed to what pr may see there,
// in parallel, and merges them.
func (s *Service) scan(ctx context.Context, pr Principal, cluster string, scope report.Scope) (*clusters.Scan, error) {
	ms, err := s.fleetTargets(pr, cluster)
	if err != nil {
		return nil, err
	}
	outs := eachCluster(ms, func(m Cluster) (*fleet.Result, error) {
		return m.Fleet.Scan(ctx, s.Policy.ScopeIn(pr, m.Name, scope))
	})
	sc, err := clusters.MergeScans(scope, outs, func(err error) string { return readError("its Applications", err) })
	if err != nil {
		return nil, err
	}
	return &sc, nil
}

// where answers q over the clusters the command reads, as scan.
func (s *Service) where(ctx context.Context, pr Principal, cluster string, scope report.Scope, q fleet.ImageQuery) (*report.Where, error) {
	ms, err := s.fleetTargets(pr, cluster)
	if err != nil {
		return nil, err
	}
	outs := eachCluster(ms, func(m Cluster) (*report.Where, error) {
		return m.Fleet.Where(ctx, s.Policy.ScopeIn(pr, m.Name, scope), q)
	})
	return clusters.MergeWhere(outs, func(err error) string { return readError("its Applications", err) })
}

// eachCluster runs read over each cluster, in parallel: a cluster that cannot be read (Down)
// is its error, never the others'.
func eachCluster[T any](ms []Cluster, read func(Cluster) (T, error)) []clusters.Outcome[T] {
	outs := make([]clusters.Outcome[T], len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		outs[i].Cluster = m.Name
		wg.Go(func() {
			if m.Down != nil {
				outs[i].Err = m.Down
				return
			}
			outs[i].Result, outs[i].Err = read(m)
		})
	}
	wg.Wait()
	return outs
}

// fleetTargets are the clusters a scan reads (targets), those with a fleet scanner (or Down).
func (s *Service) fleetTargets(pr Principal, cluster string) ([]Cluster, error) {
	ms, refusal := s.targets(pr, nil, cluster)
	if refusal != nil {
		return nil, &command.Refusal{Kind: refusal.Kind, Text: refusal.Text}
	}
	var out []Cluster
	for _, m := range ms {
		if m.Fleet != nil || m.Down != nil {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, command.ErrNoFleet
	}
	return out, nil
}

func (a asker) Scan(ctx context.Context, cluster string, scope report.Scope) (*clusters.Scan, error) {
	return a.s.scan(ctx, a.pr, cluster, scope)
}

func (a asker) Where(ctx context.Context, cluster string, scope report.Scope, q fleet.ImageQuery) (*report.Where, error) {
	return a.s.where(ctx, a.pr, cluster, scope, q)
}

// ChannelScan scans scope for everyone in channel ch (a scheduled summary): in the clusters
// matching globs (none: every cluster), those the channel's rules grant everyone anything in,
// each narrowed to what they grant there, in parallel, merged. Without Clusters, the one
// cluster of the service's fields. When every cluster failed, the error comes with the Scan
// (nil Result), whose Parts say how each failed.
func (s *Service) ChannelScan(ctx context.Context, ch string, globs []string, scope report.Scope) (*clusters.Scan, error) {
	s.reopenDown(ctx)
	rules := s.Policy.ChannelRules(ch)
	var ms []Cluster
	for _, m := range s.members() {
		if len(globs) > 0 && !globsMatch(globs, m.Name) {
			continue
		}
		if !slices.ContainsFunc(rules, func(r Rule) bool { return r.inCluster(m.Name) }) {
			continue
		}
		if m.Fleet != nil || m.Down != nil {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return nil, command.ErrNoFleet
	}
	outs := make([]clusters.Outcome[*fleet.Result], len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		outs[i].Cluster = m.Name
		wg.Go(func() {
			if m.Down != nil {
				outs[i].Err = m.Down
				return
			}
			started := time.Now()
			outs[i].Result, outs[i].Err = m.Fleet.Scan(ctx, s.Policy.ChannelScopeIn(ch, m.Name, scope))
			outs[i].Took = time.Since(started)
		})
	}
	wg.Wait()
	sc, err := clusters.MergeScans(scope, outs, func(err error) string { return readError("its Applications", err) })
	if err != nil {
		sc.Result = nil
		return &sc, err
	}
	return &sc, nil
}

// AppsOf reads the Applications of the named cluster ("": the service's one cluster); nil when
// there is no such cluster or it cannot be read.
func (s *Service) AppsOf(cluster string) Apps {
	for _, m := range s.members() {
		if m.Name == cluster || cluster == "" && len(s.Clusters) == 0 {
			if m.Down != nil {
				return nil
			}
			return m.Apps
		}
	}
	return nil
}

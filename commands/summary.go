package commands

import (
	"context"
	"errors"
	"time"

	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/report"
)

// FleetScanner scans every managed Application in a scope, or those that use one image
// (*fleet.Scanner).
type FleetScanner interface {
	Scan(ctx context.Context, scope fleet.Query) (*fleet.Result, error)
	Where(ctx context.Context, scope fleet.Query, q fleet.ImageQuery) (*report.Where, error)
}

// DefaultSummaryTimeout bounds an on-demand summary's scan: what did not finish is unknown,
// and the answer still has time to be delivered within the bot's command deadline (2 min).
const DefaultSummaryTimeout = 90 * time.Second

// summary scans the requested scope, narrowed before anything is read to what the asker may
// see here: the answer is the one a cluster without the other Applications would give.
func (s *Service) summary(ctx context.Context, pr Principal, c Summary, rule string) Result {
	if s.Fleet == nil {
		return Result{Kind: KindNotBuilt, Command: c, Text: "`summary` is not available in this imgupd (it has no fleet scanner). Use `diagnose APP` for one application."}
	}
	timeout := s.SummaryTimeout
	if timeout <= 0 {
		timeout = DefaultSummaryTimeout
	}
	sctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := s.Fleet.Scan(sctx, s.Policy.ScopeFor(pr, c.Scope))
	if err != nil {
		what := "the Applications to summarize"
		if errors.Is(err, fleet.ErrNoUpdater) {
			what = "Image Updater's installation"
		}
		return Result{Kind: KindError, Command: c, Text: readError(what, err)}
	}
	sum := fleet.Summarize(res, nil)
	out := Result{Kind: KindSummary, Command: c, Summary: &sum, Rule: rule}
	// Shown to the channel only when a rule for everyone here grants every app it shows.
	for _, a := range res.Apps {
		if d := s.Policy.Decide(pr, Scope{Namespace: a.App.Namespace, Project: projectOr(a.Project)}); d.Private {
			out.Private = PrivateText(d.Rule, "Applications in this summary")
			break
		}
	}
	return out
}

// ScopeFor is the scope s narrowed to what the principal may see: the scan reads and counts
// nothing else.
func (p *Policy) ScopeFor(pr Principal, s report.Scope) fleet.Query {
	return fleet.Query{Scope: s,
		Visible:           func(ns, project string) bool { return p.Decide(pr, Scope{Namespace: ns, Project: project}).Allowed },
		VisibleNamespaces: p.VisibleNamespaces(pr)}
}

// ChannelScope is the scope s narrowed to what everyone in the channel ch may see (a scheduled
// summary's, posted for the whole channel).
func (p *Policy) ChannelScope(ch string, s report.Scope) fleet.Query {
	visible := p.ChannelVisible(ch)
	return fleet.Query{Scope: s,
		Visible:           func(ns, project string) bool { return visible(Scope{Namespace: ns, Project: project}) },
		VisibleNamespaces: literalNamespaces(p.ChannelRules(ch))}
}

func projectOr(p string) string {
	if p == "" {
		return "default"
	}
	return p
}

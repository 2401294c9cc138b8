package commands

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/imgupd/imgupd/diagnostics/fleet"
)

// FleetScanner scans every managed Application in a scope (*fleet.Scanner).
type FleetScanner interface {
	Scan(ctx context.Context, scope fleet.Scope) (*fleet.Result, error)
}

// DefaultSummaryTimeout bounds an on-demand summary's scan: what did not finish is unknown,
// and the answer still has time to be delivered within the bot's command deadline (2 min).
const DefaultSummaryTimeout = 90 * time.Second

// summary scans the requested scope and keeps only what the asker may see here.
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
	res, err := s.Fleet.Scan(sctx, c.Scope)
	if err != nil {
		what := "the Applications to summarize"
		if errors.Is(err, fleet.ErrNoUpdater) {
			what = "Image Updater's installation"
		}
		return Result{Kind: KindError, Command: c, Text: readError(what, err)}
	}
	shown, hidden := FilterResult(res, s.Policy.Visible(pr), s.Policy.GrantsAll(pr))
	sum := fleet.Summarize(shown, nil)
	return Result{Kind: KindSummary, Command: c, Summary: &sum, Hidden: hidden, Rule: rule}
}

// FilterResult keeps the apps visible admits and says how many it left out. The count of
// Applications Image Updater does not manage is kept only when keepUnmanaged (the asker may see
// every Application): the scan does not say which ones they are, so whether they may be shown
// cannot be told.
func FilterResult(res *fleet.Result, visible func(Scope) bool, keepUnmanaged bool) (*fleet.Result, int) {
	out := *res
	out.Apps = make([]fleet.AppResult, 0, len(res.Apps))
	hidden := 0
	for _, a := range res.Apps {
		p := a.Project
		if p == "" {
			p = "default"
		}
		if visible(Scope{Namespace: a.App.Namespace, Project: p}) {
			out.Apps = append(out.Apps, a)
		} else {
			hidden++
		}
	}
	if !keepUnmanaged {
		out.Unmanaged = 0
	}
	return &out, hidden
}

// HiddenText says how many apps a summary leaves out, "" for none.
func HiddenText(hidden int) string {
	switch hidden {
	case 0:
		return ""
	case 1:
		return "1 Application in this scope is not shown: the access rules do not grant it here."
	}
	return fmt.Sprintf("%d Applications in this scope are not shown: the access rules do not grant them here.", hidden)
}

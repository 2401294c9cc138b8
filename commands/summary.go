package commands

import (
	"time"

	"github.com/imgupd/imgupd/commands/command"

	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/report"
)

// FleetScanner scans every managed Application in a scope, or those that use one image
// (*fleet.Scanner; command's).
type FleetScanner = command.FleetScanner

// DefaultSummaryTimeout bounds an on-demand summary's scan: what did not finish is unknown,
// and the answer still has time to be delivered within the bot's command deadline (2 min).
const DefaultSummaryTimeout = 90 * time.Second

// ScopeFor is the scope s narrowed to what the principal may see: the scan reads and counts
// nothing else.
func (p *Policy) ScopeFor(pr Principal, s report.Scope) fleet.Query { return p.ScopeIn(pr, "", s) }

// ScopeIn is ScopeFor in one cluster ("": imgupd's one cluster without a name).
func (p *Policy) ScopeIn(pr Principal, cluster string, s report.Scope) fleet.Query {
	return fleet.Query{Scope: s,
		Visible: func(ns, project string) bool {
			return p.Decide(pr, Scope{Namespace: ns, Project: project, Cluster: cluster}).Allowed
		},
		VisibleNamespaces: p.VisibleNamespacesIn(pr, cluster)}
}

// ChannelScope is the scope s narrowed to what everyone in the channel ch may see (a scheduled
// summary's, posted for the whole channel).
func (p *Policy) ChannelScope(ch string, s report.Scope) fleet.Query {
	return p.ChannelScopeIn(ch, "", s)
}

// ChannelScopeIn is ChannelScope in one cluster ("": imgupd's one cluster without a name).
func (p *Policy) ChannelScopeIn(ch, cluster string, s report.Scope) fleet.Query {
	visible := p.ChannelVisible(ch)
	var rules []Rule
	for _, r := range p.ChannelRules(ch) {
		if r.inCluster(cluster) {
			rules = append(rules, r)
		}
	}
	return fleet.Query{Scope: s,
		Visible: func(ns, project string) bool {
			return visible(Scope{Namespace: ns, Project: project, Cluster: cluster})
		},
		VisibleNamespaces: literalNamespaces(rules)}
}

func projectOr(p string) string {
	if p == "" {
		return "default"
	}
	return p
}

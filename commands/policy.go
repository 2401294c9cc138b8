package commands

import (
	"errors"
	"fmt"
	"github.com/imgupd/imgupd/internal/lazyre"
	"path"
	"slices"
	"strings"
)

// Rule grants the people it names, where it names them, the Applications in
// its scope. A rule applies to a request when the channel matches AND (no
// users or groups are listed, or the user is listed or in a listed group).
// It grants an Application when its namespace matches one of Namespaces
// (none listed = any) AND its Argo CD project matches one of Projects (none
// listed = any).
type Rule struct {
	// Name is shown in the audit log and in refusals.
	Name string `mapstructure:"name" json:"name"`
	// Channels are channel IDs (C0123ABC), names (#deploys or deploys), "*"
	// for any channel, or "dm" for direct messages with the bot.
	Channels []string `mapstructure:"channels" json:"channels,omitempty"`
	// Users are Slack user IDs (U0123ABC).
	Users []string `mapstructure:"users" json:"users,omitempty"`
	// Groups are Slack user group IDs (S0123ABC).
	Groups []string `mapstructure:"groups" json:"groups,omitempty"`
	// Namespaces are globs of Application namespaces (team-*).
	Namespaces []string `mapstructure:"namespaces" json:"namespaces,omitempty"`
	// Projects are globs of Argo CD project names.
	Projects []string `mapstructure:"projects" json:"projects,omitempty"`
	// Clusters are globs of the cluster names (the configuration's clusters:) the rule grants;
	// none listed = every cluster.
	Clusters []string `mapstructure:"clusters" json:"clusters,omitempty"`
	// DefaultCluster is the cluster a command without --cluster reads when this rule admits
	// the asker (the first admitting rule with one wins).
	DefaultCluster string `mapstructure:"defaultCluster" json:"defaultCluster,omitempty"`
}

// Policy is who may diagnose what, from where. The zero Policy refuses
// everything: access must be granted in the configuration.
type Policy struct {
	Rules []Rule `mapstructure:"rules" json:"rules"`
	// AllowDMs lets people use the bot in direct messages (rules still
	// apply: a DM matches the channel "dm", and "*").
	AllowDMs bool `mapstructure:"allowDMs" json:"allowDMs"`
}

// Principal is who asks, and where.
type Principal struct {
	User     string // Slack user ID
	UserName string // for messages and the audit log; may be empty
	// Channel is the conversation ID; ChannelName is its name without "#",
	// "" when unknown.
	Channel, ChannelName string
	// DM is true in a direct message with the bot.
	DM bool
	// GroupDM is true in a group direct message (an mpim): neither a channel nor a direct
	// message with the bot. imgupd does not answer there: its members are whoever started it,
	// and no rule can name them.
	GroupDM bool
	// KindUnknown is true when the transport could not tell what kind of conversation this is
	// (its lookup failed): rules that apply in every channel ("*", or no channels) do not
	// apply, only those naming it by ID or name.
	KindUnknown bool
	// Groups are the user's groups among Policy.Groups().
	Groups []string
}

// Scope is what a request would read: an Application's namespace and project, and its cluster
// ("" when imgupd reads one cluster that has no name: the rules' clusters do not apply).
type Scope struct{ Namespace, Project, Cluster string }

// Decision is the answer to "may this principal see this scope?".
type Decision struct {
	Allowed bool
	// Rule names the rule that allowed it: a rule for everyone in the conversation when one
	// grants it.
	Rule string
	// Private is true when only rules that name the asker (users or groups) grant it, and no
	// rule for everyone in this channel does: the answer is for the asker alone. Never true in
	// a direct message, which is private already.
	Private bool
	// Reason says, for a refusal, why and what would allow it.
	Reason string
}

var (
	channelIDRE = lazyre.New(`^[CGD][A-Z0-9]{2,}$`)
	userIDRE    = lazyre.New(`^[UW][A-Z0-9]{2,}$`)
	groupIDRE   = lazyre.New(`^S[A-Z0-9]{2,}$`)
	channelRE   = lazyre.New(`^#?[a-z0-9][a-z0-9_-]{0,79}$`)
)

// Validate reports every mistake in the policy, naming the rule and value.
func (p *Policy) Validate() error {
	var errs []error
	for i, r := range p.Rules {
		name := r.Name
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		bad := func(format string, a ...any) {
			errs = append(errs, fmt.Errorf("access rule %s: "+format, append([]any{name}, a...)...))
		}
		if len(r.Channels) == 0 && len(r.Users) == 0 && len(r.Groups) == 0 {
			bad(`names no channels, users or groups; use channels: ["*"] to admit everyone in every channel`)
		}
		for _, c := range r.Channels {
			if c != "*" && c != "dm" && !channelIDRE().MatchString(c) && !channelRE().MatchString(c) {
				bad("channel %q is neither a channel ID (C0123ABC), a name (#deploys), \"*\" nor \"dm\"", c)
			}
		}
		for _, u := range r.Users {
			if !userIDRE().MatchString(u) {
				bad("user %q is not a Slack user ID (U0123ABC); find it in the user's profile, More → Copy member ID", u)
			}
		}
		for _, g := range r.Groups {
			if !groupIDRE().MatchString(g) {
				bad("group %q is not a Slack user group ID (S0123ABC)", g)
			}
		}
		for _, globs := range [][]string{r.Namespaces, r.Projects, r.Clusters} {
			for _, g := range globs {
				if _, err := path.Match(g, ""); err != nil || g == "" {
					bad("pattern %q is not a valid glob", g)
				}
			}
		}
		if r.DefaultCluster != "" && !globsMatch(r.Clusters, r.DefaultCluster) {
			bad("defaultCluster %q is not one of the rule's clusters %s", r.DefaultCluster, describeGlobs(r.Clusters))
		}
	}
	return errors.Join(errs...)
}

// CheckClusters checks the rules against the clusters configured (names; none: imgupd reads one
// cluster): each cluster glob of a rule matches one of them, each defaultCluster is one.
func (p *Policy) CheckClusters(names []string) error {
	var errs []error
	for i, r := range p.Rules {
		name := r.Name
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		if len(names) == 0 {
			if len(r.Clusters) > 0 || r.DefaultCluster != "" {
				errs = append(errs, fmt.Errorf("access rule %s: names clusters, but the configuration has no clusters: section (add it, or leave clusters and defaultCluster out)", name))
			}
			continue
		}
		for _, g := range r.Clusters {
			if !slices.ContainsFunc(names, func(n string) bool { ok, _ := path.Match(g, n); return ok }) {
				errs = append(errs, fmt.Errorf("access rule %s: cluster %q matches none of the clusters configured (%s)", name, g, strings.Join(names, ", ")))
			}
		}
		if r.DefaultCluster != "" && !slices.Contains(names, r.DefaultCluster) {
			errs = append(errs, fmt.Errorf("access rule %s: defaultCluster %q is not a cluster configured (%s)", name, r.DefaultCluster, strings.Join(names, ", ")))
		}
	}
	return errors.Join(errs...)
}

// ClusterVisible reports whether a rule that admits the principal here grants anything in the
// cluster ("": imgupd reads one cluster without a name, always).
func (p *Policy) ClusterVisible(pr Principal, cluster string) bool {
	if !p.Admits(pr).Allowed {
		return false
	}
	return slices.ContainsFunc(p.Rules, func(r Rule) bool { return r.applies(pr) && r.inCluster(cluster) })
}

// DefaultCluster is the defaultCluster of the first rule that admits the principal here and has
// one ("" for none).
func (p *Policy) DefaultCluster(pr Principal) string {
	if !p.Admits(pr).Allowed {
		return ""
	}
	for _, r := range p.Rules {
		if r.applies(pr) && r.DefaultCluster != "" {
			return r.DefaultCluster
		}
	}
	return ""
}

// Groups lists the user group IDs the rules name, so the transport knows
// which memberships to look up.
func (p *Policy) Groups() []string {
	var out []string
	for _, r := range p.Rules {
		for _, g := range r.Groups {
			if !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	return out
}

// applies reports whether the rule is about this principal here.
func (r Rule) applies(pr Principal) bool {
	if pr.GroupDM {
		return false
	}
	if len(r.Channels) == 0 && pr.KindUnknown {
		return false
	}
	if len(r.Channels) > 0 && !slices.ContainsFunc(r.Channels, func(c string) bool { return channelMatches(c, pr) }) {
		return false
	}
	if len(r.Users) == 0 && len(r.Groups) == 0 {
		return true
	}
	if slices.Contains(r.Users, pr.User) {
		return true
	}
	return slices.ContainsFunc(r.Groups, func(g string) bool { return slices.Contains(pr.Groups, g) })
}

// forEveryone reports whether the rule admits everyone where it applies (it names no users
// and no groups).
func (r Rule) forEveryone() bool { return len(r.Users) == 0 && len(r.Groups) == 0 }

func channelMatches(c string, pr Principal) bool {
	switch {
	case c == "*":
		return !pr.KindUnknown
	case c == "dm":
		return pr.DM
	case channelIDRE().MatchString(c):
		return c == pr.Channel
	}
	return pr.ChannelName != "" && strings.TrimPrefix(c, "#") == pr.ChannelName
}

func (r Rule) grants(s Scope) bool {
	return r.inCluster(s.Cluster) && globsMatch(r.Namespaces, s.Namespace) && globsMatch(r.Projects, s.Project)
}

// inCluster reports whether the rule grants anything in cluster ("": any rule does).
func (r Rule) inCluster(cluster string) bool { return cluster == "" || globsMatch(r.Clusters, cluster) }

func globsMatch(globs []string, v string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if ok, _ := path.Match(g, v); ok {
			return true
		}
	}
	return false
}

// Admits decides whether the principal may use the bot here at all (for
// commands that read nothing from the cluster: help, explain).
func (p *Policy) Admits(pr Principal) Decision {
	if pr.GroupDM {
		alt := "ask in a channel"
		if p.AllowDMs {
			alt += ", or write to imgupd directly"
		}
		return Decision{Reason: "imgupd does not answer in group direct messages (their members are not something an access rule can name): " + alt}
	}
	if pr.DM && !p.AllowDMs {
		return Decision{Reason: "imgupd does not answer in direct messages here (access.allowDMs is off): ask in a channel"}
	}
	for _, r := range p.Rules {
		if r.applies(pr) {
			return Decision{Allowed: true, Rule: r.Name}
		}
	}
	return Decision{Reason: fmt.Sprintf("no access rule admits %s in %s: ask an imgupd admin to add one (access.rules in imgupd's configuration)",
		who(pr), where(pr))}
}

// Decide decides whether the principal may read an Application in scope. A rule for everyone
// in the conversation is preferred; when only rules naming the asker grant it (and this is
// not a direct message), the Decision is Private.
func (p *Policy) Decide(pr Principal, s Scope) Decision {
	d := p.Admits(pr)
	if !d.Allowed {
		return d
	}
	var ns, projects, clusters []string
	var personal *Rule
	for i, r := range p.Rules {
		if !r.applies(pr) {
			continue
		}
		if r.grants(s) {
			if r.forEveryone() || pr.DM {
				return Decision{Allowed: true, Rule: r.Name}
			}
			if personal == nil {
				personal = &p.Rules[i]
			}
			continue
		}
		ns = appendGlobs(ns, r.Namespaces)
		projects = appendGlobs(projects, r.Projects)
		clusters = appendGlobs(clusters, r.Clusters)
	}
	if personal != nil {
		return Decision{Allowed: true, Rule: personal.Name, Private: true}
	}
	if s.Cluster != "" && !slices.Contains(clusters, "*") {
		return Decision{Reason: fmt.Sprintf("%s may diagnose, in %s, Applications in clusters %s, namespaces %s and projects %s; this one is outside them",
			who(pr), where(pr), list(clusters), list(ns), list(projects))}
	}
	return Decision{Reason: fmt.Sprintf("%s may diagnose, in %s, Applications in namespaces %s and projects %s; this one is outside them",
		who(pr), where(pr), list(ns), list(projects))}
}

// VisibleNamespaces are the only namespaces where the principal may see Applications, when
// every rule that applies names literal namespaces only; nil when one grants any namespace or
// a glob of them (then every namespace must be listed to know).
func (p *Policy) VisibleNamespaces(pr Principal) []string { return p.VisibleNamespacesIn(pr, "") }

// VisibleNamespacesIn is VisibleNamespaces in one cluster: the rules that grant nothing there do
// not count.
func (p *Policy) VisibleNamespacesIn(pr Principal, cluster string) []string {
	if !p.Admits(pr).Allowed {
		return []string{}
	}
	var rules []Rule
	for _, r := range p.Rules {
		if r.applies(pr) && r.inCluster(cluster) {
			rules = append(rules, r)
		}
	}
	return literalNamespaces(rules)
}

// literalNamespaces are the namespaces the rules grant, when each names literal namespaces
// only; else nil (any namespace may be granted).
func literalNamespaces(rules []Rule) []string {
	out := []string{}
	for _, r := range rules {
		if len(r.Namespaces) == 0 {
			return nil
		}
		for _, n := range r.Namespaces {
			if strings.ContainsAny(n, `*?[\`) {
				return nil
			}
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

func appendGlobs(dst, globs []string) []string {
	if len(globs) == 0 {
		globs = []string{"*"}
	}
	for _, g := range globs {
		if !slices.Contains(dst, g) {
			dst = append(dst, g)
		}
	}
	return dst
}

func list(globs []string) string {
	if slices.Contains(globs, "*") {
		return "(any)"
	}
	return "`" + strings.Join(globs, "`, `") + "`"
}

func who(Principal) string { return "you" }

func where(pr Principal) string {
	if pr.DM {
		return "direct messages"
	}
	if pr.ChannelName != "" {
		return "#" + pr.ChannelName
	}
	return "this channel"
}

// ValidChannel reports whether c names one channel as the rules write it: an ID (C0123ABC,
// G0123ABC) or a name (#deploys or deploys); not "*", "dm" or a direct message.
func ValidChannel(c string) bool {
	return c != "*" && c != "dm" && !strings.HasPrefix(c, "D") && (channelIDRE().MatchString(c) || channelRE().MatchString(c))
}

// sameChannel reports whether a rule's channel entry names the channel ch (an ID or a name, as
// ValidChannel accepts), as written: an ID matches that ID, a name that name ("#" or not), "*"
// any channel. An ID and a name never match: nothing is looked up.
func sameChannel(entry, ch string) bool {
	switch {
	case entry == "*":
		return true
	case entry == "dm":
		return false
	case channelIDRE().MatchString(entry) || channelIDRE().MatchString(ch):
		return entry == ch
	}
	return strings.TrimPrefix(entry, "#") == strings.TrimPrefix(ch, "#")
}

// ChannelRules are the rules that admit everyone in the channel ch (an ID or a name, written as
// the rules write it): those whose channels name it (or "*"; a rule without channels applies in
// every channel) and that list no users or groups. A message posted in a channel — a
// scheduled summary, an alert — is for everyone there, so only these rules count for it.
func (p *Policy) ChannelRules(ch string) []Rule {
	var out []Rule
	for _, r := range p.Rules {
		if len(r.Users) > 0 || len(r.Groups) > 0 {
			continue
		}
		if len(r.Channels) == 0 || slices.ContainsFunc(r.Channels, func(e string) bool { return sameChannel(e, ch) }) {
			out = append(out, r)
		}
	}
	return out
}

// ChannelVisible returns a filter for the Applications everyone in the channel may see (the
// ChannelRules grant them), and the name of each granting rule.
func (p *Policy) ChannelVisible(ch string) func(Scope) bool {
	rules := p.ChannelRules(ch)
	return func(s Scope) bool {
		return slices.ContainsFunc(rules, func(r Rule) bool { return r.grants(s) })
	}
}

// CheckChannelScope checks that every Application a scope can select is granted, to everyone
// in the channel, by one of its ChannelRules: each namespace glob of the scope (none = any)
// with each project (none = any) must be covered by one rule's namespaces and projects. A glob
// is covered by an equal glob, by "*", by a rule's "prefix*" when it starts with that prefix,
// or, for a plain name, by a rule glob matching it. The error names the rules and what they
// grant.
func (p *Policy) CheckChannelScope(ch string, namespaces, projects []string) error {
	return p.CheckChannelScopeIn(ch, nil, namespaces, projects)
}

// CheckChannelScopeIn is CheckChannelScope for a scope over clusters (globs; none: every
// cluster, or imgupd's one): each cluster glob must be covered too, by the same rule as the
// namespace and the project.
func (p *Policy) CheckChannelScopeIn(ch string, clusters, namespaces, projects []string) error {
	rules := p.ChannelRules(ch)
	where := ch
	if !channelIDRE().MatchString(ch) {
		where = "#" + strings.TrimPrefix(ch, "#")
	}
	if len(rules) == 0 {
		return fmt.Errorf("no access rule admits everyone in %s (rules that list users or groups do not count: the summary is posted for the whole channel); add a rule with channels: [%q], written as here (a channel ID and a name never match)",
			where, ch)
	}
	ns := namespaces
	if len(ns) == 0 {
		ns = []string{"*"}
	}
	projs := projects
	if len(projs) == 0 {
		projs = []string{"*"}
	}
	cls := clusters
	if len(cls) == 0 {
		cls = []string{""}
		if slices.ContainsFunc(rules, func(r Rule) bool { return len(r.Clusters) > 0 }) {
			cls = []string{"*"}
		}
	}
	var missing []string
	for _, c := range cls {
		for _, n := range ns {
			for _, pr := range projs {
				if !slices.ContainsFunc(rules, func(r Rule) bool {
					return (c == "" || globCovered(r.Clusters, c)) && globCovered(r.Namespaces, n) && globCovered(r.Projects, pr)
				}) {
					what := fmt.Sprintf("namespace %s in project %s", n, pr)
					if c != "" {
						what += " of cluster " + c
					}
					missing = append(missing, what)
				}
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	var grants []string
	for _, r := range rules {
		name := r.Name
		if name == "" {
			name = "(unnamed)"
		}
		g := fmt.Sprintf("rule %s grants namespaces %s and projects %s", name, describeGlobs(r.Namespaces), describeGlobs(r.Projects))
		if len(r.Clusters) > 0 {
			g += " in clusters " + describeGlobs(r.Clusters)
		}
		grants = append(grants, g)
	}
	scope := ""
	if len(clusters) > 0 {
		scope = "clusters " + describeGlobs(clusters) + ", "
	}
	return fmt.Errorf("scope %snamespaces %s, projects %s goes beyond what the access rules grant everyone in %s (%s not granted): %s; narrow the scope or widen a rule",
		scope, describeGlobs(namespaces), describeGlobs(projects), where, strings.Join(missing, ", "), strings.Join(grants, "; "))
}

// globCovered reports whether every value matching glob g matches one of globs (none = any).
// Conservative: when it cannot tell, it says no.
func globCovered(globs []string, g string) bool {
	if len(globs) == 0 {
		return true
	}
	literal := !strings.ContainsAny(g, `*?[\`)
	prefix := g
	if i := strings.IndexAny(g, `*?[\`); i >= 0 {
		prefix = g[:i]
	}
	for _, r := range globs {
		switch {
		case r == "*" || r == g:
			return true
		case literal:
			if ok, _ := path.Match(r, g); ok {
				return true
			}
		case strings.HasSuffix(r, "*") && !strings.ContainsAny(r[:len(r)-1], `*?[\`) && strings.HasPrefix(prefix, r[:len(r)-1]):
			return true
		}
	}
	return false
}

func describeGlobs(globs []string) string {
	if len(globs) == 0 {
		return "(any)"
	}
	return "[" + strings.Join(globs, ", ") + "]"
}

package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/commands"
)

// writeCheckedConfig prints config check's result for people: the problems on stderr, each with
// its key, or what serve resolves on stdout.
func writeCheckedConfig(io streams, c *checkedConfig) {
	if len(c.Problems) > 0 {
		fmt.Fprintf(io.Err, "%s: imgupd serve would not start:\n", c.File)
		for _, p := range c.Problems {
			fmt.Fprintf(io.Err, "  %s: %s\n", p.Key, p.Message)
		}
		return
	}
	w := tabwriter.NewWriter(io.Out, 2, 4, 2, ' ', 0)
	fmt.Fprintf(w, "%s: imgupd serve accepts this configuration.\n\n", c.File)
	fmt.Fprintln(w, "serve (flag > IMGUPD_<FLAG> > file > default):")
	for _, s := range c.Serve {
		fmt.Fprintf(w, "  %s\t%s\t%s\n", s.Key, orNone(s.Value), s.Source)
	}
	fmt.Fprintln(w, "slack:")
	for _, t := range c.Slack {
		value := "-"
		if t.Value != "" {
			value = t.Value.String()
			if t.Prefix != "" {
				value = t.Prefix + value
			}
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\n", strings.TrimPrefix(t.Key, "slack."), value, t.Source)
	}
	w.Flush()

	dms := "off"
	if c.Access.AllowDMs {
		dms = "on"
	}
	fmt.Fprintf(io.Out, "access: %d rule(s), direct messages %s\n", len(c.Access.Rules), dms)
	w = tabwriter.NewWriter(io.Out, 2, 4, 2, ' ', 0)
	for i, r := range c.Access.Rules {
		name := r.Name
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		fmt.Fprintf(w, "  %s\t%s\n", name, describeRule(r))
	}
	w.Flush()
	if len(c.Clusters) > 0 {
		fmt.Fprintf(io.Out, "clusters: %d\n", len(c.Clusters))
		w = tabwriter.NewWriter(io.Out, 2, 4, 2, ' ', 0)
		for _, cl := range c.Clusters {
			state := "reachable"
			if !cl.Reachable {
				state = "NOT reachable: " + oneLine(cl.Reason)
			}
			fmt.Fprintf(w, "  %s\t%s\t%s\n", cl.Name, cl.Way, state)
		}
		w.Flush()
	}
	if len(c.Schedules) > 0 {
		fmt.Fprintf(io.Out, "schedules: %d\n", len(c.Schedules))
		w = tabwriter.NewWriter(io.Out, 2, 4, 2, ' ', 0)
		for _, s := range c.Schedules {
			fmt.Fprintf(w, "  %s\t%s\n", s.Name, describeSchedule(s))
		}
		w.Flush()
	}
	fmt.Fprintf(io.Out, "Slack bot token scopes this configuration needs: %s\n", strings.Join(c.Scopes, ", "))
	for _, name := range sortedKeys(c.Sections) {
		var keys []string
		for _, s := range c.Sections[name] {
			keys = append(keys, s.Key+"="+s.Value)
		}
		fmt.Fprintf(io.Out, "%s: %s\n", name, orNone(strings.Join(keys, ", ")))
	}
}

// describeRule says who a rule admits, where, and what it grants.
func describeRule(r commands.Rule) string {
	any := func(list []string) string {
		if len(list) == 0 {
			return "any"
		}
		return strings.Join(list, ", ")
	}
	var who []string
	if len(r.Users) > 0 {
		who = append(who, "users "+strings.Join(r.Users, ", "))
	}
	if len(r.Groups) > 0 {
		who = append(who, "groups "+strings.Join(r.Groups, ", "))
	}
	if len(who) == 0 {
		who = append(who, "anyone")
	}
	out := fmt.Sprintf("%s in channels %s: namespaces %s, projects %s", strings.Join(who, " or "), any(r.Channels), any(r.Namespaces), any(r.Projects))
	if len(r.Clusters) > 0 {
		out += ", clusters " + strings.Join(r.Clusters, ", ")
	}
	if r.DefaultCluster != "" {
		out += " (default " + r.DefaultCluster + ")"
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// describeSchedule says when a schedule runs, where, over what, and how.
func describeSchedule(s checkedSchedule) string {
	tz := s.Timezone
	if tz == "" {
		tz = "UTC"
	}
	digest := "a new message only the first time, then updated in place"
	if s.Digest == bot.DigestDaily {
		digest = "a new message every day, updated in place between"
	}
	alerts := "alerts on"
	if !s.AlertsOn() {
		alerts = "alerts off"
	}
	next := "never"
	if len(s.Next) > 0 {
		next = s.Next[0].Format("2006-01-02 15:04 MST")
	}
	return fmt.Sprintf("%q (%s) in %s: %s; %s, %s; next run %s", s.Cron, tz, s.Channel, s.Scope.String(), digest, alerts, next)
}

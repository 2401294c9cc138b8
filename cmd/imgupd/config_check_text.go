package main

import (
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/commands"
)

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

package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

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
	return fmt.Sprintf("%s in channels %s: namespaces %s, projects %s", strings.Join(who, " or "), any(r.Channels), any(r.Namespaces), any(r.Projects))
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

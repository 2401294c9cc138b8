package bot

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // the image has no zoneinfo: schedules' time zones come with the binary

	"github.com/robfig/cron/v3"

	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/report"
)

// Schedule is one scheduled summary of the configuration's schedules: a fleet scan of Scope at
// each time Cron names (in Timezone), posted in Channel and then updated in place, with an
// alert when an app goes bad or recovers.
type Schedule struct {
	// Name names the schedule in logs, metrics and its state (a DNS label: lower-case
	// letters, digits and -).
	Name string `mapstructure:"name" json:"name"`
	// Cron is a standard 5-field cron expression (minute hour day-of-month month
	// day-of-week) or a descriptor (@hourly, @daily, @weekly, @monthly, @every 6h).
	Cron string `mapstructure:"cron" json:"cron"`
	// Timezone is an IANA time zone (Europe/Paris) the expression is read in (default UTC).
	Timezone string `mapstructure:"timezone" json:"timezone,omitempty"`
	// Channel is where the summary is posted: a channel ID (C0123ABC) or a name
	// (#payments-deploys), written as the access rules write it.
	Channel string `mapstructure:"channel" json:"channel"`
	// Scope selects the Applications; what it may select is bounded by the rules that admit
	// everyone in Channel.
	Scope report.Scope `mapstructure:"scope" json:"scope"`
	// Digest "daily" posts a new message once a day (the first run of each day in Timezone)
	// even when nothing changed; "" (the default) posts a new message only the first time,
	// then updates it in place when the states change.
	Digest string `mapstructure:"digest" json:"digest,omitempty"`
	// Alerts posts one message when an app goes from up to date or on its way to blocked,
	// wrong update or not deployed, and one when it recovers (default true).
	Alerts *bool `mapstructure:"alerts" json:"alerts,omitempty"`
	// Clusters are globs of the clusters it scans (the configuration's clusters:; none: every
	// cluster its channel's rules grant everyone), in parallel: each app named with its cluster.
	Clusters []string `mapstructure:"clusters" json:"clusters,omitempty"`
}

// ScheduleKeys are the keys of a schedule, and ScopeKeys of its scope, in the configuration.
var (
	ScheduleKeys = []string{"name", "cron", "timezone", "channel", "scope", "digest", "alerts", "clusters"}
	ScopeKeys    = []string{"namespaces", "projects", "names", "selector"}
)

// DigestDaily is the Digest that posts a new message every day.
const DigestDaily = "daily"

// AlertChannelAnnotation on an Application names the channel (an ID or #name) its alerts go
// to, instead of the schedule's channel, when the access rules grant that channel the app.
const AlertChannelAnnotation = "imgupd.io/alert-channel"

// minInterval is the shortest time between two runs an @every descriptor may ask for.
const minInterval = time.Minute

var (
	scheduleNameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	cronParser     = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
)

// AlertsOn reports whether the schedule posts alerts.
func (s Schedule) AlertsOn() bool { return s.Alerts == nil || *s.Alerts }

// Location is the schedule's time zone (UTC when none is set or it does not load).
func (s Schedule) Location() *time.Location {
	if s.Timezone == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(s.Timezone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// ValidateSchedules checks every schedule, and that its scope stays within what the access rules
// grant everyone in its channel. Each error names the schedule (by name, else by position).
func ValidateSchedules(schedules []Schedule, policy *commands.Policy) error {
	var errs []error
	seen := map[string]bool{}
	for i, s := range schedules {
		name := s.Name
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		bad := func(format string, a ...any) {
			errs = append(errs, fmt.Errorf("schedule %s: "+format, append([]any{name}, a...)...))
		}
		switch {
		case s.Name == "":
			bad("has no name (a DNS label: lower-case letters, digits and -, e.g. payments-daily)")
		case !scheduleNameRE.MatchString(s.Name) || len(s.Name) > 63:
			bad("name %q: use lower-case letters, digits and - (at most 63), e.g. payments-daily", s.Name)
		case seen[s.Name]:
			bad("the name is used by another schedule: each schedule keeps its own message and state")
		}
		seen[s.Name] = true
		if _, err := parseCron(s.Cron); err != nil {
			bad("cron %q: %v", s.Cron, err)
		}
		if s.Timezone != "" {
			if _, err := time.LoadLocation(s.Timezone); err != nil || s.Timezone == "Local" {
				bad("timezone %q is not an IANA time zone (e.g. Europe/Paris, America/New_York, UTC)", s.Timezone)
			}
		}
		switch {
		case s.Channel == "":
			bad("has no channel (a channel ID such as C0123ABC, or a name such as #deploys)")
		case !commands.ValidChannel(s.Channel):
			bad("channel %q is neither a channel ID (C0123ABC) nor a name (#deploys); \"*\", \"dm\" and direct messages cannot be posted to", s.Channel)
		}
		if s.Digest != "" && s.Digest != DigestDaily {
			bad("digest %q: the only digest is %q (a new message every day); leave it out for a new message only the first time, updated in place after", s.Digest, DigestDaily)
		}
		if err := s.Scope.Validate(); err != nil {
			bad("%v", err)
		}
		for _, g := range s.Clusters {
			if _, err := path.Match(g, ""); err != nil || g == "" {
				bad("cluster %q is not a valid glob", g)
			}
		}
		if policy != nil && commands.ValidChannel(s.Channel) {
			if err := policy.CheckChannelScopeIn(s.Channel, s.Clusters, s.Scope.Namespaces, s.Scope.Projects); err != nil {
				bad("%v", err)
			}
		}
	}
	return errors.Join(errs...)
}

// parseCron reads a schedule's expression: five fields or a descriptor, no seconds and no
// CRON_TZ= prefix (the timezone key says it), at most one run a minute.
func parseCron(expr string) (cron.Schedule, error) {
	expr = strings.TrimSpace(expr)
	switch {
	case expr == "":
		return nil, errors.New("empty: give five fields (minute hour day-of-month month day-of-week), e.g. \"0 9 * * 1-5\", or @daily")
	case strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ="):
		return nil, errors.New("give the time zone in the schedule's timezone key, not in the expression")
	}
	if !strings.HasPrefix(expr, "@") {
		if n := len(strings.Fields(expr)); n != 5 {
			return nil, fmt.Errorf("%d fields: give five (minute hour day-of-month month day-of-week), e.g. \"0 9 * * 1-5\"", n)
		}
	}
	sched, err := cronParser.Parse(expr)
	if err != nil {
		return nil, err
	}
	if every, ok := sched.(cron.ConstantDelaySchedule); ok && every.Delay < minInterval {
		return nil, fmt.Errorf("runs every %s: at most one run a minute", every.Delay)
	}
	return sched, nil
}

// schedules are the validated schedules with their parsed expressions.
type compiledSchedule struct {
	Schedule
	cron cron.Schedule
	loc  *time.Location
}

// compileSchedules parses validated schedules.
func compileSchedules(list []Schedule) ([]*compiledSchedule, error) {
	out := make([]*compiledSchedule, 0, len(list))
	for _, s := range list {
		c, err := parseCron(s.Cron)
		if err != nil {
			return nil, fmt.Errorf("schedule %s: cron %q: %w", s.Name, s.Cron, err)
		}
		out = append(out, &compiledSchedule{Schedule: s, cron: c, loc: s.Location()})
	}
	return out, nil
}

// next is the first run time after t.
func (c *compiledSchedule) next(t time.Time) time.Time { return c.cron.Next(t.In(c.loc)) }

// day is the calendar day of t in the schedule's time zone, for the daily digest.
func (c *compiledSchedule) day(t time.Time) string { return t.In(c.loc).Format(time.DateOnly) }

// scheduleNames lists the schedules' names, for logs.
func scheduleNames(list []*compiledSchedule) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return out
}

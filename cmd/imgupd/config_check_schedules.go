package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/robfig/cron/v3"
	"github.com/spf13/viper"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/internal/textutil"
)

// readSchedules reads the top-level schedules section as serve does: strictly, key by key (an
// unknown key is a problem naming it, with a did-you-mean), each schedule validated, its scope
// checked against what the access rules grant everyone in its channel (policy nil: not
// checked, the access section is wrong already). The problems name their keys
// (schedules[0].channel) and, where it has one, the schedule.
func readSchedules(v *viper.Viper, policy *commands.Policy) ([]bot.Schedule, []problem) {
	raw := v.Get("schedules")
	if raw == nil {
		return nil, nil
	}
	items, ok := raw.([]any)
	if !ok {
		return nil, []problem{{Key: "schedules", Message: "a list of schedules (- name: … cron: … channel: …), see config.example.yaml"}}
	}
	var out []bot.Schedule
	var problems []problem
	add := func(key, format string, a ...any) {
		problems = append(problems, problem{Key: key, Message: fmt.Sprintf(format, a...)})
	}
	where := map[string]string{}
	for i, item := range items {
		key := fmt.Sprintf("schedules[%d]", i)
		m, ok := item.(map[string]any)
		if !ok {
			add(key, "a schedule is a map of %s", strings.Join(bot.ScheduleKeys, ", "))
			continue
		}
		keysOK := true
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !textutil.ContainsFold(bot.ScheduleKeys, k) {
				add(key+"."+k, "not a key of a schedule%s", didYouMean(k, bot.ScheduleKeys))
				keysOK = false
			}
		}
		if scope, ok := m["scope"].(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(scope)) {
				if !textutil.ContainsFold(bot.ScopeKeys, k) {
					add(key+".scope."+k, "not a key of a schedule's scope%s", didYouMean(k, bot.ScopeKeys))
					keysOK = false
				}
			}
		} else if m["scope"] != nil {
			add(key+".scope", "a map of %s (leave it out for every Application)", strings.Join(bot.ScopeKeys, ", "))
			keysOK = false
		}
		if !keysOK {
			continue
		}
		var s bot.Schedule
		dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{Result: &s, ErrorUnused: true})
		if err == nil {
			err = dec.Decode(m)
		}
		if err != nil {
			add(key, "%s", oneLine(err.Error()))
			continue
		}
		if s.Name != "" {
			if prev, dup := where[s.Name]; dup {
				add(key+".name", "%q is the name of %s too: each schedule keeps its own message and state", s.Name, prev)
				continue
			}
			where[s.Name] = key
		}
		if err := bot.ValidateSchedules([]bot.Schedule{s}, policy); err != nil {
			for _, e := range splitJoined(err) {
				add(key, "%s", oneLine(e.Error()))
			}
			continue
		}
		out = append(out, s)
	}
	return out, problems
}

// loadSchedules is readSchedules for serve: the problems as one error.
func loadSchedules(v *viper.Viper, policy *commands.Policy) ([]bot.Schedule, error) {
	s, problems := readSchedules(v, policy)
	if len(problems) == 0 {
		return s, nil
	}
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.Key + ": " + p.Message
	}
	return nil, fmt.Errorf("config %s", strings.Join(msgs, "; "))
}

// checkedSchedule is a schedule as config check shows it: the next runs.
type checkedSchedule struct {
	bot.Schedule
	Next []time.Time `json:"next"`
}

func describeSchedules(list []bot.Schedule, now time.Time) []checkedSchedule {
	parser := cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
	out := make([]checkedSchedule, 0, len(list))
	for _, s := range list {
		c := checkedSchedule{Schedule: s}
		if sched, err := parser.Parse(s.Cron); err == nil {
			t := now.In(s.Location())
			for range 3 {
				t = sched.Next(t)
				if t.IsZero() {
					break
				}
				c.Next = append(c.Next, t)
			}
		}
		out = append(out, c)
	}
	return out
}

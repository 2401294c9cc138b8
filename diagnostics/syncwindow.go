package diagnostics

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/imgupd/imgupd/model/argo"
)

// Argo CD parses sync window schedules as five-field cron expressions.
var windowParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// windowActive says whether a window is open at now, as Argo CD decides it:
// a schedule trigger happened within the last duration.
func windowActive(w argo.SyncWindow, now time.Time) (bool, error) {
	sched, err := windowParser.Parse(w.Schedule)
	if err != nil {
		return false, fmt.Errorf("schedule %q: %w", w.Schedule, err)
	}
	d, err := time.ParseDuration(w.Duration)
	if err != nil {
		return false, fmt.Errorf("duration %q: %w", w.Duration, err)
	}
	if w.TimeZone != "" {
		if loc, err := time.LoadLocation(w.TimeZone); err == nil {
			now = now.In(loc)
		}
	}
	next := sched.Next(now.Add(-d))
	return !next.After(now), nil
}

// windowMatches says whether a window applies to the Application (by name,
// destination namespace or cluster, with glob patterns).
func windowMatches(w argo.SyncWindow, app *argo.Application) bool {
	match := func(patterns []string, v string) bool {
		for _, p := range patterns {
			if ok, _ := filepath.Match(p, v); ok {
				return true
			}
		}
		return false
	}
	d := app.Spec.Destination
	return match(w.Applications, app.Name) || match(w.Namespaces, d.Namespace) || match(w.Clusters, d.Server) || match(w.Clusters, d.Name)
}

// autoSyncBlocked applies Argo CD's rules for automated syncs: an active deny
// window blocks; if allow windows apply to the app, one must be active.
func autoSyncBlocked(proj *argo.AppProject, app *argo.Application, now time.Time) (bool, string) {
	var allows, activeAllow int
	for _, w := range proj.Spec.SyncWindows {
		if !windowMatches(w, app) {
			continue
		}
		active, err := windowActive(w, now)
		if err != nil {
			continue
		}
		switch w.Kind {
		case "deny":
			if active {
				return true, fmt.Sprintf("deny window %q for %s is active", w.Schedule, w.Duration)
			}
		case "allow":
			allows++
			if active {
				activeAllow++
			}
		}
	}
	if allows > 0 && activeAllow == 0 {
		return true, fmt.Sprintf("%d allow window(s) apply to the app and none is open now", allows)
	}
	return false, ""
}

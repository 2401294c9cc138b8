package blockkit

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// TestLogsAnswerFromRoles: with no log line about the app, the logs answer
// says why from the findings' roles (the catalogue's, set by the engine):
// the logs could not be read (its title), or cycles run and say nothing
// about the app (the last one's evidence).
func TestLogsAnswerFromRoles(t *testing.T) {
	all, err := lab.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*lab.Scenario{}
	for _, sc := range all {
		byName[sc.Name] = sc
	}
	for name, want := range map[string][]string{
		"healthy-logs-and-source-unreadable": {"Image Updater's logs could not be read: cannot read Image Updater's logs from "},
		"healthy-git-writeback":              {"logs only errors and updates per application at info level", "update cycle(s) in the", "• last cycle: `"},
	} {
		t.Run(name, func(t *testing.T) {
			sc, ok := byName[name]
			if !ok {
				t.Fatalf("no built-in scenario %s", name)
			}
			env, err := lab.Start(context.Background(), sc)
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			r := env.Diagnose(context.Background())
			if len(r.UpdaterLog) != 0 {
				t.Fatalf("the scenario now has %d log line(s) about the app: pick another", len(r.UpdaterLog))
			}
			roles := 0
			for _, f := range r.Findings() {
				if f.Role == report.RoleLogsUnread || f.Role == report.RoleLastCycle {
					roles++
				}
			}
			if roles != 1 {
				t.Errorf("%d findings with a log role, want 1", roles)
			}
			msgs := Logs(r)
			if len(msgs) != 1 {
				t.Fatalf("%d messages", len(msgs))
			}
			js, err := json.Marshal(msgs[0])
			if err != nil {
				t.Fatal(err)
			}
			got := string(js)
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("the answer does not say %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestLogsLevelWhole: the logs answer shows each line's level whole,
// padded to the longest level present, so the messages line up.
func TestLogsLevelWhole(t *testing.T) {
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	r := &report.Report{App: report.AppRef{Namespace: "argocd", Name: "web"}, UpdaterLog: []report.LogLine{
		{Time: at, Level: "warning", Message: "registry slow"},
		{Time: at, Level: "error", Message: "could not push"},
		{Time: at, Level: "info", Message: "committed"},
	}}
	got := string(must(json.Marshal(Logs(r))))
	for _, want := range []string{"10:00:00 WARNING registry slow", "10:00:00 ERROR   could not push", "10:00:00 INFO    committed"} {
		if !strings.Contains(got, want) {
			t.Errorf("the logs answer lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "…") {
		t.Errorf("a level or line is clipped:\n%s", got)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

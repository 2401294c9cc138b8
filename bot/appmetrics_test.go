package bot_test

import (
	"context"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/lab/kubefake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/sources/cluster"
)

// scrape is the bot's /metrics as text.
func scrape(b *bot.Bot) string {
	rec := httptest.NewRecorder()
	b.Metrics().Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}

// samples are the lines of the text exposition whose metric name is name (its labels and value).
func samples(text, name string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(l, name); ok && (strings.HasPrefix(rest, "{") || strings.HasPrefix(rest, " ")) {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

var appStateLine = regexp.MustCompile(`^imgupd_app_state\{app="([^"]+)",cluster="([^"]+)",namespace="([^"]+)",state="([^"]+)"\} 1$`)

// appStates are the apps' states imgupd_app_state shows, by namespace/app, with their cluster.
func appStates(t testing.TB, text string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range samples(text, "imgupd_app_state") {
		m := appStateLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("imgupd_app_state sample %q", l)
		}
		key := m[3] + "/" + m[1]
		if _, dup := out[key]; dup {
			t.Errorf("%s has two state series: %v", key, samples(text, "imgupd_app_state"))
		}
		out[key] = m[2] + " " + m[4]
	}
	return out
}

// TestScheduledScanMetrics: a scheduled scan of the lab's fleet exposes each app's state, one
// series per app named with the bot's cluster, since when it is in it, and the counts per
// state and per root cause; an app that breaks has its former state's series removed; an app
// deleted from the cluster leaves the metrics with the next scan; over the cap, the apps that
// need attention keep their series and the others are counted as dropped.
func TestScheduledScanMetrics(t *testing.T) {
	clock := testingclock.NewFakeClock(t0)
	kube := kubefake.NewClientset(stateConfigMap())
	sc := fleetScenario(lab.FleetSpec{Apps: 6, Repos: 2, Broken: 6}, nil)
	h := startScenario(t, sc, schedules(clock, kube), func(c *bot.Config, _ *slacklab.Config) {
		c.Service.Cluster = "prod-eu"
		c.MaxAppSeries = 4
	})
	if got := samples(scrape(h.bot), "imgupd_app_state"); len(got) != 0 {
		t.Fatalf("app states before any scan: %v", got)
	}

	h.tick(clock, 30*time.Second) // 09:00
	text := scrape(h.bot)
	states := appStates(t, text)
	// Six apps, a cap of four: the blocked one first, then the first three healthy ones by name.
	want := map[string]string{
		"argocd/app-0005-r001": "prod-eu blocked",
		"argocd/app-0000-r000": "prod-eu up-to-date", "argocd/app-0001-r001": "prod-eu up-to-date", "argocd/app-0002-r000": "prod-eu up-to-date",
	}
	if !equalMaps(states, want) {
		t.Fatalf("imgupd_app_state after the first scan:\n got %v\nwant %v\n%s", states, want, strings.Join(samples(text, "imgupd_app"), "\n"))
	}
	for _, w := range []string{
		`imgupd_apps{cluster="prod-eu",state="blocked"} 1`,
		`imgupd_apps{cluster="prod-eu",state="up-to-date"} 5`,
		`imgupd_apps_by_cause{cluster="prod-eu",code="LIVE_IMAGE_NOT_LIVE"} 1`,
		`imgupd_app_state_dropped_total{cluster="prod-eu"} 2`,
		`imgupd_scan_duration_seconds_count{cluster="prod-eu",result="ok"} 1`,
	} {
		if !strings.Contains(text, w) {
			t.Errorf("/metrics lacks %s:\n%s", w, strings.Join(append(samples(text, "imgupd_app"), samples(text, "imgupd_summary_last_run_timestamp_seconds")...), "\n"))
		}
	}

	run1 := float64(t0.Add(30 * time.Second).Unix())
	if v := value(text, `imgupd_app_state_since_timestamp_seconds{app="app-0005-r001",cluster="prod-eu",namespace="argocd",state="blocked"}`); v != run1 {
		t.Errorf("app-0005 blocked since %v, want the first run %v", v, run1)
	}
	if v := value(text, `imgupd_summary_last_run_timestamp_seconds{schedule="fleet"}`); v != run1 {
		t.Errorf("last run %v, want %v", v, run1)
	}

	// app-0001 breaks: its up-to-date series goes, its blocked one comes, since this run.
	setLive(t, h.env, "app-0001-r001", true)
	h.tick(clock, 10*time.Minute) // 09:10
	text = scrape(h.bot)
	states = appStates(t, text)
	if states["argocd/app-0001-r001"] != "prod-eu blocked" || len(states) != 4 {
		t.Errorf("after app-0001 broke: %v", states)
	}
	if value(text, `imgupd_app_state_since_timestamp_seconds{app="app-0001-r001",cluster="prod-eu",namespace="argocd",state="blocked"}`) != run1+600 ||
		value(text, `imgupd_app_state_since_timestamp_seconds{app="app-0005-r001",cluster="prod-eu",namespace="argocd",state="blocked"}`) != run1 {
		t.Errorf("since: %v", samples(text, "imgupd_app_state_since_timestamp_seconds"))
	}
	if !strings.Contains(text, `imgupd_apps_by_cause{cluster="prod-eu",code="LIVE_IMAGE_NOT_LIVE"} 2`) {
		t.Errorf("by cause: %v", samples(text, "imgupd_apps_by_cause"))
	}

	// app-0005 leaves the cluster: gone from every series with the next scan.
	r := h.env.Engine().Cluster.(*cluster.Reader)
	if err := r.Dynamic.Resource(appsGVR).Namespace("argocd").Delete(context.Background(), "app-0005-r001", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.tick(clock, 10*time.Minute) // 09:20
	text = scrape(h.bot)
	if strings.Contains(text, "app-0005-r001") {
		t.Errorf("a deleted app is still in the metrics:\n%s", strings.Join(samples(text, "imgupd_app"), "\n"))
	}
	if states = appStates(t, text); len(states) != 4 || states["argocd/app-0001-r001"] != "prod-eu blocked" {
		t.Errorf("after app-0005 left: %v", states)
	}
	for _, w := range []string{`imgupd_apps{cluster="prod-eu",state="up-to-date"} 4`, `imgupd_apps{cluster="prod-eu",state="blocked"} 1`,
		`imgupd_apps_by_cause{cluster="prod-eu",code="LIVE_IMAGE_NOT_LIVE"} 1`, `imgupd_app_state_dropped_total{cluster="prod-eu"} 5`} {
		if !strings.Contains(text, w) {
			t.Errorf("/metrics lacks %s:\n%s", w, strings.Join(samples(text, "imgupd_app"), "\n"))
		}
	}
}

// value is one sample's value (-1 when absent).
func value(text, series string) float64 {
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err == nil {
				return f
			}
		}
	}
	return -1
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

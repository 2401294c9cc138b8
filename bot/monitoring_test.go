package bot_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/lab/kubefake"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/lab"
)

// The chart's alerts and dashboard (deploy/helm/imgupd: templates/prometheusrule.yaml,
// dashboards/imgupd.json, which make manifests copies to deploy/grafana/).
var (
	ruleTemplate  = filepath.Join("..", "deploy", "helm", "imgupd", "templates", "prometheusrule.yaml")
	dashboardJSON = filepath.Join("..", "deploy", "helm", "imgupd", "dashboards", "imgupd.json")
)

// notImgupds are the metrics the queries may use that Prometheus makes, not imgupd: up, one per
// scraped pod.
var notImgupds = map[string]bool{"up": true}

var (
	templateAction = regexp.MustCompile(`\{\{.*?\}\}`)
	promString     = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`")
	labelMatchers  = regexp.MustCompile(`\{[^{}]*\}`)
	rangeSelector  = regexp.MustCompile(`\[[^\]]*\]`)
	grouping       = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	labelValues    = regexp.MustCompile(`label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,\s*[a-zA-Z_][a-zA-Z0-9_]*\s*\)`)
	identifier     = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	promKeywords   = map[string]bool{"and": true, "or": true, "unless": true, "bool": true, "offset": true, "by": true, "without": true,
		"on": true, "ignoring": true, "group_left": true, "group_right": true, "inf": true, "nan": true, "Inf": true, "NaN": true}
)

// promqlMetrics are the metric names a PromQL expression reads. No PromQL parser is in the
// module graph (github.com/prometheus/prometheus is not a dependency), so it is a careful scan:
// strings, label matchers, range selectors and grouping clauses are dropped; what is left are
// functions (an identifier followed by "("), keywords, numbers and metric names.
func promqlMetrics(expr string) []string {
	s := labelValues.ReplaceAllString(expr, "$1") // Grafana's label_values(METRIC, label)
	s = promString.ReplaceAllString(s, `""`)
	s = labelMatchers.ReplaceAllString(s, "")
	s = rangeSelector.ReplaceAllString(s, "")
	s = grouping.ReplaceAllString(s, "")
	var out []string
	for _, loc := range identifier.FindAllStringIndex(s, -1) {
		name := s[loc[0]:loc[1]]
		if loc[0] > 0 && (s[loc[0]-1] >= '0' && s[loc[0]-1] <= '9' || s[loc[0]-1] == '.') {
			continue // 1e+09, 5m
		}
		if strings.HasPrefix(strings.TrimLeft(s[loc[1]:], " \t\n"), "(") || promKeywords[name] {
			continue
		}
		out = append(out, name)
	}
	return out
}

func TestPromqlMetrics(t *testing.T) {
	for expr, want := range map[string]string{
		`(time() - max by (cluster, app) (imgupd_x{job="a",state=~"b|c"})) > 86400`:                           "imgupd_x",
		`absent(up{job="imgupd"} == 1)`:                                                                       "up",
		`sum by (le) (rate(imgupd_y_bucket{job=~"$job"}[$__rate_interval])) or vector(0)`:                     "imgupd_y_bucket",
		"a > b or c unless on(x) group_left d":                                                                "a b c d",
		`label_values(imgupd_apps, cluster)`:                                                                  "imgupd_apps",
		`histogram_quantile(0.95, sum by (le, cluster) (increase(imgupd_s_bucket{cluster=~"$cluster"}[1h])))`: "imgupd_s_bucket",
	} {
		if got := strings.Join(promqlMetrics(expr), " "); got != want {
			t.Errorf("%s: %q, want %q", expr, got, want)
		}
	}
}

// ruleExprs are the expressions of the chart's PrometheusRule template, its template actions
// (the selector, the thresholds) left out.
func ruleExprs(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(ruleTemplate)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		rest, ok := strings.CutPrefix(l, "expr:")
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		if rest == "|-" || rest == "|" {
			indent := len(lines[i+1]) - len(strings.TrimLeft(lines[i+1], " "))
			var block []string
			for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || len(lines[i+1])-len(strings.TrimLeft(lines[i+1], " ")) >= indent) {
				i++
				block = append(block, lines[i])
			}
			rest = strings.Join(block, "\n")
		}
		out = append(out, templateAction.ReplaceAllString(rest, ""))
	}
	return out
}

// dashboardExprs are the dashboard's queries: every panel target's expr and the variables' queries.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(dashboardJSON)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
		Templating struct {
			List []struct {
				Type  string
				Query any
			}
		}
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			out = append(out, tg.Expr)
		}
	}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		if q, ok := v.Query.(map[string]any); ok {
			out = append(out, q["query"].(string))
		}
	}
	return out
}

// TestMonitoringUsesExposedMetrics: every metric the chart's alerts and dashboard query is one a
// running bot exposes on /metrics (or up, Prometheus's own). The bot runs the schedules over a
// lab fleet (an app breaks: an alert; more apps than the cap: dropped series), answers a command
// and meets a rate limit, so that every labelled metric has a series.
func TestMonitoringUsesExposedMetrics(t *testing.T) {
	clock := testingclock.NewFakeClock(t0)
	kube := kubefake.NewClientset(stateConfigMap())
	sc := fleetScenario(lab.FleetSpec{Apps: 4, Repos: 2, Broken: 4}, nil)
	h := startScenario(t, sc, schedules(clock, kube), func(c *bot.Config, _ *slacklab.Config) { c.MaxAppSeries = 2 })
	h.tick(clock, 30*time.Second)
	setLive(t, h.env, "app-0000-r000", true)
	h.tick(clock, 10*time.Minute)
	h.srv.RateLimit("chat.postMessage", 1, time.Second)
	h.send(slacklab.SlashCommand("env-mon", slash(alice, deploys, "diagnose app-0001-r001", h.srv.ResponseURL("mon"))))
	h.waitFor("the command is answered", func() bool { return strings.Contains(scrape(h.bot), `imgupd_commands_total{command="diagnose"`) })

	srv := httptest.NewServer(bot.OpsHandler(h.bot.Health(), h.bot.Metrics()))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	exposed := map[string]bool{}
	for _, l := range strings.Split(string(body), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		exposed[l[:strings.IndexAny(l, "{ ")]] = true
	}

	used := map[string][]string{} // metric → where
	for what, exprs := range map[string][]string{"the PrometheusRule": ruleExprs(t), "the dashboard": dashboardExprs(t)} {
		if len(exprs) < 5 {
			t.Fatalf("%s: only %d expressions found", what, len(exprs))
		}
		for _, e := range exprs {
			names := promqlMetrics(e)
			if len(names) == 0 {
				t.Errorf("%s: no metric in %q", what, e)
			}
			for _, n := range names {
				used[n] = append(used[n], what)
			}
		}
	}
	var names []string
	for n := range used {
		names = append(names, n)
		if !exposed[n] && !notImgupds[n] {
			t.Errorf("%s queries %s, which the bot does not expose", strings.Join(uniq(used[n]), " and "), n)
		}
	}
	sort.Strings(names)
	t.Logf("%d metrics queried: %s", len(names), strings.Join(names, " "))
	for _, must := range []string{"imgupd_app_state_since_timestamp_seconds", "imgupd_apps", "imgupd_apps_by_cause", "imgupd_socket_connected",
		"imgupd_scan_duration_seconds_bucket", "imgupd_slack_api_errors_total", "up"} {
		if used[must] == nil {
			t.Errorf("neither the alerts nor the dashboard query %s", must)
		}
	}
}

func uniq(s []string) []string {
	sort.Strings(s)
	var out []string
	for i, v := range s {
		if i == 0 || s[i-1] != v {
			out = append(out, v)
		}
	}
	return out
}

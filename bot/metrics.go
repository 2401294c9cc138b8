package bot

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/imgupd/imgupd/report"
)

// Metrics are the bot's Prometheus metrics, on a registry of their own (no
// global state: two bots in one process, as in tests, do not collide).
type Metrics struct {
	reg *prometheus.Registry

	commands        *prometheus.CounterVec
	commandDuration *prometheus.HistogramVec
	stageDuration   *prometheus.HistogramVec
	inFlight        prometheus.Gauge
	envelopes       *prometheus.CounterVec
	duplicates      prometheus.Counter
	apiErrors       *prometheus.CounterVec
	rateLimited     *prometheus.CounterVec
	connected       prometheus.Gauge
	connections     prometheus.Counter
	leader          prometheus.Gauge

	summaryRuns        *prometheus.CounterVec
	summaryApps        *prometheus.GaugeVec
	summaryAlerts      *prometheus.CounterVec
	summaryDuration    *prometheus.GaugeVec
	summaryLastSuccess *prometheus.GaugeVec
	summaryStateErrors prometheus.Counter
	summaryLastRun     *prometheus.GaugeVec
	scanDuration       *prometheus.HistogramVec

	appStates *appStates
}

// NewMetrics registers the metrics, with the Go and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		commands: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "imgupd_commands_total",
			Help: "Commands answered, by command and result (a diagnosis's verdict, or denied, not_found, invalid, error…)."},
			[]string{"command", "result"}),
		commandDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "imgupd_command_duration_seconds",
			Help: "Time from the envelope to the last message of the answer.", Buckets: []float64{.1, .25, .5, 1, 2, 5, 10, 20, 30, 60}},
			[]string{"command"}),
		stageDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "imgupd_stage_duration_seconds",
			Help: "Duration of each diagnosis stage that ran.", Buckets: []float64{.01, .05, .1, .25, .5, 1, 2, 5, 10}},
			[]string{"stage"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "imgupd_commands_in_flight", Help: "Commands being carried out."}),
		envelopes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "imgupd_envelopes_total",
			Help: "Socket Mode envelopes received (and acked), by type."}, []string{"type"}),
		duplicates: prometheus.NewCounter(prometheus.CounterOpts{Name: "imgupd_envelopes_duplicate_total",
			Help: "Envelopes dropped as redeliveries of one already handled."}),
		apiErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "imgupd_slack_api_errors_total",
			Help: "Slack Web API calls that failed, by method and error (ratelimited counts each 429)."}, []string{"method", "error"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "imgupd_slack_rate_limited_seconds_total",
			Help: "Seconds spent waiting for Slack's Retry-After, by method."}, []string{"method"}),
		connected: prometheus.NewGauge(prometheus.GaugeOpts{Name: "imgupd_socket_connected",
			Help: "1 while the Socket Mode connection is open."}),
		connections: prometheus.NewCounter(prometheus.CounterOpts{Name: "imgupd_socket_connections_total",
			Help: "Socket Mode connections opened (reconnects included)."}),
		leader: prometheus.NewGauge(prometheus.GaugeOpts{Name: "imgupd_leader",
			Help: "1 while this replica holds the leader Lease (with --leader-elect) and answers Slack."}),
		summaryRuns: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "imgupd_summary_runs_total",
			Help: "Scheduled summary runs, by schedule and result (posted, digest, updated, unchanged, error)."}, []string{"schedule", "result"}),
		summaryApps: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "imgupd_summary_apps",
			Help: "Applications per state in each schedule's last summary."}, []string{"schedule", "state"}),
		summaryAlerts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "imgupd_summary_alerts_total",
			Help: "Alerts posted by the schedules, by schedule and kind (alert, recovery)."}, []string{"schedule", "kind"}),
		summaryDuration: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "imgupd_summary_last_run_duration_seconds",
			Help: "How long each schedule's last run took (scan and Slack writes)."}, []string{"schedule"}),
		summaryLastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "imgupd_summary_last_success_timestamp_seconds",
			Help: "When each schedule last ran without error (Unix time of the run)."}, []string{"schedule"}),
		summaryStateErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "imgupd_summary_state_save_errors_total",
			Help: "Failed writes of the schedules' state (the ConfigMap)."}),
		summaryLastRun: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "imgupd_summary_last_run_timestamp_seconds",
			Help: "When each schedule last ran, with or without error (Unix time of the run): later than its last success means its last run failed."}, []string{"schedule"}),
		scanDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "imgupd_scan_duration_seconds",
			Help:    "Duration of the scheduled summaries' fleet scans (the scan alone, without Slack), by cluster (a schedule over several clusters: one observation per cluster, of its own scan) and result (ok, partial: the deadline ended it, error).",
			Buckets: []float64{.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600}}, []string{"cluster", "result"}),
		appStates: newAppStates(),
	}
	m.reg.MustRegister(m.commands, m.commandDuration, m.stageDuration, m.inFlight, m.envelopes, m.duplicates,
		m.apiErrors, m.rateLimited, m.connected, m.connections, m.leader,
		m.summaryRuns, m.summaryApps, m.summaryAlerts, m.summaryDuration, m.summaryLastSuccess, m.summaryStateErrors,
		m.summaryLastRun, m.scanDuration, m.appStates,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// SetMaxAppSeries bounds how many apps have a series of imgupd_app_state (and of its since
// timestamp); n <= 0 keeps DefaultMaxAppSeries. Set it before the bot runs.
func (m *Metrics) SetMaxAppSeries(n int) {
	if n > 0 {
		m.appStates.max = n
	}
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Registry is the metrics' registry (for tests and embedding).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

func (m *Metrics) observeReport(r *report.Report) {
	if r == nil {
		return
	}
	for _, s := range r.Stages {
		if s.Duration > 0 {
			m.stageDuration.WithLabelValues(string(s.ID)).Observe(s.Duration.Seconds())
		}
	}
}

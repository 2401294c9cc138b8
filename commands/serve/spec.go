// Package serve is `imgupd serve`: the Slack bot (its code is the bot's, wired in cmd/imgupd).
package serve

import "github.com/imgupd/imgupd/commands/command"

// Spec is serve's entry in the command table.
func Spec() command.Spec {
	return command.Spec{
		Name:     "serve",
		Surfaces: command.Terminal,
		Reads:    command.ReadsCluster,
		Short:    "Run the Slack bot (Socket Mode): /imgupd and @imgupd answer in channels and threads",
		Long: `serve connects to Slack over Socket Mode (no ingress needed) and answers /imgupd in channels
and @imgupd in threads with the same diagnosis as "imgupd diagnose", as Block Kit reports.

Tokens come from the environment (IMGUPD_SLACK_BOT_TOKEN, IMGUPD_SLACK_APP_TOKEN) or the
configuration file (slack.bot-token, slack.app-token), never from flags. Who may diagnose what,
from where, is the configuration's access section (see config.example.yaml and docs/slack.md).

/healthz, /readyz (fails while the Slack connection is down or the bot is shutting down) and
/metrics (Prometheus) are served on --listen. Operational logs go to stderr, one JSON audit line
per command to stdout.

The schedules section of the configuration posts fleet summaries in channels and alerts
when an app goes bad or recovers (docs/slack.md); they run in the leader only and keep their
state in the ConfigMap --summaries-configmap in imgupd's namespace.`,
		Example: `  IMGUPD_SLACK_BOT_TOKEN=xoxb-... IMGUPD_SLACK_APP_TOKEN=xapp-... imgupd serve --config imgupd.yaml
  imgupd serve --config imgupd.yaml --lab report-1-image-not-live   # answer from the embedded lab, no cluster`,
	}
}

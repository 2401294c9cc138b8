// Package check is `imgupd config check --config FILE`: a configuration file as `imgupd serve` reads it.
package check

import "github.com/imgupd/imgupd/commands/command"

// Spec is config check's entry in the command table.
func Spec() command.Spec {
	return command.Spec{
		Name:     "config check",
		Args:     "--config FILE",
		Surfaces: command.Terminal,
		Reads:    command.ReadsNothing,
		Short:    "Check a configuration file as imgupd serve reads it, and print what it resolves to",
		Long: `check reads the file given with --config exactly as "imgupd serve --config FILE" does: every
command's section (keys must be its flags, values of their type), the environment's IMGUPD_<FLAG>
and Slack token variables over the file, serve's own checks (cluster name, listen address, log
format and level, --lab), the slack section, the access rules and the schedules, strictly (a
schedule's scope must stay within what the access rules grant everyone in its channel). It prints
what serve would run with (tokens masked), each schedule's next runs and the Slack scopes the
configuration needs, or every problem, each naming its key. Nothing is contacted: not Slack, not
the cluster.

A top-level section no command reads is a problem too (serve would ignore a misspelt one).
Tokens that are not set are not a problem here (in a cluster they come from a Secret); tokens
that are set must have their shape (xoxb-…, xapp-…).

Exit status: 0 serve accepts the configuration, 2 it does not, 78 the file cannot be read.`,
		Example: `  imgupd config check --config imgupd.yaml
  imgupd config check --config imgupd.yaml -o json
  kubectl -n imgupd get configmap imgupd-config -o jsonpath='{.data.imgupd\.yaml}' > imgupd.yaml && imgupd config check --config imgupd.yaml`,
	}
}

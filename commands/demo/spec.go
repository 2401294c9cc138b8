// Package demo is `imgupd demo`: imgupd on the embedded lab, no cluster needed.
package demo

import "github.com/imgupd/imgupd/commands/command"

// Spec is demo's entry in the command table.
func Spec() command.Spec {
	return command.Spec{
		Name:     "demo",
		Surfaces: command.Terminal,
		Reads:    command.ReadsNothing,
		Short:    "Run imgupd on the embedded lab: broken and healthy setups, no cluster needed",
		Long: `demo starts each built-in scenario — a complete Argo CD + Image Updater setup with a real
in-process registry and git server — diagnoses it, and prints one line per scenario: the verdict,
the root cause, and whether it is the one the scenario expects. --scenario shows one full report
(a built-in name or a scenario file, see docs/scenarios.md). --summary shows the built-in scenarios
as one fleet, as "imgupd summary" shows a cluster's (each scenario an app lab/NAME). --where IMAGE
answers "where is my tag?" as "imgupd where" does, on the lab fleet where-web (one repository,
team/web, fed to six apps in two namespaces under two CRs); an IMAGE without a registry host
(team/web:1.2.0) is the lab registry's.

Exit status: 0 every scenario gave its expected verdict, 1 one did not, 2 a scenario could not run.`,
		Example: `  imgupd demo
  imgupd demo --scenario article-3-registry-credentials
  imgupd demo --scenario ./my-setup.yaml -o markdown
  imgupd demo --scenario report-1-image-not-live -o blockkit
  imgupd demo --summary -o markdown
  imgupd demo --where team/web:1.2.0
  imgupd demo -o json`,
		Progress: command.TermProgress{Label: "running the lab", Unit: "scenarios", Waiting: "starting"},
		Term:     Term(Run),
	}
}

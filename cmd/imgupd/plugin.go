package main

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// kubectlPlugin is the file name kubectl looks for on PATH to run `kubectl imgupd …`.
const kubectlPlugin = "kubectl-imgupd"

// commandName is how the binary was started: "kubectl imgupd" when installed as the kubectl plugin
// (kubectl runs kubectl-imgupd with the arguments after "imgupd"), else "imgupd".
func commandName(argv0 string) string {
	base := strings.TrimSuffix(filepath.Base(argv0), ".exe")
	if base == kubectlPlugin {
		return "kubectl imgupd"
	}
	return "imgupd"
}

// commandWord finds "imgupd" where an example starts a command: at a line's start or after
// spaces or an environment assignment, followed by a space.
var commandWord = regexp.MustCompile(`(^|[\s])imgupd `)

// setDisplayName makes usage lines, help and examples name the command as it was started. kubectl
// passes no flags to a plugin: --context, -n/--namespace and --kubeconfig are imgupd's own, with
// kubectl's meaning, and KUBECONFIG is read the same way.
func setDisplayName(root *cobra.Command, name string) {
	if name == "imgupd" {
		return
	}
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[cobra.CommandDisplayNameAnnotation] = name
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.Example = commandWord.ReplaceAllString(c.Example, "${1}"+name+" ")
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

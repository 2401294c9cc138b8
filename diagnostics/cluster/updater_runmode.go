package cluster

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// DryRun is Image Updater's --dry-run flag as its command line sets it.
//
// Upstream binds it to no environment variable: cmd/run.go declares it
// with BoolVar(&cfg.DryRun, "dry-run", false, ...) in v0.x (runCmd) and in
// v1.x (controllerCmd), with no env.GetBoolVal default, so only the
// container's command and args set it. With it on, UpdateApplication
// (pkg/argocd/update.go) picks the tags, logs "Successfully updated image
// ... (dry run=true)" and "Dry run - not committing %d changes to
// application", and never commits; the cycle's images_updated counter and,
// in v1.x, the CR's status.recentUpdates (internal/controller/status.go,
// buildRecentUpdates over the cycle's changes) still count the changes.
// The start-up warm-up runs in dry run too (internal/controller/reconcile.go:
// dryRun = true when warmUp) whatever the flag says.
type DryRun struct {
	// On: the controller runs in dry run (the last --dry-run word wins, as
	// pflag sets the flag once per word).
	On bool
	// Words are every word of the container's command and args that sets
	// the flag (--dry-run, --dry-run=VALUE), in order.
	Words []ArgWord
}

// ArgWord is one word of a container's command or args.
type ArgWord struct {
	// Field is "command" or "args"; Index the word's index in that list.
	Field string
	Index int
	// Raw is the word as the Deployment holds it; Value what the kubelet
	// passes ($(VAR) expanded).
	Raw, Value string
}

// Where is the word's place for people: "args[2]".
func (w ArgWord) Where() string { return w.Field + "[" + strconv.Itoa(w.Index) + "]" }

// boolFlags are upstream's boolean flags (cmd/run.go, v0.x and v1.x): they
// take no separate value word, so the word after them is a flag or an
// argument of its own.
var boolFlags = map[string]bool{
	"argocd-grpc-web": true, "argocd-insecure": true, "argocd-plaintext": true, "disable-kube-events": true,
	"disable-kubernetes": true, "disable-tls": true, "dry-run": true, "enable-http2": true, "enable-webhook": true,
	"git-commit-sign-off": true, "leader-election": true, "metrics-secure": true, "once": true, "warmup-cache": true,
	"webhook-require-secret": true, "enable-cr-metrics": true,
}

// dryRunOf reads --dry-run from the container's command and args, as pflag
// parses the argv the kubelet builds (command then args, $(VAR) expanded):
// "--dry-run" alone sets it to true, "--dry-run=V" to strconv.ParseBool(V)
// (a value that does not parse stops the controller at start, which the
// Deployment's readiness shows), a word that is the value of the flag
// before it is not a flag, and nothing after a bare "--" is one.
func dryRunOf(c *corev1.Container, env []EnvVar) DryRun {
	type word struct {
		field string
		index int
		raw   string
	}
	var words []word
	for i, a := range c.Command {
		words = append(words, word{"command", i, a})
	}
	for i, a := range c.Args {
		words = append(words, word{"args", i, a})
	}
	raws := make([]string, len(words))
	for i, w := range words {
		raws[i] = w.raw
	}
	vals := expandArgs(raws, env)
	var d DryRun
	valueNext := false
	for i, w := range words {
		v := vals[i]
		if valueNext {
			valueNext = false
			continue
		}
		if v == "--" {
			break
		}
		if !strings.HasPrefix(v, "--") {
			continue
		}
		name, val, hasVal := strings.Cut(v[2:], "=")
		if name != "dry-run" {
			valueNext = !hasVal && !boolFlags[name]
			continue
		}
		on := true
		if hasVal {
			b, err := strconv.ParseBool(val)
			on = err == nil && b
		}
		d.On = on
		d.Words = append(d.Words, ArgWord{Field: w.field, Index: w.index, Raw: w.raw, Value: v})
	}
	return d
}

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

// flagUse is one flag on the command line: its name, its value (as the
// kubelet passes it) and the words that hold them.
type flagUse struct {
	name, value string
	hasValue    bool
	words       []ArgWord
}

// flagsOf reads the container's command and args as pflag parses the argv
// the kubelet builds (command then args, $(VAR) expanded): "--name=V", or
// "--name V" for a flag that takes a value (every flag but upstream's
// booleans), nothing after a bare "--".
func flagsOf(c *corev1.Container, env []EnvVar) []flagUse {
	var words []ArgWord
	for i, a := range c.Command {
		words = append(words, ArgWord{Field: "command", Index: i, Raw: a})
	}
	for i, a := range c.Args {
		words = append(words, ArgWord{Field: "args", Index: i, Raw: a})
	}
	raws := make([]string, len(words))
	for i, w := range words {
		raws[i] = w.Raw
	}
	for i, v := range expandArgs(raws, env) {
		words[i].Value = v
	}
	var out []flagUse
	for i := 0; i < len(words); i++ {
		v := words[i].Value
		if v == "--" {
			break
		}
		if !strings.HasPrefix(v, "--") {
			continue
		}
		name, val, hasVal := strings.Cut(v[2:], "=")
		u := flagUse{name: name, value: val, hasValue: hasVal, words: []ArgWord{words[i]}}
		if !hasVal && !boolFlags[name] && i+1 < len(words) {
			i++
			u.value, u.hasValue = words[i].Value, true
			u.words = append(u.words, words[i])
		}
		out = append(out, u)
	}
	return out
}

// dryRunOf reads --dry-run: "--dry-run" alone sets it to true,
// "--dry-run=V" to strconv.ParseBool(V) (a value that does not parse stops
// the controller at start, which the Deployment's readiness shows).
func dryRunOf(flags []flagUse) DryRun {
	var d DryRun
	for _, f := range flags {
		if f.name != "dry-run" {
			continue
		}
		on := true
		if f.hasValue {
			b, err := strconv.ParseBool(f.value)
			on = err == nil && b
		}
		d.On = on
		d.Words = append(d.Words, f.words...)
	}
	return d
}

// AppFilter is v0.x's narrowing of the Applications it processes, from its
// command line (cmd/run.go of v0.12 to v0.18: --match-application-name, a
// StringSlice of filepath.Match patterns, each use adding to the list;
// --match-application-label, a label selector passed to the Applications
// list). v1.x has neither flag (its CRs select the Applications).
type AppFilter struct {
	// NamePatterns are the patterns; empty: every name.
	NamePatterns []string
	// NameWords are the words that set them, LabelWords the last word (or
	// two) that set the selector.
	NameWords  []ArgWord
	Label      string
	LabelWords []ArgWord
}

// appFilterOf reads v0.x's --match-application-name and
// --match-application-label.
func appFilterOf(flags []flagUse) AppFilter {
	var a AppFilter
	for _, f := range flags {
		switch f.name {
		case "match-application-name":
			for _, p := range strings.Split(f.value, ",") {
				a.NamePatterns = append(a.NamePatterns, strings.TrimSpace(p))
			}
			a.NameWords = append(a.NameWords, f.words...)
		case "match-application-label":
			a.Label, a.LabelWords = f.value, f.words
		}
	}
	return a
}

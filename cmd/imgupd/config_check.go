package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/clusters"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/lab"
)

// newConfigCmd is `imgupd config`, the configuration file's commands.
func newConfigCmd(v *viper.Viper, io streams, lookupEnv func(string) (string, bool)) *cobra.Command {
	cmd := fromTable("config", &cobra.Command{
		Args: cobra.NoArgs,
	})
	cmd.AddCommand(newConfigCheckCmd(v, io, lookupEnv))
	return cmd
}

func newConfigCheckCmd(v *viper.Viper, io streams, lookupEnv func(string) (string, bool)) *cobra.Command {
	var output string
	cmd := fromTable("config check", &cobra.Command{
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			out := formatsOf(answerConfig)
			if err := out.check(output); err != nil {
				return usageError(err)
			}
			path, _ := cmd.Flags().GetString("config")
			if path == "" {
				return usageError(errors.New("config check: give --config FILE, the file imgupd serve --config reads"))
			}
			c := checkConfig(v, io, lookupEnv)
			c.File = path
			if err := out.write(io, output, c); err != nil {
				return &exitError{code: exitNoDecide, err: err}
			}
			if len(c.Problems) > 0 {
				return &exitError{code: exitNoDecide, err: fmt.Errorf("config %s: %d problem(s); imgupd serve would not start", path, len(c.Problems))}
			}
			return nil
		},
	})
	formatsOf(answerConfig).flag(cmd, &output, "output format: %s")
	return cmd
}

// checkedConfig is what `config check` found: what serve resolves, or the problems.
type checkedConfig struct {
	File string `json:"file"`
	OK   bool   `json:"ok"`
	// Serve is every flag of serve with its value and where it came from.
	Serve []setting `json:"serve"`
	// Slack are the two tokens, masked.
	Slack []tokenSetting `json:"slack"`
	// Access is the policy as serve reads it (nil when it does not parse).
	Access *commands.Policy `json:"access"`
	// Schedules are the scheduled summaries with their next runs.
	Schedules []checkedSchedule `json:"schedules,omitempty"`
	// Clusters are the clusters: section's clusters, each tried (reachable, or why not: not a
	// problem, serve starts and answers for the others).
	Clusters []checkedCluster `json:"clusters,omitempty"`
	// Scopes are the bot token scopes this configuration needs.
	Scopes []string `json:"scopes,omitempty"`
	// Sections are the other commands' sections found in the file, each with the keys set.
	Sections map[string][]setting `json:"sections,omitempty"`
	Problems []problem            `json:"problems,omitempty"`
}

func (*checkedConfig) AnswerKind() answerKind { return answerConfig }

// setting is one resolved flag: its value and its source ("default", "file serve.timeout",
// "env IMGUPD_TIMEOUT").
type setting struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// tokenSetting is a Slack token: never its value (bot.Secret prints "[redacted]").
type tokenSetting struct {
	Key    string     `json:"key"`
	Value  bot.Secret `json:"value,omitempty"`
	Prefix string     `json:"prefix,omitempty"`
	Source string     `json:"source"`
}

// problem is one reason serve would not start, with the key (or variable) at fault.
type problem struct {
	Key     string `json:"key"`
	Message string `json:"message"`
}

// The top-level sections that are not a command's flags: serve reads them.
var nonFlagSections = []string{"slack", "access", "schedules", "clusters"}

// checkConfig checks the configuration v holds (the root command has read the file into it) as
// serve reads it, and every other command's section as that command reads it.
func checkConfig(v *viper.Viper, io streams, lookupEnv func(string) (string, bool)) *checkedConfig {
	c := &checkedConfig{Sections: map[string][]setting{}}
	bad := func(key, format string, a ...any) {
		// Once: IMGUPD_TIMEOUT=abc is wrong for every command with a --timeout.
		if p := (problem{key, fmt.Sprintf(format, a...)}); !slices.Contains(c.Problems, p) {
			c.Problems = append(c.Problems, p)
		}
	}

	// The commands as the binary builds them, to read each section with that command's flags.
	tree := newRootCmd(v, io, lookupEnv)
	commandsByName := map[string]*cobra.Command{}
	var sections []string
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		for _, sub := range cmd.Commands() {
			if sub.HasAvailableLocalFlags() && sub.Runnable() {
				commandsByName[sub.Name()] = sub
				sections = append(sections, sub.Name())
			}
			walk(sub)
		}
	}
	walk(tree)
	known := append(append([]string{}, sections...), nonFlagSections...)
	for _, key := range sortedKeys(v.AllSettings()) {
		if !slices.Contains(known, key) {
			msg := "no imgupd command reads this section"
			if near := nearest(key, known); near != "" {
				msg += "; did you mean " + near + "?"
			}
			bad(key, "%s", msg)
		}
	}

	for _, name := range sections {
		cmd := commandsByName[name]
		if name != "serve" && !v.IsSet(name) {
			continue
		}
		if err := checkConfigKeys(cmd, v); err != nil {
			for _, e := range splitJoined(err) {
				// "serve.listne is not a setting of "serve"; did you mean serve.listen?"
				key, msg, _ := strings.Cut(e.Error(), " ")
				bad(key, "%s", msg)
			}
		}
		if err := bindConfig(cmd, v, lookupEnv); err != nil {
			for _, e := range splitJoined(errors.Unwrap(err)) {
				// "config serve.timeout: invalid argument …" or "IMGUPD_TIMEOUT: invalid argument …"
				key, msg, _ := strings.Cut(strings.TrimPrefix(e.Error(), "config "), ": ")
				bad(key, "%s", msg)
			}
		}
		settings := resolvedFlags(cmd, v, lookupEnv)
		if name == "serve" {
			c.Serve = settings
			checkServeFlags(cmd, settings, bad)
			continue
		}
		var set []setting
		for _, s := range settings {
			if s.Source != "default" {
				set = append(set, s)
			}
		}
		c.Sections[name] = set
	}

	c.Slack = checkTokens(v, lookupEnv, bad)
	c.Access = checkAccess(v, bad)
	specs, problems := readClusters(v)
	for _, p := range problems {
		bad(p.Key, "%s", p.Message)
	}
	if c.Access != nil && len(problems) == 0 {
		names := clusters.Names(specs)
		if cl := v.GetString("serve.cluster"); len(names) == 0 && cl != "" {
			names = []string{cl}
		}
		if err := c.Access.CheckClusters(names); err != nil {
			for _, e := range splitJoined(err) {
				bad("access", "%s", strings.TrimPrefix(e.Error(), "access "))
			}
		}
	}
	c.Clusters = tryClusters(specs, lookupEnv)
	schedules, problems := readSchedules(v, c.Access)
	for _, p := range problems {
		bad(p.Key, "%s", p.Message)
	}
	for _, p := range scheduleClusterProblems(schedules, clusters.Names(specs)) {
		bad(p.Key, "%s", p.Message)
	}
	c.Schedules = describeSchedules(schedules, time.Now())
	if c.Access != nil {
		c.Scopes = bot.RequiredScopes(bot.Config{Service: &commands.Service{Policy: c.Access}})
	}
	c.OK = len(c.Problems) == 0
	return c
}

// resolvedFlags is every flag of cmd after bindConfig, with where its value came from (the
// command line does not count here: config check has none of serve's flags).
func resolvedFlags(cmd *cobra.Command, v *viper.Viper, lookupEnv func(string) (string, bool)) []setting {
	var out []setting
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "config" { // the root's, merged in: the file itself
			return
		}
		source := "default"
		env := "IMGUPD_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if _, ok := lookupEnv(env); ok {
			source = "env " + env
		} else if v.IsSet(cmd.Name() + "." + f.Name) {
			source = "file " + cmd.Name() + "." + f.Name
		}
		value := f.Value.String()
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			value = strings.Join(sv.GetSlice(), ",")
		}
		out = append(out, setting{Key: f.Name, Value: value, Source: source})
	})
	return out
}

// checkServeFlags makes serve's own checks of its flags, before it contacts anything.
func checkServeFlags(cmd *cobra.Command, settings []setting, bad func(key, format string, a ...any)) {
	where := map[string]string{}
	for _, s := range settings {
		where[s.Key] = keyOf("serve", s)
	}
	get := func(name string) string { return cmd.Flags().Lookup(name).Value.String() }
	if cl := get("cluster"); cl != "" && !commands.ValidClusterName(cl) {
		bad(where["cluster"], "%q: use lower-case letters, digits, - and . (commands name it with --cluster)", cl)
	}
	noEnv := func(string) (string, bool) { return "", false }
	if _, err := newLogger(io.Discard, get("log-format"), "info", noEnv); err != nil {
		bad(where["log-format"], "%v", err)
	}
	if _, err := newLogger(io.Discard, "text", get("log-level"), noEnv); err != nil {
		bad(where["log-level"], "%v", err)
	}
	if err := checkListen(get("listen")); err != nil {
		bad(where["listen"], "%v", err)
	}
	if n, _ := strconv.Atoi(get("max-concurrent")); n <= 0 {
		bad(where["max-concurrent"], "%d: want at least 1", n)
	}
	if n, _ := strconv.Atoi(get("max-concurrent-per-user")); n <= 0 {
		bad(where["max-concurrent-per-user"], "%d: want at least 1 (one person's diagnoses and summaries at once)", n)
	}
	if kc := get("kubeconfig"); kc != "" {
		if _, err := os.Stat(kc); err != nil {
			bad(where["kubeconfig"], "%v", err)
		}
	}
	if forges, err := cmd.Flags().GetStringArray("forge"); err == nil {
		if _, err := parseForges(forges); err != nil {
			bad(where["forge"], "%v", err)
		}
	}
	if name := get("lab"); name != "" {
		if _, ok := lab.Builtin(name); !ok {
			if _, err := lab.LoadFile(name); err != nil {
				bad(where["lab"], "%s: neither a built-in scenario (imgupd demo lists them) nor a readable scenario file: %v", name, err)
			}
		}
	}
}

// keyOf names where a setting came from, for a problem: the variable, else the file's key.
func keyOf(section string, s setting) string {
	if env, ok := strings.CutPrefix(s.Source, "env "); ok {
		return env
	}
	return section + "." + s.Key
}

// checkListen checks an address as net.Listen("tcp", …) reads it, without listening.
func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q: want host:port or :port: %w", addr, err)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("%q: port %q: %w", addr, port, err)
	}
	return nil
}

// checkTokens reads the Slack tokens as serve does (environment over the file; the slack section
// has only bot-token and app-token) and checks their shape as the bot does before it sends them.
// A token that is not set is not a problem: in a cluster it comes from a Secret.
func checkTokens(v *viper.Viper, lookupEnv func(string) (string, bool), bad func(key, format string, a ...any)) []tokenSetting {
	if slackCfg, ok := v.Get("slack").(map[string]any); ok {
		for _, k := range sortedKeys(slackCfg) {
			if k != "bot-token" && k != "app-token" {
				msg := "unknown key (slack.bot-token and slack.app-token are the only ones)"
				if near := nearest(k, []string{"bot-token", "app-token"}); near != "" {
					msg += "; did you mean slack." + near + "?"
				}
				bad("slack."+k, "%s", msg)
			}
		}
	}
	read := func(env, key, prefix string) tokenSetting {
		t := tokenSetting{Key: key, Source: "not set: imgupd serve needs " + env + " (or " + key + ")"}
		val := secretSetting(v, lookupEnv, env, key)
		if s, ok := lookupEnv(env); ok && strings.TrimSpace(s) != "" {
			t.Source = "env " + env
		} else if val != "" {
			t.Source = "file " + key
		}
		if val == "" {
			return t
		}
		t.Value = bot.Secret(val)
		if strings.HasPrefix(val, prefix) {
			t.Prefix = prefix
		}
		return t
	}
	botTok := read("IMGUPD_SLACK_BOT_TOKEN", "slack.bot-token", "xoxb-")
	appTok := read("IMGUPD_SLACK_APP_TOKEN", "slack.app-token", "xapp-")
	at := func(t tokenSetting) string { return strings.TrimPrefix(strings.TrimPrefix(t.Source, "env "), "file ") }
	b, a := botTok.Value.Reveal(), appTok.Value.Reveal()
	switch {
	case strings.HasPrefix(b, "xapp-") && strings.HasPrefix(a, "xoxb-"):
		bad(at(botTok), "the bot token and the app-level token are swapped (%s holds the xapp- token)", at(botTok))
	default:
		if b != "" && !strings.HasPrefix(b, "xoxb-") {
			bad(at(botTok), "does not start with xoxb-: use the Bot User OAuth Token (OAuth & Permissions), not a user (xoxp-) or app-level (xapp-) token")
		}
		if a != "" && !strings.HasPrefix(a, "xapp-") {
			bad(at(appTok), "does not start with xapp-: create an app-level token with connections:write under Basic Information → App-Level Tokens")
		}
	}
	return []tokenSetting{botTok, appTok}
}

// checkAccess reads the access section: first key by key, so that each problem names its key
// (access.rules[1].namespace: … did you mean namespaces?), then with serve's own loadPolicy.
func checkAccess(v *viper.Viper, bad func(key, format string, a ...any)) *commands.Policy {
	raw, _ := v.Get("access").(map[string]any)
	policyKeys := mapstructureNames(reflect.TypeOf(commands.Policy{}))
	ruleKeys := mapstructureNames(reflect.TypeOf(commands.Rule{}))
	var problems []problem
	add := func(key, format string, a ...any) {
		problems = append(problems, problem{key, fmt.Sprintf(format, a...)})
	}
	for _, k := range sortedKeys(raw) {
		if !containsFold(policyKeys, k) {
			add("access."+k, "not a key of access%s", didYouMean(k, policyKeys))
		}
	}
	rules, _ := raw["rules"].([]any)
	for i, r := range rules {
		where := fmt.Sprintf("access.rules[%d]", i)
		m, ok := r.(map[string]any)
		if !ok {
			add(where, "a rule is a map of %s", strings.Join(ruleKeys, ", "))
			continue
		}
		ruleOK := true
		for _, k := range sortedKeys(m) {
			if !containsFold(ruleKeys, k) {
				add(where+"."+k, "not a key of an access rule%s", didYouMean(k, ruleKeys))
				ruleOK = false
			}
		}
		if !ruleOK {
			continue
		}
		var rule commands.Rule
		if err := mapstructure.Decode(m, &rule); err != nil {
			add(where, "%s", oneLine(err.Error()))
			continue
		}
		one := commands.Policy{Rules: []commands.Rule{rule}}
		if err := one.Validate(); err != nil {
			for _, e := range splitJoined(err) {
				add(where, "%s", strings.TrimPrefix(e.Error(), "access "))
			}
		}
	}
	for _, p := range problems {
		bad(p.Key, "%s", p.Message)
	}
	policy, err := loadPolicy(v)
	if err != nil {
		if len(problems) == 0 { // else the same mistakes, said again less precisely
			msg := oneLine(strings.TrimPrefix(err.Error(), "config "))
			key := "access"
			if first, rest, ok := strings.Cut(msg, " "); ok && strings.HasPrefix(first, "access.") {
				key, msg = first, rest // "access.rules is empty: …"
			}
			bad(key, "%s", msg)
		}
		return nil
	}
	return policy
}

func didYouMean(k string, names []string) string {
	lower := make([]string, len(names))
	for i, n := range names {
		lower[i] = strings.ToLower(n)
	}
	if near := nearest(strings.ToLower(k), lower); near != "" {
		for i := range lower {
			if lower[i] == near {
				return "; did you mean " + names[i] + "?"
			}
		}
	}
	return " (" + strings.Join(names, ", ") + ")"
}

// mapstructureNames are the keys a struct decodes, from its mapstructure tags.
func mapstructureNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("mapstructure"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// splitJoined undoes errors.Join.
func splitJoined(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, splitJoined(e)...)
		}
		return out
	}
	return []error{err}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(x string) bool { return strings.EqualFold(x, s) })
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"reflect"
	"slices"
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
	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/lab"
)

// configFile is the configuration file as config check reads it (command.ConfigFile): v holds
// the file (the root command has read it, as serve's does), each command's section read with
// that command's flags as the binary builds them.
type configFile struct {
	v         *viper.Viper
	io        streams
	lookupEnv func(string) (string, bool)
}

// The binary's names of config check's values (commands/command).
type (
	setting      = command.ConfigSetting
	tokenSetting = command.ConfigToken
	problem      = command.ConfigProblem
)

// The top-level sections that are not a command's flags: serve reads them.
var nonFlagSections = []string{"slack", "access", "schedules", "clusters"}

// problems collects problems in the order found.
type problemList []problem

func (ps *problemList) bad(key, format string, a ...any) {
	*ps = append(*ps, problem{Key: key, Message: fmt.Sprintf(format, a...)})
}

// Sections reads every command's section as that command reads it: a section no command reads,
// a key that is not its command's flag, a value not of its flag's type are problems; serve's
// flags are all resolved, the others' only those set.
func (f *configFile) Sections(context.Context) command.ConfigSections {
	v, lookupEnv := f.v, f.lookupEnv
	out := command.ConfigSections{Others: map[string][]setting{}}
	var ps problemList

	// The commands as the binary builds them, to read each section with that command's flags.
	tree := newRootCmd(v, f.io, lookupEnv)
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
	for _, key := range slices.Sorted(maps.Keys(v.AllSettings())) {
		if !slices.Contains(known, key) {
			msg := "no imgupd command reads this section"
			if near := nearest(key, known); near != "" {
				msg += "; did you mean " + near + "?"
			}
			ps.bad(key, "%s", msg)
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
				ps.bad(key, "%s", msg)
			}
		}
		if err := bindConfig(cmd, v, lookupEnv); err != nil {
			for _, e := range splitJoined(errors.Unwrap(err)) {
				// "config serve.timeout: invalid argument …" or "IMGUPD_TIMEOUT: invalid argument …"
				key, msg, _ := strings.Cut(strings.TrimPrefix(e.Error(), "config "), ": ")
				ps.bad(key, "%s", msg)
			}
		}
		settings := resolvedFlags(cmd, v, lookupEnv)
		if name == "serve" {
			out.Serve = settings
			checkServeFlags(cmd, settings, ps.bad)
			continue
		}
		var set []setting
		for _, s := range settings {
			if s.Source != "default" {
				set = append(set, s)
			}
		}
		out.Others[name] = set
	}
	out.Problems = ps
	return out
}

// Serve reads what serve reads besides its flags, as serve reads it: the Slack tokens, the
// access rules, the clusters: section (the rules' clusters must be configured ones) and the
// schedules (within the rules, on configured clusters), with their next runs after now.
func (f *configFile) Serve(_ context.Context, now time.Time) command.ConfigServe {
	v, lookupEnv := f.v, f.lookupEnv
	var out command.ConfigServe
	var ps problemList
	out.Slack = checkTokens(v, lookupEnv, ps.bad)
	policy := checkAccess(v, ps.bad)
	specs, cproblems := readClusters(v)
	ps = append(ps, cproblems...)
	if policy != nil && len(cproblems) == 0 {
		names := clusters.Names(specs)
		if cl := v.GetString("serve.cluster"); len(names) == 0 && cl != "" {
			names = []string{cl}
		}
		if err := policy.CheckClusters(names); err != nil {
			for _, e := range splitJoined(err) {
				ps.bad("access", "%s", strings.TrimPrefix(e.Error(), "access "))
			}
		}
	}
	schedules, sproblems := readSchedules(v, policy)
	ps = append(ps, sproblems...)
	ps = append(ps, scheduleClusterProblems(schedules, clusters.Names(specs))...)
	for _, s := range describeSchedules(schedules, now) {
		b, err := json.Marshal(s)
		if err != nil {
			ps.bad("schedules", "%v", err)
			continue
		}
		out.Schedules = append(out.Schedules, command.ConfigSchedule{Name: s.Name, Says: describeSchedule(s), JSON: b})
	}
	if policy != nil {
		b, err := json.Marshal(policy)
		if err != nil {
			ps.bad("access", "%v", err)
		} else {
			out.Access = &command.ConfigAccess{AllowDMs: policy.AllowDMs, JSON: b}
			for _, r := range policy.Rules {
				out.Access.Rules = append(out.Access.Rules, command.ConfigRule{Name: r.Name, Says: describeRule(r)})
			}
		}
		out.Scopes = bot.RequiredScopes(bot.Config{Service: &commands.Service{Policy: policy}})
	}
	out.Problems = ps
	return out
}

// TryClusters tries each cluster of the clusters: section (tryClusters); none when it does not
// parse.
func (f *configFile) TryClusters(ctx context.Context) []command.ConfigCluster {
	specs, _ := readClusters(f.v)
	return tryClusters(ctx, specs, f.lookupEnv)
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
		for _, k := range slices.Sorted(maps.Keys(slackCfg)) {
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
		problems = append(problems, problem{Key: key, Message: fmt.Sprintf(format, a...)})
	}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if !textutil.ContainsFold(policyKeys, k) {
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
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !textutil.ContainsFold(ruleKeys, k) {
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

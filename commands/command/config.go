package command

import (
	"context"
	"encoding/json"
	"time"

	"github.com/imgupd/imgupd/internal/secret"
)

// ConfigFile is the configuration file as the binary reads it, for config check: cmd/imgupd
// provides it (the file read with viper as serve reads it, each command's section with that
// command's flags, serve's readers of its slack, access, clusters: and schedules sections, and
// each cluster tried over the network), so that config check's folder reads no file, imports
// neither the bot nor the chat's policy, and builds no client.
type ConfigFile interface {
	// Sections are the commands' sections as each command reads them (the file's keys, its
	// flags' types, the environment's IMGUPD_<FLAG> over the file): every flag of serve with its
	// value and source, the keys set in each other command's section, and the problems (a
	// section no command reads, a key that is not a flag, a value not of its type, serve's own
	// checks of its flags), in the order found.
	Sections(ctx context.Context) ConfigSections
	// Serve is what serve reads besides its flags, as it reads it: the Slack tokens, the access
	// rules, the clusters: section and the schedules (with their runs after now), and the
	// problems, in the order found.
	Serve(ctx context.Context, now time.Time) ConfigServe
	// TryClusters asks each cluster of the clusters: section, in parallel and within a bound of
	// its own, whether imgupd may list Applications there (none: no clusters: section, or one
	// that does not parse).
	TryClusters(ctx context.Context) []ConfigCluster
}

// ConfigSections are the commands' sections of a configuration file (ConfigFile.Sections).
type ConfigSections struct {
	// Serve is every flag of serve, resolved.
	Serve []ConfigSetting
	// Others are the keys set in each other command's section that the file has.
	Others   map[string][]ConfigSetting
	Problems []ConfigProblem
}

// ConfigServe is what serve reads besides its flags (ConfigFile.Serve).
type ConfigServe struct {
	Slack []ConfigToken
	// Access is the access policy as serve reads it; nil when it does not parse.
	Access *ConfigAccess
	// Schedules are the scheduled summaries that parse, with their next runs.
	Schedules []ConfigSchedule
	// Scopes are the bot token scopes the configuration needs (none when access does not parse).
	Scopes   []string
	Problems []ConfigProblem
}

// ConfigSetting is one resolved flag: its value and where it came from ("default", "file
// serve.timeout", "env IMGUPD_TIMEOUT").
type ConfigSetting struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// ConfigToken is a Slack token: never its value (a secret, masked under every verb).
type ConfigToken struct {
	Key    string                         `json:"key"`
	Value  secret.Secret[secret.Redacted] `json:"value,omitempty"`
	Prefix string                         `json:"prefix,omitempty"`
	Source string                         `json:"source"`
}

// ConfigProblem is one reason serve would not start, with the key (or variable) at fault.
type ConfigProblem struct {
	Key     string `json:"key"`
	Message string `json:"message"`
}

// ConfigAccess is the access policy: its rules, each in words, and, in JSON, the policy as
// serve decodes it.
type ConfigAccess struct {
	AllowDMs bool
	Rules    []ConfigRule
	// JSON is the policy's JSON (the chat's policy type's own).
	JSON json.RawMessage
}

// MarshalJSON is the policy's own JSON.
func (a ConfigAccess) MarshalJSON() ([]byte, error) { return a.JSON, nil }

// ConfigRule is an access rule: its name ("" for none) and who it admits, where, and what it
// grants, in words.
type ConfigRule struct{ Name, Says string }

// ConfigSchedule is a scheduled summary: its name, when it runs, where, over what and how, in
// words, and, in JSON, the schedule as serve decodes it with its next runs.
type ConfigSchedule struct {
	Name, Says string
	JSON       json.RawMessage
}

// MarshalJSON is the schedule's own JSON.
func (s ConfigSchedule) MarshalJSON() ([]byte, error) { return s.JSON, nil }

// ConfigCluster is a cluster of the clusters: section as config check tried it: how it is
// reached, and whether it is (why not: not a problem, serve starts and answers for the others).
type ConfigCluster struct {
	Name      string `json:"name"`
	Way       string `json:"way"`
	Reachable bool   `json:"reachable"`
	Reason    string `json:"reason,omitempty"`
}

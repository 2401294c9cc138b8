// Package check is `imgupd config check --config FILE`: a configuration file as `imgupd serve` reads it.
package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/internal/textutil"
)

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
		Term: Term(command.Typed(Run)),
	}
}

// Options are config check's: the file (the root's --config, which every command reads too).
type Options struct {
	// File is the configuration file, as --config names it ("": none given, a usage error).
	File string
}

// Flags defines config check's flags into o: none but the root's --config (read once parsed,
// args) and -o.
func Flags(*pflag.FlagSet, *Options) {}

// args puts what only the parsed flags say into o: the root's --config.
func args(fs *pflag.FlagSet, o *Options, _ []string) {
	o.File, _ = fs.GetString("config")
}

// Term is how the terminal runs config check with run (command.Typed(Run), or a test's).
func Term(run func(context.Context, Options, command.IO) (command.Answer, error)) *command.Term {
	return command.TermOf(command.AnswerConfig, 0, 0, Flags, args, run)
}

// Answer is what config check found: what serve resolves to, or the problems, and each cluster
// of the clusters: section tried.
type Answer struct {
	File string `json:"file"`
	OK   bool   `json:"ok"`
	// Serve is every flag of serve with its value and where it came from.
	Serve []Setting `json:"serve"`
	// Slack are the two tokens, masked.
	Slack []Token `json:"slack"`
	// Access is the policy as serve reads it (nil when it does not parse).
	Access *command.ConfigAccess `json:"access"`
	// Schedules are the scheduled summaries with their next runs.
	Schedules []command.ConfigSchedule `json:"schedules,omitempty"`
	// Clusters are the clusters: section's clusters, each tried (reachable, or why not: not a
	// problem, serve starts and answers for the others).
	Clusters []Cluster `json:"clusters,omitempty"`
	// Scopes are the bot token scopes this configuration needs.
	Scopes []string `json:"scopes,omitempty"`
	// Sections are the other commands' sections found in the file, each with the keys set.
	Sections map[string][]Setting `json:"sections,omitempty"`
	Problems []Problem            `json:"problems,omitempty"`
}

type (
	// Setting is one resolved flag, with where its value came from.
	Setting = command.ConfigSetting
	// Token is a Slack token, masked.
	Token = command.ConfigToken
	// Problem is one reason serve would not start, with its key.
	Problem = command.ConfigProblem
	// Cluster is a cluster of the clusters: section, tried.
	Cluster = command.ConfigCluster
)

func (Answer) AnswerKind() command.AnswerKind { return command.AnswerConfig }

// Exit is 2 when serve would not start with the configuration (its problems printed).
func (a Answer) Exit() error {
	if len(a.Problems) == 0 {
		return nil
	}
	return command.Exit(2, fmt.Errorf("config %s: %d problem(s); imgupd serve would not start", a.File, len(a.Problems)))
}

// Run checks the configuration file o.File as serve reads it (io.Config, the binary's reading
// of it), every other command's section as that command reads it, and tries each cluster of
// its clusters: section. A problem is said once, however many readers find it
// (IMGUPD_TIMEOUT=abc is wrong for every command with a --timeout).
func Run(ctx context.Context, o Options, io command.IO) (Answer, error) {
	if o.File == "" {
		return Answer{}, command.Exit(64, errors.New("config check: give --config FILE, the file imgupd serve --config reads"))
	}
	if io.Config == nil {
		return Answer{}, errors.New("config check: the binary gives no configuration file")
	}
	a := Answer{File: o.File}
	add := func(ps []Problem) {
		for _, p := range ps {
			if !slices.Contains(a.Problems, p) {
				a.Problems = append(a.Problems, p)
			}
		}
	}
	sections := io.Config.Sections(ctx)
	a.Serve, a.Sections = sections.Serve, sections.Others
	if a.Sections == nil {
		a.Sections = map[string][]Setting{}
	}
	add(sections.Problems)
	serve := io.Config.Serve(ctx, time.Now())
	a.Slack, a.Access, a.Schedules, a.Scopes = serve.Slack, serve.Access, serve.Schedules, serve.Scopes
	add(serve.Problems)
	a.Clusters = io.Config.TryClusters(ctx)
	a.OK = len(a.Problems) == 0
	return a, nil
}

// WriteText prints the answer for people: the problems on errOut, each with its key, or what
// serve resolves on out.
func (a Answer) WriteText(out, errOut io.Writer) {
	if len(a.Problems) > 0 {
		fmt.Fprintf(errOut, "%s: imgupd serve would not start:\n", a.File)
		for _, p := range a.Problems {
			fmt.Fprintf(errOut, "  %s: %s\n", p.Key, p.Message)
		}
		return
	}
	w := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintf(w, "%s: imgupd serve accepts this configuration.\n\n", a.File)
	fmt.Fprintln(w, "serve (flag > IMGUPD_<FLAG> > file > default):")
	for _, s := range a.Serve {
		fmt.Fprintf(w, "  %s\t%s\t%s\n", s.Key, orNone(s.Value), s.Source)
	}
	fmt.Fprintln(w, "slack:")
	for _, t := range a.Slack {
		value := "-"
		if t.Value != "" {
			value = t.Value.String()
			if t.Prefix != "" {
				value = t.Prefix + value
			}
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\n", strings.TrimPrefix(t.Key, "slack."), value, t.Source)
	}
	w.Flush()

	if a.Access != nil {
		dms := "off"
		if a.Access.AllowDMs {
			dms = "on"
		}
		fmt.Fprintf(out, "access: %d rule(s), direct messages %s\n", len(a.Access.Rules), dms)
		w = tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
		for i, r := range a.Access.Rules {
			name := r.Name
			if name == "" {
				name = fmt.Sprintf("#%d", i+1)
			}
			fmt.Fprintf(w, "  %s\t%s\n", name, r.Says)
		}
		w.Flush()
	}
	if len(a.Clusters) > 0 {
		fmt.Fprintf(out, "clusters: %d\n", len(a.Clusters))
		w = tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
		for _, cl := range a.Clusters {
			state := "reachable"
			if !cl.Reachable {
				state = "NOT reachable: " + oneLine(cl.Reason)
			}
			fmt.Fprintf(w, "  %s\t%s\t%s\n", cl.Name, cl.Way, state)
		}
		w.Flush()
	}
	if len(a.Schedules) > 0 {
		fmt.Fprintf(out, "schedules: %d\n", len(a.Schedules))
		w = tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
		for _, s := range a.Schedules {
			fmt.Fprintf(w, "  %s\t%s\n", s.Name, s.Says)
		}
		w.Flush()
	}
	fmt.Fprintf(out, "Slack bot token scopes this configuration needs: %s\n", strings.Join(a.Scopes, ", "))
	names := make([]string, 0, len(a.Sections))
	for name := range a.Sections {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var keys []string
		for _, s := range a.Sections[name] {
			keys = append(keys, s.Key+"="+s.Value)
		}
		fmt.Fprintf(out, "%s: %s\n", name, orNone(strings.Join(keys, ", ")))
	}
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLine is s on one line, its control characters shown (a cluster's error text).
func oneLine(s string) string { return textutil.Visible(textutil.OneLine(s)) }

package commands

import (
	"slices"
	"strings"

	"github.com/imgupd/imgupd/report"
)

// Surface says where a command can be typed: in a terminal (imgupd …), in
// the chat (/imgupd …, @imgupd …, a direct message), or both.
type Surface uint8

const (
	Terminal Surface = 1 << iota
	Chat
)

// Reads says what a command reads to answer.
type Reads string

const (
	// ReadsNothing: the catalogue, a configuration file, the embedded lab.
	ReadsNothing Reads = "nothing"
	// ReadsCluster: the Kubernetes API (Argo CD's and Image Updater's objects) and, through the
	// diagnosis, the registries and git. In the chat such a command takes one of its asker's turns.
	ReadsCluster Reads = "cluster"
	// ReadsRegistry: a registry only (and the cluster only for a Secret the flags name).
	ReadsRegistry Reads = "registry"
)

// Spec is one command of imgupd, for the terminal and the chat alike: both the cobra commands
// (cmd/imgupd) and the chat grammar and help (Parse, HelpText) are built from the Table, and so
// are the Slack manifest's usage hint (UsageHint) and shell completion.
type Spec struct {
	// Name is the command's words: "diagnose", "config check".
	Name string
	// Args are its arguments as usage shows them: "APP", "IMAGE[:TAG|@DIGEST]" ("" for none).
	Args string
	// Surfaces are where it can be typed.
	Surfaces Surface
	// Reads is what it reads.
	Reads Reads
	// Short, Long and Example are the terminal's help (cobra's Short, Long and Example).
	Short, Long, Example string
	// ArgValues are the values its argument completes to in a shell, read offline (explain: the
	// finding codes); nil when they cannot be known without the cluster (APP) or at all (IMAGE).
	ArgValues func() []string
	// Chat is the command in the chat (for a command with Surfaces&Chat).
	Chat ChatSpec
}

// ChatSpec is a command's chat grammar and help.
type ChatSpec struct {
	// Words are other words for it the parser accepts: "diag", "why".
	Words []string
	// Options are its options as /imgupd help shows them: "-n NAMESPACE", "--cluster NAME".
	Options []string
	// Or is another way to write it: "NAMESPACE/APP".
	Or string
	// Help is its line in /imgupd help.
	Help string
	// parse reads its arguments (input is the whole text, for errors).
	parse func(input string, args []string) (Command, error)
	// progress is the line shown while it runs (the slash command's immediate answer); nil: none.
	progress func(Command) string
}

// In reports whether the command can be typed on surface.
func (s Spec) In(surface Surface) bool { return s.Surfaces&surface != 0 }

// Use is the command's usage line for cobra: its last word and its arguments ("check --config FILE").
func (s Spec) Use() string {
	words := strings.Fields(s.Name)
	use := words[len(words)-1]
	if s.Args != "" {
		use += " " + s.Args
	}
	return use
}

// ChatUsage is the command as /imgupd help shows it: "diagnose APP [-n NAMESPACE] [--cluster NAME]".
func (s Spec) ChatUsage() string {
	use := s.Name
	if s.Args != "" {
		use += " " + s.Args
	}
	for _, o := range s.Chat.Options {
		use += " [" + o + "]"
	}
	return use
}

// Table is every command of imgupd, in the order /imgupd help lists the chat's; adding a command
// is one entry here (and its code: a parser and a Service case for the chat, a cobra constructor
// for the terminal).
func Table() []Spec {
	return []Spec{
		{
			Name:     "diagnose",
			Args:     "APP",
			Surfaces: Terminal | Chat,
			Reads:    ReadsCluster,
			Short:    "Find why Image Updater does not update an Argo CD Application, and what to change",
			Long: `diagnose reads the cluster (with your kubeconfig, or in-cluster), the registries and git
as Image Updater would, and runs staged checks: health, target, source and mapping, live image,
registry and network, candidates, write-back, sync, history. The first failing check is the root
cause; each finding has its evidence and a fix. Nothing is written anywhere.

The report answers one question: will the tag Image Updater should pick reach the cluster, and if
not, what stops it? What imgupd could not check is listed as not verified, with what would verify it.

Exit status, by state:
  0  up-to-date or update-on-its-way   nothing stops the tag
  1  blocked                           Image Updater cannot (registry, credentials, write-back, ...)
  2  unknown                           a check that decides the answer could not be made
  3  wrong-update                      Image Updater writes something with no effect or not wanted
  4  not-deployed                      Image Updater writes, Argo CD does not deploy it
  5  held-back                         the configuration keeps newer tags out
  6  waiting-for-merge                 the pull request with the new tag is not merged yet
Before any state: 64 bad flags or arguments, 69 the API server cannot be reached, 77 RBAC forbids
reading the Application, 78 the kubeconfig is unusable or its credentials refused (401).`,
			Example: `  imgupd diagnose guestbook -n argocd
  imgupd diagnose web -n team-a --updater-namespace argocd-image-updater -o markdown
  kubectl -n argocd logs deploy/argocd-image-updater-controller --since=30m | imgupd diagnose web --updater-log -`,
			Chat: ChatSpec{
				Words:    []string{"diag", "why"},
				Options:  []string{"-n NAMESPACE", "--cluster NAME"},
				Or:       "NAMESPACE/APP",
				Help:     "staged checks, the root cause and the fix",
				parse:    func(_ string, args []string) (Command, error) { return parseDiagnose(args) },
				progress: func(c Command) string { d := c.(Diagnose); return "Diagnosing `" + appName(d.Namespace, d.App) + "`" },
			},
		},
		{
			Name:     "where",
			Args:     "IMAGE[:TAG|@DIGEST]",
			Surfaces: Terminal | Chat,
			Reads:    ReadsCluster,
			Short:    "Where is my tag? Every app Image Updater manages that uses the image, and whether the tag reaches it",
			Long: `where starts from an image you pushed and finds every Application Image Updater manages whose
images use its repository (after Image Updater's own normalisation: Docker Hub's library/, the
registries.conf entry's defaultns). For each it answers, in order: will Image Updater pick the tag
(or which filter drops it, which newer tag beats it), has it written it, does the app run it, and if
not, the root cause and its fix from the app's own diagnosis. Apps are grouped by answer: running,
written and deploying, will be picked next cycle, held back, blocked, wrong update, not deployed,
unknown. The fix of the first app something stops is shown; "imgupd diagnose APP -n NAMESPACE"
shows any app's full report.

Without a tag, the answer is about the newest tag in the registry (the latest build when Image
Updater's strategy reads build times, else the highest version). With a digest, about the newest
tag that points at it (the digests the diagnoses read, else those of the 100 highest versions, read
without credentials). A repository no app uses, a tag the registry does not list or a digest no tag
read has, is answered as such, with the nearest names.

It scans like "imgupd summary" (the same scope flags, one deadline, shared reads) but diagnoses
only the apps that use the repository. Nothing is written anywhere.

Exit status, by the most urgent answer: 0 running, written or due; 1 blocked; 2 unknown (or no app
uses the image); 3 wrong update; 4 not deployed; 5 held back; 6 waiting for a merge. Before any
answer: 64 bad flags, 69 the API server cannot be reached, 78 the kubeconfig is unusable or refused.`,
			Example: `  imgupd where ghcr.io/acme/web:1.4.2
  imgupd where ghcr.io/acme/web            # the newest tag in the registry
  imgupd where nginx:1.27 -n 'team-*'
  imgupd where ghcr.io/acme/web:1.4.2 -o json | jq '.apps[] | {app, answer}'`,
			Chat: ChatSpec{
				Options: []string{"-n NAMESPACE", "--project PROJECT"},
				Help:    "every application that uses the image, and whether the tag (without one: the newest) reaches it",
				parse:   parseWhere,
				progress: func(c Command) string {
					return "Looking for the apps that use `" + c.(Where).Image + "` (those you may see here)"
				},
			},
		},
		{
			Name:     "tags",
			Args:     "APP [ALIAS]",
			Surfaces: Chat,
			Reads:    ReadsCluster,
			Chat: ChatSpec{
				Words:   []string{"candidates"},
				Options: []string{"-n NAMESPACE"},
				Help:    "which tag Image Updater would pick, and why every other tag was not",
				parse:   func(_ string, args []string) (Command, error) { return parseTags(args) },
				progress: func(c Command) string {
					t := c.(Tags)
					return "Reading the candidate tags of `" + appName(t.Namespace, t.App) + "`"
				},
			},
		},
		{
			Name:     "logs",
			Args:     "APP",
			Surfaces: Chat,
			Reads:    ReadsCluster,
			Chat: ChatSpec{
				Words:   []string{"log"},
				Options: []string{"-n NAMESPACE"},
				Help:    "Image Updater's recent log lines about the application",
				parse:   parseLogs,
				progress: func(c Command) string {
					l := c.(Logs)
					return "Reading Image Updater's log lines about `" + appName(l.Namespace, l.App) + "`"
				},
			},
		},
		{
			Name:     "explain",
			Args:     "CODE",
			Surfaces: Terminal | Chat,
			Reads:    ReadsNothing,
			Short:    "Explain a finding code: what it means and what to change",
			Example: `  imgupd explain LIVE_IMAGE_NOT_LIVE
  imgupd explain --all -o markdown > docs/findings.md`,
			ArgValues: codes,
			Chat: ChatSpec{
				Help:  "what a finding code means and what to change",
				parse: parseExplain,
			},
		},
		{
			Name:     "summary",
			Surfaces: Terminal | Chat,
			Reads:    ReadsCluster,
			Short:    "Diagnose every Application Image Updater manages and summarize: counts per state, the apps that need someone",
			Long: `summary diagnoses every Application Image Updater manages (the ImageUpdater CRs' applicationRefs,
or the annotated Applications on v0.x and with useAnnotations), in one scan that shares its reads
across apps, and prints how many apps are in each state, then the apps that need someone —
blocked, wrong update, not deployed, held back, unknown — grouped by state and by the stage that
stops them, each with its root-cause code. "imgupd diagnose APP -n NAMESPACE" shows one app's
full report and its fix. Nothing is written anywhere.

The scope is every namespace unless --namespace, --project, --name or --selector narrow it (each
repeatable one matches any of its values; all given must match). The scan has one deadline: what
did not finish by then is unknown and the summary says it is partial. On a terminal, stderr shows
the progress (apps done of the total, elapsed).

Exit status, by the worst state of any app:
  0  every app up-to-date or update-on-its-way
  1  blocked
  2  unknown (or could not scan: the Applications or the CRs cannot be listed)
  3  wrong-update
  4  not-deployed
  5  held-back
  6  waiting-for-merge
Before any answer: 64 bad flags, 69 the API server cannot be reached, 78 the kubeconfig is
unusable or its credentials refused (401).`,
			Example: `  imgupd summary
  imgupd summary -n payments -n 'payments-*' --project payments
  imgupd summary --selector team=checkout -o markdown
  imgupd summary --name 'web-*' -o json | jq '.attention[].apps[].app'`,
			Chat: ChatSpec{
				Words:   []string{"status"},
				Options: []string{"-n NAMESPACE", "--project PROJECT", "--name GLOB", "--selector LABELS"},
				Help:    "every application Image Updater manages (that you may see here), at a glance",
				parse:   parseSummary,
				progress: func(c Command) string {
					return "Scanning " + c.(Summary).Scope.String() + " (the apps you may see here)"
				},
			},
		},
		{
			Name:     "help",
			Surfaces: Chat,
			Reads:    ReadsNothing,
			Chat: ChatSpec{
				Words: []string{"?", "-h", "--help"},
				Help:  "this list",
				parse: func(string, []string) (Command, error) { return Help{}, nil },
			},
		},
		{
			Name:     "simulate",
			Args:     "IMAGE",
			Surfaces: Terminal,
			Reads:    ReadsRegistry,
			Short:    "Show which tag Image Updater would pick for an image, and why every other tag was not",
			Long: `simulate lists the image's tags from the real registry and runs Image Updater's
tag selection on them, like 'argocd-image-updater test', but it takes the
constraint from IMAGE:constraint, defaults to the controller's platform
(linux/amd64) instead of your laptop's, knows the running tag, follows the
behaviour of the Image Updater version you name, and explains each tag's fate.`,
			Example: `  imgupd simulate ghcr.io/acme/app:~1.2 --current-tag 1.2.3
  imgupd simulate nginx --update-strategy newest-build --ignore-tags latest --output json
  imgupd simulate registry.local:5000/team/api --plain-http --allow-tags 'regexp:^v[0-9.]+$'`,
		},
		{
			Name:     "demo",
			Surfaces: Terminal,
			Reads:    ReadsNothing,
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
		},
		{
			Name:     "serve",
			Surfaces: Terminal,
			Reads:    ReadsCluster,
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
		},
		{
			Name:     "config",
			Surfaces: Terminal,
			Reads:    ReadsNothing,
			Short:    "Check imgupd's configuration file",
		},
		{
			Name:     "config check",
			Args:     "--config FILE",
			Surfaces: Terminal,
			Reads:    ReadsNothing,
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
		},
		{
			Name:     "version",
			Surfaces: Terminal,
			Reads:    ReadsNothing,
			Short:    "Print imgupd's version and the Image Updater versions it models",
		},
	}
}

// Lookup is the command named name ("config check").
func Lookup(name string) (Spec, bool) {
	for _, s := range Table() {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

// chatSpec is the chat command word (its name or one of its Words) names, in lower case.
func chatSpec(word string) (Spec, bool) {
	for _, s := range Table() {
		if s.In(Chat) && (s.Name == word || slices.Contains(s.Chat.Words, word)) {
			return s, true
		}
	}
	return Spec{}, false
}

// Verbs are the chat's command words, in help order.
func Verbs() []string {
	var out []string
	for _, s := range Table() {
		if s.In(Chat) {
			out = append(out, s.Name)
		}
	}
	return out
}

// SpecOf is the entry of a parsed command.
func SpecOf(c Command) (Spec, bool) {
	if c == nil {
		return Spec{}, false
	}
	return Lookup(c.verb())
}

// CommandReadsCluster reports whether a command reads the cluster (a diagnosis or a scan): in the chat it
// takes one of its asker's turns; help, explain and input that is not a command do not.
func CommandReadsCluster(c Command) bool {
	s, ok := SpecOf(c)
	return ok && s.Reads == ReadsCluster
}

// ProgressText is the line shown while a command runs.
func ProgressText(c Command) string {
	if s, ok := SpecOf(c); ok && s.Chat.progress != nil {
		return s.Chat.progress(c)
	}
	return "Working on it"
}

// UsageHint is the slash command's usage hint in the Slack app manifest: every chat command with
// its arguments and its first option.
func UsageHint() string {
	var parts []string
	for _, s := range Table() {
		if !s.In(Chat) {
			continue
		}
		p := s.Name
		if s.Args != "" {
			p += " " + s.Args
		}
		if len(s.Chat.Options) > 0 {
			p += " [" + s.Chat.Options[0] + "]"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " | ")
}

// HelpText lists the commands, for chat.
func HelpText() string {
	lines := []string{"*imgupd* explains why Argo CD Image Updater did not update an application."}
	for _, s := range Table() {
		if !s.In(Chat) {
			continue
		}
		line := "• `" + s.ChatUsage() + "`"
		if s.Chat.Or != "" {
			line += " (or `" + s.Chat.Or + "`)"
		}
		lines = append(lines, line+": "+s.Chat.Help)
	}
	lines = append(lines, "Use them as `/imgupd …` in a channel, `@imgupd …` in a thread, or on their own in a direct message with me.")
	return strings.Join(lines, "\n")
}

// codes are the finding codes, for explain's completion.
func codes() []string {
	var out []string
	for _, e := range report.Catalogue() {
		out = append(out, string(e.Code))
	}
	return out
}

// appName is "namespace/app", or the app alone when no namespace was given.
func appName(ns, app string) string {
	if ns == "" {
		return app
	}
	return ns + "/" + app
}

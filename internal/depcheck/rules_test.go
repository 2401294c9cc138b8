package depcheck

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const mod = "github.com/imgupd/imgupd/"

// own names packages of this module, relative to its root.
func own(rel ...string) Patterns {
	ps := make(Patterns, len(rel))
	for i, r := range rel {
		ps[i] = Pattern(mod + r)
	}
	return ps
}

// ioSources are the module's packages that read the cluster, registries, git
// servers, chart repositories and forges.
var ioSources = own("sources/cluster", "sources/registry", "sources/gitsource", "sources/helmchart",
	"sources/forge", "sources/signature", "fleet", "simulate")

// The layers, one folder each: the Image Updater and Argo CD model
// (model/...: pure), the sources (sources/...: they read and report facts),
// the engine (diagnostics: it decides), the fleet scan and simulate, the
// report's data (report) and presentation (present/...: it shows a report).
var (
	modelLayer   = own("model/...")
	sourcesLayer = own("sources/...")
	engineSide   = own("diagnostics/...", "model/...", "sources/...", "fleet/...", "clusters/...", "simulate/...", "report/...",
		"present/render/...")
)

// ioLibraries are the third-party clients behind them.
var ioLibraries = Patterns{"k8s.io/client-go/...", "github.com/go-git/...",
	"github.com/google/go-containerregistry/pkg/v1/remote/...", "github.com/google/go-github/...",
	"github.com/slack-go/..."}

// stdIO is the standard library's network and operating-system I/O. Not in it:
// net/url and net/netip (parsing) and path/filepath (the model uses Match and
// Join, which touch no file system).
var stdIO = Patterns{"net", "net/http/...", "net/rpc/...", "net/smtp", "crypto/tls", "os", "os/...",
	"io/ioutil", "syscall"}

// namedRule is one rule of this module with the reason it exists; the reason is
// printed with every violation so that whoever breaks it knows what it protects.
type namedRule struct {
	name string
	why  string
	rule Rule
	// pending, when set, is a rule the code breaks today: why it does and what
	// will make it hold. It is checked like the others, but a violation skips
	// instead of failing, and the day it holds the test fails so that it is
	// promoted to a rule that keeps holding.
	pending string
}

var rules = []namedRule{

	{
		name: "model/no-io",
		why: "model/updater, model/argo and model/updaterlog are the pure model of Image Updater and Argo CD: given " +
			"objects, tag lists, metadata and log lines they decide; every read belongs to the sources.",
		rule: NoOwnImport{From: own("model/updater", "model/argo", "model/updaterlog"), Banned: stdIO},
	},
	{
		name: "model/below-sources",
		why: "the model (and the advice on what to change) reaches no I/O client, no source, nor the engine, the " +
			"scan or presentation: the sources and the engine use the model, never the reverse.",
		rule: NoDependency{From: modelLayer, Banned: append(append(Patterns{}, ioLibraries...),
			append(sourcesLayer, own("diagnostics", "fleet", "clusters", "simulate", "present/...")...)...)},
	},
	{
		name: "engine/no-transport",
		why: "the engine and everything under it (model, sources, fleet scan, simulate, report, text renderers) know " +
			"nothing of Slack or the chat commands: transports call the engine, never the reverse.",
		rule: NoDependency{From: engineSide,
			Banned: append(own("bot/...", "commands/..."), "github.com/slack-go/...")},
	},
	{
		name: "commands/no-slack",
		why:  "commands is the chat command language, transport-neutral: it must not import slack-go.",
		rule: NoDependency{From: own("commands/..."), Banned: Patterns{"github.com/slack-go/..."}},
	},
	{
		name: "commands/one-folder-each",
		why: "each command is a folder of commands/ that the table (commands) lists: a folder never reaches the " +
			"table or the chat service, so adding a command is its folder and one line in the table.",
		rule: NoDependency{From: own("commands/..."), Banned: own("commands")},
	},
	{
		name: "commands/shared-below-folders",
		why: "commands/command is what every command's folder shares (Spec, Result, Deps, IO, the grammar's " +
			"pieces): it reaches no command's folder, so any folder can use it without an import cycle.",
		rule: NoDependency{From: own("commands/command"), Banned: own("commands/...")},
	},

	{
		name: "lab/only-cmd",
		why: "the lab (fake cluster, in-process registry and git servers) is for tests, `imgupd demo`, `serve --lab` " +
			"and `config check` of a lab scenario, all in cmd/imgupd; no other production code may import it.",
		rule: OnlyImportedBy{Of: own("lab/..."), Allowed: own("cmd/imgupd", "lab/...")},
	},
	{
		name: "slacklab/tests-only",
		why:  "bot/slacklab is the fake Slack of the bot's tests and benchmarks: production code must not import it.",
		rule: OnlyImportedBy{Of: own("bot/slacklab/..."), Allowed: own("bot/slacklab/...")},
	},
	{
		name: "sources/no-verdicts",
		why: "the sources (cluster, registry, git, charts, forges, signatures, network classes) read and report " +
			"facts; the engine decides. They must not import the engine, presentation, the fleet scan or simulate.",
		rule: NoDependency{From: sourcesLayer, Banned: own("diagnostics", "present/...", "fleet", "clusters", "simulate")},
	},
	{
		name: "fleet/no-render",
		why:  "the fleet scan returns per-app results; rendering them is the renderers' and the bot's job.",
		rule: NoDependency{From: own("fleet", "clusters"), Banned: own("present/...", "bot/...")},
	},
	{
		name: "render/no-clients",
		why: "the text, Markdown and Block Kit renderers read a Report and decide nothing: they need no Kubernetes " +
			"or git client.",
		rule: NoDependency{From: own("present/..."), Banned: Patterns{"k8s.io/client-go/...", "github.com/go-git/..."}},
	},
	{
		name: "render/no-engine",
		why: "the renderers read the report's data (package report), never the engine or the fleet " +
			"scan that fill it: what they show comes from the Report, not from running a diagnosis.",
		rule: NoDependency{From: own("present/..."), Banned: append(own("diagnostics", "fleet", "clusters", "simulate"), sourcesLayer...)},
	},
	{
		name: "present/one-phrasebook",
		why: "the terminal and Slack renderers share their words and marks through present/phrase; neither borrows " +
			"the other's (Block Kit once climbed into the text renderer for its phrases).",
		rule: NoDependency{From: own("present/blockkit/..."), Banned: own("present/render")},
	},
	{
		name: "present/one-phrasebook-text",
		why:  "the text and Markdown renderers do not reach Block Kit: both speak through present/phrase.",
		rule: NoDependency{From: own("present/render"), Banned: own("present/blockkit/...")},
	},
	{
		name: "report/no-io",
		why: "report is the report's data (findings, the catalogue of codes, the fleet summary) that " +
			"the engine fills and the renderers, bot and CLI read: no code of this module it reaches does network " +
			"or OS I/O, so that reading a report pulls in no I/O.",
		rule: NoOwnImport{From: own("report"), Banned: stdIO},
	},
	{
		name: "report/no-clients",
		why: "report reaches no I/O client, ours or third-party (client-go, go-git, registry, forge, " +
			"Slack), nor the engine that fills it.",
		rule: NoDependency{From: own("report"),
			Banned: append(append(Patterns{}, ioLibraries...), append(own("diagnostics"), ioSources...)...)},
	},
	{
		name: "vocabulary/pure",
		why: "internal/giturl (the one git-URL parser) and internal/secret (the one secret type) are the sources' " +
			"and the bot's shared vocabulary: values and parsing only, so that the updater model and the renderers " +
			"may use them; no code of this module they reach does network or OS I/O.",
		rule: NoOwnImport{From: own("internal/giturl", "internal/secret"), Banned: stdIO},
	},
	{
		name: "startup/no-second-scheme",
		why: "k8s.io/client-go/kubernetes/fake registers every built-in Kubernetes type again, in a scheme of its own, " +
			"at the start of every imgupd command (about 3 ms and 0.5 MB, issue 16); the lab's fake cluster is " +
			"lab/kubefake, over a scheme of the groups imgupd uses, built when first used.",
		rule: NoDependency{From: own("cmd/imgupd"), Banned: Patterns{"k8s.io/client-go/kubernetes/fake"}},
	},
}

// wholeClientset is client-go's generated clients and what comes with them: the typed client,
// fake, apply configurations, informer and lister of every Kubernetes API group, about a fifth of
// the source of imgupd's dependencies, where imgupd uses four groups (internal/kubeclient, over
// client-go's generic typed client; sources/cluster.Clients, lab/kubefake). Even one group's
// generated client brings client-go's scheme of every group (k8s.io/client-go/kubernetes/scheme),
// registered at the start of every imgupd process (about 4.5 ms), and apply configurations.
// client-go's leader election brings them through one file imgupd does not use, and its Lease
// lock through its constructors (internal/leaderelection is client-go's election without them).
var wholeClientset = Patterns{"k8s.io/client-go/kubernetes/...", "k8s.io/client-go/applyconfigurations/...",
	"k8s.io/client-go/informers/...", "k8s.io/client-go/listers/...", "k8s.io/client-go/tools/leaderelection/..."}

// TestWholeClientsetStaysOut: no package of the module, nor any of its tests, reaches
// wholeClientset. Tests count here (the rules above see the production build only): a test
// that imports kubernetes/fake makes every tier that builds its package — the race tier's own
// build of every dependency included — compile all of it.
func TestWholeClientsetStaysOut(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	g, err := Load(ctx, moduleRoot(t), "-test", "./...")
	if err != nil {
		t.Fatal(err)
	}
	var in []string
	for path := range g {
		if wholeClientset.Match(path) {
			in = append(in, path)
		}
	}
	if len(in) == 0 {
		return
	}
	slices.Sort(in)
	// Who brings it: the packages outside it that import it.
	var by []string
	for path, p := range g {
		for _, imp := range p.Imports {
			if wholeClientset.Match(imp) && !wholeClientset.Match(path) && !strings.HasPrefix(path, "k8s.io/client-go/") {
				by = append(by, path+" imports "+imp)
			}
		}
	}
	slices.Sort(by)
	t.Errorf("client-go's generated clients are in the build (%d of their packages, e.g. %s): use internal/kubeclient, "+
		"sources/cluster.Clients, lab/kubefake and internal/leaderelection instead of what brings them:\n\t%s", len(in), in[0], strings.Join(by, "\n\t"))
}

// TestRules checks every rule against the module's production import graph.
func TestRules(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	g, err := Load(ctx, moduleRoot(t), "./...")
	if err != nil {
		t.Fatal(err)
	}
	// A rule about a package that was renamed or moved would pass for ever:
	// every pattern a rule is about must name at least one package.
	for _, r := range rules {
		for _, p := range subjects(r.rule) {
			if len(g.sorted(Patterns{p})) == 0 {
				t.Errorf("rule %s: %s names no package of the module", r.name, p)
			}
		}
	}
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			vs := r.rule.Check(g)
			switch {
			case r.pending == "" && len(vs) > 0:
				for _, v := range vs {
					t.Errorf("rule broken: %s\n\t%s", r.why, v)
				}
			case r.pending != "" && len(vs) > 0:
				t.Skipf("pending rule, broken today (%d imports, e.g.\n\t%s): %s", len(vs), vs[0], r.pending)
			case r.pending != "":
				t.Errorf("pending rule %q holds now: make it a rule (drop its pending text) so that it keeps holding", r.name)
			}
		})
	}
}

// subjects are the packages a rule is about.
func subjects(r Rule) Patterns {
	switch r := r.(type) {
	case NoDependency:
		return r.From
	case NoOwnImport:
		return r.From
	case OnlyImportedBy:
		return r.Of
	}
	return nil
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == "/dev/null" {
		t.Fatal("not inside a module")
	}
	return filepath.Dir(gomod)
}

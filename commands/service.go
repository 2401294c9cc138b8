package commands

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

// Apps reads Argo CD Applications (diagnostics.Cluster has these methods).
type Apps interface {
	Application(ctx context.Context, ns, name string) (*argo.Application, error)
	// Applications lists ns ("" = all namespaces).
	Applications(ctx context.Context, ns string) ([]argo.Application, error)
}

// Diagnoser runs a diagnosis (*diagnostics.Engine).
type Diagnoser interface {
	Diagnose(ctx context.Context, req diagnostics.Request) *report.Report
}

// Service carries out commands: it finds the Application, decides whether
// the asker may see it, and runs the diagnosis. It is transport-neutral:
// the bot renders its Results for Slack.
type Service struct {
	Apps   Apps
	Engine Diagnoser
	Policy *Policy
	// DefaultNamespace is where Applications are looked for when the
	// command names no namespace (default argocd); other namespaces the
	// asker may see are searched when the app is not there.
	DefaultNamespace string
	// UpdaterNamespace is passed to the engine (default argocd).
	UpdaterNamespace string
	// Cluster is this installation's cluster name; a command naming
	// another cluster is refused with a clear answer.
	Cluster string
	// Fleet scans the Applications of a summary (nil: summary is not
	// available); SummaryTimeout bounds its scan (default
	// DefaultSummaryTimeout).
	Fleet          FleetScanner
	SummaryTimeout time.Duration
	// Clusters, when set, are the clusters this imgupd reads (the configuration's clusters:);
	// Apps, Engine, Fleet, the namespaces and Cluster above are then not used. Without them the
	// service reads the one cluster those fields give.
	Clusters []Cluster
	// Reopen, when set, connects a cluster of Clusters that is Down once more (its Secret read
	// again): a command or a scheduled scan tries it first, at most once every ReopenEvery
	// (default DefaultReopenEvery) per cluster, so that a Secret created or fixed after imgupd
	// started is used without a restart. Now is the clock of those tries (nil: time.Now).
	Reopen      func(ctx context.Context, name string) (Cluster, error)
	ReopenEvery time.Duration
	Now         func() time.Time

	reopen reopenState
}

// DefaultReopenEvery is how often a cluster that cannot be read is tried again (Service.Reopen).
const DefaultReopenEvery = 30 * time.Second

// reopenState guards Clusters while Reopen replaces a member, and when each was last tried.
type reopenState struct {
	mu    sync.RWMutex
	tried map[string]time.Time
}

// reopenDown tries Reopen on the clusters that are Down and whose last try is ReopenEvery old:
// one that connects replaces its Down member; one that does not keeps its newest reason.
func (s *Service) reopenDown(ctx context.Context) {
	if s.Reopen == nil || len(s.Clusters) == 0 {
		return
	}
	now, every := time.Now, s.ReopenEvery
	if s.Now != nil {
		now = s.Now
	}
	if every <= 0 {
		every = DefaultReopenEvery
	}
	s.reopen.mu.Lock()
	var due []string
	for _, m := range s.Clusters {
		if last, ok := s.reopen.tried[m.Name]; m.Down != nil && (!ok || now().Sub(last) >= every) {
			if s.reopen.tried == nil {
				s.reopen.tried = map[string]time.Time{}
			}
			s.reopen.tried[m.Name] = now()
			due = append(due, m.Name)
		}
	}
	s.reopen.mu.Unlock()
	for _, name := range due {
		c, err := s.Reopen(ctx, name)
		s.reopen.mu.Lock()
		for i := range s.Clusters {
			if s.Clusters[i].Name != name {
				continue
			}
			switch {
			case err != nil:
				s.Clusters[i].Down = err
			case c.Down == nil:
				c.Name = name
				s.Clusters[i] = c
			default:
				s.Clusters[i].Down = c.Down
			}
		}
		s.reopen.mu.Unlock()
	}
}

// Cluster is one Argo CD installation the service answers for.
type Cluster struct {
	// Name is the cluster's name (--cluster, the rules' clusters).
	Name   string
	Apps   Apps
	Engine Diagnoser
	// Fleet scans its Applications (nil: no summary nor where there).
	Fleet FleetScanner
	// DefaultNamespace is where Applications are looked for first, UpdaterNamespace where
	// Image Updater runs (default argocd).
	DefaultNamespace, UpdaterNamespace string
	// Down, when not nil, is why the cluster cannot be read (its Secret missing, its kubeconfig
	// unusable): its answers say so, the other clusters' are whole.
	Down error
}

// members are the clusters the service reads: Clusters, else the one of its fields.
func (s *Service) members() []Cluster {
	if len(s.Clusters) > 0 {
		s.reopen.mu.RLock()
		defer s.reopen.mu.RUnlock()
		return slices.Clone(s.Clusters)
	}
	return []Cluster{{Name: s.Cluster, Apps: s.Apps, Engine: s.Engine, Fleet: s.Fleet,
		DefaultNamespace: s.DefaultNamespace, UpdaterNamespace: s.UpdaterNamespace}}
}

// ClusterNames are the names of the clusters the service reads (nil for one without a name).
func (s *Service) ClusterNames() []string {
	var out []string
	for _, m := range s.members() {
		if m.Name != "" {
			out = append(out, m.Name)
		}
	}
	return out
}

// Kind says what a Result carries (command's).
type Kind = command.Kind

const (
	KindReport   = command.KindReport
	KindTags     = command.KindTags
	KindLogs     = command.KindLogs
	KindExplain  = command.KindExplain
	KindHelp     = command.KindHelp
	KindDenied   = command.KindDenied
	KindNotFound = command.KindNotFound
	KindInvalid  = command.KindInvalid
	KindError    = command.KindError
	KindNotBuilt = command.KindNotBuilt
	KindSummary  = command.KindSummary
	KindWhere    = command.KindWhere
	KindBusy     = command.KindBusy
)

// Result is the answer to one command (command's).
type Result = command.Result

// Handle parses nothing: the transport parses (it must ack first) and passes
// the command and who asked.
func (s *Service) Handle(ctx context.Context, pr Principal, cmd Command) Result {
	if cmd == nil {
		return Result{Kind: KindInvalid, Text: HelpText()}
	}
	// Every command needs a rule that admits the asker here; commands that
	// read an Application are then decided for it (Deps.App).
	d := s.Policy.Admits(pr)
	if !d.Allowed {
		return Result{Kind: KindDenied, Command: cmd, Text: d.Reason}
	}
	s.reopenDown(ctx) // only for an admitted asker: a refused one makes imgupd read no Secret
	spec, ok := SpecOf(cmd)
	if !ok || !spec.In(Chat) || spec.Chat.Handle == nil {
		return Result{Kind: KindInvalid, Command: cmd, Text: HelpText()}
	}
	res := spec.Chat.Handle(ctx, asker{s: s, pr: pr, admitted: d}, cmd)
	if len(s.Clusters) == 0 {
		// One cluster: its answers' buttons name none, as before there were several.
		res.Cluster = ""
	}
	return res
}

// asker is what a command's handler is given (command.Deps): the service, bound to one asker
// the access rules admit here. Every read of an Application or of the fleet it offers is
// decided for that asker.
type asker struct {
	s        *Service
	pr       Principal
	admitted Decision
}

func (a asker) Rule() string { return a.admitted.Rule }
func (a asker) Help() string { return HelpText() }

func (a asker) App(ctx context.Context, c Command, cluster, name, ns string, kind Kind) Result {
	return a.s.app(ctx, a.pr, c, cluster, name, ns, kind)
}

func (a asker) ScanTimeout() time.Duration {
	if a.s.SummaryTimeout <= 0 {
		return DefaultSummaryTimeout
	}
	return a.s.SummaryTimeout
}

func (a asker) Private(cluster, ns, project, what string) string {
	if d := a.s.Policy.Decide(a.pr, Scope{Namespace: ns, Project: projectOr(project), Cluster: cluster}); d.Private {
		return PrivateText(d.Rule, what)
	}
	return ""
}

func (a asker) ReadError(what string, err error) string { return readError(what, err) }

// withApp finds the Application the (admitted) asker may see and diagnoses it. An Application
// the asker may not see is answered exactly as one that does not exist: nothing about it is
// read, and nothing in the answer depends on it.
func (s *Service) withApp(ctx context.Context, pr Principal, m Cluster, cmd Command, name, ns string, kind Kind) Result {
	app, d, res := m.find(ctx, s.Policy, pr, cmd, name, ns)
	if app == nil {
		return withSuggestions(res)
	}
	return s.diagnose(ctx, pr, m, cmd, app, d, name, ns, kind)
}

// diagnose runs the engine of m over app, which the asker may see (d).
func (s *Service) diagnose(ctx context.Context, pr Principal, m Cluster, cmd Command, app *argo.Application, d Decision, name, ns string, kind Kind) Result {
	ref := report.AppRef{Namespace: app.Namespace, Name: app.Name}
	rep := m.Engine.Diagnose(ctx, diagnostics.Request{App: app.Name, Namespace: app.Namespace, UpdaterNamespace: orArgocd(m.UpdaterNamespace)})
	if rep != nil && rep.RootCause != nil && rep.RootCause.Code == report.CodeAppNotFound {
		// Deleted since it was found: the engine's answer lists the namespace's other
		// Applications, which the asker may not all see. Answer as for any missing one.
		if again, _, res := m.find(ctx, s.Policy, pr, cmd, name, ns); again == nil {
			return withSuggestions(res)
		}
	}
	out := Result{Kind: kind, Command: cmd, App: ref, Report: rep, Rule: d.Rule, Cluster: m.Name}
	if d.Private {
		out.Private = PrivateText(d.Rule, "`"+ref.String()+"`")
	}
	return out
}

// find reads the Application: in ns if given, else in the default namespace, else wherever
// the asker may see one of that name. It returns only an Application the asker may see, with
// the decision that grants it; else nil and the answer, which is the same whether the
// Application does not exist or exists and the asker may not see it (the suggestions and the
// namespaces it names are Applications the asker may see).
func (m Cluster) find(ctx context.Context, policy *Policy, pr Principal, cmd Command, name, ns string) (*argo.Application, Decision, Result) {
	explicit := ns != ""
	if !explicit {
		ns = orArgocd(m.DefaultNamespace)
	}
	if m.Down != nil {
		return nil, Decision{}, Result{Kind: KindError, Command: cmd, App: report.AppRef{Namespace: ns, Name: name}, Text: readError("cluster "+m.Name, m.Down)}
	}
	app, err := m.Apps.Application(ctx, ns, name)
	switch {
	case err == nil:
		if d := policy.Decide(pr, m.scopeOf(app)); d.Allowed {
			return app, d, Result{}
		}
	case !cluster.IsNotFound(err):
		return nil, Decision{}, Result{Kind: KindError, Command: cmd, App: report.AppRef{Namespace: ns, Name: name}, Text: readError("Application "+ns+"/"+name, err)}
	}
	// Not there, or there but not for this asker (the same from here on): look wherever the
	// asker may see an Application of that name.
	scope := ns
	if !explicit {
		scope = ""
	}
	all, lerr := m.Apps.Applications(ctx, scope)
	var same, names []string
	var only *argo.Application
	var onlyD Decision
	// personal: the rule that grants the asker, and not this channel, each Application listed
	// (an answer naming one is for the asker alone).
	personal := map[string]string{}
	for i := range all {
		a := &all[i]
		d := policy.Decide(pr, m.scopeOf(a))
		if !d.Allowed {
			continue
		}
		full := a.Namespace + "/" + a.Name
		names = append(names, full)
		if d.Private {
			personal[full] = d.Rule
		}
		if a.Name == name {
			same = append(same, full)
			only, onlyD = a, d
		}
	}
	privately := func(res Result, named []string) Result {
		for _, full := range named {
			if rule, ok := personal[full]; ok {
				res.Private = PrivateText(rule, "Applications this answer names")
				break
			}
		}
		return res
	}
	res := Result{Kind: KindNotFound, Command: cmd}
	switch {
	case len(same) == 1:
		return only, onlyD, Result{}
	case len(same) > 1:
		sort.Strings(same)
		nss := make([]string, len(same))
		for i, full := range same {
			nss[i], _, _ = strings.Cut(full, "/")
		}
		res.Text = fmt.Sprintf("there are Applications named `%s` in namespaces %s: add `-n NAMESPACE`",
			name, "`"+strings.Join(nss, "`, `")+"`")
		return nil, Decision{}, privately(res, same)
	}
	res.App = report.AppRef{Namespace: ns, Name: name}
	if explicit {
		res.Text = fmt.Sprintf("no Application `%s` in namespace `%s`", name, ns)
	} else {
		res.Text = fmt.Sprintf("no Application `%s` in namespace `%s`, nor in another namespace you may see", name, ns)
	}
	if lerr != nil {
		res.Text += " (and the list of Applications could not be read: " + readError("Applications", lerr) + ")"
		return nil, Decision{}, res
	}
	res.Suggestions = nearestApps(name, names)
	return nil, Decision{}, privately(res, res.Suggestions)
}

// withSuggestions is a not-found answer with its suggestions said.
func withSuggestions(res Result) Result {
	if res.Kind == KindNotFound && len(res.Suggestions) > 0 {
		res.Text += "; did you mean " + "`" + strings.Join(res.Suggestions, "`, `") + "`?"
	}
	return res
}

// PrivateText says why an answer is for the asker alone: rule grants the asker what (chat
// Markdown: an Application in backquotes, or words), and no rule for everyone in the channel
// does.
func PrivateText(rule, what string) string {
	if rule == "" {
		rule = "(unnamed)"
	}
	return fmt.Sprintf(":lock: Only you can see this: the access rule `%s` grants you %s, not this channel.", rule, what)
}

// scopeOf is an Application's namespace and project in the cluster; Argo CD reads an empty
// project as "default".
func (m Cluster) scopeOf(a *argo.Application) Scope {
	return Scope{Namespace: a.Namespace, Project: projectOr(a.Spec.Project), Cluster: m.Name}
}

func orArgocd(ns string) string {
	if ns == "" {
		return "argocd"
	}
	return ns
}

// readError says what could not be read, and the RBAC rule when forbidden.
func readError(what string, err error) string {
	var ae *cluster.AccessError
	if errors.As(err, &ae) && ae.Forbidden {
		return fmt.Sprintf("imgupd may not read %s: add `%s` to its ClusterRole", what, ae.Rule())
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return "reading " + what + " timed out"
	}
	return "cannot read " + what + ": " + clip(textutil.Visible(strings.Join(strings.Fields(err.Error()), " ")))
}

// nearestApps returns up to three "ns/app" names closest to name.
func nearestApps(name string, names []string) []string {
	type cand struct {
		n string
		d int
	}
	limit := max(2, len(name)/3)
	var cs []cand
	for _, full := range names {
		_, app, _ := strings.Cut(full, "/")
		d := textutil.Distance(name, app)
		if d <= limit || strings.Contains(app, name) || strings.Contains(name, app) {
			cs = append(cs, cand{full, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].n < cs[j].n
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].n)
	}
	return out
}

package diagnostics

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/imgupd/imgupd/internal/flight"
	"github.com/imgupd/imgupd/internal/hostfail"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/model/updaterlog"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/gitsource"
	"github.com/imgupd/imgupd/sources/helmchart"
)

// Options tune a diagnosis. The zero value gets the defaults.
type Options struct {
	// Timeout bounds the whole diagnosis (default 20 s); what did not finish
	// is reported, never waited for.
	Timeout time.Duration
	// StageTimeout bounds each stage (default 10 s).
	StageTimeout time.Duration
	// LogWindow is how far back Image Updater's logs are read (default 30 min).
	LogWindow time.Duration
	// LogLimit caps the bytes of logs read (default 4 MiB).
	LogLimit int64
	// DefaultVersion is assumed when Image Updater's version cannot be read
	// (default the newest release the model knows).
	DefaultVersion updater.Version
	// ControllerPlatform is the platform Image Updater runs on (default linux/amd64).
	ControllerPlatform updater.Platform
	// ClusterName is shown in the report.
	ClusterName string
	// Now is the clock (default time.Now).
	Now func() time.Time
	// OwnProxy says which proxy imgupd itself uses for a URL (default
	// http.ProxyFromEnvironment); it is compared with Image Updater's.
	OwnProxy func(*http.Request) (*url.URL, error)
	// ArgoCDServiceAccount is the ServiceAccount, in Argo CD's namespace,
	// that reads Argo CD's repository Secrets. Empty (the default): the one
	// Argo CD's application controller runs as (its StatefulSet's or
	// Deployment's serviceAccountName), else argocd-application-controller,
	// as Argo CD's own install names it. Before imgupd reads them for the
	// source stage it asks the API server whether this ServiceAccount may
	// list them.
	ArgoCDServiceAccount string
	// OnStage, when set, is called as each stage that runs begins (a terminal's progress line).
	OnStage func(report.StageInfo)
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 20 * time.Second
	}
	if o.StageTimeout <= 0 {
		o.StageTimeout = 10 * time.Second
	}
	if o.LogWindow <= 0 {
		o.LogWindow = 30 * time.Minute
	}
	if o.LogLimit <= 0 {
		o.LogLimit = 4 << 20
	}
	if o.DefaultVersion == (updater.Version{}) {
		o.DefaultVersion = updater.Latest
	}
	if o.ControllerPlatform == (updater.Platform{}) {
		o.ControllerPlatform = updater.DefaultControllerPlatform
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.OwnProxy == nil {
		o.OwnProxy = http.ProxyFromEnvironment
	}
	return o
}

// Engine runs diagnoses. It holds no state between them: many may run at
// once, and each reads the cluster, git, Helm repositories and registries
// as they are when it runs. Within one diagnosis (or one scope, see Share)
// each repository, branch, chart and host is read once.
type Engine struct {
	Cluster  Cluster
	Registry Registry
	Git      Git
	// Forge (optional) answers whether a write-back branch is protected;
	// without it a push rejection is not verified.
	Forge Forge
	// Charts (optional) reads charts from Helm and OCI repositories;
	// without it their values are not checked.
	Charts  Charts
	Options Options

	// shared: Git and Charts are one scope's already (Share).
	shared bool
	// regConfs is the scope's registries.conf, parsed once (Share).
	regConfs *flight.Group[updater.RegistriesConf]
}

// Share returns a copy of the engine whose diagnoses, run with the
// returned context, share one scope: each git repository's ls-remote,
// snapshot and push check, and each chart, is read once for all of them
// (failures included, except a caller's own deadline), and a host whose
// connection failed (DNS, refused, TLS, proxy, timeout) is met once. The
// scope keeps what it read until it is dropped: make one per fleet scan,
// never one for a server's life. Diagnose makes its own unless the engine
// is a shared one. A Git or Charts that cannot share is used as is.
func (e *Engine) Share(ctx context.Context) (*Engine, context.Context) {
	cp := *e
	cp.shared = true
	cp.regConfs = &flight.Group[updater.RegistriesConf]{}
	if g, ok := e.Git.(interface{ Share() *gitsource.Shared }); ok {
		cp.Git = g.Share()
	}
	if c, ok := e.Charts.(interface{ Share() *helmchart.Shared }); ok {
		cp.Charts = c.Share()
	}
	if hostfail.FromContext(ctx) == nil {
		ctx = hostfail.NewContext(ctx, hostfail.New())
	}
	return &cp, ctx
}

// Request names the Application to diagnose.
type Request struct {
	App       string
	Namespace string
	// UpdaterNamespace is where Image Updater is expected (default argocd);
	// other namespaces are searched when it is not there.
	UpdaterNamespace string
	// UpdaterLog, when set, is Image Updater's log to read instead of its
	// pod's (a cluster that does not grant pods/log, a log store export);
	// it is parsed and redacted the same way.
	UpdaterLog *string
	// SharedLog, when set, is Image Updater's log already read and indexed
	// for many Applications (the fleet scan reads it once), used instead of
	// reading the pod.
	SharedLog *SharedLog
	// Selection, when set, is the target selection already made for the
	// Application (the fleet scan selects every app once, see
	// updater.Selector), used by the target stage instead of selecting
	// again when the CRs and options it reads are the ones it was made
	// from. Without it, or when they differ, the stage selects itself.
	Selection *Selection
}

// Selection is a target selection made before the diagnosis: the
// Targeting, and the CRs (the very list, as the engine's Cluster returns
// it) and options it was made from.
type Selection struct {
	Target  updater.Targeting
	CRs     []updater.ImageUpdater
	Options updater.SelectOptions
}

// targetFor is the selection's Targeting when it was made for app from
// crs (the same list, not an equal one) under opts.
func (s *Selection) targetFor(app updater.Application, crs []updater.ImageUpdater, opts updater.SelectOptions) (updater.Targeting, bool) {
	if s == nil || s.Target.App != app.Key() || s.Target.Version != opts.Version.String() || len(s.CRs) != len(crs) ||
		len(crs) > 0 && &s.CRs[0] != &crs[0] || s.Options.Version != opts.Version ||
		s.Options.ControllerNamespace != opts.ControllerNamespace || !slices.Equal(s.Options.WatchNamespaces, opts.WatchNamespaces) {
		return updater.Targeting{}, false
	}
	return s.Target, true
}

// SharedLog is Image Updater's log read once: its index, where it came
// from, or why it could not be read.
type SharedLog struct {
	Index *updaterlog.Index
	// Window says where the lines came from ("last 30m0s of POD").
	Window string
	// Pod is the pod it was read from; Err why it could not be.
	Pod string
	Err error
}

// ReadSharedLog reads Image Updater's log once, as a diagnosis would (the
// running pod of inst, LogWindow and LogLimit), and indexes it for the
// apps of a fleet scan under version v. It is nil without an installation
// or a pod.
func (e *Engine) ReadSharedLog(ctx context.Context, inst *cluster.UpdaterInstall, v updater.Version) *SharedLog {
	if inst == nil {
		return nil
	}
	pod := updaterPod(inst)
	if pod == nil {
		return nil
	}
	o := e.Options.withDefaults()
	text, err := e.Cluster.PodLogs(ctx, inst.Namespace, pod.Name, inst.Container, o.LogWindow, o.LogLimit)
	if err != nil {
		return &SharedLog{Pod: pod.Name, Err: err}
	}
	return &SharedLog{Index: updaterlog.NewIndex(updaterlog.ParseString(text), v), Window: logWindow(o, pod.Name), Pod: pod.Name}
}

// updaterPod is the Image Updater pod whose log a diagnosis reads (a ready
// one, else any): the fleet scan reads it once for all apps.
func updaterPod(inst *cluster.UpdaterInstall) *cluster.Pod {
	var pod *cluster.Pod
	for i := range inst.Pods {
		if inst.Pods[i].Ready || pod == nil {
			pod = &inst.Pods[i]
		}
	}
	return pod
}

// logWindow says where the log lines came from.
func logWindow(o Options, pod string) string { return fmt.Sprintf("last %s of %s", o.LogWindow, pod) }

// DefaultArgoCDServiceAccount is the ServiceAccount Argo CD's own install
// runs its application controller as; it reads the repository Secrets.
const DefaultArgoCDServiceAccount = "argocd-application-controller"

// registriesConf is updater.ParseRegistriesConfFor, once per scope (Share)
// for the same bytes and version: every app of a fleet scan reads the same
// ConfigMap (a YAML parse and a strict one, about 0.3 ms, for each of
// thousands of apps). The parsed value is read-only. A caller waits for a
// parse under way whatever its deadline: it is bounded CPU work, and an
// error of the caller's own must not read as a file that does not parse.
func (e *Engine) registriesConf(data []byte, v updater.Version) (updater.RegistriesConf, error) {
	if e.regConfs == nil {
		return updater.ParseRegistriesConfFor(data, v)
	}
	return e.regConfs.Do(context.Background(), v.String()+"\x00"+string(data), func() (updater.RegistriesConf, error) {
		return updater.ParseRegistriesConfFor(data, v)
	})
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
	"k8s.io/klog/v2"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/clusters"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/sources/cluster"
)

// serveOptions are the flags of `imgupd serve`. Tokens are not flags: a
// command line shows in `ps` and shell history.
type serveOptions struct {
	listen           string
	kube             cluster.ConfigOptions
	clusterName      string
	namespace        string
	updaterNamespace string
	logFormat        string
	logLevel         string
	maxConcurrent    int
	maxPerUser       int
	timeout          time.Duration
	shutdownTimeout  time.Duration
	labScenario      string
	leaderElect      bool
	leaseNamespace   string
	leaseName        string
	stateConfigMap   string
	forges           []string
	argoCDSA         string
}

func newServeCmd(v *viper.Viper, io streams, lookupEnv func(string) (string, bool)) *cobra.Command {
	o := &serveOptions{}
	cmd := fromTable("serve", &cobra.Command{
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(cmd.Context(), o, v, io, lookupEnv)
		},
	})
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", ":8080", "address of /healthz, /readyz and /metrics")
	f.StringVar(&o.kube.Kubeconfig, "kubeconfig", "", "kubeconfig (default: KUBECONFIG, ~/.kube/config, else in-cluster)")
	f.StringVar(&o.kube.Context, "context", "", "kubeconfig context")
	f.StringVar(&o.clusterName, "cluster", "", "this cluster's name, shown in reports; a command's --cluster must match it")
	f.StringVarP(&o.namespace, "namespace", "n", "argocd", "where Applications are looked for when a command names no namespace")
	f.StringVar(&o.updaterNamespace, "updater-namespace", "argocd", "where Image Updater runs (other namespaces are searched if it is not there)")
	f.StringVar(&o.logFormat, "log-format", "auto", "log format: json, text, or auto (json in a cluster)")
	f.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	f.IntVar(&o.maxConcurrent, "max-concurrent", 16, "commands carried out at once; more wait their turn")
	f.IntVar(&o.maxPerUser, "max-concurrent-per-user", bot.DefaultMaxConcurrentPerUser, "diagnoses and summaries one person may have running or waiting at once; more are answered \"busy\"")
	f.DurationVar(&o.timeout, "timeout", 20*time.Second, "deadline for one diagnosis")
	f.DurationVar(&o.shutdownTimeout, "shutdown-timeout", 25*time.Second, "on SIGTERM, how long in-flight commands may finish")
	f.StringVar(&o.labScenario, "lab", "", "answer from an embedded lab scenario (name or file) instead of a cluster")
	f.BoolVar(&o.leaderElect, "leader-elect", false, "run several replicas: only the one holding the Lease connects to Slack, the others wait")
	f.StringVar(&o.leaseNamespace, "leader-election-namespace", "", "namespace of the Lease (default: POD_NAMESPACE, else imgupd)")
	f.StringVar(&o.leaseName, "leader-election-name", "imgupd", "name of the Lease")
	f.StringVar(&o.stateConfigMap, "summaries-configmap", bot.DefaultStateConfigMap, "ConfigMap (in the Lease's namespace) where the scheduled summaries keep their messages and states")
	f.StringArrayVar(&o.forges, "forge", nil, forgeFlagHelp)
	f.StringVar(&o.argoCDSA, "argocd-service-account", "", argoCDSAHelp)
	return cmd
}

func runServe(ctx context.Context, o *serveOptions, v *viper.Viper, io streams, lookupEnv func(string) (string, bool)) error {
	fail := func(err error) error { return &exitError{code: exitNoDecide, err: err} }
	log, err := newLogger(io.Err, o.logFormat, o.logLevel, lookupEnv)
	if err != nil {
		return fail(err)
	}
	// client-go (leader election, request throttling) logs through klog, a
	// process-wide logger: route it into ours so the cluster sees one format.
	// Set once here, before any client-go goroutine starts.
	klog.SetSlogLogger(log.With("source", "client-go"))
	audit := slog.New(slog.NewJSONHandler(io.Out, nil)).With("log", "audit")

	if o.clusterName != "" && !commands.ValidClusterName(o.clusterName) {
		return fail(fmt.Errorf("--cluster %q: use lower-case letters, digits, - and . (commands name it with --cluster)", o.clusterName))
	}
	if o.maxPerUser < 1 {
		return fail(fmt.Errorf("--max-concurrent-per-user %d: want at least 1 (one person's diagnoses and summaries at once)", o.maxPerUser))
	}
	policy, err := loadPolicy(v)
	if err != nil {
		return fail(err)
	}
	schedules, err := loadSchedules(v, policy)
	if err != nil {
		return fail(err)
	}
	if slackCfg, ok := v.Get("slack").(map[string]any); ok {
		for k := range slackCfg {
			if k != "bot-token" && k != "app-token" {
				return fail(fmt.Errorf("config slack.%s: unknown key (slack.bot-token and slack.app-token are the only ones)", k))
			}
		}
	}
	botToken, appToken := secretSetting(v, lookupEnv, "IMGUPD_SLACK_BOT_TOKEN", "slack.bot-token"), secretSetting(v, lookupEnv, "IMGUPD_SLACK_APP_TOKEN", "slack.app-token")

	specs, err := loadClusters(v)
	if err != nil {
		return fail(err)
	}
	names := clusters.Names(specs)
	if len(specs) == 0 && o.clusterName != "" {
		names = []string{o.clusterName}
	}
	if err := policy.CheckClusters(names); err != nil {
		return fail(fmt.Errorf("config: %w", err))
	}
	if ps := scheduleClusterProblems(schedules, clusters.Names(specs)); len(ps) > 0 {
		return fail(fmt.Errorf("config %s: %s", ps[0].Key, ps[0].Message))
	}
	var svc *commands.Service
	if len(specs) > 0 {
		switch {
		case o.labScenario != "":
			return fail(errors.New("--lab answers from one lab scenario: leave the configuration's clusters: out, or --lab"))
		case o.clusterName != "":
			return fail(errors.New("--cluster names imgupd's one cluster; with a clusters: section each cluster has its name there: leave --cluster out"))
		}
		members, open, err := serveClusters(ctx, o, specs, lookupEnv)
		if err != nil {
			return fail(err)
		}
		svc = &commands.Service{Policy: policy, Reopen: func(ctx context.Context, name string) (commands.Cluster, error) {
			i := slices.IndexFunc(specs, func(s clusters.Spec) bool { return s.Name == name })
			if i < 0 {
				return commands.Cluster{}, fmt.Errorf("cluster %s: not in the configuration", name)
			}
			m := open(ctx, specs[i:i+1])[0]
			if m.Err == nil {
				log.Info("a cluster that could not be read connects now", "cluster", name)
			}
			return serviceCluster(m), nil
		}}
		for _, m := range members {
			if m.Err != nil {
				log.Warn("a cluster cannot be read: its apps are unknown; imgupd tries it again when asked, at most every "+commands.DefaultReopenEvery.String(),
					"cluster", m.Name(), "reason", m.Err.Error())
			}
			svc.Clusters = append(svc.Clusters, serviceCluster(m))
		}
	} else {
		eng, closeSrc, err := serveEngine(ctx, o)
		if err != nil {
			return fail(err)
		}
		defer closeSrc()
		svc = &commands.Service{Apps: eng.Cluster, Engine: eng, Policy: policy, DefaultNamespace: o.namespace,
			UpdaterNamespace: o.updaterNamespace, Cluster: o.clusterName,
			Fleet: &fleet.Scanner{Engine: eng, UpdaterNamespace: o.updaterNamespace}}
	}
	var state bot.StateStore
	if len(schedules) > 0 {
		if state, err = stateStore(o, lookupEnv, log); err != nil {
			return fail(err)
		}
	}
	b := bot.New(bot.Config{
		BotToken: bot.Secret(botToken), AppToken: bot.Secret(appToken), APIURL: lookupOr(lookupEnv, "IMGUPD_SLACK_API_URL", ""),
		Service: svc, MaxConcurrent: o.maxConcurrent, MaxConcurrentPerUser: o.maxPerUser, ShutdownTimeout: o.shutdownTimeout, Log: log, Audit: audit,
		Schedules: schedules, State: state,
	})

	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fail(fmt.Errorf("--listen %s: %w", o.listen, err))
	}
	opsCtx, stopOps := context.WithCancel(context.WithoutCancel(ctx))
	opsDone := make(chan error, 1)
	go func() { opsDone <- bot.ServeOps(opsCtx, ln, bot.OpsHandler(b.Health(), b.Metrics()), log) }()
	log.Info("imgupd serve starting", "listen", ln.Addr().String(), "cluster", o.clusterName, "clusters", names, "rules", len(policy.Rules), "dms", policy.AllowDMs,
		"schedules", len(schedules),
		"required_scopes", bot.RequiredScopes(bot.Config{Service: svc}))
	var runErr error
	if o.leaderElect {
		lc, lerr := leaderConfig(o, lookupEnv, log)
		if lerr != nil {
			stopOps()
			<-opsDone
			return fail(lerr)
		}
		runErr = b.RunAsLeader(ctx, lc)
	} else {
		runErr = b.Run(ctx)
	}
	stopOps()
	opsErr := <-opsDone
	if errors.Is(runErr, bot.ErrLostLease) {
		return &exitError{code: 1, err: runErr}
	}
	if runErr != nil {
		return fail(runErr)
	}
	if opsErr != nil {
		return fail(opsErr)
	}
	log.Info("imgupd serve stopped")
	return nil
}

// leaderConfig is the Lease of --leader-elect, in the cluster of
// --kubeconfig (or in-cluster).
func leaderConfig(o *serveOptions, lookupEnv func(string) (string, bool), log *slog.Logger) (bot.LeaderConfig, error) {
	if o.labScenario != "" && o.kube.Kubeconfig == "" {
		if _, ok := lookupEnv("KUBERNETES_SERVICE_HOST"); !ok {
			return bot.LeaderConfig{}, errors.New("--leader-elect needs a cluster for its Lease: give --kubeconfig, or leave --leader-elect off with --lab")
		}
	}
	kc, err := ownClient(o, "leader election")
	if err != nil {
		return bot.LeaderConfig{}, err
	}
	ns := ownNamespace(o, lookupEnv)
	host := lookupOr(lookupEnv, "POD_NAME", "")
	if host == "" {
		host, _ = os.Hostname()
	}
	// A unique suffix: a restarted pod with the same name must not inherit
	// its predecessor's Lease before it expires.
	return bot.LeaderConfig{Client: kc.CoordinationV1(), Namespace: ns, Name: o.leaseName,
		Identity: host + "_" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36), Log: log}, nil
}

// ownClient is a client of the cluster imgupd runs in (--kubeconfig, or in-cluster), for its own
// objects: the Lease and the schedules' ConfigMap.
func ownClient(o *serveOptions, what string) (*cluster.Clients, error) {
	cfg, err := cluster.RESTConfig(o.kube)
	if err != nil {
		return nil, err
	}
	kc, err := cluster.NewClients(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s client: %w", what, err)
	}
	return kc, nil
}

// ownNamespace is imgupd's own namespace: --leader-election-namespace, POD_NAMESPACE, else imgupd.
func ownNamespace(o *serveOptions, lookupEnv func(string) (string, bool)) string {
	if o.leaseNamespace != "" {
		return o.leaseNamespace
	}
	return lookupOr(lookupEnv, "POD_NAMESPACE", "imgupd")
}

// stateStore is where the schedules keep their state: the ConfigMap --summaries-configmap in
// imgupd's namespace; with --lab and no cluster, the process's memory (lost on restart).
func stateStore(o *serveOptions, lookupEnv func(string) (string, bool), log *slog.Logger) (bot.StateStore, error) {
	if o.labScenario != "" && o.kube.Kubeconfig == "" {
		if _, ok := lookupEnv("KUBERNETES_SERVICE_HOST"); !ok {
			log.Warn("--lab without a cluster: the schedules keep their state in memory; a restart posts new summaries")
			return &bot.MemoryStore{}, nil
		}
	}
	if !validDNSName(o.stateConfigMap) {
		return nil, fmt.Errorf("--summaries-configmap %q is not a ConfigMap name (lower-case letters, digits, - and .)", o.stateConfigMap)
	}
	kc, err := ownClient(o, "scheduled summaries")
	if err != nil {
		return nil, fmt.Errorf("the schedules keep their state in a ConfigMap: %w", err)
	}
	return &bot.ConfigMapStore{Client: kc.CoreV1(), Namespace: ownNamespace(o, lookupEnv), Name: o.stateConfigMap}, nil
}

func validDNSName(s string) bool { return commands.ValidClusterName(s) }

// serveEngine reads the cluster, or a lab scenario.
func serveEngine(ctx context.Context, o *serveOptions) (*diagnostics.Engine, func(), error) {
	if o.labScenario != "" {
		sc, ok := lab.Builtin(o.labScenario)
		if !ok {
			var err error
			if sc, err = lab.LoadFile(o.labScenario); err != nil {
				return nil, nil, fmt.Errorf("--lab %s: neither a built-in scenario nor a readable file: %w", o.labScenario, err)
			}
		}
		env, err := lab.Start(ctx, sc)
		if err != nil {
			return nil, nil, err
		}
		if o.clusterName == "" {
			o.clusterName = "lab"
		}
		eng := env.Engine()
		eng.Options.ClusterName = o.clusterName
		eng.Options.Timeout = o.timeout
		return eng, env.Close, nil
	}
	forges, err := parseForges(o.forges)
	if err != nil {
		return nil, nil, err
	}
	eng, err := clusterEngine(o.kube, o.timeout, o.clusterName, forges)
	if err != nil {
		return nil, nil, err
	}
	eng.Options.ArgoCDServiceAccount = o.argoCDSA
	return eng, func() {}, nil
}

// loadPolicy reads the access section strictly: an unknown key is an error
// (a typo in an access rule must not widen or silently narrow access).
func loadPolicy(v *viper.Viper) (*commands.Policy, error) {
	p := &commands.Policy{}
	if err := v.UnmarshalKey("access", p, func(c *mapstructure.DecoderConfig) { c.ErrorUnused = true }); err != nil {
		return nil, fmt.Errorf("config access: %w", err)
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if len(p.Rules) == 0 {
		return nil, errors.New("config access.rules is empty: nobody could use the bot; add a rule (see config.example.yaml), e.g. channels: [\"#deploys\"]")
	}
	return p, nil
}

// secretSetting reads a token from the environment, else the config file.
func secretSetting(v *viper.Viper, lookupEnv func(string) (string, bool), env, key string) string {
	if s, ok := lookupEnv(env); ok && strings.TrimSpace(s) != "" {
		return strings.TrimSpace(s)
	}
	return strings.TrimSpace(v.GetString(key))
}

func lookupOr(lookupEnv func(string) (string, bool), key, def string) string {
	if s, ok := lookupEnv(key); ok && s != "" {
		return s
	}
	return def
}

// newLogger builds the operational logger: JSON in a cluster (or when
// asked), text on a terminal.
func newLogger(w io.Writer, format, level string, lookupEnv func(string) (string, bool)) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	if format == "auto" {
		format = "text"
		if _, inCluster := lookupEnv("KUBERNETES_SERVICE_HOST"); inCluster {
			format = "json"
		}
	}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want json, text or auto", format)
}

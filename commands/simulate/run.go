package simulate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/model/updater"
	simulate "github.com/imgupd/imgupd/simulate"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/registry"
)

// Options are simulate's: the image and its flags.
type Options struct {
	Image              string
	Strategy           string
	Constraint         string
	ConstraintSet      bool
	AllowTags          string
	IgnoreTags         []string
	Platforms          []string
	Credentials        string
	RegistriesConfPath string
	RateLimit          float64
	CurrentTag         string
	CurrentTagSet      bool
	UpdaterVersion     string
	PlainHTTP          bool
	Insecure           bool
	All                bool
	Timeout            time.Duration
	Concurrency        int
	Kube               cluster.ConfigOptions
}

// Term is how the terminal runs simulate with run (Run, or a test's).
func Term(run func(context.Context, Options, command.IO) (command.Answer, error)) *command.Term {
	return command.TermOf(command.AnswerSimulation, 1, 1, Flags, func(fs *pflag.FlagSet, o *Options, args []string) {
		o.Image = args[0]
		o.ConstraintSet = fs.Changed("semver-constraint") || o.Constraint != ""
		o.CurrentTagSet = fs.Changed("current-tag") || o.CurrentTag != ""
	}, run)
}

// Flags defines simulate's flags (all but -o) into o.
func Flags(f *pflag.FlagSet, o *Options) {
	f.StringVar(&o.Strategy, "update-strategy", "semver", "update strategy: semver, newest-build, alphabetical or digest")
	f.StringVar(&o.Constraint, "semver-constraint", "", "version constraint (default: the tag part of IMAGE)")
	f.StringVar(&o.AllowTags, "allow-tags", "", "only consider tags matching this: 'regexp:<re>' or 'any'")
	f.StringArrayVar(&o.IgnoreTags, "ignore-tags", nil, "ignore tags matching this glob (repeatable)")
	f.StringSliceVar(&o.Platforms, "platforms", nil, "platforms for newest-build and digest (default: the controller's, linux/amd64)")
	f.StringVar(&o.Credentials, "credentials", "", "credentials: pullsecret:ns/name, secret:ns/name#field, env:VAR or ext:/path (user:pass); overrides registries.conf")
	f.StringVar(&o.RegistriesConfPath, "registries-conf-path", "", "path to Image Updater's registries.conf")
	f.Float64Var(&o.RateLimit, "rate-limit", 0, "registry requests per second (default: the registry's limit)")
	f.StringVar(&o.CurrentTag, "current-tag", "", "the tag running now, to decide whether an update follows")
	f.StringVar(&o.UpdaterVersion, "updater-version", updater.Latest.Short(), "Image Updater version whose behaviour to reproduce (v0.18, v1.0 ... v1.3)")
	f.BoolVar(&o.PlainHTTP, "plain-http", false, "talk to the registry over plain HTTP")
	f.BoolVar(&o.Insecure, "insecure", false, "skip TLS certificate verification")
	f.BoolVar(&o.All, "all", false, "text output: list every tag instead of the top and a summary")
	f.DurationVar(&o.Timeout, "timeout", 2*time.Minute, "give up after this long")
	f.IntVar(&o.Concurrency, "concurrency", 8, "concurrent metadata fetches")
	f.StringVar(&o.Kube.Kubeconfig, "kubeconfig", "", "kubeconfig for pullsecret: and secret: credentials (default: KUBECONFIG, ~/.kube/config, in-cluster)")
	f.StringVar(&o.Kube.Context, "context", "", "kubeconfig context")
}

// Run lists the image's tags from its registry and runs Image Updater's tag selection on them.
func Run(ctx context.Context, o Options, _ command.IO) (command.Answer, error) {
	ver, err := updater.ParseVersion(o.UpdaterVersion)
	if err != nil {
		return nil, command.Exit(64, fmt.Errorf("--updater-version: %w", err))
	}
	req := simulate.Request{
		Image: o.Image, Strategy: o.Strategy, AllowTags: o.AllowTags, IgnoreTags: o.IgnoreTags,
		Platforms: o.Platforms, Credentials: o.Credentials, RateLimit: o.RateLimit,
		Version: ver, PlainHTTP: o.PlainHTTP, Insecure: o.Insecure,
	}
	if o.ConstraintSet {
		req.Constraint = &o.Constraint
	}
	if o.CurrentTagSet {
		req.CurrentTag = &o.CurrentTag
	}
	if o.RegistriesConfPath != "" {
		data, err := os.ReadFile(o.RegistriesConfPath)
		if err != nil {
			return nil, command.Exit(2, fmt.Errorf("--registries-conf-path: %w", err))
		}
		req.RegistriesConf = data
	}
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	runner := &simulate.Runner{
		Options: []registry.Option{registry.WithConcurrency(o.Concurrency)},
		Creds:   &clusterCredentials{opts: o.Kube},
	}
	res, err := runner.Run(ctx, req)
	if err != nil {
		var re *simulate.RegistryError
		if errors.As(err, &re) {
			return nil, command.Exit(2, fmt.Errorf("%s — %s", re.Error(), re.Hint()))
		}
		return nil, command.Exit(2, err)
	}
	return Answer{Result: res, All: o.All}, nil
}

// Answer is a simulation to print: every tag's fate; All, in text, lists every tag.
type Answer struct {
	Result simulate.Result
	All    bool
}

func (Answer) AnswerKind() command.AnswerKind { return command.AnswerSimulation }

// Exit is 1 when Image Updater fails the image, once the answer is printed.
func (a Answer) Exit() error {
	if d := a.Result.Decision; d.Err != nil {
		return command.Exit(1, fmt.Errorf("Image Updater fails this image: %s", d.Err.Log))
	}
	return nil
}

// clusterCredentials resolves env: and ext: locally and reads pullsecret: and
// secret: references from the cluster, connecting only when one is used.
type clusterCredentials struct {
	simulate.LocalCredentials
	opts    cluster.ConfigOptions
	secrets *cluster.Secrets
}

func (c *clusterCredentials) Secret(ctx context.Context, ns, name string) (map[string][]byte, error) {
	if c.secrets == nil {
		cs, err := cluster.NewClientset(c.opts)
		if err != nil {
			return nil, fmt.Errorf("reading secret %s/%s: %w", ns, name, err)
		}
		c.secrets = &cluster.Secrets{Client: cs.CoreV1()}
	}
	return c.secrets.Secret(ctx, ns, name)
}

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/simulate"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/registry"
)

// simulateOptions are the flags of `imgupd simulate`.
type simulateOptions struct {
	image              string
	strategy           string
	constraint         string
	constraintSet      bool
	allowTags          string
	ignoreTags         []string
	platforms          []string
	credentials        string
	registriesConfPath string
	rateLimit          float64
	currentTag         string
	currentTagSet      bool
	updaterVersion     string
	plainHTTP          bool
	insecure           bool
	output             string
	all                bool
	timeout            time.Duration
	concurrency        int
	kube               cluster.ConfigOptions
}

func newSimulateCmd(v *viper.Viper, io streams) *cobra.Command {
	o := &simulateOptions{}
	cmd := fromTable("simulate", &cobra.Command{
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.image = args[0]
			o.constraintSet = cmd.Flags().Changed("semver-constraint") || o.constraint != ""
			o.currentTagSet = cmd.Flags().Changed("current-tag") || o.currentTag != ""
			return runSimulate(cmd.Context(), o, io)
		},
	})
	f := cmd.Flags()
	f.StringVar(&o.strategy, "update-strategy", "semver", "update strategy: semver, newest-build, alphabetical or digest")
	f.StringVar(&o.constraint, "semver-constraint", "", "version constraint (default: the tag part of IMAGE)")
	f.StringVar(&o.allowTags, "allow-tags", "", "only consider tags matching this: 'regexp:<re>' or 'any'")
	f.StringArrayVar(&o.ignoreTags, "ignore-tags", nil, "ignore tags matching this glob (repeatable)")
	f.StringSliceVar(&o.platforms, "platforms", nil, "platforms for newest-build and digest (default: the controller's, linux/amd64)")
	f.StringVar(&o.credentials, "credentials", "", "credentials: pullsecret:ns/name, secret:ns/name#field, env:VAR or ext:/path (user:pass); overrides registries.conf")
	f.StringVar(&o.registriesConfPath, "registries-conf-path", "", "path to Image Updater's registries.conf")
	f.Float64Var(&o.rateLimit, "rate-limit", 0, "registry requests per second (default: the registry's limit)")
	f.StringVar(&o.currentTag, "current-tag", "", "the tag running now, to decide whether an update follows")
	f.StringVar(&o.updaterVersion, "updater-version", updater.Latest.Short(), "Image Updater version whose behaviour to reproduce (v0.18, v1.0 ... v1.3)")
	f.BoolVar(&o.plainHTTP, "plain-http", false, "talk to the registry over plain HTTP")
	f.BoolVar(&o.insecure, "insecure", false, "skip TLS certificate verification")
	formatsOf(answerSimulation).flag(cmd, &o.output, "output format: %s")
	f.BoolVar(&o.all, "all", false, "text output: list every tag instead of the top and a summary")
	f.DurationVar(&o.timeout, "timeout", 2*time.Minute, "give up after this long")
	f.IntVar(&o.concurrency, "concurrency", 8, "concurrent metadata fetches")
	f.StringVar(&o.kube.Kubeconfig, "kubeconfig", "", "kubeconfig for pullsecret: and secret: credentials (default: KUBECONFIG, ~/.kube/config, in-cluster)")
	f.StringVar(&o.kube.Context, "context", "", "kubeconfig context")
	return cmd
}

func runSimulate(ctx context.Context, o *simulateOptions, io streams) error {
	out := formatsOf(answerSimulation)
	if err := out.check(o.output); err != nil {
		return usageError(err)
	}
	ver, err := updater.ParseVersion(o.updaterVersion)
	if err != nil {
		return usageError(fmt.Errorf("--updater-version: %w", err))
	}
	req := simulate.Request{
		Image: o.image, Strategy: o.strategy, AllowTags: o.allowTags, IgnoreTags: o.ignoreTags,
		Platforms: o.platforms, Credentials: o.credentials, RateLimit: o.rateLimit,
		Version: ver, PlainHTTP: o.plainHTTP, Insecure: o.insecure,
	}
	if o.constraintSet {
		req.Constraint = &o.constraint
	}
	if o.currentTagSet {
		req.CurrentTag = &o.currentTag
	}
	if o.registriesConfPath != "" {
		data, err := os.ReadFile(o.registriesConfPath)
		if err != nil {
			return &exitError{code: exitNoDecide, err: fmt.Errorf("--registries-conf-path: %w", err)}
		}
		req.RegistriesConf = data
	}
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	runner := &simulate.Runner{
		Options: []registry.Option{registry.WithConcurrency(o.concurrency)},
		Creds:   &clusterCredentials{opts: o.kube},
	}
	res, err := runner.Run(ctx, req)
	if err != nil {
		var re *simulate.RegistryError
		if errors.As(err, &re) {
			return &exitError{code: exitNoDecide, err: fmt.Errorf("%s — %s", re.Error(), re.Hint())}
		}
		return &exitError{code: exitNoDecide, err: err}
	}
	if err := out.write(io, o.output, simulateOutput{result: res, all: o.all}); err != nil {
		return &exitError{code: exitNoDecide, err: err}
	}
	if d := res.Decision; d.Err != nil {
		return &exitError{code: exitFinding, err: fmt.Errorf("Image Updater fails this image: %s", d.Err.Log)}
	}
	return nil
}

// simulateOutput is a simulation to print: the pick and a summary (every
// tag with all, in text), or every tag's fate as JSON.
type simulateOutput struct {
	result simulate.Result
	all    bool
}

func (simulateOutput) AnswerKind() answerKind { return answerSimulation }

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
		c.secrets = &cluster.Secrets{Client: cs}
	}
	return c.secrets.Secret(ctx, ns, name)
}

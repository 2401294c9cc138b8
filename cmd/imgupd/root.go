package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/internal/textutil"
)

// streams are the command's I/O, swapped for buffers in tests.
type streams struct {
	In       io.Reader
	Out, Err io.Writer
	// cluster is what diagnose, summary and where read (nil: kubeCluster).
	cluster command.Cluster
	// clusters are the configuration's clusters: section (--cluster NAME; nil: none).
	clusters command.ClusterSet
	// term is what text on Out may do (width, colour), decided once the
	// flags are read (color.go); nil is neither.
	term *terminal
}

// command is what a command's Run is given: its input, where the progress line goes and the
// cluster it reads (kubeCluster); fromTerm adds the progress line of its table entry.
func (io streams) command() command.IO {
	c := io.cluster
	if c == nil {
		c = kubeCluster{}
	}
	return command.IO{In: io.In, Err: io.Err, Cluster: c, Clusters: io.clusters}
}

// Exit statuses, documented in docs/cli.md. 0 to 6 are a report's states
// (report.State.ExitCode); the statuses from 64 are sysexits.h's, for what
// stopped imgupd before it could answer, so that none is read as a state.
const (
	exitOK       = 0 // decided / healthy
	exitFinding  = 1 // a decision that Image Updater fails or skips the image
	exitNoDecide = 2 // could not decide: unreachable registry, a scenario that could not run...
	// exitUsage (EX_USAGE): a flag, argument or command imgupd does not take.
	exitUsage = 64
	// exitUnreachable (EX_UNAVAILABLE): the Kubernetes API server could not be reached.
	exitUnreachable = 69
	// exitNoPermission (EX_NOPERM): RBAC forbids imgupd the read it starts with.
	exitNoPermission = 77
	// exitConfig (EX_CONFIG): imgupd's config file, or the kubeconfig (none usable, or its
	// credentials refused by the API server: 401).
	exitConfig = 78
)

// usageError is a flag, argument or command imgupd does not take (exit 64).
func usageError(err error) error { return &exitError{code: exitUsage, err: err} }

// exitError carries an exit status through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// rootOptions are what the command tree is built with besides its I/O.
type rootOptions struct {
	// cluster is the cluster diagnose, summary and where read (default kubeCluster).
	cluster command.Cluster
}

// rootOption sets a rootOption.
type rootOption func(*rootOptions)

// withScanEngine makes summary, where and diagnose read with e (a lab fleet's, in tests).
func withScanEngine(e func(context.Context) (*diagnostics.Engine, error)) rootOption {
	return func(o *rootOptions) { o.cluster = labCluster{engine: e} }
}

// run builds the command tree and executes it; it returns the exit status.
func run(ctx context.Context, args []string, io streams, lookupEnv func(string) (string, bool), opts ...rootOption) int {
	return runAs(ctx, "imgupd", args, io, lookupEnv, opts...)
}

// runAs is run for the command as it was started: "imgupd", or "kubectl imgupd" as a kubectl
// plugin (commandName), which help, usage and errors then name.
func runAs(ctx context.Context, name string, args []string, io streams, lookupEnv func(string) (string, bool), opts ...rootOption) int {
	v := viper.New()
	root := newRootCmd(v, io, lookupEnv, opts...)
	setDisplayName(root, name)
	root.SetArgs(args)
	root.SetOut(io.Out)
	root.SetErr(io.Err)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(io.Err, name+": "+oneLine(ee.err.Error()))
		}
		return ee.code
	}
	// Every command returns an exitError; what else reaches here is cobra's
	// own refusal of the command line (an unknown command or flag, a wrong
	// number of arguments).
	fmt.Fprintln(io.Err, name+": "+oneLine(err.Error()))
	return exitUsage
}

func newRootCmd(v *viper.Viper, io streams, lookupEnv func(string) (string, bool), opts ...rootOption) *cobra.Command {
	ro := rootOptions{cluster: kubeCluster{}}
	for _, o := range opts {
		o(&ro)
	}
	io.cluster = ro.cluster
	io.clusters = &configClusters{v: v, lookupEnv: lookupEnv}
	io, decideTerm := withTerminal(io, lookupEnv)
	root := &cobra.Command{
		Use:           "imgupd",
		Short:         "Explain why Argo CD Image Updater did not update an application",
		SilenceUsage:  true,
		SilenceErrors: true,
		Long: `imgupd says whether the tag Argo CD Image Updater should pick reaches the cluster and, if not,
what stops it and how to fix it: it reads the cluster (Argo CD's Applications, Image Updater and
its CRs, their Secrets as Image Updater may), the registries and git, as Image Updater does.`,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if err := bindConfig(cmd, v, lookupEnv); err != nil {
				return err
			}
			return decideTerm(cmd)
		},
	}
	root.PersistentFlags().String("config", "", "config file (YAML); see config.example.yaml")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	addColorFlag(root)
	// The terminal's commands are the command table's (commands.Table).
	build := terminalCommands()
	env := cmdEnv{v: v, io: io, lookupEnv: lookupEnv}
	for _, s := range commands.Table() {
		if !s.In(commands.Terminal) || strings.Contains(s.Name, " ") {
			continue // a subcommand is its parent's (config check)
		}
		if newCmd, ok := build[s.Name]; ok {
			root.AddCommand(newCmd(env))
		} else if s.Term != nil {
			root.AddCommand(fromTerm(s, io, nil))
		}
	}
	return root
}

// bindConfig lets every flag also come from the config file and from
// IMGUPD_<FLAG> environment variables (flag > env > file > default).
func bindConfig(cmd *cobra.Command, v *viper.Viper, lookupEnv func(string) (string, bool)) error {
	if path, _ := cmd.Flags().GetString("config"); path != "" {
		v.SetConfigFile(path)
		if err := v.ReadInConfig(); err != nil {
			return &exitError{code: exitConfig, err: fmt.Errorf("reading config %s: %w", path, err)}
		}
		if err := checkConfigKeys(cmd, v); err != nil {
			return &exitError{code: exitConfig, err: fmt.Errorf("config %s: %w", path, err)}
		}
	}
	var bindErr error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Changed || f.Name == "config" {
			return
		}
		key := cmd.Name() + "." + f.Name
		env := "IMGUPD_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if val, ok := lookupEnv(env); ok {
			bindErr = errors.Join(bindErr, setFlag(cmd, f, val, env))
			return
		}
		if v.IsSet(key) {
			if sv, ok := f.Value.(pflag.SliceValue); ok {
				bindErr = errors.Join(bindErr, sv.Replace(v.GetStringSlice(key)))
				return
			}
			bindErr = errors.Join(bindErr, setFlag(cmd, f, v.GetString(key), "config "+key))
		}
	})
	if bindErr != nil {
		return usageError(bindErr)
	}
	return nil
}

// checkConfigKeys refuses keys in the running command's section that are
// not its flags: a misspelt key must not be ignored in silence.
func checkConfigKeys(cmd *cobra.Command, v *viper.Viper) error {
	section, ok := v.Get(cmd.Name()).(map[string]any)
	if !ok {
		return nil
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	keys := make([]string, 0, len(section))
	for k := range section {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs []error
	for _, key := range keys {
		if cmd.Flags().Lookup(key) != nil && key != "config" {
			continue
		}
		e := fmt.Errorf("%s.%s is not a setting of %q", cmd.Name(), key, cmd.Name())
		if near := nearest(key, names); near != "" {
			e = fmt.Errorf("%w; did you mean %s.%s?", e, cmd.Name(), near)
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

func setFlag(cmd *cobra.Command, f *pflag.Flag, val, from string) error {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		return sv.Replace(splitList(val))
	}
	if err := cmd.Flags().Set(f.Name, val); err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	return nil
}

func splitList(s string) []string {
	s = strings.Trim(strings.TrimSpace(s), "[]")
	if s == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// oneLine is an error message on one line with nothing hidden: errors
// carry text a registry, git or the API server wrote.
func oneLine(s string) string { return textutil.Visible(textutil.OneLine(s)) }

// nearest is the closest of candidates to s, or "" when even that is more
// than half of s (plus two) away.
func nearest(s string, candidates []string) string {
	return textutil.NearestOne(s, candidates, func(_ string, d int) bool { return d <= len(s)/2+2 })
}

// Package simulate answers "what would Image Updater pick for this image right
// now?": it resolves the registry endpoint and credentials as Image Updater
// would, reads the real tag list and the metadata the strategy needs, and runs
// the updater model. It is the engine of `imgupd simulate` and of the
// diagnosis's candidates stage.
package simulate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/imgupd/imgupd/model/advice"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/sources/registry"
)

// Request describes one simulation, in the terms of `argocd-image-updater test`.
type Request struct {
	// Image is "[registry/]name[:constraint]".
	Image string
	// Constraint overrides the constraint taken from Image's tag part; nil
	// means "use the tag part".
	Constraint *string
	Strategy   string
	AllowTags  string
	IgnoreTags []string
	// Platforms for metadata strategies; empty means the controller's
	// platform (ControllerPlatform, default linux/amd64).
	Platforms          []string
	ControllerPlatform updater.Platform
	// Credentials is a credential reference overriding the registry's.
	Credentials string
	// RegistriesConf is the content of a registries.conf, nil for none.
	RegistriesConf []byte
	// RateLimit overrides the endpoint's requests/second when > 0.
	RateLimit float64
	// CurrentTag is the running tag, nil when unknown.
	CurrentTag *string
	Version    updater.Version
	// PlainHTTP and Insecure override the endpoint's transport.
	PlainHTTP, Insecure bool
}

// Result is the decision with the context it was made in.
type Result struct {
	Endpoint   updater.Endpoint
	Resolution updater.Resolution
	Repository string
	// APIURL is the registry API actually contacted (after --plain-http).
	APIURL string
	// CredentialsUsed describes the credential source (never the secret).
	CredentialsUsed string
	Decision        updater.Decision
	// Timing of the registry work and of the model.
	ListTook, MetadataTook, ModelTook time.Duration
	Stats                             registry.Stats
}

// InputError is a request that cannot be simulated as given.
type InputError struct {
	Field  string
	Reason string
	Err    error
}

func (e *InputError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Field, e.Reason, e.Err)
	}
	return e.Field + ": " + e.Reason
}
func (e *InputError) Unwrap() error { return e.Err }

// RegistryError is a registry failure, classified, with the fix to try.
type RegistryError struct {
	Endpoint updater.Endpoint
	Err      *registry.Error
}

func (e *RegistryError) Error() string { return e.Err.Error() }
func (e *RegistryError) Unwrap() error { return e.Err }

// Hint is the suggested fix.
func (e *RegistryError) Hint() string { return advice.ForRegistry(e.Err.Facts()) }

// Runner runs simulations.
type Runner struct {
	// Client, when set, is used for every run (sharing its caches and its
	// rate limit). When nil, each run gets a client limited to the
	// endpoint's rate (registries.conf limit, or Request.RateLimit), built
	// with Options.
	Client  *registry.Client
	Options []registry.Option
	// Creds performs the I/O of credential references; nil uses the local
	// environment and executables only.
	Creds updater.CredentialSource
}

// Run performs the simulation.
func (r *Runner) Run(ctx context.Context, req Request) (Result, error) {
	var res Result
	v := req.Version
	if v == (updater.Version{}) {
		v = updater.Latest
	}
	if strings.TrimSpace(req.Image) == "" {
		return res, &InputError{Field: "image", Reason: "no image given (e.g. ghcr.io/org/app:~1.2)"}
	}
	img := updater.ParseImageRef(req.Image, v)
	if img.Alias != "" {
		return res, &InputError{Field: "image", Reason: fmt.Sprintf("%q has an alias prefix %q=; give the image alone (a constraint with \"=\", such as >=1.0, must be passed with --semver-constraint)", req.Image, img.Alias)}
	}
	if img.Name == "" {
		return res, &InputError{Field: "image", Reason: fmt.Sprintf("%q has no repository name", req.Image)}
	}
	if req.Constraint != nil {
		img.Tag = *req.Constraint
	}
	settings := updater.DefaultUpdateSettings()
	strategy, note := updater.ParseStrategy(req.Strategy)
	settings.Strategy, settings.StrategyRaw = strategy, req.Strategy
	if note != "" {
		settings.Notes = append(settings.Notes, note)
	}
	settings.AllowTags = updater.ParseAllowTags(req.AllowTags)
	settings.IgnoreTags = req.IgnoreTags
	settings.Platforms = req.Platforms

	var conf updater.RegistriesConf
	if req.RegistriesConf != nil {
		c, err := updater.ParseRegistriesConf(req.RegistriesConf)
		if err != nil {
			return res, &InputError{Field: "registries.conf", Reason: "does not parse the way Image Updater reads it (it would refuse to start)", Err: err}
		}
		conf = c
	}
	ep, how := updater.ResolveEndpoint(img, conf)
	res.Endpoint, res.Resolution = ep, how
	res.Repository = ep.RepositoryPath(img)

	target := registry.Target{APIURL: ep.APIURL, Repository: res.Repository, Insecure: ep.Insecure || req.Insecure}
	if ep.CAData != "" {
		target.CAData = []byte(ep.CAData)
	}
	if req.PlainHTTP {
		target.APIURL = "http://" + ep.Host()
	}

	res.APIURL = target.APIURL
	credRef := ep.Credentials
	if req.Credentials != "" {
		credRef = req.Credentials
	}
	if credRef != "" {
		ref, err := updater.ParseCredentialRef(credRef)
		if err != nil {
			return res, &InputError{Field: "credentials", Reason: "invalid credential reference", Err: err}
		}
		src := r.Creds
		if src == nil {
			src = LocalCredentials{}
		}
		creds, err := updater.ResolveCredentials(ctx, ref, ep, src)
		if err != nil {
			return res, &InputError{Field: "credentials", Reason: "could not fetch credentials", Err: err}
		}
		target.Username, target.Password = creds.Username, creds.Password.Reveal()
		res.CredentialsUsed = describeRef(ref)
	} else {
		res.CredentialsUsed = "anonymous"
	}

	client := r.Client
	if client == nil {
		limit := ep.Limit
		if req.RateLimit > 0 {
			limit = req.RateLimit
		}
		client = registry.New(append([]registry.Option{registry.WithRateLimit(limit)}, r.Options...)...)
	}
	before := client.Stats()

	start := time.Now()
	tags, err := client.ListTags(ctx, target)
	res.ListTook = time.Since(start)
	if err != nil {
		return res, classify("list tags", ep, err)
	}

	in := updater.SelectInput{
		Version: v, Image: img, Settings: settings, Tags: tags,
		TagSortMode: ep.TagSortMode, ControllerPlatform: req.ControllerPlatform,
	}
	if req.CurrentTag != nil {
		live := img
		live.Tag, live.Digest = *req.CurrentTag, ""
		if n, d, ok := strings.Cut(*req.CurrentTag, "@"); ok {
			live.Tag, live.Digest = n, d
		}
		in.Live = &live
	}
	if want := updater.MetadataTags(in); len(want) > 0 {
		ps := updater.PlatformFilter(in)
		start = time.Now()
		meta, err := client.Metadata(ctx, target, want, ps.Wants)
		res.MetadataTook = time.Since(start)
		if err != nil {
			return res, classify("metadata", ep, err)
		}
		in.Meta = meta
	}
	start = time.Now()
	res.Decision = updater.Select(in)
	res.ModelTook = time.Since(start)
	res.Stats = statsSince(client.Stats(), before)
	return res, nil
}

func classify(op string, ep updater.Endpoint, err error) error {
	var re *registry.Error
	if !errors.As(err, &re) {
		re = registry.Classify(op, err)
	}
	return &RegistryError{Endpoint: ep, Err: re}
}

func describeRef(ref updater.CredentialRef) string {
	switch ref.Kind {
	case updater.CredPullSecret:
		return fmt.Sprintf("pull secret %s/%s", ref.Namespace, ref.Name)
	case updater.CredSecret:
		return fmt.Sprintf("secret %s/%s field %s", ref.Namespace, ref.Name, ref.Field)
	case updater.CredEnv:
		return "environment variable " + ref.Env
	case updater.CredExt:
		return "external script " + ref.Path
	}
	return "credentials"
}

// LocalCredentials resolves env: and ext: references on this machine. It has
// no cluster access: pullsecret: and secret: references fail with a clear
// message.
type LocalCredentials struct{}

// Env reads an environment variable.
func (LocalCredentials) Env(name string) (string, bool) { return os.LookupEnv(name) }

// Secret is not available without a cluster.
func (LocalCredentials) Secret(ctx context.Context, ns, name string) (map[string][]byte, error) {
	return nil, fmt.Errorf("reading secret %s/%s needs cluster access, which simulate does not have; pass the credentials with env:VAR or ext:/path instead", ns, name)
}

// Exec runs an external credentials script with Image Updater's 10 s limit.
func (LocalCredentials) Exec(ctx context.Context, path string) (string, error) {
	return runScript(ctx, path)
}

// statsSince is the requests made between two snapshots.
func statsSince(now, before registry.Stats) registry.Stats {
	return registry.Stats{
		Ping: now.Ping - before.Ping, TagPages: now.TagPages - before.TagPages,
		Manifests: now.Manifests - before.Manifests, Blobs: now.Blobs - before.Blobs,
		Auth: now.Auth - before.Auth, Other: now.Other - before.Other,
	}
}

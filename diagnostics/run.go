package diagnostics

import (
	"context"
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/model/updaterlog"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/gitsource"
	"github.com/imgupd/imgupd/sources/helmchart"
	"github.com/imgupd/imgupd/sources/registry"
)

// One diagnosis in progress: the run, every value it holds (what each stage
// learnt, the reads it caches), and the helpers on it that several stages
// and the fix builders share. A stage file uses these, the finding builders
// (findings.go) and its own code.

// run is one diagnosis in progress: what the stages have learnt so far.
type run struct {
	e    *Engine
	opts Options
	req  Request
	rep  *report.Report

	app      *argo.Application
	model    updater.Application
	appErr   error
	install  *cluster.UpdaterInstall
	version  updater.Version
	conf     updater.RegistriesConf
	logs     *updaterlog.Analysis
	crs      []updater.ImageUpdater
	target   updater.Targeting
	images   []updater.ImageConfig
	live     map[string]updater.LiveMatch
	reg      map[string]*imageRegistry
	decision map[string]updater.Decision
	// wantedPick is the pick with the strategy the CR asked for, where the
	// CRD's default hides it.
	wantedPick map[string]updater.Decision
	aliasTypos []aliasTypo
	// twice are the images written to the same target (the source stage),
	// completed by the reconcile pass.
	twice []twiceRecord
	// Argo CD's repository Secrets and ConfigMaps, read once.
	repoCredsDone bool
	repoCredsList []cluster.RepoCred
	repoCredsErr  error
	cms           map[string]cmEntry
	sources       map[string]sourceContent
	iuCommit      string // last commit by Image Updater on the write-back branch
	// iuCommitBranch is that branch.
	iuCommitBranch string
	// iuCommitUndeployed: that commit is newer than Argo CD's revision.
	iuCommitUndeployed bool
	// wbTrust says where Image Updater's write-back trust (CA, host keys)
	// comes from, for the evidence of a trust failure.
	wbTrust []report.Evidence
	// wbSecretNS and wbSecret name the Secret the write-back credentials
	// come from ("" when none was resolved).
	wbSecretNS, wbSecret string
	// access holds the API server's answers about who may read which
	// Secret, asked once per diagnosis (secretaccess.go).
	access map[string]accessResult
	// argo is Argo CD's identity for its repository Secrets, found once
	// (argoUser).
	argo *secretUser
}

// loadApp reads the Application, which every stage after health needs,
// before the stage table runs; a failure is kept for the target stage to
// report.
func (r *run) loadApp(ctx context.Context) {
	app, err := r.e.Cluster.Application(ctx, r.req.Namespace, r.req.App)
	if err != nil {
		r.appErr = err
		return
	}
	r.app = app
	r.model = app.ToModel()
}

// imageRegistry is what the registry stage learnt about one image.
type imageRegistry struct {
	endpoint updater.Endpoint
	target   registry.Target
	tags     []string
	err      error
	// partial, when the tag list stopped at imgupd's read bound, says
	// where: tags then holds the tags read before it.
	partial *registry.ListLimit
	// account says whose credentials reach the registry, for a refusal:
	// the reference and where it is set, or "" for anonymous requests.
	account string
	// extUnchecked: the credentials are an ext: script imgupd cannot run,
	// so its own requests went without them.
	extUnchecked bool
}

// aliasTypo is an annotation for an alias image-list does not have.
type aliasTypo struct {
	title string
	// alias is the image-list alias it was most likely meant for.
	alias string
	// targetKey: it names a Helm parameter or a Kustomize image.
	targetKey bool
}

// dueFor: an update of the image is due (Image Updater writes it this
// cycle) or written and not running yet.
func (r *run) dueFor(alias string) bool {
	d, ok := r.decision[alias]
	return ok && (d.Outcome == updater.OutcomeUpdate || d.Outcome == updater.OutcomeAlreadyInSpec)
}

// anyDue: something is due or written and waits for Argo CD.
func (r *run) anyDue() bool {
	for a := range r.decision {
		if r.dueFor(a) {
			return true
		}
	}
	return r.iuCommitUndeployed
}

// selectedCR is the ImageUpdater CR that selects the app, if any.
func (r *run) selectedCR() *updater.ImageUpdater {
	for i := range r.crs {
		if r.crs[i].Namespace+"/"+r.crs[i].Name == r.target.CR {
			return &r.crs[i]
		}
	}
	return nil
}

func crNamespace(key string) string { ns, _, _ := strings.Cut(key, "/"); return ns }

func crName(key string) string { _, n, _ := strings.Cut(key, "/"); return n }

// specImage is what the Application spec already holds for the image
// (argocd write-back: Helm parameters or Kustomize images), or nil.
func (r *run) specImage(im updater.ImageConfig) *updater.ImageRef {
	src := r.editedSource(im.Target.Kind)
	if src == nil {
		return nil
	}
	switch {
	case src.Helm != nil && im.Target.Kind != updater.TargetKindKustomize:
		t := im.Target
		if t.Spec != "" {
			if v, ok := src.HelmParameter(t.Spec); ok {
				ref := updater.ParseImageRef(v, r.version)
				return &ref
			}
			return nil
		}
		nameP, tagP := t.Name, t.Tag
		if nameP == "" {
			nameP = "image.name"
		}
		if tagP == "" {
			tagP = "image.tag"
		}
		n, ok1 := src.HelmParameter(nameP)
		tg, ok2 := src.HelmParameter(tagP)
		if !ok1 || !ok2 {
			return nil
		}
		ref := updater.ParseImageRef(n, r.version)
		ref.Tag = tg
		if name, digest, ok := strings.Cut(tg, "@"); ok {
			ref.Tag, ref.Digest = name, digest
		}
		return &ref
	case src.Kustomize != nil:
		want := im.Image
		if k := kustomizeName(im); k != "" {
			want = updater.ParseImageRef(k, r.version)
		}
		for _, e := range src.Kustomize.Images {
			ref := updater.ParseImageRef(e, r.version)
			if ref.SameImage(want) || ref.SameImage(im.Image) {
				img := updater.ParseImageRef(strings.TrimPrefix(e, ref.Alias+"="), r.version)
				return &img
			}
		}
	}
	return nil
}

// editedSource is the Argo CD source Image Updater writes to for a target kind.
func (r *run) editedSource(kind string) *argo.ApplicationSource {
	if r.app == nil {
		return nil
	}
	if r.app.Spec.Source != nil {
		return r.app.Spec.Source
	}
	want := map[string]string{updater.TargetKindHelm: updater.AppSourceHelm, updater.TargetKindKustomize: updater.AppSourceKustomize}[kind]
	ms, ok := r.model.EditedSource(want)
	if !ok {
		return nil
	}
	for i := range r.app.Spec.Sources {
		s := &r.app.Spec.Sources[i]
		if s.RepoURL == ms.RepoURL && s.Path == ms.Path && s.Chart == ms.Chart {
			return s
		}
	}
	return nil
}

// selectWithMetadata runs the model, fetching the metadata the strategy
// needs first.
func (r *run) selectWithMetadata(ctx context.Context, ir *imageRegistry, in updater.SelectInput) (updater.Decision, error) {
	d, _, err := r.selectWithMeta(ctx, ir, in)
	return d, err
}

// selectWithMeta is selectWithMetadata that also returns the metadata read
// (nil when the strategy reads none): which tags' reads were refused.
func (r *run) selectWithMeta(ctx context.Context, ir *imageRegistry, in updater.SelectInput) (updater.Decision, map[string]updater.TagMeta, error) {
	if want := updater.MetadataTags(in); len(want) > 0 {
		ps := updater.PlatformFilter(in)
		meta, err := r.e.Registry.Metadata(ctx, ir.target, want, ps.Wants)
		if err != nil {
			return updater.Decision{}, nil, err
		}
		in.Meta = meta
	}
	return updater.Select(in), in.Meta, nil
}

func (r *run) resolveBranch(ctx context.Context, repo, rev string, auth gitsource.Auth) (string, error) {
	if rev != "" && rev != "HEAD" {
		return rev, nil
	}
	remote, err := r.e.Git.LsRemote(ctx, repo, auth)
	if err != nil {
		return "", err
	}
	return remote.DefaultBranch, nil
}

// writeBackPlace names where a write-back setting (method, repository,
// branch, writeBackTarget) is configured for this app: the CR field, or
// the annotation.
func (r *run) writeBackPlace(field string) string {
	ann := map[string]string{"method": "write-back-method", "repository": "git-repository", "branch": "git-branch", "writeBackTarget": "write-back-target"}[field]
	switch r.target.Mode {
	case updater.ModeCR:
		path := fmt.Sprintf("spec.applicationRefs[%d].writeBackConfig", r.target.RefIndex)
		if wb := r.target.WriteBack; wb != nil && wb.Sources[field] == updater.SettingFromCR {
			path = "spec.writeBackConfig"
		}
		if field != "method" {
			path += ".gitConfig"
		}
		return fmt.Sprintf("ImageUpdater %s, %s.%s", r.target.CR, path, field)
	}
	return fmt.Sprintf("Application %s/%s, annotation %s%s", r.req.Namespace, r.req.App, updater.AnnotationPrefix, ann)
}

// argoNamespace is where Argo CD (and the Secrets and ConfigMaps it reads)
// lives: Image Updater's --argocd-namespace, else its own namespace, else
// the updater namespace asked for.
func (r *run) argoNamespace() string {
	if r.install != nil {
		if r.install.ArgoCDNamespace != "" {
			return r.install.ArgoCDNamespace
		}
		return r.install.Namespace
	}
	return r.req.UpdaterNamespace
}

func aliasOr(im updater.ImageConfig) string {
	if im.Alias != "" {
		return im.Alias
	}
	return im.Image.FullName()
}

// imageSettings is one line with an image's effective settings and, for the
// ones not defaulted, where each came from.
func imageSettings(im updater.ImageConfig) string {
	s := im.Settings
	parts := []string{im.Image.String()}
	src := func(field string) string {
		if l, ok := im.Sources[field]; ok && l != "" && l != updater.SettingFromDefault {
			return " (from " + string(l) + ")"
		}
		return ""
	}
	parts = append(parts, "strategy "+s.Strategy.String()+src(updater.FieldUpdateStrategy))
	if c := im.Image.Constraint(); c != "" {
		parts = append(parts, "constraint "+c)
	}
	if s.AllowTags.Raw != "" {
		parts = append(parts, "allow-tags "+s.AllowTags.Raw+src(updater.FieldAllowTags))
	}
	if len(s.IgnoreTags) > 0 {
		parts = append(parts, "ignore-tags "+strings.Join(s.IgnoreTags, ",")+src(updater.FieldIgnoreTags))
	}
	if len(s.Platforms) > 0 {
		parts = append(parts, "platforms "+strings.Join(s.Platforms, ",")+src(updater.FieldPlatforms))
	}
	if s.ForceUpdate {
		parts = append(parts, "forceUpdate"+src(updater.FieldForceUpdate))
	}
	if s.PullSecret != "" {
		parts = append(parts, "pullSecret "+s.PullSecret+src(updater.FieldPullSecret))
	}
	if im.Target.Kind != "" {
		parts = append(parts, "target "+targetString(im.Target))
	}
	return strings.Join(parts, " · ")
}

func targetString(t updater.ManifestTarget) string {
	switch {
	case t.Spec != "":
		return t.Kind + " spec=" + t.Spec
	case t.Name != "" || t.Tag != "":
		return fmt.Sprintf("%s name=%s tag=%s", t.Kind, t.Name, t.Tag)
	}
	return t.Kind
}

// kustomizeName is the image's Kustomize name override, if any.
func kustomizeName(im updater.ImageConfig) string {
	if im.Target.Kind == updater.TargetKindKustomize {
		return im.Target.Name
	}
	return ""
}

type cmEntry struct {
	data map[string]string
	err  error
}

type accessResult struct {
	answer cluster.AccessAnswer
	err    error
}

// sourceContent is one Application source as Argo CD reads it: a git
// snapshot, or a chart from a Helm/OCI repository with its values (the
// chart's values.yaml, then the source's valueFiles, $ref ones included).
type sourceContent struct {
	src    *argo.ApplicationSource
	snap   *gitsource.Snapshot
	branch string
	chart  *helmchart.Chart
	// values and files are the Helm values read and where from (nil when
	// none could be read).
	values map[string]any
	files  []string
	// layers are the values files Argo CD passes to helm, in order: the
	// chart's values.yaml, then valueFiles (helmrender.go).
	layers []helmLayer
	// helm is the source's helm block with the .argocd-source files merged
	// in, as Argo CD renders it; helmErr says why those could not be.
	helm    mergedHelm
	helmErr error
	// missingValueFiles are valueFiles entries that do not exist (without
	// ignoreMissingValueFiles): Argo CD's render fails on them.
	missingValueFiles []missingValueFile
	// notReadable is the not-verified finding when the source could not
	// be read.
	notReadable *report.Finding
	// refused and refusedRule are the reads imgupd was refused while it
	// still read the source (a public repository).
	refused, refusedRule []string
	// notes are findings about how Argo CD reaches the source (repoView.notes).
	notes []report.Finding
}

func (c sourceContent) where() string {
	switch {
	case c.chart != nil:
		return "chart " + c.chart.Name + " " + c.chart.Version
	case c.src != nil:
		return c.src.Path + " at " + c.branch
	}
	return "the source"
}

// missingValueFile is a helm.valueFiles entry whose file does not exist.
type missingValueFile struct {
	index             int
	entry, path, repo string
}

package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/advice"
	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/gitsource"
	"github.com/imgupd/imgupd/sources/helmchart"
)

// An Application source as Argo CD reads it (its repository Secrets, trust
// and proxy; git or a Helm/OCI chart; the values files in order), read once
// per diagnosis and shared by the source and write-back stages.

// readSource reads one source once per diagnosis.
func (r *run) readSource(ctx context.Context, src *argo.ApplicationSource) sourceContent {
	key := src.RepoURL + "\x00" + src.Path + "\x00" + src.Chart + "\x00" + src.TargetRevision
	if c, ok := r.sources[key]; ok {
		return c
	}
	c := r.fetchSource(ctx, src)
	r.sources[key] = c
	return c
}

func (r *run) fetchSource(ctx context.Context, src *argo.ApplicationSource) sourceContent {
	c := sourceContent{src: src}
	var view repoView
	fail := func(f report.Finding) sourceContent {
		f.Stage, f.Decides = report.StageSource, false
		f = refusedFailure(f, view)
		c.notReadable = &f
		return c
	}
	view, f := r.argoView(ctx, src.RepoURL)
	c.notes = view.notes
	if f != nil {
		return fail(*f)
	}
	c.refused, c.refusedRule = view.forbidden, view.forbiddenRule
	if view.limit != "" {
		nf := find(report.CodeSourceNotReadable, report.Unknown, fmt.Sprintf("cannot read %s as Argo CD does: %s", src.RepoURL, view.limit))
		nf.Verify = "check the app renders (argocd app manifests " + r.req.App + ")"
		return fail(nf)
	}
	if isChartSource(src) {
		if r.e.Charts == nil {
			nf := find(report.CodeSourceNotReadable, report.Unknown, fmt.Sprintf("chart %s from %s was not read (no chart reader)", src.Chart, src.RepoURL))
			return fail(nf)
		}
		hs := helmchart.Source{RepoURL: src.RepoURL, Chart: src.Chart, TargetRevision: src.TargetRevision, Path: src.Path, EnableOCI: view.repo.Bool("enableOCI")}
		ha := helmchart.Auth{Username: view.repo.Get("username"), Password: updater.Secret(view.repo.Get("password")), Insecure: view.repo.Bool("insecure"),
			PlainHTTP: view.repo.Bool("insecureOCIForceHttp"), ClientCert: view.repo.Data["tlsClientCertData"], ClientKey: updater.Secret(view.repo.Get("tlsClientCertKey")),
			CAData: view.auth.CAData}
		ch, err := r.e.Charts.Values(ctx, hs, ha)
		if f, ok := sourceTooLarge("chart "+src.Chart+" from "+src.RepoURL, err); ok {
			return fail(f)
		}
		if err != nil {
			nf := find(report.CodeSourceNotReadable, report.Unknown, fmt.Sprintf("cannot read chart %s from %s as Argo CD does: %s", src.Chart, src.RepoURL, textutil.OneLine(err.Error())))
			var he *helmchart.Error
			if errors.As(err, &he) {
				nf = nf.With(ev("hint", advice.ForChart(he.Facts())))
			}
			nf.Evidence = append(nf.Evidence, view.trust...)
			nf.Verify = "network access from imgupd to " + cluster.HostOf(src.RepoURL) + " and the repository Secret Argo CD uses for it"
			return fail(nf)
		}
		c.chart = ch
		c.helm, c.helmErr = mergeHelmOverrides(src.Helm, nil)
		c.values = map[string]any{}
		var m map[string]any
		if yaml.Unmarshal(ch.Values, &m) == nil {
			mergeValues(c.values, m)
			c.files = append(c.files, ch.Name+"/values.yaml ("+ch.Version+")")
			c.layers = append(c.layers, helmLayer{kind: layerChart, where: ch.Name + "/values.yaml (the chart's values, " + ch.Version + ")", values: m})
		}
		r.mergeValueFiles(ctx, &c, nil)
		return c
	}
	if r.e.Git == nil {
		return fail(find(report.CodeSourceNotReadable, report.Unknown, "the source was not read (no git client)"))
	}
	branch, err := r.resolveBranch(ctx, view.repo.URL, src.TargetRevision, view.auth)
	var snap *gitsource.Snapshot
	if err == nil {
		snap, err = r.e.Git.Snapshot(ctx, view.repo.URL, branch, view.auth)
	}
	if f, ok := sourceTooLarge(gitsource.NormalizeURL(src.RepoURL), err); ok {
		return fail(f)
	}
	if err != nil {
		return fail(sourceReadFailure(gitsource.NormalizeURL(src.RepoURL), err, view))
	}
	c.snap, c.branch = snap, branch
	if r.target.SourceKind == updater.AppSourceHelm || src.Helm != nil {
		var overrides []overrideFile
		for _, p := range helmOverrideFiles(src.Path, r.req.App, r.req.Namespace, r.argoNamespace()) {
			if data, err := snap.ReadFile(p); err == nil {
				overrides = append(overrides, overrideFile{path: p, data: data})
			}
		}
		c.helm, c.helmErr = mergeHelmOverrides(src.Helm, overrides)
		c.values = map[string]any{}
		if data, err := snap.ReadFile(path.Join(src.Path, "values.yaml")); err == nil {
			var m map[string]any
			if yaml.Unmarshal(data, &m) == nil {
				mergeValues(c.values, m)
				c.files = append(c.files, path.Join(src.Path, "values.yaml"))
				c.layers = append(c.layers, helmLayer{kind: layerChart, where: path.Join(src.Path, "values.yaml") + " (the chart's values)",
					file: path.Join(src.Path, "values.yaml"), repo: gitsource.NormalizeURL(src.RepoURL), values: m})
			}
		}
		r.mergeValueFiles(ctx, &c, snap)
		if len(c.files) == 0 {
			c.values = nil
		}
	}
	return c
}

// mergeValueFiles adds the source's valueFiles: relative ones from the
// source itself, $ref/... ones from the source with that ref.
// The valueFiles are those of the source as Argo CD merges it with its
// .argocd-source files; each read one is a layer, in order.
func (r *run) mergeValueFiles(ctx context.Context, c *sourceContent, own *gitsource.Snapshot) {
	for i, vf := range c.helm.helm.ValueFiles {
		snap, p, repo := own, valueFileIn(c.src.Path, vf), gitsource.NormalizeURL(c.src.RepoURL)
		if ref, rest, ok := strings.Cut(vf, "/"); ok && strings.HasPrefix(ref, "$") {
			snap, p = nil, path.Clean(rest)
			for i := range r.app.Spec.Sources {
				s := &r.app.Spec.Sources[i]
				if s.Ref == ref[1:] {
					if rc := r.readSource(ctx, s); rc.snap != nil {
						snap, repo = rc.snap, gitsource.NormalizeURL(s.RepoURL)
					}
				}
			}
		}
		if snap == nil {
			continue
		}
		paths := []string{p}
		if strings.ContainsAny(p, "*?[") {
			paths = globFiles(snap, p)
		}
		for _, p := range paths {
			data, err := snap.ReadFile(p)
			if err != nil {
				// Argo CD substitutes $ARGOCD_APP_* variables and fetches
				// URLs, which imgupd does not: only a plain path is missing.
				if !c.helm.helm.IgnoreMissingValueFiles && !snap.Exists(p) && !strings.Contains(p, "$") && !strings.Contains(vf, "://") {
					c.missingValueFiles = append(c.missingValueFiles, missingValueFile{index: i, entry: vf, path: p, repo: repo})
				}
				continue
			}
			var m map[string]any
			if yaml.Unmarshal(data, &m) == nil {
				mergeValues(c.values, m)
				c.files = append(c.files, vf)
				c.layers = append(c.layers, helmLayer{kind: layerValueFile, where: fmt.Sprintf("%s (helm.valueFiles[%d])", p, i), file: p, repo: repo, values: m, vfIndex: i})
			}
		}
	}
}

// globFiles expands a valueFiles glob within its directory, in lexical
// order as Argo CD does (one directory level; ** is not followed).
func globFiles(snap *gitsource.Snapshot, pattern string) []string {
	dir, base := path.Split(pattern)
	names, _ := snap.ListDir(path.Clean(dir))
	var out []string
	for _, n := range names {
		if ok, _ := path.Match(base, n); ok {
			out = append(out, path.Join(dir, n))
		}
	}
	return sortedStrings(out)
}

// isChartSource: a Helm chart from a Helm or OCI repository (chart: set, or
// an oci:// repoURL), not from git.
func isChartSource(src *argo.ApplicationSource) bool {
	return src.Chart != "" || strings.HasPrefix(strings.ToLower(src.RepoURL), "oci://")
}

func (r *run) sourceIndex(s *argo.ApplicationSource) int {
	for i := range r.app.Spec.Sources {
		if &r.app.Spec.Sources[i] == s {
			return i
		}
	}
	return -1
}

func describeSource(s *argo.ApplicationSource) string {
	if s.Chart != "" {
		return "chart " + s.Chart + " from " + s.RepoURL
	}
	return s.RepoURL + " path " + orNone(s.Path)
}

func mergeValues(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeValues(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

// helmWriteFor says where Image Updater's write for a Helm source lands
// among what Argo CD renders: Helm parameters (argocd write-back, or git
// write-back to an .argocd-source file, which Argo CD merges into the
// source's parameters), or a values file (a helmvalues: target, or a bare
// path Image Updater writes as values), which Argo CD reads only when it is
// the chart's values.yaml or in helm.valueFiles. A listed file that does
// not exist yet is where Image Updater creates it.
func (r *run) helmWriteFor(sc sourceContent, src *argo.ApplicationSource) helmWrite {
	wb := r.target.WriteBack
	where := fmt.Sprintf("Application %s/%s, %s.helm.parameters", r.req.Namespace, r.req.App, r.sourceField(src))
	if wb == nil || wb.Method != updater.WriteBackGit {
		return helmWrite{kind: layerParameter, where: where, index: -1, above: len(sc.layers), read: true}
	}
	t := wb.Target
	if !writesHelmValues(t) {
		return helmWrite{kind: layerParameter, where: t.Path, index: -1, above: len(sc.layers), read: true}
	}
	repo, target := gitsource.NormalizeURL(wb.Repository), path.Clean(t.Path)
	// One file is one input, wherever Helm reads it: the chart's values.yaml
	// listed again in helm.valueFiles (Image Updater's own e2e cases do
	// this) is read twice from the same checkout, both times with what
	// Image Updater wrote. So the write is in force from its first reading,
	// and only what Helm applies after its last reading can outrank it.
	first, last := -1, -1
	for i, l := range sc.layers {
		if l.file != "" && l.repo == repo && path.Clean(l.file) == target {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first >= 0 {
		l := sc.layers[last]
		return helmWrite{kind: l.kind, where: l.where, index: first, above: last + 1, read: true}
	}
	// Not there yet (Image Updater creates it): the chart's values.yaml, a
	// listed value file, or both; the write is in force from its last
	// reading too.
	w := helmWrite{index: -1, above: -1, read: true}
	if !isChartSource(src) && repo == gitsource.NormalizeURL(src.RepoURL) && target == path.Join(src.Path, "values.yaml") {
		w.kind, w.where, w.above = layerChart, target+" (the chart's values)", 0
	}
	for vi, vf := range sc.helm.helm.ValueFiles {
		if r.valueFilePath(src, vf) != repo+"\x00"+target {
			continue
		}
		w.kind, w.where, w.above = layerValueFile, fmt.Sprintf("%s (helm.valueFiles[%d])", target, vi), len(sc.layers)
		for i, l := range sc.layers {
			if l.kind == layerValueFile && l.vfIndex > vi {
				w.above = i
				break
			}
		}
	}
	if w.above >= 0 {
		return w
	}
	return helmWrite{kind: layerValueFile, where: target, index: -1, above: len(sc.layers)}
}

// valueFilePath is the repository (normalised) and path a valueFiles entry
// names, joined by NUL: relative to the source path, or $ref/path in the
// source with that ref.
func (r *run) valueFilePath(src *argo.ApplicationSource, vf string) string {
	if ref, rest, ok := strings.Cut(vf, "/"); ok && strings.HasPrefix(ref, "$") && r.app != nil {
		for i := range r.app.Spec.Sources {
			if s := &r.app.Spec.Sources[i]; s.Ref == ref[1:] {
				return gitsource.NormalizeURL(s.RepoURL) + "\x00" + path.Clean(rest)
			}
		}
		return ""
	}
	return gitsource.NormalizeURL(src.RepoURL) + "\x00" + valueFileIn(src.Path, vf)
}

// valueFileIn is the repository path of a valueFiles entry of a source at
// srcPath, as Argo CD resolves it (util/io/path ResolveValueFilePathOrUrl):
// relative to the source path, an absolute one relative to the repository
// root.
func valueFileIn(srcPath, vf string) string {
	if strings.HasPrefix(vf, "/") {
		return path.Clean(strings.TrimLeft(vf, "/"))
	}
	return path.Join(srcPath, vf)
}

// writesHelmValues: Image Updater writes this git target as a Helm values
// file (marshalParamsOverride: a target whose base name does not start
// with .argocd-source-).
func writesHelmValues(t updater.WriteBackTarget) bool {
	switch t.Kind {
	case updater.TargetHelmValues:
		return true
	case updater.TargetPath:
		return !strings.HasPrefix(path.Base(t.Path), ".argocd-source-")
	}
	return false
}

// sourceField is the Application field of a source: spec.source or
// spec.sources[i].
func (r *run) sourceField(src *argo.ApplicationSource) string {
	if r.app != nil && r.app.Spec.Source == src {
		return "spec.source"
	}
	if i := r.sourceIndex(src); i >= 0 {
		return fmt.Sprintf("spec.sources[%d]", i)
	}
	return "spec.source"
}

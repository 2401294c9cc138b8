package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/diagnostics/argo"
	"github.com/imgupd/imgupd/diagnostics/cluster"
	"github.com/imgupd/imgupd/diagnostics/gitsource"
	"github.com/imgupd/imgupd/diagnostics/helmchart"
	"github.com/imgupd/imgupd/diagnostics/updater"
)

// checkSource checks that Image Updater can write to the app's source type
// and that what it writes is read: Helm parameter names against the
// chart's values (in git, or in its Helm or OCI repository), Kustomize image
// names against the kustomization and its manifests, and, for a
// multi-source Application, that the source Image Updater edits is the one
// that renders the image. The sources are read as Argo CD reads them (its
// repository Secrets, argocd-tls-certs-cm, argocd-ssh-known-hosts-cm). All
// of these mismatches "succeed" in Image Updater's logs while nothing
// changes in the cluster; a source imgupd cannot read is not verified.
func checkSource(ctx context.Context, r *run) []Finding {
	var out []Finding
	for _, p := range r.target.Problems {
		if f := r.problemFinding(p); f.Stage == StageSource {
			out = append(out, f)
		}
	}
	if hasSeverity(out, Fail) {
		return out
	}
	kind := r.target.SourceKind
	out = append(out, find(CodeSourceSupported, Pass, "source type "+kind+" is supported").with(ev("why", r.target.SourceWhy)))
	src := r.editedSource(strings.ToLower(kind))
	if src == nil {
		return out
	}
	sc := r.readSource(ctx, src)
	out = append(out, sc.notes...)
	if sc.notReadable != nil {
		return append(out, *sc.notReadable)
	}
	if len(sc.refused) > 0 {
		f := find(CodeSourceNotReadable, Unknown, "the source was read without "+strings.Join(sc.refused, ", ")+": imgupd may not read them, so credentials, insecure, proxy and trust settings there were not applied")
		f.Verify = "grant imgupd " + strings.Join(sc.refusedRule, "; ")
		out = append(out, f)
	}
	if sc.chart != nil {
		out = append(out, find(CodeSourceChartFromHelmRepo, Info, fmt.Sprintf("chart %s %s read from %s", sc.chart.Name, sc.chart.Version, sc.chart.Ref)))
	}
	before := len(out)
	for _, im := range r.images {
		if r.app != nil && len(r.app.Spec.Sources) > 1 {
			if f, moved := r.multiSourceCheck(ctx, src, sc, im); f != nil {
				out = append(out, *f)
				if moved {
					continue
				}
			}
		}
		switch {
		case kind == updater.AppSourceHelm && im.Target.Kind != updater.TargetKindKustomize:
			out = append(out, checkHelmMapping(sc, im)...)
		case kind == updater.AppSourceKustomize && sc.snap != nil:
			out = append(out, checkKustomizeMapping(sc.snap, src, im, r.version)...)
		}
	}
	if len(out) == before {
		out = append(out, find(CodeSourceMappingChecked, Pass, fmt.Sprintf("the image names Image Updater writes are used by %s", sc.where())))
	}
	return out
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
	// notReadable is the not-verified finding when the source could not
	// be read.
	notReadable *Finding
	// refused and refusedRule are the reads imgupd was refused while it
	// still read the source (a public repository).
	refused, refusedRule []string
	// notes are findings about how Argo CD reaches the source (repoView.notes).
	notes []Finding
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
	fail := func(f Finding) sourceContent {
		f.Stage, f.Decides = StageSource, false
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
		nf := find(CodeSourceNotReadable, Unknown, fmt.Sprintf("cannot read %s as Argo CD does: %s", src.RepoURL, view.limit))
		nf.Verify = "check the app renders (argocd app manifests " + r.req.App + ")"
		return fail(nf)
	}
	if isChartSource(src) {
		if r.e.Charts == nil {
			nf := find(CodeSourceNotReadable, Unknown, fmt.Sprintf("chart %s from %s was not read (no chart reader)", src.Chart, src.RepoURL))
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
			nf := find(CodeSourceNotReadable, Unknown, fmt.Sprintf("cannot read chart %s from %s as Argo CD does: %s", src.Chart, src.RepoURL, oneLine(err.Error())))
			var he *helmchart.Error
			if errors.As(err, &he) && he.Hint() != "" {
				nf = nf.with(ev("hint", he.Hint()))
			}
			nf.Evidence = append(nf.Evidence, view.trust...)
			nf.Verify = "network access from imgupd to " + cluster.HostOf(src.RepoURL) + " and the repository Secret Argo CD uses for it"
			return fail(nf)
		}
		c.chart = ch
		c.values = map[string]any{}
		var m map[string]any
		if yaml.Unmarshal(ch.Values, &m) == nil {
			mergeValues(c.values, m)
			c.files = append(c.files, ch.Name+"/values.yaml ("+ch.Version+")")
		}
		r.mergeValueFiles(ctx, &c, nil)
		return c
	}
	if r.e.Git == nil {
		return fail(find(CodeSourceNotReadable, Unknown, "the source was not read (no git client)"))
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
		c.values = map[string]any{}
		if data, err := snap.ReadFile(path.Join(src.Path, "values.yaml")); err == nil {
			var m map[string]any
			if yaml.Unmarshal(data, &m) == nil {
				mergeValues(c.values, m)
				c.files = append(c.files, path.Join(src.Path, "values.yaml"))
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
func (r *run) mergeValueFiles(ctx context.Context, c *sourceContent, own *gitsource.Snapshot) {
	if c.src.Helm == nil {
		return
	}
	for _, vf := range c.src.Helm.ValueFiles {
		snap, p := own, path.Join(c.src.Path, vf)
		if ref, rest, ok := strings.Cut(vf, "/"); ok && strings.HasPrefix(ref, "$") {
			snap, p = nil, rest
			for i := range r.app.Spec.Sources {
				s := &r.app.Spec.Sources[i]
				if s.Ref == ref[1:] {
					if rc := r.readSource(ctx, s); rc.snap != nil {
						snap = rc.snap
					}
				}
			}
		}
		if snap == nil {
			continue
		}
		data, err := snap.ReadFile(p)
		if err != nil {
			continue
		}
		var m map[string]any
		if yaml.Unmarshal(data, &m) == nil {
			mergeValues(c.values, m)
			c.files = append(c.files, vf)
		}
	}
}

// isChartSource: a Helm chart from a Helm or OCI repository (chart: set, or
// an oci:// repoURL), not from git.
func isChartSource(src *argo.ApplicationSource) bool {
	return src.Chart != "" || strings.HasPrefix(strings.ToLower(src.RepoURL), "oci://")
}

// multiSourceCheck: in a multi-source Application, Image Updater edits one
// source; when another source renders the image, what it writes has no
// effect. moved is true when the finding replaces the mapping check.
func (r *run) multiSourceCheck(ctx context.Context, edited *argo.ApplicationSource, sc sourceContent, im updater.ImageConfig) (*Finding, bool) {
	if rendersImage(sc, im.Image, r.version) {
		return nil, false
	}
	for i := range r.app.Spec.Sources {
		other := &r.app.Spec.Sources[i]
		if other == edited || (other.RepoURL == edited.RepoURL && other.Path == edited.Path && other.Chart == edited.Chart) || other.Ref != "" && other.Path == "" {
			continue
		}
		oc := r.readSource(ctx, other)
		if oc.notReadable != nil && oc.notReadable.Decides {
			// Which source renders the image is what imgupd was not
			// allowed to read.
			f := *oc.notReadable
			f.Title = fmt.Sprintf("image %s: whether spec.sources[%d] renders it was not verified: %s", aliasOr(im), i, f.Title)
			return &f, false
		}
		if oc.notReadable != nil || !rendersImage(oc, im.Image, r.version) {
			continue
		}
		f := find(CodeSourceImageElsewhere, Fail, fmt.Sprintf("image %s: Image Updater writes it to spec.sources[%d] (%s), but spec.sources[%d] (%s) renders it; the update would change nothing",
			aliasOr(im), r.sourceIndex(edited), describeSource(edited), i, describeSource(other))).image(im.Alias).
			with(ev("edited source", fmt.Sprintf("spec.sources[%d]: %s (%s)", r.sourceIndex(edited), describeSource(edited), r.target.SourceWhy)),
				ev("renders the image", fmt.Sprintf("spec.sources[%d]: %s", i, describeSource(other))))
		fix := "Give the source that renders the image the explicit block of the app's type, so Image Updater edits it, and drop it from the other."
		snippet := fmt.Sprintf("# kubectl -n %s edit application %s\nspec:\n  sources:\n  - # [%d] %s\n    helm: {}   # Image Updater edits the first source with a helm: block", r.req.Namespace, r.req.App, i, describeSource(other))
		if other.Chart == "" && other.Kustomize != nil {
			snippet = fmt.Sprintf("# kubectl -n %s edit application %s\nspec:\n  sources:\n  - # [%d] %s\n    kustomize: {}", r.req.Namespace, r.req.App, i, describeSource(other))
		}
		f = f.fix(fix, fmt.Sprintf("Application %s/%s, spec.sources", r.req.Namespace, r.req.App), snippet, "yaml")
		return &f, true
	}
	return nil, false
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

// rendersImage: the source's content names the image (a Kustomize image,
// an image: field of a manifest, a Helm value holding its name).
func rendersImage(c sourceContent, img updater.ImageRef, v updater.Version) bool {
	match := func(s string) bool {
		s = strings.TrimSpace(s)
		if s == "" {
			return false
		}
		if s == img.Name || s == img.FullName() {
			return true
		}
		return updater.ParseImageRef(s, v).SameImage(img)
	}
	if c.values != nil && valuesMention(c.values, match) {
		return true
	}
	if c.snap != nil {
		for _, n := range kustomizeImages(c.snap, c.src.Path, 0) {
			if match(n) {
				return true
			}
		}
	}
	return false
}

func valuesMention(v any, match func(string) bool) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, y := range x {
			if valuesMention(y, match) {
				return true
			}
		}
	case []any:
		for _, y := range x {
			if valuesMention(y, match) {
				return true
			}
		}
	case string:
		return match(x)
	}
	return false
}

// checkHelmMapping: the parameters Image Updater sets must exist in the
// chart's values (values.yaml, in git or from the chart's repository, and
// the app's value files).
func checkHelmMapping(sc sourceContent, im updater.ImageConfig) []Finding {
	values := sc.values
	if values == nil {
		return nil // no values file to compare with
	}
	t := im.Target
	params := []string{t.Spec}
	if t.Spec == "" {
		params = []string{orDefault(t.Name, "image.name"), orDefault(t.Tag, "image.tag")}
	}
	var missing []string
	for _, p := range params {
		if !valuePathExists(values, p) {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	f := find(CodeHelmParamNotInValues, Fail, fmt.Sprintf("image %s: Helm parameter %s is not in the chart's values; Image Updater would set it and nothing would change",
		aliasOr(im), strings.Join(missing, ", "))).image(im.Alias).with(ev("values files", strings.Join(sc.files, ", ")))
	if cands := imageValuePaths(values, ""); len(cands) > 0 {
		f = f.with(ev("image-like values in the chart", strings.Join(cands, ", ")))
		f = f.fix("Point the helm parameters at the chart's real value paths.", "the image's manifestTargets.helm (or <alias>.helm.image-name/-tag annotations)",
			helmSnippet(cands), "yaml")
	}
	return []Finding{f}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
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

var indexRE = regexp.MustCompile(`^(.*)\[(\d+)\]$`)

// valuePathExists follows a Helm --set style path (a.b[0].c, \. escapes).
func valuePathExists(v any, p string) bool {
	for _, seg := range splitValuePath(p) {
		name, idx := seg, -1
		if m := indexRE.FindStringSubmatch(seg); m != nil {
			name = m[1]
			idx, _ = strconv.Atoi(m[2])
		}
		mm, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = mm[name]; !ok {
			return false
		}
		if idx >= 0 {
			l, ok := v.([]any)
			if !ok || idx >= len(l) {
				return false
			}
			v = l[idx]
		}
	}
	return true
}

func splitValuePath(p string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '\\' && i+1 < len(p) && p[i+1] == '.':
			cur.WriteByte('.')
			i++
		case p[i] == '.':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(p[i])
		}
	}
	return append(out, cur.String())
}

// imageValuePaths lists value paths that look like image names or tags.
func imageValuePaths(v any, prefix string) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	for k, x := range m {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		if _, isMap := x.(map[string]any); isMap {
			out = append(out, imageValuePaths(x, p)...)
			continue
		}
		lk := strings.ToLower(k)
		if strings.Contains(strings.ToLower(p), "image") && (lk == "repository" || lk == "name" || lk == "tag" || lk == "image") {
			out = append(out, p)
		}
	}
	return sortedStrings(out)
}

func helmSnippet(paths []string) string {
	var name, tag string
	for _, p := range paths {
		switch {
		case strings.HasSuffix(p, ".tag") && tag == "":
			tag = p
		case (strings.HasSuffix(p, ".repository") || strings.HasSuffix(p, ".name")) && name == "":
			name = p
		}
	}
	return fmt.Sprintf("manifestTargets:\n  helm:\n    name: %s\n    tag: %s", orDefault(name, "<image name path>"), orDefault(tag, "<image tag path>"))
}

// checkKustomizeMapping: the name Image Updater writes into the Kustomize
// images list must be an image the kustomization or its manifests use.
func checkKustomizeMapping(snap *gitsource.Snapshot, src *argo.ApplicationSource, im updater.ImageConfig, v updater.Version) []Finding {
	want := im.Image.FullName()
	if k := kustomizeName(im); k != "" {
		want = k
	}
	used := kustomizeImages(snap, src.Path, 0)
	if len(used) == 0 {
		return nil
	}
	wantRef := updater.ParseImageRef(want, v)
	for _, u := range used {
		if u == want || updater.ParseImageRef(u, v).SameImage(wantRef) {
			return nil
		}
	}
	f := find(CodeKustomizeNameNotUsed, Fail, fmt.Sprintf("image %s: Kustomize name %s is not used by the manifests at %s; the images: override would change nothing", aliasOr(im), want, src.Path)).image(im.Alias).
		with(ev("images used", strings.Join(used, ", ")))
	return []Finding{f.fix("Set the Kustomize name to the image the manifests use.", "manifestTargets.kustomize.name (or <alias>.kustomize.image-name)",
		"manifestTargets:\n  kustomize:\n    name: "+used[0], "yaml")}
}

var imageLineRE = regexp.MustCompile(`(?m)^\s*-?\s*image:\s*["']?([^"'\s#]+)`)

// kustomizeImages collects image names from a kustomization directory: its
// images[].name entries and image: fields of its YAML files, following
// directory resources two levels deep.
func kustomizeImages(snap *gitsource.Snapshot, dir string, depth int) []string {
	seen := map[string]bool{}
	var out []string
	addName := func(s string) {
		n := s
		if i := strings.LastIndex(n, "@"); i > 0 {
			n = n[:i]
		}
		if i := strings.LastIndex(n, ":"); i > strings.LastIndex(n, "/") {
			n = n[:i]
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	var k struct {
		Images []struct {
			Name string `json:"name"`
		} `json:"images"`
		Resources []string `json:"resources"`
	}
	for _, n := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		if data, err := snap.ReadFile(path.Join(dir, n)); err == nil {
			_ = yaml.Unmarshal(data, &k)
			break
		}
	}
	for _, i := range k.Images {
		addName(i.Name)
	}
	files, _ := snap.ListDir(dir)
	for _, f := range files {
		if strings.HasSuffix(f, ".yaml") || strings.HasSuffix(f, ".yml") {
			if data, err := snap.ReadFile(path.Join(dir, f)); err == nil {
				for _, m := range imageLineRE.FindAllStringSubmatch(string(data), -1) {
					addName(m[1])
				}
			}
		}
	}
	if depth < 2 {
		for _, res := range k.Resources {
			if strings.Contains(res, "://") || strings.HasSuffix(res, ".yaml") || strings.HasSuffix(res, ".yml") {
				continue
			}
			for _, n := range kustomizeImages(snap, path.Join(dir, res), depth+1) {
				addName(n)
			}
		}
	}
	return out
}

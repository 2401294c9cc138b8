package diagnostics

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/imgupd/imgupd/internal/lazyre"
	"github.com/imgupd/imgupd/internal/textutil"

	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/gitsource"
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
func checkSource(ctx context.Context, r *run) []report.Finding {
	var out []report.Finding
	for _, p := range r.target.Problems {
		if f := r.problemFinding(p); f.Stage == report.StageSource {
			out = append(out, f)
		}
	}
	if hasSeverity(out, report.Fail) {
		return out
	}
	kind := r.target.SourceKind
	out = append(out, find(report.CodeSourceSupported, report.Pass, "source type "+kind+" is supported").With(ev("why", r.target.SourceWhy)))
	src := r.editedSource(strings.ToLower(kind))
	if src == nil {
		return out
	}
	sc := r.readSource(ctx, src)
	out = append(out, sc.notes...)
	if sc.notReadable != nil {
		// What two images write to the same target is in the configuration.
		return append(append(out, *sc.notReadable), r.checkWrittenTwice(sc, kind)...)
	}
	if len(sc.refused) > 0 {
		f := find(report.CodeSourceNotReadable, report.Unknown, "the source was read without "+strings.Join(sc.refused, ", ")+": imgupd may not read them, so credentials, insecure, proxy and trust settings there were not applied")
		f.Verify = "grant imgupd " + strings.Join(sc.refusedRule, "; ")
		out = append(out, f)
	}
	if sc.chart != nil {
		out = append(out, find(report.CodeSourceChartFromHelmRepo, report.Info, fmt.Sprintf("chart %s %s read from %s", sc.chart.Name, sc.chart.Version, sc.chart.Ref)))
	}
	if sc.helmErr != nil {
		// Argo CD fails to render with such a file too; imgupd says what it
		// could not merge rather than guess the render.
		f := find(report.CodeSourceNotReadable, report.Unknown, "an .argocd-source file could not be merged into the source as Argo CD merges it: "+textutil.ClipWords(textutil.OneLine(sc.helmErr.Error()), 200))
		f.Verify = "check the file is valid YAML, and that the app renders (argocd app manifests " + r.req.App + ")"
		out = append(out, f)
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
			out = append(out, r.checkHelmRender(sc, src, im)...)
		case kind == updater.AppSourceKustomize && sc.snap != nil:
			mapping := r.checkKustomizeMapping(sc.snap, src, im)
			out = append(out, mapping...)
			if len(mapping) == 0 {
				if f, ok := r.kustomizeOverride(sc, src, im); ok {
					out = append(out, f)
				}
			}
		}
	}
	if kind == updater.AppSourceHelm || kind == updater.AppSourceKustomize {
		out = append(out, r.checkWrittenTwice(sc, kind)...)
	}
	out = append(out, r.checkMissingValueFiles(sc)...)
	if len(out) == before {
		out = append(out, find(report.CodeSourceMappingChecked, report.Pass, fmt.Sprintf("the image names Image Updater writes are used by %s", sc.where())))
	}
	return out
}

// checkMissingValueFiles: Argo CD fails to render a Helm source whose
// valueFiles entry does not exist unless ignoreMissingValueFiles is set
// (getResolvedValueFiles passes it to helm, which fails); the file Image
// Updater writes with git write-back to helmvalues: is created by its
// first commit.
func (r *run) checkMissingValueFiles(sc sourceContent) []report.Finding {
	var out []report.Finding
	wb := r.target.WriteBack
	for _, m := range sc.missingValueFiles {
		if wb != nil && wb.Method == updater.WriteBackGit && writesHelmValues(wb.Target) &&
			gitsource.NormalizeURL(wb.Repository) == m.repo && path.Clean(wb.Target.Path) == path.Clean(m.path) {
			continue // Image Updater creates it (the write-back stage says so)
		}
		out = append(out, find(report.CodeHelmValueFileMissing, report.Fail, fmt.Sprintf("helm.valueFiles[%d] %s does not exist (%s) and ignoreMissingValueFiles is not set: Argo CD cannot render the app until it does", m.index, m.entry, m.path)).
			With(ev("values files read", strings.Join(sc.files, ", "))).
			WithFix("Add the file, remove the entry, or set ignoreMissingValueFiles: true on the source's helm block.", fmt.Sprintf("Application %s/%s, helm.valueFiles", r.req.Namespace, r.req.App),
				r.sourcePatch("let Argo CD skip missing values files", sc.src, kv{"helm.ignoreMissingValueFiles", true})))
	}
	return out
}

// multiSourceCheck: in a multi-source Application, Image Updater edits one
// source; when another source renders the image, what it writes has no
// effect. moved is true when the finding replaces the mapping check.
func (r *run) multiSourceCheck(ctx context.Context, edited *argo.ApplicationSource, sc sourceContent, im updater.ImageConfig) (*report.Finding, bool) {
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
		f := find(report.CodeSourceImageElsewhere, report.Fail, fmt.Sprintf("image %s: Image Updater writes it to spec.sources[%d] (%s), but spec.sources[%d] (%s) renders it; the update would change nothing",
			aliasOr(im), r.sourceIndex(edited), describeSource(edited), i, describeSource(other))).WithImage(im.Alias).
			With(ev("edited source", fmt.Sprintf("spec.sources[%d]: %s (%s)", r.sourceIndex(edited), describeSource(edited), r.target.SourceWhy)),
				ev("renders the image", fmt.Sprintf("spec.sources[%d]: %s", i, describeSource(other))))
		fix := "Give the source that renders the image the explicit block of the app's type, so Image Updater edits it, and drop it from the other."
		step := r.sourcePatch("add a helm: block", other, kv{"helm", map[string]any{}})
		if other.Chart == "" && other.Kustomize != nil {
			step = r.sourcePatch("add a kustomize: block", other, kv{"kustomize", map[string]any{}})
		}
		f = f.WithFix(fix, fmt.Sprintf("Application %s/%s, spec.sources", r.req.Namespace, r.req.App), step)
		return &f, true
	}
	return nil, false
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

// imageValuePaths lists value paths that look like image names or tags.
func imageValuePaths(v any, prefix string) []string {
	return leafPaths(v, prefix, func(p, k string, _ any) bool {
		lk := strings.ToLower(k)
		return strings.Contains(strings.ToLower(p), "image") && (lk == "repository" || lk == "name" || lk == "tag" || lk == "image")
	})
}

// leafPaths lists, sorted, the dotted paths of the values under v (maps
// walked down, any other value a leaf) that keep accepts, given the path,
// the leaf's own key and its value.
func leafPaths(v any, prefix string, keep func(path, key string, leaf any) bool) []string {
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
			out = append(out, leafPaths(x, p, keep)...)
			continue
		}
		if keep(p, k, x) {
			out = append(out, p)
		}
	}
	return sortedStrings(out)
}

// helmTargetsStep points the image's helm parameters at the chart's value
// paths among paths (placeholders where none fits).
func (r *run) helmTargetsStep(im updater.ImageConfig, paths []string) []report.Step {
	var name, tag string
	for _, p := range paths {
		switch {
		case strings.HasSuffix(p, ".tag") && tag == "":
			tag = p
		case (strings.HasSuffix(p, ".repository") || strings.HasSuffix(p, ".name")) && name == "":
			name = p
		}
	}
	var steps []report.Step
	var vars []report.Var
	var nameV, tagV any = name, tag
	if name == "" {
		vars, nameV = append(vars, report.Var{Name: "HELM_IMAGE_NAME_PATH", About: "the chart's value path of the image name (" + strings.Join(paths, ", ") + ")"}), report.VarValue("HELM_IMAGE_NAME_PATH")
	}
	if tag == "" {
		vars, tagV = append(vars, report.Var{Name: "HELM_IMAGE_TAG_PATH", About: "the chart's value path of the tag"}), report.VarValue("HELM_IMAGE_TAG_PATH")
	}
	if len(vars) > 0 {
		steps = append(steps, report.SetVars(vars...))
	}
	return append(steps, r.imagesStep("point the helm parameters at the chart's value paths", imageSetting{alias: im.Alias, kvs: []kv{
		{"manifestTargets.helm.name", nameV}, {"manifestTargets.helm.tag", tagV}}}))
}

// checkKustomizeMapping: the name Image Updater writes into the Kustomize
// images list must be an image the kustomization or its manifests use.
func (r *run) checkKustomizeMapping(snap *gitsource.Snapshot, src *argo.ApplicationSource, im updater.ImageConfig) []report.Finding {
	v := r.version
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
	f := find(report.CodeKustomizeNameNotUsed, report.Fail, fmt.Sprintf("image %s: Kustomize name %s is not used by the manifests at %s; the images: override would change nothing", aliasOr(im), want, src.Path)).WithImage(im.Alias).
		With(ev("images used", strings.Join(used, ", ")))
	return []report.Finding{f.WithFix("Set the Kustomize name to the image the manifests use.", "manifestTargets.kustomize.name (or <alias>.kustomize.image-name)",
		r.imagesStep("set the Kustomize name", imageSetting{alias: im.Alias, kvs: []kv{{"manifestTargets.kustomize.name", used[0]}}}))}
}

var imageLineRE = lazyre.New(`(?m)^\s*-?\s*image:\s*["']?([^"'\s#]+)`)

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
				for _, m := range imageLineRE().FindAllStringSubmatch(string(data), -1) {
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

// helmLayers are every input of `helm template` for the source, lowest
// first: the values files read, the inline values, the parameters and the
// file parameters (with the .argocd-source files merged in).
func (r *run) helmLayers(sc sourceContent, src *argo.ApplicationSource) []helmLayer {
	layers := append([]helmLayer(nil), sc.layers...)
	field := fmt.Sprintf("Application %s/%s, %s.helm.", r.req.Namespace, r.req.App, r.sourceField(src))
	from := func(k string) string {
		if f, ok := sc.helm.from[k]; ok {
			return f + " (helm." + k + ", which Argo CD merges into the source)"
		}
		return field + k
	}
	h := sc.helm.helm
	if m, k := inlineValues(h); m != nil {
		layers = append(layers, helmLayer{kind: layerInline, where: from(k), values: m})
	}
	if len(h.Parameters) > 0 {
		layers = append(layers, helmLayer{kind: layerParameter, where: from("parameters"), params: h.Parameters})
	}
	if len(h.FileParameters) > 0 {
		layers = append(layers, helmLayer{kind: layerFileParameter, where: from("fileParameters"), fileParams: h.FileParameters})
	}
	return layers
}

// checkHelmRender judges an image's Helm write by what Argo CD will render:
// the value paths Image Updater writes must be ones the chart reads (its
// values define them), and nothing Argo CD applies after the write may set
// them again. An unread name path is harmless when the tag path is read
// and the chart's repository value names the same image (Image Updater's
// default image.name beside a chart's image.repository); an unread tag,
// an unread spec, or a repository of another image is a wrong update.
func (r *run) checkHelmRender(sc sourceContent, src *argo.ApplicationSource, im updater.ImageConfig) []report.Finding {
	if sc.values == nil {
		return nil // no values file to compare with
	}
	layers := r.helmLayers(sc, src)
	w := r.helmWriteFor(sc, src)
	if !w.read {
		return nil // nothing reads the file: the write-back stage says so
	}
	skip := -1
	if w.kind == layerValueFile {
		skip = w.index // the file Image Updater writes defines its keys itself
	}
	keys := imageHelmKeys(im.Target)
	var out []report.Finding
	notRead := func(missing []string, why string) report.Finding {
		f := find(report.CodeHelmParamNotInValues, report.Fail, fmt.Sprintf("image %s: Helm parameter %s is not in the chart's values; Image Updater would set it and %s",
			aliasOr(im), strings.Join(missing, ", "), why)).WithImage(im.Alias).With(ev("values files", strings.Join(sc.files, ", ")), ev("written to", w.where))
		if cands := r.preferImagePaths(sc.values, imageValuePaths(sc.values, ""), im); len(cands) > 0 {
			f = f.With(ev("image-like values in the chart", strings.Join(cands, ", ")))
			f = f.WithFix("Point the helm parameters at the chart's real value paths.", "the image's manifestTargets.helm (or <alias>.helm.image-name/-tag annotations)",
				r.helmTargetsStep(im, cands)...)
		}
		return f
	}
	if keys.spec != "" {
		if !definedIn(layers, keys.spec, skip) {
			return []report.Finding{notRead([]string{keys.spec}, "nothing would change")}
		}
		if f, ok := r.helmOverride(layers, w, src, im, keys.spec, func(v string) bool { return false }); ok {
			out = append(out, f)
		}
		return out
	}
	tagRead, nameRead := definedIn(layers, keys.tag, skip), definedIn(layers, keys.name, skip)
	switch {
	case !tagRead && !nameRead:
		return []report.Finding{notRead([]string{keys.name, keys.tag}, "nothing would change")}
	case !tagRead:
		return []report.Finding{notRead([]string{keys.tag}, "the running tag would not change")}
	}
	if f, ok := r.helmOverride(layers, w, src, im, keys.tag, func(string) bool { return false }); ok {
		return []report.Finding{f}
	}
	sameImage := func(v string) bool { return sameRepository(updater.ParseImageRef(v, r.version), im.Image) }
	if nameRead {
		if f, ok := r.helmOverride(layers, w, src, im, keys.name, sameImage); ok {
			out = append(out, f)
		}
		return out
	}
	repo, where, found := siblingRepository(layers, keys.tag)
	if found && !sameImage(repo) {
		f := notRead([]string{keys.name}, fmt.Sprintf("the tag it writes to %s would go with %s from %s: the app would run %s with %s's tag", keys.tag, repo, where, repo, im.Image.FullName()))
		return []report.Finding{f}
	}
	why := "the running image's repository stays as it is"
	if found {
		why = fmt.Sprintf("%s already names %s", where, repo)
	}
	f := find(report.CodeHelmParamNotInValues, report.Warn, fmt.Sprintf("image %s: Helm parameter %s is not in the chart's values and changes nothing; the chart reads %s, and %s, so the app runs the new tag",
		aliasOr(im), keys.name, keys.tag, why)).WithImage(im.Alias).With(ev("values files", strings.Join(sc.files, ", ")), ev("written to", w.where))
	f.State = ""
	if cands := r.preferImagePaths(sc.values, imageValuePaths(sc.values, ""), im); len(cands) > 0 {
		f = f.WithFix("Optional: name the chart's own value paths, so that the parameters say what the chart reads.", "the image's manifestTargets.helm (or <alias>.helm.image-name/-tag annotations)",
			r.helmTargetsStep(im, cands)...)
	}
	return append(out, f)
}

// helmOverride is the wrong update of a write that something Argo CD
// applies after it sets again (same reports a value that renders the same).
func (r *run) helmOverride(layers []helmLayer, w helmWrite, src *argo.ApplicationSource, im updater.ImageConfig, key string, same func(string) bool) (report.Finding, bool) {
	l, v, ok := overriddenAbove(layers, w, key, same)
	if !ok {
		return report.Finding{}, false
	}
	why := map[helmLayerKind]string{
		layerValueFile:     "a later values file wins",
		layerInline:        "Argo CD passes the inline values after every values file",
		layerParameter:     "Argo CD passes parameters to helm as --set, which outranks every values file",
		layerFileParameter: "Argo CD passes fileParameters as --set-file, which helm applies last",
	}[l.kind]
	f := find(report.CodeHelmValueOverridden, report.Fail, fmt.Sprintf("image %s: Image Updater writes %s to %s, but %s sets %s=%s and outranks it (%s): Argo CD keeps rendering %s",
		aliasOr(im), key, w.where, l.where, key, v, why, v)).WithImage(im.Alias).
		With(ev("written to", w.where), ev("overridden by", l.where+": "+key+"="+v))
	switch {
	case l.kind == layerParameter && !strings.Contains(l.where, ".argocd-source"):
		idx := 0
		for i, p := range helmOf(src).Parameters {
			if p.Name == key {
				idx = i
			}
		}
		base := append(r.sourceBase(src), "helm", "parameters", strconv.Itoa(idx))
		f = f.WithFix(fmt.Sprintf("Remove the %s parameter from the Application, so that the values file Image Updater writes decides (or let Image Updater write the parameter itself: the argocd write-back method, or git write-back to the default .argocd-source target).", key),
			l.where, report.PatchStep("remove the parameter "+key, report.Patch{Kind: "Application", Resource: "application", Namespace: r.req.Namespace, Name: r.req.App, Type: report.PatchJSON,
				Ops: []report.PatchOp{{Op: "test", Path: report.Pointer(append(base, "name")...), Value: key}, {Op: "remove", Path: report.Pointer(base...)}}}))
	case l.kind == layerInline && !strings.Contains(l.where, ".argocd-source"):
		f = f.WithFix(fmt.Sprintf("Remove %s from the Application's inline values, so that the values file Image Updater writes decides.", key), l.where,
			r.inlineValueRemoval(src, key, l.where))
	case l.kind == layerValueFile:
		f = f.WithFix(fmt.Sprintf("Write to the last values file that sets %s, or remove it from %s.", key, l.file), r.writeBackPlace("writeBackTarget"),
			r.writeBackStep("write to "+l.file, kv{"gitConfig.writeBackTarget", "helmvalues:/" + l.file}))
	default:
		f = f.WithFix(fmt.Sprintf("Remove %s from %s.", key, l.where), l.where)
	}
	return f, true
}

// sameRepository: a chart value names the image being updated, also when
// it leaves the registry out (charts that prepend a global.imageRegistry
// or a registry value elsewhere): only another repository path is another
// image.
func sameRepository(v, img updater.ImageRef) bool {
	return v.SameImage(img) || v.Registry == "" && v.Name == img.Name
}

func helmOf(src *argo.ApplicationSource) argo.ApplicationSourceHelm {
	if src == nil || src.Helm == nil {
		return argo.ApplicationSourceHelm{}
	}
	return *src.Helm
}

// kustomizeOverride: with git write-back to a kustomization, Image Updater
// edits its images: list, but Argo CD then runs `kustomize edit set image`
// in the source path for every entry of the source's kustomize.images (with
// the .argocd-source files merged in, a list they set replacing the
// Application's) before it builds (Argo CD v3.5.1 util/kustomize/
// kustomize.go Build): an entry for the same image with a tag or digest
// sets it again, and the commit changes nothing that is rendered.
func (r *run) kustomizeOverride(sc sourceContent, src *argo.ApplicationSource, im updater.ImageConfig) (report.Finding, bool) {
	wb := r.target.WriteBack
	if wb == nil || wb.Method != updater.WriteBackGit || wb.Target.Kind != updater.TargetKustomization {
		return report.Finding{}, false
	}
	var images []string
	where := fmt.Sprintf("Application %s/%s, %s.kustomize.images", r.req.Namespace, r.req.App, r.sourceField(src))
	fromSpec := true
	if src.Kustomize != nil {
		images = src.Kustomize.Images
	}
	for _, p := range helmOverrideFiles(src.Path, r.req.App, r.req.Namespace, r.argoNamespace()) {
		data, err := sc.snap.ReadFile(p)
		if err != nil {
			continue
		}
		var o struct {
			Kustomize *struct {
				Images *[]string `json:"images"`
			} `json:"kustomize"`
		}
		if yaml.Unmarshal(data, &o) == nil && o.Kustomize != nil && o.Kustomize.Images != nil {
			images, where, fromSpec = *o.Kustomize.Images, p+" (kustomize.images, which Argo CD merges into the source)", false
		}
	}
	want := updater.ParseImageRef(orDefault(kustomizeName(im), im.Image.FullName()), r.version)
	for i, e := range images {
		name, rest := e, e
		if n, after, ok := strings.Cut(e, "="); ok {
			name, rest = n, after
		}
		ref := updater.ParseImageRef(rest, r.version)
		if !updater.ParseImageRef(name, r.version).SameImage(want) && !updater.ParseImageRef(name, r.version).SameImage(im.Image) {
			continue
		}
		if ref.Tag == "" && ref.Digest == "" {
			continue // renames only: the tag still comes from the kustomization
		}
		f := find(report.CodeKustomizeImageOverride, report.Fail, fmt.Sprintf("image %s: Image Updater writes its tag to the images: of %s, but %s sets %s, which Argo CD applies over the kustomization (kustomize edit set image) before it builds: Argo CD keeps rendering %s",
			aliasOr(im), wb.Target.Path, where, e, e)).WithImage(im.Alias).
			With(ev("written to", path.Join(wb.Target.Path, "kustomization.yaml")+" images:"), ev("overridden by", where+": "+e))
		if fromSpec {
			entry := report.Pointer(append(r.sourceBase(src), "kustomize", "images", strconv.Itoa(i))...)
			f = f.WithFix("Remove the entry from the Application's kustomize.images, so that the kustomization Image Updater writes decides (or let Image Updater write kustomize.images itself: the argocd write-back method, or git write-back to the default .argocd-source target).",
				where, report.PatchStep("remove the entry "+e, report.Patch{Kind: "Application", Resource: "application", Namespace: r.req.Namespace, Name: r.req.App, Type: report.PatchJSON,
					Ops: []report.PatchOp{{Op: "test", Path: entry, Value: e}, {Op: "remove", Path: entry}}}))
		} else {
			f = f.WithFix("Remove the entry (or the file) from git, or let Image Updater write that file: git write-back to the default .argocd-source target.", where)
		}
		return f, true
	}
	return report.Finding{}, false
}

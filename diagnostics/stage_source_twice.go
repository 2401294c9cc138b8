package diagnostics

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
)

// Targets written twice: two images of one app mapped to the same Helm
// parameter or Kustomize image name. Image Updater checks each image on its
// own and writes each to its target, so imgupd's per-image checks see two
// healthy updates; but in one cycle Image Updater (v1.3.0 pkg/argocd/
// update.go UpdateApplication) walks the app's images in their order (the
// image-list annotation's, or the CR applicationRef's images[]) and, for
// every live image, due or not, calls setAppImage: SetHelmImage merges the
// image's parameters into the source's helm.parameters by name
// (pkg/argocd/argocd.go mergeHelmParams: a parameter of the same name is
// replaced), SetKustomizeImage merges "<kustomize name>=<image>:<tag>" into
// kustomize.images (Argo CD's ApplicationSourceKustomize.MergeImage: an
// entry of the same name before "=" is replaced). So the last image wins.
// Git write-back writes what the merged parameters hold: marshalParamsOverride
// reads each helmvalues key's value from those parameters
// (getHelmParam), in the same image order, so the file holds the last
// image's value too. Two ImageUpdater CRs are not de-conflicted: each
// writes its own image on its own cycle, and the key flips between them.

// targetWriter is one live image Image Updater writes for the app: from
// the followed selection (cr "") or from another CR that selects the app.
type targetWriter struct {
	im updater.ImageConfig
	// cr, refIndex and namePattern place an image of another CR.
	cr          string
	refIndex    int
	namePattern string
	// order is the image's place among the writers (image-list or CR
	// images order, the followed selection first).
	order int
	live  updater.LiveMatch
}

// targetKey is a parameter or Kustomize name an image is written to.
type targetKey struct {
	key string
	// kind is "name", "tag", "spec" (Helm parameters) or "kustomize".
	kind string
}

// twiceRecord is a written-twice finding the reconcile pass completes
// with the winning value once the picks are known.
type twiceRecord struct {
	title          string
	loser, winner  targetWriter
	keys           []targetKey
	winnerKinds    map[string]string
	sameSelection  bool
	kustomizeValue bool
}

// writers are the live images Image Updater writes for the app, in the
// order it writes them.
func (r *run) targetWriters() []targetWriter {
	var out []targetWriter
	add := func(im updater.ImageConfig, cr string, ref int, pattern string) {
		m := updater.MatchLive(im.Image, kustomizeName(im), im.Settings.ForceUpdate, r.model.LiveImages, r.version)
		if !m.Found && !m.ForceAdded {
			return // Image Updater skips an image that is not live
		}
		out = append(out, targetWriter{im: im, cr: cr, refIndex: ref, namePattern: pattern, order: len(out), live: m})
	}
	for _, im := range r.images {
		add(im, "", r.target.RefIndex, r.target.NamePattern)
	}
	for _, o := range r.target.Also {
		if !o.Selected || o.Mode != updater.ModeCR {
			continue
		}
		for _, im := range o.Images {
			add(im, o.CR, o.RefIndex, o.NamePattern)
		}
	}
	return out
}

// writtenKeys are the parameters (Helm) or the Kustomize name an image is
// written to for a source of kind.
func writtenKeys(kind string, im updater.ImageConfig) []targetKey {
	switch kind {
	case updater.AppSourceHelm:
		if im.Target.Kind == updater.TargetKindKustomize {
			return nil // the source stage's Helm checks leave these out too
		}
		k := imageHelmKeys(im.Target)
		if k.spec != "" {
			return []targetKey{{k.spec, "spec"}}
		}
		return []targetKey{{k.name, "name"}, {k.tag, "tag"}}
	case updater.AppSourceKustomize:
		if n := kustomizeName(im); n != "" {
			return []targetKey{{n, "kustomize"}}
		}
		return []targetKey{{im.Image.FullName(), "kustomize"}}
	}
	return nil
}

// checkWrittenTwice finds pairs of live images written to the same key.
func (r *run) checkWrittenTwice(sc sourceContent, kind string) []report.Finding {
	ws := r.targetWriters()
	var out []report.Finding
	for i := 0; i < len(ws); i++ {
		for j := i + 1; j < len(ws); j++ {
			a, b := ws[i], ws[j]
			if a.im.Image.SameImage(b.im.Image) {
				continue // one image listed twice is another question
			}
			bk := map[string]string{}
			for _, k := range writtenKeys(kind, b.im) {
				bk[k.key] = k.kind
			}
			var keys []targetKey
			for _, k := range writtenKeys(kind, a.im) {
				if _, ok := bk[k.key]; ok {
					keys = append(keys, k)
				}
			}
			if len(keys) == 0 {
				continue
			}
			rec := twiceRecord{loser: a, winner: b, keys: keys, winnerKinds: bk, sameSelection: a.cr == b.cr, kustomizeValue: kind == updater.AppSourceKustomize}
			rec.title = r.twiceTitle(rec, "")
			r.twice = append(r.twice, rec)
			out = append(out, r.twiceFinding(sc, kind, rec))
		}
	}
	return out
}

// writerName names an image for a person: its alias and, for an image of
// another CR, that CR.
func writerName(w targetWriter) string {
	n := aliasOr(w.im)
	if w.cr != "" {
		n += " (ImageUpdater " + w.cr + ")"
	}
	return n
}

// winningValue is what the key holds after the winner's write: its image
// name, its tag (the pick when known, else the running tag) or both.
func (rec twiceRecord) winningValue(k targetKey, tag string) string {
	w := rec.winner
	if tag == "" {
		tag = w.live.Live.TagWithDigest()
	}
	name := w.im.Image.FullName()
	switch rec.winnerKinds[k.key] {
	case "name":
		return name
	case "tag":
		return tag
	case "kustomize":
		ref := name + ":" + tag
		if n := kustomizeName(w.im); n != "" {
			return n + "=" + ref
		}
		return ref
	}
	return name + ":" + tag
}

// twiceTitle says which images share which keys and what wins; pick is
// the winner's pick ("" before the candidates are known: its running tag).
func (r *run) twiceTitle(rec twiceRecord, pick string) string {
	var keys, wins []string
	for _, k := range rec.keys {
		keys = append(keys, k.key)
		wins = append(wins, k.key+"="+rec.winningValue(k, pick))
	}
	what := "Helm parameter"
	if rec.kustomizeValue {
		what = "Kustomize image"
	}
	if len(keys) > 1 {
		what += "s"
	}
	a, b := writerName(rec.loser), writerName(rec.winner)
	if rec.kustomizeValue {
		if rec.sameSelection {
			return fmt.Sprintf("images %s and %s are both written to %s %s: Image Updater writes both in one cycle, %s last, so the entry becomes %s and the container that runs %s is given %s; %s's update is never deployed",
				a, b, what, strings.Join(keys, ", "), b, rec.winningValue(rec.keys[0], pick), rec.keys[0].key, rec.winner.im.Image.FullName(), a)
		}
		return fmt.Sprintf("images %s and %s are both written to %s %s: each CR writes its own on its own cycle, so the entry flips between them (%s after %s's), and the container that runs %s is given the other image in turn",
			a, b, what, strings.Join(keys, ", "), rec.winningValue(rec.keys[0], pick), aliasOr(rec.winner.im), rec.keys[0].key)
	}
	if rec.sameSelection {
		return fmt.Sprintf("images %s and %s are both written to %s %s: Image Updater writes both in one cycle, %s last, so %s wins and the container that reads it runs %s; %s's update is never deployed",
			a, b, what, strings.Join(keys, ", "), b, strings.Join(wins, ", "), rec.winner.im.Image.FullName(), a)
	}
	return fmt.Sprintf("images %s and %s are both written to %s %s: each CR writes its own on its own cycle, so the value flips between them (%s after %s's), and the container that reads it runs the other image in turn",
		a, b, what, strings.Join(keys, ", "), strings.Join(wins, ", "), aliasOr(rec.winner.im))
}

// twiceFinding is the wrong update of a pair, with the fix that gives one
// image its own target: the value paths (Kustomize name) the source uses
// for that image, else placeholders.
func (r *run) twiceFinding(sc sourceContent, kind string, rec twiceRecord) report.Finding {
	f := find(report.CodeTargetWrittenTwice, report.Fail, rec.title).WithImage(rec.loser.im.Alias)
	for _, w := range []targetWriter{rec.loser, rec.winner} {
		var ks []string
		for _, k := range writtenKeys(kind, w.im) {
			ks = append(ks, k.kind+" "+k.key)
		}
		where := "image " + strconv.Itoa(w.order+1) + " of the image list"
		if r.target.Mode == updater.ModeCR || w.cr != "" {
			cr := w.cr
			if cr == "" {
				cr = r.target.CR
			}
			where = fmt.Sprintf("ImageUpdater %s, applicationRefs[%d]", cr, w.refIndex)
		}
		f = f.With(ev("image "+aliasOr(w.im), fmt.Sprintf("%s, written to %s (%s); live as %s", w.im.Image.FullName(), strings.Join(ks, ", "), where, w.live.Live.String())))
	}
	if kind == updater.AppSourceKustomize {
		return r.twiceKustomizeFix(f, sc, rec)
	}
	// What Argo CD renders for the shared keys now: after Image Updater's
	// cycle, the winner's value.
	if src := r.editedSource(updater.TargetKindHelm); src != nil && sc.values != nil {
		layers := r.helmLayers(sc, src)
		for _, k := range rec.keys {
			if v, where, ok := renderedValue(layers, k.key); ok {
				f = f.With(ev("renders now", k.key+"="+v+" ("+where+")"))
			}
		}
	}
	return r.twiceHelmFix(f, sc, rec)
}

// moverOf picks the image to give its own target: the one for which the
// source names other value paths (Kustomize names) than the shared ones;
// failing that the one written last (the likelier copy of the other's
// configuration). Only an image whose settings a fix can write is moved: a
// per-alias annotation needs an alias.
func moverOf(rec twiceRecord, own map[int][]string) targetWriter {
	movable := func(w targetWriter) bool { return w.im.Alias != "" }
	switch {
	case len(own[rec.winner.order]) > 0 && movable(rec.winner):
		return rec.winner
	case len(own[rec.loser.order]) > 0 && movable(rec.loser):
		return rec.loser
	case movable(rec.winner):
		return rec.winner
	}
	return rec.loser
}

func (r *run) twiceHelmFix(f report.Finding, sc sourceContent, rec twiceRecord) report.Finding {
	shared := map[string]bool{}
	for _, k := range rec.keys {
		shared[k.key] = true
	}
	own := map[int][]string{}
	for _, w := range []targetWriter{rec.loser, rec.winner} {
		for _, p := range valuePathsNaming(sc.values, "", w.im.Image, r.version) {
			if !shared[p] {
				own[w.order] = append(own[w.order], p)
			}
		}
	}
	m := moverOf(rec, own)
	if m.im.Alias == "" {
		return f.WithFix(noAliasFix(m, "helm.image-name and <alias>.helm.image-tag"), r.appObject()+", annotation "+updater.AnnotationImageList)
	}
	var steps []report.Step
	var kvs []kv
	spec := imageHelmKeys(m.im.Target).spec != ""
	paths := own[m.order]
	switch {
	case spec:
		var v any = report.VarValue("HELM_IMAGE_SPEC_PATH")
		if len(paths) > 0 && strings.Contains(lastValueAt(sc.values, paths[0]), ":") {
			v = paths[0]
		} else {
			steps = append(steps, report.SetVars(report.Var{Name: "HELM_IMAGE_SPEC_PATH", About: "the chart's value path of " + aliasOr(m.im) + "'s whole image reference (name:tag), which its own container reads"}))
		}
		kvs = []kv{{"manifestTargets.helm.spec", v}}
	default:
		var name, tag any
		for _, p := range paths {
			parent := ""
			if i := strings.LastIndex(p, "."); i > 0 {
				parent = p[:i+1]
			}
			if _, ok := valueAt(sc.values, parent+"tag"); ok && !shared[parent+"tag"] {
				name, tag = p, parent+"tag"
				break
			}
		}
		if name == nil {
			steps = append(steps, report.SetVars(
				report.Var{Name: "HELM_IMAGE_NAME_PATH", About: "the chart's value path of " + aliasOr(m.im) + "'s image name, which its own container reads"},
				report.Var{Name: "HELM_IMAGE_TAG_PATH", About: "the chart's value path of " + aliasOr(m.im) + "'s tag"}))
			name, tag = report.VarValue("HELM_IMAGE_NAME_PATH"), report.VarValue("HELM_IMAGE_TAG_PATH")
		}
		kvs = []kv{{"manifestTargets.helm.name", name}, {"manifestTargets.helm.tag", tag}}
	}
	say := "give image " + aliasOr(m.im) + " its own Helm parameters"
	steps = append(steps, r.twiceImageStep(say, m, kvs))
	return f.WithFix(fmt.Sprintf("Give image %s its own Helm parameters, the value paths its own container reads, so that the two images no longer overwrite each other.", aliasOr(m.im)),
		r.twiceWhere(m, "manifestTargets.helm", "helm.image-name / helm.image-tag / helm.image-spec"), steps...)
}

func (r *run) twiceKustomizeFix(f report.Finding, sc sourceContent, rec twiceRecord) report.Finding {
	shared := rec.keys[0].key
	own := map[int][]string{}
	if sc.snap != nil {
		if src := r.editedSource(updater.TargetKindKustomize); src != nil {
			for _, u := range kustomizeImages(sc.snap, src.Path, 0) {
				for _, w := range []targetWriter{rec.loser, rec.winner} {
					if u != shared && updater.ParseImageRef(u, r.version).SameImage(w.im.Image) {
						own[w.order] = append(own[w.order], u)
					}
				}
			}
		}
	}
	m := moverOf(rec, own)
	if m.im.Alias == "" {
		return f.WithFix(noAliasFix(m, "kustomize.image-name"), r.appObject()+", annotation "+updater.AnnotationImageList)
	}
	var steps []report.Step
	var v any
	if p := own[m.order]; len(p) > 0 {
		v = p[0]
	} else {
		steps = append(steps, report.SetVars(report.Var{Name: "KUSTOMIZE_IMAGE_NAME", About: "the image name " + aliasOr(m.im) + "'s own container uses in the manifests"}))
		v = report.VarValue("KUSTOMIZE_IMAGE_NAME")
	}
	steps = append(steps, r.twiceImageStep("give image "+aliasOr(m.im)+" its own Kustomize name", m, []kv{{"manifestTargets.kustomize.name", v}}))
	return f.WithFix(fmt.Sprintf("Give image %s its own Kustomize name, the image name its own container uses, so that the two images no longer overwrite each other's images: entry.", aliasOr(m.im)),
		r.twiceWhere(m, "manifestTargets.kustomize.name", "kustomize.image-name"), steps...)
}

// noAliasFix: an image-list item without an alias gets no per-image
// annotations (Image Updater reads <alias>.<key> only for aliased items),
// so it always writes the defaults; it needs an alias first.
func noAliasFix(m targetWriter, keys string) string {
	return fmt.Sprintf("Give image %s an alias in the image-list annotation (<alias>=%s), then set <alias>.%s to the value paths (image name) its own container reads, so that the two images no longer overwrite each other.",
		m.im.Image.FullName(), m.im.Image.String(), keys)
}

// twiceWhere names where the mover's target is configured.
func (r *run) twiceWhere(m targetWriter, crField, annotation string) string {
	switch {
	case m.cr != "":
		return fmt.Sprintf("ImageUpdater %s, image %s's %s", m.cr, aliasOr(m.im), crField)
	case r.target.Mode == updater.ModeCR:
		return fmt.Sprintf("ImageUpdater %s, image %s's %s", r.target.CR, aliasOr(m.im), crField)
	}
	return fmt.Sprintf("Application %s/%s, annotations %s.%s", r.req.Namespace, r.req.App, m.im.Alias, annotation)
}

// twiceImageStep writes the mover's settings: where the followed selection
// reads them (imagesStep), or, for an image of another CR, an exact patch
// of that CR's image block (its applicationRef's namePattern and the
// image's alias tested first).
func (r *run) twiceImageStep(say string, m targetWriter, kvs []kv) report.Step {
	if m.cr == "" {
		return r.imagesStep(say, imageSetting{alias: m.im.Alias, kvs: kvs})
	}
	for i := range r.crs {
		cr := &r.crs[i]
		if cr.Namespace+"/"+cr.Name != m.cr || m.refIndex < 0 || m.refIndex >= len(cr.Spec.ApplicationRefs) {
			continue
		}
		idx := -1
		for j, im := range cr.Spec.ApplicationRefs[m.refIndex].Images {
			if im.Alias == m.im.Alias {
				idx = j
			}
		}
		doc, err := report.AsJSON(cr)
		if idx < 0 || err != nil {
			break
		}
		base := []string{"spec", "applicationRefs", strconv.Itoa(m.refIndex), "images", strconv.Itoa(idx)}
		ops := []report.PatchOp{
			{Op: "test", Path: report.Pointer("spec", "applicationRefs", strconv.Itoa(m.refIndex), "namePattern"), Value: m.namePattern},
			{Op: "test", Path: report.Pointer(append(base, "alias")...), Value: m.im.Alias},
		}
		for _, x := range kvs {
			more, err := report.SetAt(doc, settingPath(base, x.key), jsonValue(x.value))
			if err != nil {
				return report.Value(say, crObject(m.cr), "(set "+settingsText([]imageSetting{{alias: m.im.Alias, kvs: kvs}})+")")
			}
			ops = append(ops, more...)
		}
		return report.PatchStep(say, report.Patch{Kind: "ImageUpdater", Resource: "imageupdater", Namespace: cr.Namespace, Name: cr.Name, Type: report.PatchJSON, Ops: ops})
	}
	return report.Value(say, crObject(m.cr), "(the CR could not be read back to write an exact patch: set "+settingsText([]imageSetting{{alias: m.im.Alias, kvs: kvs}})+")")
}

// valuePathsNaming lists the value paths whose string value names img
// (with or without a tag or its registry), sorted.
func valuePathsNaming(v any, prefix string, img updater.ImageRef, ver updater.Version) []string {
	return leafPaths(v, prefix, func(_, _ string, leaf any) bool {
		y, ok := leaf.(string)
		return ok && y != "" && sameRepository(updater.ParseImageRef(y, ver), img)
	})
}

// lastValueAt is the string value at a dotted path ("" when none).
func lastValueAt(values map[string]any, p string) string {
	v, _ := valueAt(values, p)
	s, _ := v.(string)
	return s
}

// reconcileWrittenTwice completes a written-twice finding with what the
// candidates stage learnt: the winner's pick is the value that wins. When
// no image of the followed selection in the pair is due (neither is
// written this cycle) it is a warning: the next update writes both.
func (r *run) reconcileWrittenTwice(f *report.Finding) bool {
	for _, rec := range r.twice {
		if rec.title != f.Title {
			continue
		}
		pick := ""
		if d, ok := r.decision[rec.winner.im.Alias]; ok && rec.winner.cr == "" && r.dueFor(rec.winner.im.Alias) && d.Selected != nil {
			pick = d.Selected.String()
		}
		_, loserKnown := r.decision[rec.loser.im.Alias]
		_, winnerKnown := r.decision[rec.winner.im.Alias]
		idle := rec.sameSelection && rec.loser.cr == "" && loserKnown && winnerKnown && !r.dueFor(rec.loser.im.Alias) && !r.dueFor(rec.winner.im.Alias)
		f.Title = r.twiceTitle(rec, pick)
		if idle && f.Severity == report.Fail {
			f.Severity = report.Warn
			f.Title += " (no update is due now; the next one writes both)"
		}
		return true
	}
	return false
}

// preferImagePaths puts first the value paths whose value names the image
// (and the tag beside each), so that a fix points the image at the value
// paths its own container reads, not at another image's (the first
// repository and tag paths in name order may be another container's).
func (r *run) preferImagePaths(values map[string]any, cands []string, im updater.ImageConfig) []string {
	var first []string
	seen := map[string]bool{}
	for _, p := range valuePathsNaming(values, "", im.Image, r.version) {
		parent := ""
		if i := strings.LastIndex(p, "."); i > 0 {
			parent = p[:i+1]
		}
		first = append(first, p)
		seen[p] = true
		if _, ok := valueAt(values, parent+"tag"); ok && !seen[parent+"tag"] {
			first = append(first, parent+"tag")
			seen[parent+"tag"] = true
		}
	}
	out := first
	for _, c := range cands {
		if !seen[c] {
			out = append(out, c)
		}
	}
	return out
}

// overwrittenWrite: Image Updater logged the loser's pick as written, but
// the winner's write to the same keys came after it in the same cycle, so
// what it committed holds the winner's value: the history says so.
func (r *run) overwrittenWrite(f *report.Finding) bool {
	for _, rec := range r.twice {
		if !rec.sameSelection || rec.loser.cr != "" || rec.loser.im.Alias != f.Image || !r.rep.HasCode(report.CodeTargetWrittenTwice) {
			continue
		}
		for _, tf := range r.rep.Findings() {
			if tf.Code == report.CodeTargetWrittenTwice && tf.Image == f.Image && tf.Severity == report.Fail {
				f.Title += fmt.Sprintf("; but in the same cycle %s was written to the same %s after it, and the write holds %s's", aliasOr(rec.winner.im), keyNames(rec.keys), aliasOr(rec.winner.im))
				return true
			}
		}
	}
	return false
}

func keyNames(keys []targetKey) string {
	var out []string
	for _, k := range keys {
		out = append(out, k.key)
	}
	return strings.Join(out, ", ")
}

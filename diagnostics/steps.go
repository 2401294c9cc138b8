package diagnostics

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/imgupd/imgupd/internal/shell"
	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
)

// This file builds the steps of fixes that write into one object, as data:
// an exact JSON patch of the ImageUpdater CR or the Application (test
// operations first, so that a patch made for another version of the object
// changes nothing), the kubectl annotate or set env that sets a value, the
// registries.conf entry merged into the ConfigMap Image Updater reads. No
// value is formatted into a command: report's step builders quote each word
// and read the command back before they keep it.

// kv is one setting: a dotted path below the block it belongs to
// ("manifestTargets.kustomize.name") and its value: a string, a bool, a
// []string (a list: a comma list in an annotation), or an object.
type kv struct {
	key   string
	value any
}

// annotationValue is a setting's value as an annotation holds it.
func annotationValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case []string:
		return strings.Join(x, ",")
	}
	return fmt.Sprint(v)
}

// jsonValue is a setting's value as JSON holds it ([]string as a list).
func jsonValue(v any) any {
	if l, ok := v.([]string); ok {
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out
	}
	return v
}

// settingPath is the dotted key's tokens below base.
func settingPath(base []string, dotted string) []string {
	return append(append([]string(nil), base...), strings.Split(dotted, ".")...)
}

// crPatch is the step that sets kvs at their paths below base in the
// selected CR (guards first), or false when the CR was not read.
func (r *run) crPatch(say string, guards []report.PatchOp, base []string, kvs []kv) (report.Step, bool) {
	cr := r.selectedCR()
	if cr == nil {
		return report.Step{}, false
	}
	doc, err := report.AsJSON(cr)
	if err != nil {
		return report.Step{}, false
	}
	ops := guards
	for _, x := range kvs {
		more, err := report.SetAt(doc, settingPath(base, x.key), jsonValue(x.value))
		if err != nil {
			return report.Step{}, false
		}
		ops = append(ops, more...)
	}
	return report.PatchStep(say, report.Patch{Kind: "ImageUpdater", Resource: "imageupdater", Namespace: cr.Namespace, Name: cr.Name, Type: report.PatchJSON, Ops: ops}), true
}

// refGuard tests that the selected applicationRef is still the one read.
func (r *run) refGuard() report.PatchOp {
	return report.PatchOp{Op: "test", Path: report.Pointer("spec", "applicationRefs", strconv.Itoa(r.target.RefIndex), "namePattern"), Value: r.target.NamePattern}
}

// crObject names an ImageUpdater CR ("namespace/name").
func crObject(key string) string { return "ImageUpdater " + key }

// appObject names the Application.
func (r *run) appObject() string { return fmt.Sprintf("Application %s/%s", r.req.Namespace, r.req.App) }

// annotateApp is the step that sets (key=value) or removes (key-) the
// Application's annotations.
func (r *run) annotateApp(say string, args ...string) report.Step {
	return report.Command(say, append([]string{"kubectl", "-n", r.req.Namespace, "annotate", "application", r.req.App, "--overwrite"}, args...)...)
}

// argocdApp is the app as the argocd CLI names it: namespace/name (apps in
// any namespace; the CLI reads the name alone in its own namespace only).
func (r *run) argocdApp() string {
	if r.req.Namespace != "" {
		return r.req.Namespace + "/" + r.req.App
	}
	return r.req.App
}

// imageSetting is settings of one image, by alias, below its block of
// the CR (imageName, commonUpdateSettings.allowTags,
// manifestTargets.kustomize.name...).
type imageSetting struct {
	alias string
	kvs   []kv
}

// imageAnnotations are the per-alias annotation names of the image
// settings, by their last path element.
var imageAnnotations = map[string]string{
	updater.FieldAllowTags: "allow-tags", updater.FieldIgnoreTags: "ignore-tags",
	updater.FieldPlatforms: "platforms", updater.FieldUpdateStrategy: "update-strategy",
	updater.FieldForceUpdate: "force-update", updater.FieldPullSecret: "pull-secret",
	"manifestTargets.kustomize.name": updater.AnnKeyKustomizeImageName,
	"manifestTargets.helm.name":      "helm.image-name", "manifestTargets.helm.tag": "helm.image-tag",
	"manifestTargets.helm.spec": "helm.image-spec",
}

// imagesStep writes settings of images where the app's selection reads
// them: their blocks in the selected applicationRef of the CR (an exact
// patch), else their per-alias annotations (one annotate command). An
// imageName setting in annotation mode is the whole image-list value.
func (r *run) imagesStep(say string, sets ...imageSetting) report.Step {
	if r.target.Mode == updater.ModeCR {
		if s, ok := r.crImagesPatch(say, sets); ok {
			return s
		}
		return report.Value(say, crObject(r.target.CR), "(the CR could not be read back to write an exact patch: set "+settingsText(sets)+")")
	}
	var args []shell.Word
	for _, s := range sets {
		for _, x := range s.kvs {
			key := updater.AnnotationImageList
			if x.key != "imageName" {
				name := imageAnnotations[x.key]
				if name == "" {
					name = imageAnnotations[x.key[strings.LastIndex(x.key, ".")+1:]]
				}
				key = updater.AnnotationPrefix + name
				if s.alias != "" {
					key = updater.AnnotationPrefix + s.alias + "." + name
				}
			}
			if v, ok := x.value.(report.VarValue); ok {
				args = append(args, shell.Concat(shell.Lit(key+"="), shell.Var(string(v))))
				continue
			}
			args = append(args, shell.Lit(key+"="+annotationValue(x.value)))
		}
	}
	return report.RunWords(say, append(shell.Args("kubectl", "-n", r.req.Namespace, "annotate", "application", r.req.App, "--overwrite"), args...)...)
}

// crImagesPatch sets the images' settings in the selected applicationRef:
// each image's block by its index (an alias not listed is appended), the
// ref's namePattern and each alias tested first.
func (r *run) crImagesPatch(say string, sets []imageSetting) (report.Step, bool) {
	cr := r.selectedCR()
	ref := r.target.RefIndex
	if cr == nil || ref < 0 || ref >= len(cr.Spec.ApplicationRefs) {
		return report.Step{}, false
	}
	refBase := []string{"spec", "applicationRefs", strconv.Itoa(ref)}
	guards := []report.PatchOp{r.refGuard()}
	bySet := map[int][]kv{}
	bases := map[int][]string{}
	next := len(cr.Spec.ApplicationRefs[ref].Images)
	for i, s := range sets {
		idx := -1
		for j, im := range cr.Spec.ApplicationRefs[ref].Images {
			if im.Alias == s.alias {
				idx = j
			}
		}
		if idx < 0 {
			// A new image block: its alias is part of what is added.
			idx = next
			next++
			bySet[i] = append([]kv{{"alias", s.alias}}, s.kvs...)
		} else {
			guards = append(guards, report.PatchOp{Op: "test", Path: report.Pointer(append(refBase, "images", strconv.Itoa(idx), "alias")...), Value: s.alias})
			bySet[i] = s.kvs
		}
		bases[i] = append(append([]string(nil), refBase...), "images", strconv.Itoa(idx))
	}
	return r.crPatchImages(say, guards, bySet, bases, len(cr.Spec.ApplicationRefs[ref].Images))
}

// crPatchImages is crPatch for image blocks, some of them new (an index at
// or past have: added whole at the end of the list).
func (r *run) crPatchImages(say string, guards []report.PatchOp, sets map[int][]kv, bases map[int][]string, have int) (report.Step, bool) {
	cr := r.selectedCR()
	doc, err := report.AsJSON(cr)
	if err != nil {
		return report.Step{}, false
	}
	ops := guards
	for i := 0; i < len(sets); i++ {
		base := bases[i]
		if idx, _ := strconv.Atoi(base[len(base)-1]); idx >= have {
			block := map[string]any{}
			for _, x := range sets[i] {
				setNested(block, strings.Split(x.key, "."), jsonValue(x.value))
			}
			more, err := report.SetAt(doc, append(append([]string(nil), base[:len(base)-1]...), "-"), block)
			if err != nil {
				return report.Step{}, false
			}
			ops = append(ops, more...)
			continue
		}
		for _, x := range sets[i] {
			more, err := report.SetAt(doc, settingPath(base, x.key), jsonValue(x.value))
			if err != nil {
				return report.Step{}, false
			}
			ops = append(ops, more...)
		}
	}
	return report.PatchStep(say, report.Patch{Kind: "ImageUpdater", Resource: "imageupdater", Namespace: cr.Namespace, Name: cr.Name, Type: report.PatchJSON, Ops: ops}), true
}

// setNested sets value at the keys of p in m, making the objects between.
func setNested(m map[string]any, p []string, value any) {
	for _, k := range p[:len(p)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[p[len(p)-1]] = value
}

// settingsText names the settings in words, for a step that cannot patch.
func settingsText(sets []imageSetting) string {
	var parts []string
	for _, s := range sets {
		for _, x := range s.kvs {
			parts = append(parts, fmt.Sprintf("image %s's %s to %q", s.alias, x.key, annotationValue(x.value)))
		}
	}
	return strings.Join(parts, ", ")
}

// writeBackAnnotations are the write-back annotations by setting.
var writeBackAnnotations = map[string]string{"method": "write-back-method", "repository": "git-repository", "branch": "git-branch", "writeBackTarget": "write-back-target"}

// writeBackStep writes write-back settings (method, gitConfig.repository,
// gitConfig.branch, gitConfig.writeBackTarget, gitConfig.pullRequest.*)
// where the app's selection reads them: the CR's writeBackConfig (the
// applicationRef's, or the CR's own when that is where the first setting
// comes from), as an exact patch, else the Application's annotations.
// Settings without an annotation (pull requests) are for CR mode only.
func (r *run) writeBackStep(say string, kvs ...kv) report.Step {
	if r.target.Mode == updater.ModeCR {
		field := kvs[0].key[strings.LastIndex(kvs[0].key, ".")+1:]
		base := []string{"spec", "applicationRefs", strconv.Itoa(r.target.RefIndex), "writeBackConfig"}
		guards := []report.PatchOp{r.refGuard()}
		if wb := r.target.WriteBack; wb != nil && wb.Sources[field] == updater.SettingFromCR {
			base, guards = []string{"spec", "writeBackConfig"}, nil
		}
		if s, ok := r.crPatch(say, guards, base, kvs); ok {
			return s
		}
		return report.Value(say, crObject(r.target.CR), "(the CR could not be read back to write an exact patch: set "+settingsText([]imageSetting{{alias: "-", kvs: kvs}})+" in writeBackConfig)")
	}
	var args []string
	for _, x := range kvs {
		field := x.key[strings.LastIndex(x.key, ".")+1:]
		args = append(args, updater.AnnotationPrefix+writeBackAnnotations[field]+"="+annotationValue(x.value))
	}
	return r.annotateApp(say, args...)
}

// sourcePatch sets kvs (dotted paths below the source: helm.valueFiles,
// kustomize…) in the Application's source src: spec.source, or its item of
// spec.sources, which say then names (its repoURL tested first).
func (r *run) sourcePatch(say string, src *argo.ApplicationSource, kvs ...kv) report.Step {
	base := []string{"spec", "source"}
	var guards []report.PatchOp
	if i := r.sourceIndex(src); r.app != nil && r.app.Spec.Source != src && i >= 0 {
		say += fmt.Sprintf(" in spec.sources[%d] (%s)", i, describeSource(src))
		base = []string{"spec", "sources", strconv.Itoa(i)}
		guards = []report.PatchOp{{Op: "test", Path: report.Pointer(append(base, "repoURL")...), Value: src.RepoURL}}
	}
	return r.appPatch(say, guards, base, kvs...)
}

// sourceBase is the JSON path of the source src in the Application:
// spec.source, or spec.sources[i].
func (r *run) sourceBase(src *argo.ApplicationSource) []string {
	if i := r.sourceIndex(src); r.app != nil && r.app.Spec.Source != src && i >= 0 {
		return []string{"spec", "sources", strconv.Itoa(i)}
	}
	return []string{"spec", "source"}
}

// inlineValueRemoval removes the dotted key from the source's inline values:
// from helm.valuesObject by its exact path (tested first), or from the
// helm.values string (the string tested and replaced by itself without the
// key); an editor where the key cannot be found.
func (r *run) inlineValueRemoval(src *argo.ApplicationSource, key, where string) report.Step {
	say := "delete " + key + " from " + where
	h := helmOf(src)
	base := append(r.sourceBase(src), "helm")
	if len(h.ValuesObject) > 0 {
		var vo any
		if err := json.Unmarshal(h.ValuesObject, &vo); err == nil {
			p := append(append([]string(nil), base...), "valuesObject")
			cur := vo
			found := true
			for _, k := range strings.Split(key, ".") {
				m, ok := cur.(map[string]any)
				if !ok {
					found = false
					break
				}
				if cur, ok = m[k]; !ok {
					found = false
					break
				}
				p = append(p, k)
			}
			if found {
				return report.PatchStep(say, report.Patch{Kind: "Application", Resource: "application", Namespace: r.req.Namespace, Name: r.req.App, Type: report.PatchJSON,
					Ops: []report.PatchOp{{Op: "test", Path: report.Pointer(p...), Value: cur}, {Op: "remove", Path: report.Pointer(p...)}}})
			}
		}
	}
	if h.Values != "" {
		if without, ok := yamlWithout(h.Values, strings.Split(key, ".")); ok {
			p := report.Pointer(append(base, "values")...)
			return report.PatchStep(say, report.Patch{Kind: "Application", Resource: "application", Namespace: r.req.Namespace, Name: r.req.App, Type: report.PatchJSON,
				Ops: []report.PatchOp{{Op: "test", Path: p, Value: h.Values}, {Op: "replace", Path: p, Value: without}}})
		}
	}
	return report.Command(say+" (in the editor)", "kubectl", "-n", r.req.Namespace, "edit", "application", r.req.App)
}

// appPatch is the exact patch of the Application that sets kvs below base.
func (r *run) appPatch(say string, guards []report.PatchOp, base []string, kvs ...kv) report.Step {
	if r.app == nil {
		return report.Value(say, r.appObject(), "(the Application could not be read back to write an exact patch)")
	}
	doc, err := report.AsJSON(r.app)
	if err != nil {
		return report.Value(say, r.appObject(), "(the Application could not be read back to write an exact patch)")
	}
	ops := guards
	for _, x := range kvs {
		more, err := report.SetAt(doc, settingPath(base, x.key), jsonValue(x.value))
		if err != nil {
			return report.Value(say, r.appObject(), "(the Application's "+report.Pointer(settingPath(base, x.key)...)+" cannot be patched: "+err.Error()+")")
		}
		ops = append(ops, more...)
	}
	return report.PatchStep(say, report.Patch{Kind: "Application", Resource: "application", Namespace: r.req.Namespace, Name: r.req.App, Type: report.PatchJSON, Ops: ops})
}

// restartStep restarts Image Updater so it reads registries.conf again
// (and false when the installation was not found).
func (r *run) restartStep() (report.Step, bool) {
	if r.install == nil {
		return report.Step{}, false
	}
	return report.Command("restart Image Updater: it reads registries.conf only at start",
		"kubectl", "-n", r.install.Namespace, "rollout", "restart", "deploy/"+r.install.Name), true
}

// setEnvStep sets environment variables of Image Updater's Deployment
// (NAME=value words, or words with the reader's values).
func (r *run) setEnvStep(say string, env ...shell.Word) report.Step {
	argv := shell.Args("kubectl", "-n", r.install.Namespace, "set", "env", "deploy/"+r.install.Name)
	if r.install.Container != "" {
		argv = append(argv, shell.Lit("--containers="+r.install.Container))
	}
	return report.RunWords(say, append(argv, env...)...)
}

// envLit is NAME=value as a set env word.
func envLit(name, value string) shell.Word { return shell.Lit(name + "=" + value) }

package diagnostics

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/internal/lazyre"
	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/model/updater"
)

// What Argo CD renders for a Helm source, as its repo-server builds the
// `helm template` command (Argo CD v3.5.1, reposerver/repository/
// repository.go: mergeSourceParameters, helmTemplate, getResolvedValueFiles;
// util/helm/cmd.go: template). Helm merges its inputs in this order, the
// later winning (docs/image-updater-model.md, "What Argo CD renders"):
//
//  1. the chart's own values.yaml;
//  2. each helm.valueFiles entry, in order (globs expanded in lexical order;
//     a missing file fails the render unless ignoreMissingValueFiles);
//  3. the inline values: valuesObject when set, else values;
//  4. helm.parameters (--set / --set-string), then fileParameters (--set-file).
//
// Before that, .argocd-source.yaml and then .argocd-source-<app>.yaml in the
// source path are JSON-merge-patched into the source: a list they set
// (parameters, valueFiles) replaces the Application's whole list.

// helmLayerKind orders the inputs of `helm template`, lowest first.
type helmLayerKind int

const (
	layerChart helmLayerKind = iota
	layerValueFile
	layerInline
	layerParameter
	layerFileParameter
)

// helmLayer is one input of `helm template`.
type helmLayer struct {
	kind helmLayerKind
	// where names it for a person: "charts/web/values.yaml (the chart's
	// values)", "spec.source.helm.parameters".
	where string
	// file is the repository path of a file layer ("" otherwise); repo its
	// repository (normalised), for matching the write-back target.
	file, repo string
	values     map[string]any
	// vfIndex is the helm.valueFiles index of a value file layer.
	vfIndex    int
	params     []argo.HelmParameter
	fileParams []argo.HelmFileParameter
}

// sets returns the value this layer gives key (a --set style path) and
// whether it sets it.
func (l helmLayer) sets(key string) (string, bool) {
	switch l.kind {
	case layerParameter:
		for _, p := range l.params {
			if p.Name == key {
				return p.Value, true
			}
		}
		return "", false
	case layerFileParameter:
		for _, p := range l.fileParams {
			if p.Name == key {
				return "(the content of " + p.Path + ")", true
			}
		}
		return "", false
	}
	v, ok := valueAt(l.values, key)
	if !ok {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case nil:
		return "", true
	case map[string]any, []any:
		b, _ := json.Marshal(x)
		return string(b), true
	default:
		return fmt.Sprint(x), true
	}
}

// helmOverrideFiles are the files Argo CD merges into a source, in order:
// .argocd-source.yaml, then .argocd-source-<instance>.yaml, where the
// instance is the app's name, or <namespace>_<name> for an app outside
// Argo CD's namespace (Application.InstanceName).
func helmOverrideFiles(srcPath, app, appNS, argoNS string) []string {
	inst := app
	if appNS != "" && appNS != argoNS {
		inst = appNS + "_" + app
	}
	return []string{path.Join(srcPath, ".argocd-source.yaml"), path.Join(srcPath, ".argocd-source-"+inst+".yaml")}
}

// mergedHelm is a source's helm block after the override files, with where
// each field came from.
type mergedHelm struct {
	helm argo.ApplicationSourceHelm
	// from maps "parameters", "valueFiles", "values", "valuesObject",
	// "fileParameters" to the override file that set it; absent: the
	// Application's own field.
	from map[string]string
}

// mergeHelmOverrides applies override files (path → content, in Argo CD's
// order) to helm as mergeSourceParameters does: an RFC 7386 merge patch of
// the source with each file's YAML. A file that is not valid YAML fails
// Argo CD's render; it is returned as an error.
func mergeHelmOverrides(helm *argo.ApplicationSourceHelm, files []overrideFile) (mergedHelm, error) {
	out := mergedHelm{from: map[string]string{}}
	if helm != nil {
		out.helm = *helm
	}
	doc := map[string]any{}
	if b, err := json.Marshal(struct {
		Helm argo.ApplicationSourceHelm `json:"helm"`
	}{out.helm}); err == nil {
		_ = json.Unmarshal(b, &doc)
	}
	data, _ := json.Marshal(doc)
	for _, f := range files {
		patch, err := yaml.YAMLToJSON(f.data)
		if err != nil {
			return out, fmt.Errorf("%s: %w", f.path, err)
		}
		if data, err = jsonpatch.MergePatch(data, patch); err != nil {
			return out, fmt.Errorf("%s: %w", f.path, err)
		}
		var p struct {
			Helm map[string]json.RawMessage `json:"helm"`
		}
		if json.Unmarshal(patch, &p) == nil {
			for k := range p.Helm {
				out.from[k] = f.path
			}
		}
	}
	var merged struct {
		Helm argo.ApplicationSourceHelm `json:"helm"`
	}
	if err := json.Unmarshal(data, &merged); err != nil {
		return out, err
	}
	out.helm = merged.Helm
	return out, nil
}

type overrideFile struct {
	path string
	data []byte
}

// inlineValues is the values Argo CD passes inline: valuesObject when set,
// else values (ApplicationSourceHelm.ValuesYAML).
func inlineValues(h argo.ApplicationSourceHelm) (map[string]any, string) {
	var m map[string]any
	if len(h.ValuesObject) > 0 && string(h.ValuesObject) != "null" {
		if json.Unmarshal(h.ValuesObject, &m) == nil && m != nil {
			return m, "valuesObject"
		}
		return nil, ""
	}
	if strings.TrimSpace(h.Values) != "" && yaml.Unmarshal([]byte(h.Values), &m) == nil && m != nil {
		return m, "values"
	}
	return nil, ""
}

// helmWrite is where Image Updater's write lands among the layers.
type helmWrite struct {
	// kind is layerParameter (argocd write-back, an .argocd-source file)
	// or layerValueFile/layerChart (a helmvalues target).
	kind helmLayerKind
	// where names it: "spec.source.helm.parameters", "apps/web/values-prod.yaml".
	where string
	// index is the written layer's index in the layers (-1: a parameter
	// write, a file nothing reads, or one Image Updater will create);
	// above is the index of the first layer applied after it.
	index, above int
	// read: Argo CD reads what Image Updater writes.
	read bool
}

// helmKeys are the value paths Image Updater writes for an image
// (getHelmParamNames): the spec parameter alone, or name and tag, each
// defaulting to image.name / image.tag.
type helmKeys struct{ spec, name, tag string }

func imageHelmKeys(t updater.ManifestTarget) helmKeys {
	if t.Spec != "" {
		return helmKeys{spec: t.Spec}
	}
	return helmKeys{name: orDefault(t.Name, "image.name"), tag: orDefault(t.Tag, "image.tag")}
}

// overriddenAbove returns the highest layer above the write that sets key
// to a value for which same is false.
func overriddenAbove(layers []helmLayer, w helmWrite, key string, same func(string) bool) (helmLayer, string, bool) {
	for i := len(layers) - 1; i >= 0; i-- {
		l := layers[i]
		if w.kind == layerParameter {
			if l.kind != layerFileParameter {
				continue // --set-file is the only input applied after --set
			}
		} else if i < w.above {
			break
		}
		if v, ok := l.sets(key); ok {
			if same(v) {
				return helmLayer{}, "", false
			}
			return l, v, true
		}
	}
	return helmLayer{}, "", false
}

// definedIn reports whether a values layer other than skip defines key:
// what a chart's templates read is what its values name (an unread key
// set with --set changes nothing).
func definedIn(layers []helmLayer, key string, skip int) bool {
	for i, l := range layers {
		if i == skip || l.kind == layerParameter || l.kind == layerFileParameter {
			continue
		}
		if _, ok := valueAt(l.values, key); ok {
			return true
		}
	}
	return false
}

// renderedValue is the value the layers give key, highest first, with the
// layer it comes from.
func renderedValue(layers []helmLayer, key string) (string, string, bool) {
	for i := len(layers) - 1; i >= 0; i-- {
		if v, ok := layers[i].sets(key); ok {
			return v, layers[i].where, true
		}
	}
	return "", "", false
}

// siblingRepository is the image name the chart pairs with a tag key: the
// repository (or image / name) value next to it, with a registry value
// when there is one (image.registry + image.repository).
func siblingRepository(layers []helmLayer, tagKey string) (string, string, bool) {
	parent := ""
	if i := strings.LastIndex(tagKey, "."); i > 0 {
		parent = tagKey[:i] + "."
	}
	for _, k := range []string{"repository", "image", "name"} {
		v, where, ok := renderedValue(layers, parent+k)
		if !ok || v == "" || strings.HasPrefix(v, "{") {
			continue
		}
		if reg, _, ok := renderedValue(layers, parent+"registry"); ok && reg != "" && !strings.HasPrefix(reg, "{") {
			v = strings.TrimSuffix(reg, "/") + "/" + v
		}
		return v, parent + k + " (" + where + ")", true
	}
	return "", "", false
}

// valueAt follows a Helm --set style path (a.b[0].c, \. escapes).
func valueAt(v any, p string) (any, bool) {
	for _, seg := range splitValuePath(p) {
		name, idx := seg, -1
		if m := indexRE().FindStringSubmatch(seg); m != nil {
			name = m[1]
			idx, _ = strconv.Atoi(m[2])
		}
		mm, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = mm[name]; !ok {
			return nil, false
		}
		if idx >= 0 {
			l, ok := v.([]any)
			if !ok || idx >= len(l) {
				return nil, false
			}
			v = l[idx]
		}
	}
	return v, true
}

var indexRE = lazyre.New(`^(.*)\[(\d+)\]$`)

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

package diagnostics

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	sigyaml "sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/report"
)

// confEntry is one registries.conf entry a fix writes: the registry it is
// for (prefix, or api_url when it has none) and the fields to set, in order.
type confEntry struct {
	name, apiURL, prefix string
	fields               []kv
}

// registriesConfStep writes the entry into registries.conf where Image
// Updater reads it: merged into the ConfigMap key mounted at its path (an
// existing entry for the same prefix updated, else a new one appended), as
// an exact patch that tests the content read first; the ConfigMap created
// when it is mounted but missing. Where no ConfigMap provides the file, or
// the file cannot be parsed, the entry is YAML to merge by hand.
func (r *run) registriesConfStep(say string, e confEntry) report.Step {
	entryYAML, _ := mergeRegistriesConf(nil, e)
	if r.install != nil {
		// What the entry will read once merged into the file as it is.
		if y, err := mergedEntry(r.install.RegistriesConf, e); err == nil {
			entryYAML = y
		}
	}
	if r.install == nil || r.install.RegistriesConfMap.Name == "" || !r.install.RegistriesConfMap.Read {
		where := "registries.conf of Image Updater"
		if r.install != nil {
			where += " (" + r.install.RegistriesConfSource + ")"
		}
		return report.Paste(say, where, nil, entryYAML)
	}
	cm := r.install.RegistriesConfMap
	merged, err := mergeRegistriesConf(r.install.RegistriesConf, e)
	if err != nil {
		return report.Paste(say+" (registries.conf does not parse: "+err.Error()+")", fmt.Sprintf("ConfigMap %s/%s, key %s", r.install.Namespace, cm.Name, cm.Key),
			[]string{"kubectl", "-n", r.install.Namespace, "edit", "configmap", "--", cm.Name}, entryYAML)
	}
	var s report.Step
	switch {
	case !cm.Exists:
		s = report.Command(say, "kubectl", "-n", r.install.Namespace, "create", "configmap", "--from-literal="+cm.Key+"="+merged, "--", cm.Name)
	case r.install.RegistriesConf == nil:
		s = report.PatchStep(say, report.Patch{Kind: "ConfigMap", Resource: "configmap", Namespace: r.install.Namespace, Name: cm.Name,
			Type: report.PatchMerge, Merge: map[string]any{"data": map[string]any{cm.Key: merged}}})
	default:
		s = report.PatchStep(say, report.Patch{Kind: "ConfigMap", Resource: "configmap", Namespace: r.install.Namespace, Name: cm.Name, Type: report.PatchJSON,
			Ops: []report.PatchOp{
				{Op: "test", Path: report.Pointer("data", cm.Key), Value: string(r.install.RegistriesConf)},
				{Op: "replace", Path: report.Pointer("data", cm.Key), Value: merged},
			}})
	}
	s.Context = entryYAML
	return s
}

// registriesConfSteps writes the entry and restarts Image Updater.
func (r *run) registriesConfSteps(say string, e confEntry) []report.Step {
	steps := []report.Step{r.registriesConfStep(say, e)}
	if restart, ok := r.restartStep(); ok {
		steps = append(steps, restart)
	}
	return steps
}

// mergeRegistriesConf is current (registries.conf's content, nil for none)
// with the entry merged: the fields set on the entry with the same prefix
// (the same api_url when the entry has no prefix), else a new entry at the
// end of registries. Comments and the other entries are kept.
func mergeRegistriesConf(current []byte, e confEntry) (string, error) {
	var doc yaml.Node
	if len(bytes.TrimSpace(current)) > 0 {
		if err := yaml.Unmarshal(current, &doc); err != nil {
			return "", err
		}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return "", fmt.Errorf("the top of registries.conf is not a mapping")
	}
	regs := mapValue(root, "registries")
	if regs == nil {
		regs = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		root.Content = append(root.Content, scalar("registries"), regs)
	}
	if regs.Kind != yaml.SequenceNode {
		return "", fmt.Errorf("registries is not a list")
	}
	var entry *yaml.Node
	for _, item := range regs.Content {
		if item.Kind != yaml.MappingNode {
			continue
		}
		if p := mapValue(item, "prefix"); e.prefix != "" && p != nil && p.Value == e.prefix {
			entry = item
		}
		if a := mapValue(item, "api_url"); e.prefix == "" && mapValue(item, "prefix") == nil && a != nil && a.Value == e.apiURL {
			entry = item
		}
	}
	if entry == nil {
		entry = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		regs.Content = append(regs.Content, entry)
		setKey(entry, "name", e.name)
		setKey(entry, "api_url", e.apiURL)
		if e.prefix != "" {
			setKey(entry, "prefix", e.prefix)
		}
	}
	for _, f := range e.fields {
		setKey(entry, f.key, f.value)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return "", err
	}
	return b.String(), nil
}

// mergedEntry is the entry for e as it reads once merged into current:
// "registries:" and that one entry.
func mergedEntry(current []byte, e confEntry) (string, error) {
	merged, err := mergeRegistriesConf(current, e)
	if err != nil {
		return "", err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(merged), &doc); err != nil {
		return "", err
	}
	regs := mapValue(doc.Content[0], "registries")
	for _, item := range regs.Content {
		p, a := mapValue(item, "prefix"), mapValue(item, "api_url")
		if e.prefix != "" && p != nil && p.Value == e.prefix || e.prefix == "" && p == nil && a != nil && a.Value == e.apiURL {
			one := yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map",
				Content: []*yaml.Node{scalar("registries"), {Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{item}}}}}}
			var b bytes.Buffer
			enc := yaml.NewEncoder(&b)
			enc.SetIndent(2)
			if err := enc.Encode(&one); err != nil {
				return "", err
			}
			return b.String(), nil
		}
	}
	return "", fmt.Errorf("the entry for %s is not in the merged file", e.prefix)
}

// mapValue is the value node of key in mapping m, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// setKey sets key in mapping m to v (a string, an int or a bool).
func setKey(m *yaml.Node, key string, v any) {
	n := scalar(v)
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = n
			return
		}
	}
	m.Content = append(m.Content, scalar(key), n)
}

// scalar is a YAML scalar node of v: a string as text (quoted when it
// needs it, literal across lines when it has several), an int, a bool.
func scalar(v any) *yaml.Node {
	switch x := v.(type) {
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(x)}
	}
	s := fmt.Sprint(v)
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	return n
}

// yamlDoc is v as YAML (sigs.k8s.io/yaml: through JSON, so keys sorted and
// every string quoted where YAML needs it, a line break as an escape).
func yamlDoc(v any) string {
	b, err := sigyaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(b), "\n")
}

// yamlWithout is the YAML document doc without the key at path (comments and
// the rest kept), and whether the key was there.
func yamlWithout(doc string, path []string) (string, bool) {
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil || len(root.Content) == 0 {
		return "", false
	}
	m := root.Content[0]
	for i, k := range path {
		if m.Kind != yaml.MappingNode {
			return "", false
		}
		found := false
		for j := 0; j+1 < len(m.Content); j += 2 {
			if m.Content[j].Value != k {
				continue
			}
			if i == len(path)-1 {
				m.Content = append(m.Content[:j], m.Content[j+2:]...)
				var b bytes.Buffer
				enc := yaml.NewEncoder(&b)
				enc.SetIndent(2)
				if err := enc.Encode(&root); err != nil {
					return "", false
				}
				return b.String(), true
			}
			m, found = m.Content[j+1], true
			break
		}
		if !found {
			return "", false
		}
	}
	return "", false
}

package helmchart

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// repoIndex is the part of a repository's index.yaml that locating a chart
// needs. The field tags are Helm's (repo.IndexFile, repo.ChartVersion).
type repoIndex struct {
	APIVersion string                   `json:"apiVersion"`
	Entries    map[string][]*indexEntry `json:"entries"`
}

type indexEntry struct {
	Name    string   `json:"name"`
	Version string   `json:"version"`
	URLs    []string `json:"urls"`
}

var (
	errEmptyIndex = errors.New("index.yaml is empty")
	errNoAPIVer   = errors.New("index.yaml has no apiVersion (Helm refuses it: \"no API version specified\")")
)

// parseIndex decodes index.yaml as Helm's loadIndex does: JSON when the
// bytes are valid JSON, else YAML through sigs.k8s.io/yaml (so a version
// written as a bare number fails as it fails in Helm), nil entries
// dropped, apiVersion required.
func parseIndex(b []byte) (*repoIndex, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errEmptyIndex
	}
	idx := &repoIndex{}
	var err error
	if json.Valid(b) {
		err = json.Unmarshal(b, idx)
	} else {
		err = yaml.Unmarshal(b, idx)
	}
	if err != nil {
		return nil, fmt.Errorf("index.yaml does not parse: %w", err)
	}
	for name, vs := range idx.Entries {
		kept := vs[:0]
		for _, v := range vs {
			if v != nil {
				kept = append(kept, v)
			}
		}
		idx.Entries[name] = kept
	}
	if idx.APIVersion == "" {
		return nil, errNoAPIVer
	}
	return idx, nil
}

// versions lists the chart's versions as the index has them.
func (idx *repoIndex) versions(chart string) ([]string, bool) {
	vs, ok := idx.Entries[chart]
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.Version)
	}
	return out, true
}

// entry returns the entry of chart whose version is exactly version.
func (idx *repoIndex) entry(chart, version string) *indexEntry {
	for _, v := range idx.Entries[chart] {
		if v.Version == version {
			return v
		}
	}
	return nil
}

// resolve picks the chart version Argo CD deploys for revision: a pin goes
// to `helm pull --version` as it is, other revisions are resolved with
// Argo CD's MaxVersion over the index first (see pickPinned, pickMax).
// ok is false when the chart is not in the index.
func (idx *repoIndex) resolve(chart, revision string) (e *indexEntry, ok bool, err error) {
	vs, ok := idx.versions(chart)
	if !ok {
		return nil, false, nil
	}
	var v string
	if isVersion(revision) {
		v, err = pickPinned(revision, vs)
	} else {
		v, err = pickMax(revision, vs)
	}
	if err != nil {
		return nil, true, err
	}
	return idx.entry(chart, v), true, nil
}

// maxParseBytes is the most YAML of index.yaml decoded at once: decoding
// YAML takes some eighteen times the text in memory (a 30 MiB index took
// 550 MiB of heap, more than imgupd's pod may use).
const maxParseBytes = 4 << 20

// parseIndexFor decodes what resolving chart needs from index.yaml: the
// whole index when it is small or JSON (decoded into the fields above
// only), else apiVersion and the chart's own entries, cut out of the text
// first. `helm repo index` writes block YAML, top-level keys at column 0
// and one key per chart under entries, which is what the cut reads; an
// index in another form, or a chart whose entries are themselves over
// maxParseBytes, is a *tooLargeError. (Argo CD and Helm decode the whole
// index: a malformed entry of another chart fails them and not this.)
func parseIndexFor(b []byte, chart string) (*repoIndex, error) {
	if len(b) <= maxParseBytes || json.Valid(b) {
		return parseIndex(b)
	}
	part, err := indexPart(b, chart)
	if err != nil {
		return nil, err
	}
	return parseIndex(part)
}

// otherLineBreak reports whether b breaks a line where indexPart, which cuts at LF (and CRLF),
// would not: YAML (go.yaml.in/yaml/v2, under sigs.k8s.io/yaml, as Helm reads index.yaml) also
// breaks at a CR alone and at NEL, LS and PS, so such an index is not cut but refused.
func otherLineBreak(b []byte) bool {
	for rest := b; ; {
		i := bytes.IndexByte(rest, '\r')
		if i < 0 {
			break
		}
		if i+1 < len(rest) && rest[i+1] != '\n' {
			return true
		}
		rest = rest[i+1:]
	}
	return bytes.Contains(b, []byte("\u0085")) || bytes.Contains(b, []byte("\u2028")) || bytes.Contains(b, []byte("\u2029"))
}

// indexPart is the apiVersion line and the entries of chart, from a block
// YAML index.
func indexPart(b []byte, chart string) ([]byte, error) {
	notBlock := &tooLargeError{what: fmt.Sprintf("index.yaml (%d bytes, not in the block form imgupd reads in part)", len(b)), limit: maxParseBytes}
	if otherLineBreak(b) {
		return nil, notBlock
	}
	var out bytes.Buffer
	// The whole index decodes as JSON into Helm's struct, whose field names
	// encoding/json matches case-insensitively (enTries: is entries): the
	// cut matches them so, and refuses an index that names one twice.
	inEntries, inChart, childIndent := false, false, -1
	seen := map[string]bool{}
	for len(b) > 0 {
		var line []byte
		var broken bool // the line ends with a line break: the last may not, and a block scalar's value then has none
		line, b, broken = bytes.Cut(b, []byte("\n"))
		if l, cr := bytes.CutSuffix(line, []byte("\r")); cr {
			line, broken = l, true // a CR ends a line in YAML too, even the last
		}
		chartLine := func() {
			out.Write(line)
			if broken {
				out.WriteByte('\n')
			}
		}
		trimmed := bytes.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		switch {
		case len(trimmed) == 0 || trimmed[0] == '#':
			if inChart {
				chartLine()
			}
			continue
		case indent == 0:
			inChart = false
			if string(trimmed) == "---" {
				continue
			}
			key, value, ok := yamlKey(trimmed)
			if !ok {
				return nil, notBlock
			}
			inEntries = false
			for _, field := range []string{"apiVersion", "entries"} {
				if !strings.EqualFold(key, field) {
					continue
				}
				if seen[field] {
					return nil, notBlock
				}
				seen[field] = true
				if field == "apiVersion" {
					out.Write(line)
					out.WriteByte('\n')
					continue
				}
				if value != "" {
					return nil, notBlock // {...} on one line
				}
				inEntries = true
				out.WriteString("entries:\n")
			}
			continue
		case !inEntries:
			continue
		}
		if childIndent < 0 {
			childIndent = indent
		}
		if indent < childIndent {
			return nil, notBlock
		}
		if indent == childIndent && trimmed[0] != '-' {
			key, _, ok := yamlKey(trimmed)
			if !ok {
				return nil, notBlock
			}
			inChart = key == chart
		}
		if inChart {
			chartLine()
			if out.Len() > maxParseBytes {
				return nil, &tooLargeError{what: "the entries of " + chart + " in index.yaml", limit: maxParseBytes}
			}
		}
	}
	return out.Bytes(), nil
}

// yamlKey splits a block mapping line "key: value" (the key plain or
// quoted); ok is false for anything else (a flow collection, a list item,
// a scalar). key is the key's name once decoded as the whole index is
// (sigs.k8s.io/yaml, as Helm: a plain 00 is the number 0, named "0"; a
// double-quoted key's escapes are read), so that the cut finds what the
// whole decode would.
func yamlKey(line []byte) (key, value string, ok bool) {
	s := string(line)
	var raw string
	switch {
	case s == "" || strings.ContainsRune("{[-&*!|>%@`", rune(s[0])):
		return "", "", false
	case s[0] == '"' || s[0] == '\'':
		end := strings.IndexByte(s[1:], s[0])
		if end < 0 || !strings.HasPrefix(s[end+2:], ":") {
			return "", "", false
		}
		raw, s = s[:end+2], s[end+3:]
	default:
		i := strings.Index(s, ": ")
		if i < 0 {
			if !strings.HasSuffix(s, ":") {
				return "", "", false
			}
			i = len(s) - 1
		}
		raw, s = s[:i], s[min(i+1, len(s)):]
	}
	var m map[string]any
	if yaml.Unmarshal([]byte(raw+": null"), &m) != nil || len(m) != 1 {
		return "", "", false
	}
	for k := range m {
		key = k
	}
	value = strings.TrimSpace(s)
	if strings.HasPrefix(value, "#") {
		value = ""
	}
	return key, value, true
}

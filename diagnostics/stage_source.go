package diagnostics

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/diagnostics/argo"
	"github.com/imgupd/imgupd/diagnostics/gitsource"
	"github.com/imgupd/imgupd/diagnostics/updater"
)

// checkSource checks that Image Updater can write to the app's source type
// and that what it writes is read: Helm parameter names against the chart's
// values (when the chart lives in git), Kustomize image names against the
// kustomization and its manifests. Both mismatches "succeed" in Image
// Updater's logs while nothing changes in the cluster.
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
	if src == nil || r.e.Git == nil {
		return out
	}
	if src.Chart != "" {
		return append(out, find(CodeSourceChartFromHelmRepo, Info, fmt.Sprintf("chart %s comes from the Helm repository %s; its values were not checked", src.Chart, src.RepoURL)))
	}
	auth, _ := r.repoAuth(ctx, src.RepoURL)
	branch, err := r.resolveBranch(ctx, src.RepoURL, src.TargetRevision, auth)
	var snap *gitsource.Snapshot
	if err == nil {
		snap, err = r.e.Git.Snapshot(ctx, src.RepoURL, branch, auth)
	}
	if err != nil {
		return append(out, find(CodeSourceNotReadable, Unknown, fmt.Sprintf("cannot read the source %s: %s", gitsource.NormalizeURL(src.RepoURL), oneLine(err.Error()))))
	}
	before := len(out)
	for _, im := range r.images {
		switch {
		case kind == updater.AppSourceHelm && im.Target.Kind != updater.TargetKindKustomize:
			out = append(out, checkHelmMapping(snap, src, im)...)
		case kind == updater.AppSourceKustomize:
			out = append(out, checkKustomizeMapping(snap, src, im, r.version)...)
		}
	}
	if len(out) == before {
		out = append(out, find(CodeSourceMappingChecked, Pass, fmt.Sprintf("the image names Image Updater writes are used by %s at %s", src.Path, branch)))
	}
	return out
}

// checkHelmMapping: the parameters Image Updater sets must exist in the
// chart's values.yaml (or the app's value files).
func checkHelmMapping(snap *gitsource.Snapshot, src *argo.ApplicationSource, im updater.ImageConfig) []Finding {
	values := map[string]any{}
	files := []string{path.Join(src.Path, "values.yaml")}
	if src.Helm != nil {
		for _, f := range src.Helm.ValueFiles {
			files = append(files, path.Join(src.Path, f))
		}
	}
	read := 0
	for _, f := range files {
		data, err := snap.ReadFile(f)
		if err != nil {
			continue
		}
		var m map[string]any
		if yaml.Unmarshal(data, &m) == nil {
			mergeValues(values, m)
			read++
		}
	}
	if read == 0 {
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
		aliasOr(im), strings.Join(missing, ", "))).image(im.Alias).with(ev("values files", strings.Join(files, ", ")))
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

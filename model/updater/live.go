package updater

import (
	"fmt"
	"strings"
)

// How a configured image was found among the live images.
const (
	LiveViaKustomize = "kustomize-name" // the Kustomize image name matched a live image
	LiveViaImage     = "image"          // the configured image name matched a live image
	LiveViaForce     = "force-update"   // not live, added because forceUpdate is set
)

// ForceUpdateClearsConstraint: v1.0.0 set the tag of every forceUpdate image
// to nil while building the live list, and that image object was the
// configured one, so its version constraint was lost for the rest of the
// cycle (issue #1344, fixed by PR #1345 merged three days after v1.0.0 and
// shipped in v1.1.0; whether a v1.0.x patch carried the fix is unverified).
// Releases before v1.0 built fresh images from the annotations and were not
// affected.
func (v Version) ForceUpdateClearsConstraint() bool {
	return !v.Head && v.Major == 1 && v.Minor == 0
}

// NearMissKind classifies why a live image that looks like the configured
// one does not match it.
type NearMissKind string

const (
	// NearMissRegistry: same name, different registry ("ghcr.io/org/app" vs "quay.io/org/app").
	NearMissRegistry NearMissKind = "registry"
	// NearMissDockerHubSpelling: both are Docker Hub, written with and
	// without a registry ("nginx" vs "docker.io/nginx").
	NearMissDockerHubSpelling NearMissKind = "docker-hub-spelling"
	// NearMissLibrary: the names differ by a "library/" prefix.
	NearMissLibrary NearMissKind = "library-prefix"
	// NearMissPath: same last path component under another path
	// ("org/app" vs "team/app").
	NearMissPath NearMissKind = "path"
	// NearMissCase: the names differ only in upper/lower case.
	NearMissCase NearMissKind = "case"
)

// NearMiss is a live image that resembles the configured image (or its
// Kustomize name) but is not the same to Image Updater, with the spelling
// that would make it match.
type NearMiss struct {
	// Live is the status.summary.images entry; LiveRef its parsed form.
	Live    string   `json:"live"`
	LiveRef ImageRef `json:"liveRef"`
	// Against is "image" or "kustomize-name": which configured name it resembles.
	Against string         `json:"against"`
	Kinds   []NearMissKind `json:"kinds"`
	Reason  string         `json:"reason"`
	// Write is the exact string to configure (with the constraint, for the
	// image) so that it matches this live image; "" when no spelling works.
	Write string `json:"write,omitempty"`
	Fix   string `json:"fix"`
}

// LiveMatch is the outcome of Image Updater's live-image check for one
// configured image.
type LiveMatch struct {
	// Found is true when a live image matched, or forceUpdate added one.
	Found bool `json:"found"`
	// Live is the matched live image (tag = running tag); for ForceAdded the
	// configured image without tag or digest.
	Live ImageRef `json:"live"`
	// Via is LiveViaKustomize, LiveViaImage or LiveViaForce ("" when not found).
	Via string `json:"via,omitempty"`
	// ForceAdded: no live image matched and forceUpdate added the configured
	// image with no tag, so the first run always updates.
	ForceAdded bool `json:"forceAdded,omitempty"`
	// AlsoLive are further live images with the same registry and name;
	// Image Updater compares against the first only.
	AlsoLive []ImageRef `json:"alsoLive,omitempty"`
	// NearMisses explain similar live images that did not match.
	NearMisses []NearMiss `json:"nearMisses,omitempty"`
	// Notes are observations for the diagnosis (empty live list, a Kustomize
	// name that is not live...).
	Notes []string `json:"notes,omitempty"`
}

// MatchLive reproduces Image Updater's check whether a configured image is
// "live" in an Application (GetImagesFromApplication + ContainsImage):
//
//   - every status.summary.images entry is parsed like an image identifier
//     (ParseImageRef, for version v);
//   - when a Kustomize image name is configured, a live image with the same
//     registry and name as that name is looked for first;
//   - otherwise, or when the Kustomize name is not live (§10.15), a live
//     image with the configured image's registry and name; tags and digests
//     are ignored and the first match wins;
//   - with forceUpdate and no match, the configured image is added to the
//     live list without tag, so it counts as live with an empty running tag.
//
// When the image is not live (or only force-added), NearMisses lists live
// images that look like it and says exactly what to write instead.
func MatchLive(configured ImageRef, kustomizeName string, forceUpdate bool, live []string, v Version) LiveMatch {
	var res LiveMatch
	refs := make([]ImageRef, len(live))
	for i, s := range live {
		refs[i] = ParseImageRef(s, v)
	}
	if configured.Legacy && strings.Contains(configured.Tag, "/") {
		res.Notes = append(res.Notes, fmt.Sprintf(
			"the version constraint made Image Updater use its fallback parser, which read %q as image %q with tag %q (a registry with a port but no dot is not recognised there); use a constraint that is also a valid tag, such as 1.x",
			configured.Original, configured.Name, configured.Tag))
	}
	if forceUpdate && configured.Tag != "" && v.ForceUpdateClearsConstraint() {
		res.Notes = append(res.Notes, fmt.Sprintf(
			"%s clears the version constraint %q of images with forceUpdate (issue #1344): the image is then updated as if no constraint were set (semver: the highest version; digest: fails for want of a constraint); upgrade to v1.1 or later",
			v, configured.Tag))
	}
	if len(live) == 0 {
		res.Notes = append(res.Notes, "status.summary.images is empty, so no image is live: the Application was never synced, its manifests failed to render, or Argo CD did not fill the summary (argo-cd#27861)")
	}
	var kust ImageRef
	hasKust := kustomizeName != ""
	if hasKust {
		kust = ParseImageRef(kustomizeName, v)
	}

	matches := func(t ImageRef) []int {
		var idx []int
		for i, r := range refs {
			if r.SameImage(t) {
				idx = append(idx, i)
			}
		}
		return idx
	}
	take := func(idx []int, via string) {
		res.Found, res.Via, res.Live = true, via, refs[idx[0]]
		for _, i := range idx[1:] {
			res.AlsoLive = append(res.AlsoLive, refs[i])
		}
		if len(idx) > 1 {
			res.Notes = append(res.Notes, fmt.Sprintf("%d live images have this registry and name; Image Updater compares against the first, %q", len(idx), live[idx[0]]))
		}
	}

	if hasKust {
		if idx := matches(kust); len(idx) > 0 {
			take(idx, LiveViaKustomize)
		}
	}
	if !res.Found {
		if idx := matches(configured); len(idx) > 0 {
			take(idx, LiveViaImage)
			if hasKust {
				res.Notes = append(res.Notes, fmt.Sprintf(
					"the Kustomize image name %q is not among the live images; Image Updater matched the image name instead and will write %s=<image>:<tag>, which changes nothing if the kustomization does not use that name",
					kustomizeName, kustomizeName))
			}
		}
	}
	if !res.Found && forceUpdate {
		res.Found, res.Via, res.ForceAdded = true, LiveViaForce, true
		res.Live = ImageRef{Alias: configured.Alias, Registry: configured.Registry, Name: configured.Name, Original: configured.Original}
		res.Notes = append(res.Notes, "no live image matches, but forceUpdate adds the configured image with an empty running tag, so Image Updater updates it on every cycle where the chosen tag differs from nothing")
	}
	if res.Via == LiveViaKustomize || res.Via == LiveViaImage {
		return res
	}

	seen := map[string]bool{}
	add := func(t ImageRef, against string, withConstraint bool) {
		for i, r := range refs {
			nm, ok := liveNearMiss(t, r, live[i], against, withConstraint, v)
			if !ok {
				continue
			}
			key := against + "\x00" + live[i]
			if seen[key] {
				continue
			}
			seen[key] = true
			res.NearMisses = append(res.NearMisses, nm)
		}
	}
	if hasKust {
		add(kust, "kustomize-name", false)
	}
	add(configured, "image", true)
	if !res.Found && len(live) > 0 && len(res.NearMisses) == 0 {
		names := make([]string, 0, len(refs))
		for _, r := range refs {
			names = append(names, r.FullName())
		}
		res.Notes = append(res.Notes, fmt.Sprintf("no live image resembles %q; the live images are %s", configured.FullName(), strings.Join(names, ", ")))
	}
	return res
}

func liveIsHub(registry string) bool {
	return registry == "" || isDockerHubHost(strings.ToLower(registry))
}

func liveRegistryLabel(r string) string {
	if r == "" {
		return "none (Docker Hub implied)"
	}
	return r
}

func liveLastComponent(name string) string {
	if i := strings.LastIndex(name, "/"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// liveNearMiss decides whether live image l resembles target t and, if so,
// why they differ and what to write.
func liveNearMiss(t, l ImageRef, raw, against string, withConstraint bool, v Version) (NearMiss, bool) {
	if t.SameImage(l) || l.Name == "" {
		return NearMiss{}, false
	}
	var kinds []NearMissKind
	var why []string
	regEq := t.Registry == l.Registry
	bothHub := liveIsHub(t.Registry) && liveIsHub(l.Registry)
	regFold := strings.EqualFold(t.Registry, l.Registry)
	regSimilar := regEq || bothHub || regFold
	if !regEq {
		switch {
		case bothHub:
			kinds = append(kinds, NearMissDockerHubSpelling)
			why = append(why, fmt.Sprintf("both are Docker Hub, but Image Updater compares the registry as written: %s vs %s (\"nginx\" and \"docker.io/nginx\" are different images to it)",
				liveRegistryLabel(t.Registry), liveRegistryLabel(l.Registry)))
		case regFold:
			kinds = append(kinds, NearMissCase)
			why = append(why, fmt.Sprintf("the registries differ in case: %q vs %q", t.Registry, l.Registry))
		default:
			kinds = append(kinds, NearMissRegistry)
			why = append(why, fmt.Sprintf("the registries differ: configured %s, live %s", liveRegistryLabel(t.Registry), liveRegistryLabel(l.Registry)))
		}
	}
	if t.Name != l.Name {
		tn, ln := strings.TrimPrefix(t.Name, "library/"), strings.TrimPrefix(l.Name, "library/")
		switch {
		case tn == ln:
			kinds = append(kinds, NearMissLibrary)
			why = append(why, fmt.Sprintf("the names differ by library/: configured %q, live %q; Image Updater drops an implicit library/ only when the string does not start with library/, and a constraint such as ~1.2 switches to its fallback parser, which never drops it", t.Name, l.Name))
		case strings.EqualFold(tn, ln):
			kinds = append(kinds, NearMissCase)
			why = append(why, fmt.Sprintf("the names differ in case: configured %q, live %q", t.Name, l.Name))
		case strings.EqualFold(liveLastComponent(t.Name), liveLastComponent(l.Name)):
			kinds = append(kinds, NearMissPath)
			why = append(why, fmt.Sprintf("same image name %q under another path: configured %q, live %q", liveLastComponent(l.Name), t.Name, l.Name))
		default:
			return NearMiss{}, false
		}
	} else if !regSimilar && len(kinds) == 1 && kinds[0] == NearMissRegistry {
		// Same repository path on another registry: a mirror or a typo.
		why[0] += "; the repository path is the same"
	}

	nm := NearMiss{Live: raw, LiveRef: l, Against: against, Kinds: kinds, Reason: strings.Join(why, "; ")}
	constraint := ""
	if withConstraint {
		constraint = t.Tag
	}
	for _, base := range liveSpellings(raw, l) {
		cand := base
		if constraint != "" {
			cand += ":" + constraint
		}
		if ParseImageRef(cand, v).SameImage(l) {
			nm.Write = cand
			break
		}
	}
	what := "the image"
	if against == "kustomize-name" {
		what = "kustomize.name"
	}
	switch {
	case nm.Write != "":
		nm.Fix = fmt.Sprintf("if %q is the container to update, set %s to %q", raw, what, nm.Write)
	case constraint != "":
		nm.Fix = fmt.Sprintf("no spelling of %q with the constraint %q matches: the constraint makes Image Updater use its fallback parser, which reads this name differently; use a constraint that is also a valid tag (e.g. 1.x), or set kustomize.name to %q", l.FullName(), constraint, l.FullName())
	default:
		nm.Fix = fmt.Sprintf("no spelling found that matches %q", raw)
	}
	return nm, true
}

// liveSpellings are the strings to try as the fix, best first: the live
// entry as written without tag and digest, then the normalised full name.
func liveSpellings(raw string, l ImageRef) []string {
	s := raw
	if i := strings.Index(s, "@"); i >= 0 {
		s = s[:i]
	}
	if c, sl := strings.LastIndex(s, ":"), strings.LastIndex(s, "/"); c > sl {
		s = s[:c]
	}
	out := []string{s}
	if f := l.FullName(); f != s {
		out = append(out, f)
	}
	if l.Registry == "docker.io" {
		out = append(out, "docker.io/"+l.Name)
	}
	return out
}

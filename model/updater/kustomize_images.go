package updater

import "strings"

// This file models how the images of a Kustomize Application end up in its
// spec.source.kustomize.images when Image Updater sets them: Image
// Updater's SetKustomizeImage / GetKustomizeImage (v1.3.0
// pkg/argocd/argocd.go:960-1046, called for every live image of the app in
// CR order by UpdateApplication, pkg/argocd/update.go:61-300) and Argo CD's
// ApplicationSourceKustomize.MergeImage with KustomizeImage.Match and
// KustomizeImages.Find (v3.5.1 pkg/apis/application/v1alpha1/types.go:689-718,
// 870-877). The list it leaves is what argocd write-back stores in the
// Application and what git write-back writes to the .argocd-source file or,
// with a kustomization target, sets in kustomization.yaml (writeKustomization
// reads the same in-memory list, pkg/argocd/git.go:403-433).

// kustomizeDelim is KustomizeImage.delim: the first of "=", ":", "@" that
// the image contains, ":" when it contains none.
func kustomizeDelim(image string) string {
	for _, d := range []string{"=", ":", "@"} {
		if strings.Contains(image, d) {
			return d
		}
	}
	return ":"
}

// KustomizeMatchText is the text Argo CD compares when it merges added into
// a list holding existing: existing up to the first occurrence of added's
// delimiter. For "127.0.0.1:5000/team/a:1.0.1" it is "127.0.0.1": the
// registry host, not the image.
func KustomizeMatchText(existing, added string) string {
	before, _, _ := strings.Cut(existing, kustomizeDelim(added))
	return before
}

// KustomizeImageMatch is Argo CD's existing.Match(added): both strings up to
// the first occurrence of added's delimiter ("=" when added carries a
// Kustomize name, else ":" when it has one, else "@") are equal. With a
// registry port, "host:5000/team/a:1" and "host:5000/team/b:2" match: both
// read "host" before their first ":".
func KustomizeImageMatch(existing, added string) bool {
	return KustomizeMatchText(existing, added) == KustomizeMatchText(added, added)
}

// FindKustomizeImage is KustomizeImages.Find: the index of the first entry
// that matches added, or -1.
func FindKustomizeImage(images []string, added string) int {
	for i, a := range images {
		if KustomizeImageMatch(a, added) {
			return i
		}
	}
	return -1
}

// MergeKustomizeImage is ApplicationSourceKustomize.MergeImage: added
// replaces the first matching entry, or is appended. It returns the list and
// the index replaced (-1 when appended).
func MergeKustomizeImage(images []string, added string) ([]string, int) {
	if i := FindKustomizeImage(images, added); i >= 0 {
		images[i] = added
		return images, i
	}
	return append(images, added), -1
}

// KustomizeWrite is one live image as Image Updater sets it in a cycle: an
// image whose update is due with its pick, an image already on its pick
// with its running tag (UpdateApplication sets those too, so that every
// image is in the written overrides).
type KustomizeWrite struct {
	Alias string
	// Name is the image's manifestTargets.kustomize.name (kustomize.image-name
	// annotation), "" when not set.
	Name string
	// Image is the configured image with the tag (and digest) set.
	Image ImageRef
	// Due: the update is due. A due image whose override the list already
	// holds is not set again ("New image %s already set in spec").
	Due bool
}

// Param is the override SetKustomizeImage writes: "<name>=<image>:<tag>"
// with a Kustomize name, else "<image>:<tag>".
func (w KustomizeWrite) Param() string {
	if w.Name != "" {
		return w.Name + "=" + w.Image.String()
	}
	return w.Image.String()
}

// key is the image name Kustomize applies the override to.
func (w KustomizeWrite) key(pc *refCache) string {
	if w.Name != "" {
		return pc.parse(w.Name).FullName()
	}
	return w.Image.FullName()
}

// refCache parses each string once: a merge compares every entry with
// every write.
type refCache struct {
	v Version
	m map[string]ImageRef
}

func (pc *refCache) parse(s string) ImageRef {
	if r, ok := pc.m[s]; ok {
		return r
	}
	r := ParseImageRef(s, pc.v)
	pc.m[s] = r
	return r
}

// kustomizeEntryKey is the image name an entry of kustomize.images sets
// (Argo CD runs `kustomize edit set image <entry>` for each, in order): the
// text before "=" when there is one, else the image without tag and digest.
func kustomizeEntryKey(entry string, pc *refCache) string {
	if name, _, ok := strings.Cut(entry, "="); ok {
		return pc.parse(name).FullName()
	}
	return pc.parse(entry).FullName()
}

// KustomizeMerge is the list one cycle leaves and the overrides it loses.
type KustomizeMerge struct {
	// Before is spec.source.kustomize.images as read.
	Before []string `json:"before"`
	// After is the list after every image was set.
	After []string `json:"after"`
	// Written: an image was due and set, so Image Updater writes After
	// (argocd: the Application spec; git: its target).
	Written bool `json:"written"`
	// Lost are the images whose override is not in After.
	Lost []KustomizeLoss `json:"lost,omitempty"`
	// Dropped are entries of the spec that no image of the CR writes (an
	// override someone set by hand) and that an override of another image
	// name replaced: Kustomize no longer applies them.
	Dropped []KustomizeDrop `json:"dropped,omitempty"`
}

// KustomizeDrop is an entry of the spec, set by no image of the CR, that an
// override of another image name replaced.
type KustomizeDrop struct {
	Entry      string `json:"entry"`
	ReplacedBy string `json:"replacedBy"`
	ByAlias    string `json:"byAlias"`
	Compared   string `json:"compared"`
}

// KustomizeLoss is an image whose override another one replaced.
type KustomizeLoss struct {
	Alias string `json:"alias"`
	Due   bool   `json:"due"`
	// Written is the override Image Updater set for it.
	Written string `json:"written"`
	// ReplacedBy is the override of another image name that took its
	// entry, and ByAlias the image that wrote it; both "" when an image of
	// the same name replaced it.
	ReplacedBy string `json:"replacedBy"`
	ByAlias    string `json:"byAlias"`
	// Compared is the text Argo CD's Match compared, equal in both ("127.0.0.1").
	Compared string `json:"compared"`
}

// MergeKustomizeWrites runs one cycle's SetKustomizeImage calls, in order,
// on a copy of spec (v1.3.0): for each image, an entry with the same image
// path (and, when the image has a Kustomize name and the entry an alias, the
// same alias) is replaced by the override, then Argo CD's MergeImage puts
// the override in place of the first entry that Match accepts, or appends
// it. A due image whose override the list already holds is skipped, as
// GetKustomizeImage finds it. An override that a later one replaced, and
// that no later write restored, is lost: Kustomize never applies it.
func MergeKustomizeWrites(spec []string, writes []KustomizeWrite, v Version) KustomizeMerge {
	pc := &refCache{v: v, m: map[string]ImageRef{}}
	out := KustomizeMerge{Before: append([]string(nil), spec...)}
	images := append([]string(nil), spec...)
	// owner[i] is the alias whose override entry i is.
	owner := make([]string, len(images))
	for i, e := range images {
		for _, w := range writes {
			if kustomizeEntryKey(e, pc) == w.key(pc) {
				owner[i] = w.Alias
				break
			}
		}
	}
	type repl struct{ by, byAlias, compared string }
	lastRepl := map[string]repl{}
	var drops []KustomizeDrop
	set := map[string]KustomizeWrite{}
	keyOf := map[string]string{}
	for _, w := range writes {
		keyOf[w.Alias] = w.key(pc)
	}
	take := func(i int, w KustomizeWrite, param, compared string) {
		// Two images Kustomize sees as one name (the same image twice in
		// the CR) replace each other by Kustomize's own rule; only an
		// override of another name taking the entry is a collision.
		if o := owner[i]; o != "" && o != w.Alias && keyOf[o] != keyOf[w.Alias] {
			lastRepl[o] = repl{by: param, byAlias: w.Alias, compared: compared}
		} else if o == "" && kustomizeEntryKey(images[i], pc) != keyOf[w.Alias] {
			drops = append(drops, KustomizeDrop{Entry: images[i], ReplacedBy: param, ByAlias: w.Alias, Compared: compared})
		}
		images[i], owner[i] = param, w.Alias
	}
	for _, w := range writes {
		if w.Due && getKustomizeImage(images, w, pc) == w.Image.String() {
			continue
		}
		param := w.Param()
		override := pc.parse(param)
		for i, e := range images {
			curr := pc.parse(e)
			matched := curr.Name == override.Name
			if w.Name != "" && curr.Alias != "" {
				matched = matched && curr.Alias == w.Name
			}
			if matched {
				take(i, w, param, curr.Name)
			}
		}
		if i := FindKustomizeImage(images, param); i >= 0 {
			take(i, w, param, KustomizeMatchText(images[i], param))
		} else {
			images = append(images, param)
			owner = append(owner, w.Alias)
		}
		set[w.Alias] = w
		if w.Due {
			out.Written = true
		}
	}
	out.After = images
	for _, d := range drops {
		kept := false
		for _, e := range images {
			kept = kept || e == d.Entry
		}
		if !kept {
			out.Dropped = append(out.Dropped, d)
		}
	}
	for _, w := range writes {
		if _, ok := set[w.Alias]; !ok {
			continue
		}
		if rendersKustomizeWrite(images, w, pc) {
			continue
		}
		l := KustomizeLoss{Alias: w.Alias, Due: w.Due, Written: w.Param()}
		if r, ok := lastRepl[w.Alias]; ok {
			l.ReplacedBy, l.ByAlias, l.Compared = r.by, r.byAlias, r.compared
		}
		out.Lost = append(out.Lost, l)
	}
	return out
}

// getKustomizeImage is GetKustomizeImage: the first entry with the image's
// path (and its Kustomize name, when both have one), as written, or "".
func getKustomizeImage(images []string, w KustomizeWrite, pc *refCache) string {
	for _, e := range images {
		curr := pc.parse(e)
		matched := curr.Name == w.Image.Name
		if w.Name != "" && curr.Alias != "" {
			matched = matched && curr.Alias == w.Name
		}
		if matched {
			return e
		}
	}
	return ""
}

// rendersKustomizeWrite: the last entry Kustomize applies to the image's
// name sets the image and tag written.
func rendersKustomizeWrite(images []string, w KustomizeWrite, pc *refCache) bool {
	key := w.key(pc)
	for i := len(images) - 1; i >= 0; i-- {
		e := images[i]
		if kustomizeEntryKey(e, pc) != key {
			continue
		}
		_, img, ok := strings.Cut(e, "=")
		if !ok {
			img = e
		}
		got := pc.parse(img)
		return got.FullName() == w.Image.FullName() && got.Tag == w.Image.Tag && got.Digest == w.Image.Digest
	}
	return false
}

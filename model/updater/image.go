package updater

import (
	"strings"

	"github.com/distribution/reference"
)

// ImageRef is an image as Image Updater sees it after NewFromIdentifier:
// registry and name split the way its live-image matching compares them.
// For a configured image the Tag holds the version constraint ("~1.26"), for a
// live image the running tag.
type ImageRef struct {
	// Alias is the image-list alias or the CR's images[].alias ("" when absent).
	Alias string `json:"alias,omitempty"`
	// Registry is the registry host ("ghcr.io", "registry:5000"), or "" for a
	// Docker Hub image written without a registry ("nginx", "bitnami/nginx").
	// "docker.io" is kept only when the string itself starts with "docker.io".
	Registry string `json:"registry,omitempty"`
	// Name is the repository path without registry, with an implicit
	// "library/" removed ("nginx" for "docker.io/library/nginx").
	Name string `json:"name"`
	// Tag is the tag part: a constraint for configured images, the running
	// tag for live ones. It may be empty.
	Tag string `json:"tag,omitempty"`
	// Digest is "sha256:..." when the reference carries one.
	Digest string `json:"digest,omitempty"`
	// Original is the string the reference was parsed from.
	Original string `json:"original"`
	// Legacy is true when the strict reference grammar rejected the string
	// (constraints such as "~1.2" or ">=1" do) and Image Updater's fallback
	// splitter was used instead.
	Legacy bool `json:"-"`
}

// ParseImageRef splits an image identifier exactly as Image Updater's
// NewFromIdentifier does for version v: an optional "alias=" prefix, then the
// distribution reference grammar with Docker Hub normalisation, falling back to
// the legacy splitter (registry = first path element if it contains a dot, tag
// after the first colon) for strings the grammar rejects. Like Image Updater it
// never fails; use ImageRef.Problems to find out whether the result is usable.
func ParseImageRef(identifier string, v Version) ImageRef {
	ref := identifier
	alias := ""
	if a, r, ok := strings.Cut(identifier, "="); ok {
		alias, ref = a, r
	}
	if parsed, err := reference.ParseNormalizedNamed(ref); err == nil {
		img := ImageRef{Alias: alias, Original: identifier}
		img.Registry = reference.Domain(parsed)
		if img.Registry == "docker.io" && !strings.HasPrefix(ref, "docker.io") {
			img.Registry = ""
		}
		img.Name = reference.Path(parsed)
		if !strings.HasPrefix(ref, "library/") {
			isHub := img.Registry == "" || img.Registry == "docker.io"
			if isHub || v.StripsLibraryForAnyRegistry() {
				img.Name = strings.TrimPrefix(img.Name, "library/")
			}
		}
		if d, ok := parsed.(reference.Digested); ok {
			img.Digest = string(d.Digest())
		}
		if t, ok := parsed.(reference.Tagged); ok {
			img.Tag = t.Tag()
		}
		return img
	}
	img := ImageRef{Original: identifier, Legacy: true}
	img.Registry = legacyRegistry(identifier)
	img.Alias, img.Name, img.Tag, img.Digest = legacyNameTag(identifier)
	return img
}

// legacyRegistry mirrors getRegistryFromIdentifier: note it splits on every
// "=", not only the first.
func legacyRegistry(identifier string) string {
	s := identifier
	if comp := strings.Split(identifier, "="); len(comp) > 1 {
		s = comp[1]
	}
	comp := strings.Split(s, "/")
	if len(comp) > 1 && strings.Contains(comp[0], ".") {
		return comp[0]
	}
	return ""
}

// legacyNameTag mirrors getImageTagFromIdentifier.
func legacyNameTag(identifier string) (alias, name, tag, digest string) {
	s := identifier
	if a, r, ok := strings.Cut(identifier, "="); ok {
		alias, s = a, r
	}
	if comp := strings.Split(s, "/"); len(comp) > 1 && strings.Contains(comp[0], ".") {
		s = strings.Join(comp[1:], "/")
	}
	if before, after, ok := strings.Cut(s, "@"); ok {
		colon := strings.LastIndex(before, ":")
		slash := strings.LastIndex(before, "/")
		if colon > slash {
			return alias, before[:colon], before[colon+1:], after
		}
		return alias, before, "", after
	}
	n, t, ok := strings.Cut(s, ":")
	if !ok {
		return alias, s, "", ""
	}
	return alias, n, t, ""
}

// Constraint is the version constraint of a configured image: its tag part.
func (r ImageRef) Constraint() string { return r.Tag }

// FullName is "[registry/]name" as Image Updater prints it
// (GetFullNameWithoutTag).
func (r ImageRef) FullName() string {
	if r.Registry != "" && !strings.HasPrefix(r.Name, r.Registry+"/") {
		return r.Registry + "/" + r.Name
	}
	return r.Name
}

// String is "[registry/]name[:tag][@digest]".
func (r ImageRef) String() string {
	s := r.FullName()
	if r.Tag != "" {
		s += ":" + r.Tag
	}
	if r.Digest != "" {
		s += "@" + r.Digest
	}
	return s
}

// SameImage is Image Updater's live-image test: same registry and same name;
// tags are ignored.
func (r ImageRef) SameImage(o ImageRef) bool {
	return r.Registry == o.Registry && r.Name == o.Name
}

// TagWithDigest is the value Image Updater writes as a tag parameter:
// "tag", "tag@sha256:...", or "latest@sha256:..." when only a digest is known.
func (r ImageRef) TagWithDigest() string {
	s := r.Tag
	if r.Digest != "" {
		if s == "" {
			s = "latest"
		}
		s += "@" + r.Digest
	}
	return s
}

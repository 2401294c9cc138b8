package updater

import (
	"fmt"
	"strconv"

	"github.com/imgupd/imgupd/internal/lazyre"
)

// Version is an Image Updater release, the switch for every behaviour that
// differs between releases. The zero value is not a valid version; use
// ParseVersion or one of the named versions.
type Version struct {
	Major, Minor, Patch int
	// Head marks a build from the main branch after the newest release
	// (the image reports v99.9.9+<sha>). It behaves like the newest release
	// plus the changes merged after it that the model knows about.
	Head bool
}

// The releases whose behaviour the model covers. Versions in between take the
// behaviour of the closest lower release.
var (
	V0_18 = Version{Major: 0, Minor: 18}
	V1_0  = Version{Major: 1, Minor: 0}
	V1_1  = Version{Major: 1, Minor: 1}
	V1_2  = Version{Major: 1, Minor: 2}
	V1_3  = Version{Major: 1, Minor: 3}
	// Latest is the newest release the model knows; the default for tools.
	Latest = V1_3
)

// KnownVersions lists the releases the model was written against, oldest first.
func KnownVersions() []Version { return []Version{V0_18, V1_0, V1_1, V1_2, V1_3} }

var versionRE = lazyre.New(`^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+].*)?$`)

// VersionError says why a version string could not be read.
type VersionError struct {
	Input  string
	Reason string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("image updater version %q: %s", e.Input, e.Reason)
}

// ParseVersion reads an Image Updater version as it appears in an image tag or
// a flag: "v1.3.0", "1.2", "v0.18.1", or a main-branch build "v99.9.9+abc123".
// Versions before v0.18 are read but behave like v0.18.
func ParseVersion(s string) (Version, error) {
	m := versionRE().FindStringSubmatch(s)
	if m == nil {
		return Version{}, &VersionError{Input: s, Reason: "want vMAJOR.MINOR[.PATCH], e.g. v1.3.0"}
	}
	v := Version{}
	v.Major, _ = strconv.Atoi(m[1])
	if m[2] != "" {
		v.Minor, _ = strconv.Atoi(m[2])
	}
	if m[3] != "" {
		v.Patch, _ = strconv.Atoi(m[3])
	}
	if v.Major == 99 {
		// Builds from main carry the VERSION placeholder 99.9.9.
		return Version{Major: Latest.Major, Minor: Latest.Minor, Patch: Latest.Patch, Head: true}, nil
	}
	if v.Major > 1 {
		return Version{}, &VersionError{Input: s, Reason: fmt.Sprintf("newer than the newest release this model knows (%s)", Latest)}
	}
	return v, nil
}

func (v Version) String() string {
	if v.Head {
		return "v99.9.9 (main after " + fmt.Sprintf("v%d.%d.%d", v.Major, v.Minor, v.Patch) + ")"
	}
	return fmt.Sprintf("v%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// Short is "v1.3", the release line.
func (v Version) Short() string {
	if v.Head {
		return "head"
	}
	return fmt.Sprintf("v%d.%d", v.Major, v.Minor)
}

// AtLeast reports whether v is the given release or newer (a Head build is
// newer than every release).
func (v Version) AtLeast(major, minor, patch int) bool {
	if v.Head {
		return true
	}
	if v.Major != major {
		return v.Major > major
	}
	if v.Minor != minor {
		return v.Minor > minor
	}
	return v.Patch >= patch
}

// UsesCRs: v1.0+ takes its configuration from ImageUpdater CRs; v0.x from
// Application annotations only.
func (v Version) UsesCRs() bool { return v.AtLeast(1, 0, 0) }

// AppNamespaceFromSpec: v1.0 and v1.1 list Applications in the CR's
// spec.namespace; v1.2 removed the field and uses metadata.namespace.
func (v Version) AppNamespaceFromSpec() bool { return v.UsesCRs() && !v.AtLeast(1, 2, 0) }

// SupportsUseAnnotations: applicationRefs[].useAnnotations exists from v1.1.0.
func (v Version) SupportsUseAnnotations() bool { return v.AtLeast(1, 1, 0) }

// EmptyConstraintExcludesPrereleases: from v1.3.0 (PR #1758) an empty semver
// constraint means "*", which excludes pre-releases; before, there was no
// constraint check and pre-releases could win.
func (v Version) EmptyConstraintExcludesPrereleases() bool { return v.AtLeast(1, 3, 0) }

// NoTagsMeansNoCandidate: from v1.2.0 (PR #1505) an empty tag list after
// filtering yields no candidate and a warning; before, the running tag was
// returned, so the image looked "already on latest allowed version".
func (v Version) NoTagsMeansNoCandidate() bool { return v.AtLeast(1, 2, 0) }

// AllowsNonSemverRunningTag: PR #1473 (v1.2.0, backported to v1.1.1) stopped
// the semver strategy from failing when the running tag is not a version.
func (v Version) AllowsNonSemverRunningTag() bool {
	return v.AtLeast(1, 2, 0) || (v.Major == 1 && v.Minor == 1 && v.Patch >= 1)
}

// StrictBoolAnnotations: v1.x parses force-update with strconv.ParseBool and
// fails the image list on a bad value; v0.x only honours the exact "true".
func (v Version) StrictBoolAnnotations() bool { return v.UsesCRs() }

// ReadsTagMatchAnnotation: the deprecated <alias>.tag-match key is read by v0.x only.
func (v Version) ReadsTagMatchAnnotation() bool { return !v.UsesCRs() }

// SupportsPluginSources: Plugin-type Applications and manifestTargets.plugin (v1.3.0).
func (v Version) SupportsPluginSources() bool { return v.AtLeast(1, 3, 0) }

// SupportsImagesVerification: imagesVerification (cosign) blocks (v1.3.0).
func (v Version) SupportsImagesVerification() bool { return v.AtLeast(1, 3, 0) }

// SupportsPullRequests: gitConfig.pullRequest write-back (v1.2.0).
func (v Version) SupportsPullRequests() bool { return v.AtLeast(1, 2, 0) }

// SecretsMustShareAppNamespace: v1.3.0 (PRs #1732/#1733) rejects image-level
// pull secrets and git:secret: write-back secrets in another namespace than
// the Application's.
func (v Version) SecretsMustShareAppNamespace() bool { return v.AtLeast(1, 3, 0) }

// CRDDefaultsSettings: the v1.0–v1.3 CRD schema defaults updateStrategy:
// semver and forceUpdate: false into every commonUpdateSettings block the user
// writes, which then overrides inherited values (fixed after v1.3.0, #1782).
func (v Version) CRDDefaultsSettings() bool { return v.UsesCRs() && !v.Head }

// StripsLibraryForAnyRegistry: up to v1.3.0 the implicit "library/" is
// stripped from image names of every registry; main after v1.3.0 (PR #1783)
// keeps it for registries other than Docker Hub.
func (v Version) StripsLibraryForAnyRegistry() bool { return !v.Head }

// LogsNoTagsWarnings: the "no tags found for image" / "no tags ... matched"
// warnings exist from v1.2.0.
func (v Version) LogsNoTagsWarnings() bool { return v.AtLeast(1, 2, 0) }

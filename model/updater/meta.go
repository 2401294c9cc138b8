package updater

import "time"

// TagMeta is what the registry said about one tag, as far as the strategies
// need it. Sources fill it; the model decides with it.
type TagMeta struct {
	// Digest is the digest of the manifest or index the tag points to.
	Digest string `json:"digest,omitempty"`
	// Index is true when the tag points to a manifest list / OCI index.
	Index bool `json:"index,omitempty"`
	// Manifests holds one entry for a single manifest, or one per child of an
	// index (all children, so a platform mismatch can be explained; Created
	// is only known for children that were fetched).
	Manifests []ManifestMeta `json:"manifests,omitempty"`
	// Err is why the metadata could not be read (the tag is then dropped,
	// as Image Updater drops it without counting an error).
	Err string `json:"error,omitempty"`
	// ErrOp, ErrKind and ErrStatus say which read failed and how, when Err
	// is set and the source knows: the operation ("manifest", "config",
	// "referrers"), the failure's kind as the source names it
	// ("Unauthorized", "Forbidden", "RateLimited"…) and the HTTP status (0
	// without an answer). A registry that lists tags but refuses each
	// manifest is a permission of the account, not a filter.
	ErrOp     string `json:"errorOp,omitempty"`
	ErrKind   string `json:"errorKind,omitempty"`
	ErrStatus int    `json:"errorStatus,omitempty"`
}

// Refused reports whether the metadata read was refused by the registry:
// 401, 403 or 429 (the account may list the tags but not read this).
func (m TagMeta) Refused() bool {
	switch m.ErrKind {
	case "Unauthorized", "Forbidden", "RateLimited":
		return true
	}
	return false
}

// ManifestMeta is one image manifest: its platform and build time.
type ManifestMeta struct {
	Digest   string   `json:"digest,omitempty"`
	Platform Platform `json:"platform"`
	// Created is the image config's "created" time; zero if unknown.
	Created time.Time `json:"created,omitempty"`
	// HasCreated is false when the config was not fetched or had no date.
	HasCreated bool `json:"-"`
}

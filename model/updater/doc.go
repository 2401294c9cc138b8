// Package updater is a pure, version-aware model of Argo CD Image Updater's
// decisions: which ImageUpdater CR and applicationRef select an Application,
// the effective update settings after the CR → ref → image merge, the legacy
// annotation language, image reference normalisation and live-image matching,
// registry endpoint and credential resolution from registries.conf, tag
// filtering and the update strategies, and needsUpdate.
//
// Nothing in this package does I/O. Callers read objects, tag lists and image
// metadata elsewhere (the registry, cluster and git sources) and hand them in;
// the model returns what the Image Updater version in the cluster would decide,
// and why. The specification is docs/image-updater-model.md; where it and the
// real controller disagree, the real controller wins.
package updater

// Package fleet diagnoses every Application Image Updater manages, in one
// scan: the CLI's `imgupd summary`, the bot's on-demand and scheduled
// summaries.
//
// A scan shares its work across apps, as a fleet of hundreds needs:
// Kubernetes objects are listed once per kind and namespace (or taken
// from a snapshot the caller keeps), Image Updater's installation and log
// are read once (the log indexed once, then split per app), a repository's
// tags are listed once for all the apps that use it, image metadata is
// cached by digest (the registry client does that), git snapshots once per
// repository and revision (the git client's cache), and each registry's
// `limit:` of registries.conf holds across the whole scan. Apps are
// diagnosed with bounded concurrency under one deadline; a scan that runs
// out of time returns what finished, the rest as unknown, never nothing.
// Of each app it keeps the answer (state, root cause, headline), never the
// report: its memory grows with the repositories and tag lists it reads,
// not with the apps.
package fleet

// Package diagnostics is the staged diagnosis engine: given an Argo CD
// Application, it finds the first stage at which Argo CD Image Updater's
// pipeline breaks for it, proves it with evidence read from the cluster, the
// registry and git, and says what to change.
//
// Stages run in order (health → target → source & mapping → live image →
// registry & network → candidates → write-back → sync → history). Each is a
// file (stage_*.go) of checks returning Findings of one shape; a stage whose
// prerequisite failed is reported as skipped with the reason, never as
// passed. The first failing finding is the root cause. Everything a
// transport needs is in the Report; renderers only format it.
//
// The engine never writes: not to the cluster, not to the registry, not to git.
package diagnostics

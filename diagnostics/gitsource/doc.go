// Package gitsource gives the diagnosis read-only access to the git
// repositories Image Updater writes back to, with go-git v5.
//
// It lists remote refs (LsRemote), takes shallow in-memory snapshots of a
// branch to read files and recent history (Snapshot), and checks whether
// credentials may open a push session (CanPush). It never writes to a
// repository and never pushes: CanPush stops after the server's push
// advertisement, before any command is sent.
//
// Failures are *Error values of a fixed Kind, classified from go-git's and
// the network's typed errors. No error text, hint, String or Stats output
// contains a password, token or private key.
package gitsource

// Package gitsource gives the diagnosis read-only access to the git
// repositories Image Updater writes back to, and to the Application
// sources Argo CD reads, with go-git v5.
//
// It lists remote refs (LsRemote), takes shallow in-memory snapshots of a
// branch to read files and recent history (Snapshot), and checks whether
// credentials may open a push session (CanPush). It never writes to a
// repository and never pushes: CanPush stops after the server's push
// advertisement, before any command is sent.
//
// Auth carries what a repository Secret and Argo CD's ConfigMaps say about
// a connection, and the package connects as Argo CD's repo-server does:
// SSH host keys checked only against argocd-ssh-known-hosts-cm
// (Auth.KnownHosts, via skeema/knownhosts), an argocd-tls-certs-cm CA that
// replaces the system roots (Auth.CAData with CAReplacesSystemRoots), TLS
// client certificates, and the repository proxy (HTTP(S) through
// golang.org/x/net/http/httpproxy rules, SSH through SOCKS5).
//
// Failures are *Error values of a fixed Kind, classified from go-git's and
// the network's typed errors. No error text, hint, String or Stats output
// contains a password, token, private key or proxy credentials.
package gitsource

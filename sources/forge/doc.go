// Package forge asks a git forge's documented REST API, without writing
// anything, whether a branch is protected and whether Image Updater's
// git write-back token may push to it. A push that the forge rejects
// shows only in Image Updater's log ("protected branch hook declined",
// "GH006", "You are not allowed to push code to protected branches");
// this package lets the diagnosis say so before or without that log.
//
// # Use
//
//	c, err := forge.New(forge.WithEndpoints(cfg.Forges...))
//	p, err := c.BranchProtection(ctx, repoURL, branch, creds)
//
// Recognise maps the repository URL (https, http, ssh://, scp-like
// git@host:owner/repo) to a forge and owner/name: github.com, gitlab.com,
// bitbucket.org and codeberg.org are built in; self-hosted forges come
// from Endpoints ({Host, Kind, APIURL}), which win over the built-in
// table. An unrecognised URL is an *Error of Kind NotRecognised: report
// the push check as not verified.
//
// The result, Protection, says whether the branch is Protected, the
// forge's own CanPush answer for the token (when it gives one), the rules
// found, the API calls made, a Verdict and a one-line Reason. Failures
// are *Error values of a fixed Kind, for errors.As; none of them says
// anything about protection, all mean "not verified".
//
// # What is asked
//
//   - GitHub (go-github v84): GET /repos/{o}/{r} (permissions.push), GET
//     /repos/{o}/{r}/branches/{b} (protected), GET
//     /repos/{o}/{r}/rules/branches/{b} (active ruleset rules). Bypass
//     actors are not reported to non-admins, so protection gives
//     PushRejectedUnlessExempt.
//   - GitLab (hand-written): GET /projects/:id/repository/branches/:b,
//     whose can_push answers for the token's user; for a protected branch
//     also GET /projects/:id/protected_branches/:b for push_access_levels,
//     as evidence when the token may read it.
//   - Gitea and Forgejo (hand-written): GET /repos/{o}/{r}/branches/{b},
//     whose user_can_push answers for the token's user.
//   - Bitbucket Cloud (hand-written): GET
//     /2.0/repositories/{w}/{r}/branch-restrictions?kind=push, paged,
//     matched against the branch here (glob, or branching-model type via
//     GET .../effective-branching-model). The endpoint needs
//     repository:admin; a write-only token gets Forbidden.
//
// On a 404 for the branch, GitLab, Gitea and Forgejo are asked for the
// repository once more to tell BranchNotFound from NotFound (GitHub asks
// for the repository first anyway). Bitbucket's restrictions apply by
// pattern, so there the branch's existence is not checked.
//
// GitHubAppToken turns GitHub App credentials (githubAppID,
// githubAppInstallationID, githubAppPrivateKey) into an installation
// token as Argo CD does, with golang-jwt/jwt/v5.
//
// # Why hand-written
//
// GitLab's official client (gitlab.com/gitlab-org/api/client-go) is very
// large for one or two GETs. code.gitea.io/sdk can skip its version
// handshake, but keeps the context as client state, returns untyped
// errors built from body text, and brings four modules for one GET.
// Bitbucket Cloud has no well-kept Go client. ghinstallation, which Argo
// CD uses for App tokens, would bring go-github v88 beside v84 and
// jwt/v4 for one POST, so its request is reproduced with jwt/v5.
//
// # Guarantees
//
// Only GETs are sent, except GitHubAppToken's POST (which creates a
// short-lived token and changes no repository). Tokens are
// updater.Secret values and travel only in headers, and only to the
// API's own scheme and host: a redirect or a pagination link elsewhere
// gets no credentials. No error, String, Format or JSON output of this
// package contains a token, JWT or key. Each request has a timeout
// (WithRequestTimeout) and each body a size limit (WithMaxResponseBytes).
// A Client holds no mutable state; there is no package state.
package forge

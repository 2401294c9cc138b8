// Package labforge is a fake git forge API for tests and the lab's
// scenarios: an http.Handler that answers the read-only REST calls a
// branch-protection check makes, with the JSON field names, status codes
// and error bodies that each forge documents, and Start, which serves it
// on 127.0.0.1 with net/http/httptest.
//
// One Config (repositories, branches and their protection, tokens, GitHub
// Apps) is served in four dialects at once, by path prefix:
//
//   - GitHub under /api/v3 (as GitHub Enterprise Server) and at the root
//     (as api.github.com): GET /repos/{o}/{r} (with permissions, unless the
//     token has NoPermissions), GET .../branches/{b} (protected,
//     protection, protection_url, commit, _links), GET
//     .../rules/branches/{b} (active rules: type, parameters,
//     ruleset_source_type, ruleset_source, ruleset_id), and POST
//     /app/installations/{id}/access_tokens, which verifies the App's
//     RS256 JWT with its public key (iss, iat, exp) and mints a token.
//     Accepts "Bearer" and "token".
//   - GitLab under /api/v4: GET /projects/:id (the URL-encoded full path,
//     or a number), .../repository/branches/:b (one encoded segment:
//     name, merged, protected, default, developers_can_push,
//     developers_can_merge, can_push, web_url, commit) and
//     .../protected_branches/:name (push_access_levels, allow_force_push;
//     Maintainer only). Accepts PRIVATE-TOKEN and "Bearer".
//   - Gitea and Forgejo under /api/v1: GET /version, /repos/{o}/{r},
//     .../branches/{b} (protected, user_can_push, user_can_merge,
//     required_approvals, enable_status_check, status_check_contexts,
//     effective_branch_protection_name). Accepts "token", "Bearer", Basic.
//   - Bitbucket Cloud under /2.0: GET /repositories/{w}/{s},
//     .../branch-restrictions (kind and pattern filters, paged by
//     Config.PageSize with an absolute "next"; Admin tokens only, others
//     403 with granted/required scopes), .../effective-branching-model,
//     .../refs/branches/{b}. Accepts "Bearer" and Basic.
//
// Every dialect answers an unknown or missing token with 401, a token
// with MissingScope with 403, and a repository the token cannot see with
// 404 (as GitHub does for private repositories), each with the forge's
// own error body. Anything but GET (and the App token POST) gets 405: the
// fake is read-only.
//
// Every request is recorded (Requests): dialect, method, escaped path,
// query, the authentication scheme used and the Accept and
// X-GitHub-Api-Version headers, and the status. Token values are never
// recorded, logged or printed. Config.Delay holds every answer, for
// timeout tests; a held request ends when its client gives up.
package labforge

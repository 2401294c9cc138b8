package labforge

import (
	"net/http"
	"strings"
)

func giteaError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	writeJSON(w, status, map[string]any{"message": msg, "url": baseURL(r, "") + "/api/swagger"})
}

// gitea serves Gitea's and Forgejo's GET /version, /repos/{o}/{r} and
// /repos/{o}/{r}/branches/{b}. Authentication is "token", "Bearer" or
// Basic (user name and token). Unknown tokens get 401, MissingScope 403
// "token does not have at least one of required scope(s): [read:repository]",
// invisible repositories 404 "The target couldn't be found.".
func (h *Handler) gitea(w http.ResponseWriter, r *http.Request, rest string) {
	segs := splitRest(rest)
	if len(segs) == 1 && segs[0] == "version" {
		writeJSON(w, http.StatusOK, map[string]any{"version": "1.22.0"})
		return
	}
	if len(segs) < 3 || segs[0] != "repos" {
		giteaError(w, r, http.StatusNotFound, "The target couldn't be found.")
		return
	}
	t := h.token(r, "token", "Bearer", "Basic")
	if t == nil {
		giteaError(w, r, http.StatusUnauthorized, "user does not exist [uid: 0, name: ]")
		return
	}
	if r.Method != http.MethodGet {
		giteaError(w, r, http.StatusMethodNotAllowed, "this fake forge is read-only")
		return
	}
	if t.MissingScope {
		giteaError(w, r, http.StatusForbidden, "token does not have at least one of required scope(s), required=[read:repository], token scope=write:user")
		return
	}
	repo := h.visibleRepo(t, unescape(segs[1])+"/"+unescape(segs[2]))
	if repo == nil {
		giteaError(w, r, http.StatusNotFound, "The target couldn't be found.")
		return
	}
	switch {
	case len(segs) == 3:
		writeJSON(w, http.StatusOK, giteaRepoJSON(repo, t))
	case len(segs) >= 5 && segs[3] == "branches":
		b := repo.branch(unescape(strings.Join(segs[4:], "/")))
		if b == nil {
			giteaError(w, r, http.StatusNotFound, "The target couldn't be found.")
			return
		}
		writeJSON(w, http.StatusOK, giteaBranchJSON(repo, b, t))
	default:
		giteaError(w, r, http.StatusNotFound, "The target couldn't be found.")
	}
}

func giteaRepoJSON(repo *Repo, t *Token) map[string]any {
	owner, name, _ := strings.Cut(repo.Path, "/")
	web := "https://gitea.example/" + repo.Path
	return map[string]any{
		"id": 1, "owner": map[string]any{"id": 1, "login": owner, "username": owner, "full_name": owner},
		"name": name, "full_name": repo.Path, "private": repo.Private, "fork": false, "empty": false,
		"html_url": web, "clone_url": web + ".git", "ssh_url": "git@gitea.example:" + repo.Path + ".git",
		"default_branch": repo.defaultBranch(), "created_at": fixedTime, "updated_at": fixedTime,
		"permissions": map[string]any{"admin": t.Admin, "push": t.Push || t.Admin, "pull": true},
	}
}

func giteaBranchJSON(repo *Repo, b *Branch, t *Token) map[string]any {
	id := sha(repo.Path, b.Name)
	user := map[string]any{"name": "lab", "email": "lab@example.com", "username": "lab"}
	contexts := b.StatusChecks
	if contexts == nil {
		contexts = []string{}
	}
	name := ""
	if b.Protected {
		name = b.ProtectionName
		if name == "" {
			name = b.Name
		}
	}
	return map[string]any{
		"name": b.Name,
		"commit": map[string]any{
			"id": id, "message": "lab commit\n", "url": "https://gitea.example/" + repo.Path + "/commit/" + id,
			"author": user, "committer": user, "timestamp": fixedTime,
			"verification": map[string]any{"verified": false, "reason": "gpg.error.not_signed_commit", "signature": "", "payload": ""},
			"added":        nil, "removed": nil, "modified": nil,
		},
		"protected":                        b.Protected,
		"required_approvals":               b.RequiredApprovals,
		"enable_status_check":              b.Protected && len(b.StatusChecks) > 0,
		"status_check_contexts":            contexts,
		"user_can_push":                    b.canPush(t, false),
		"user_can_merge":                   t.Push || t.Admin,
		"effective_branch_protection_name": name,
	}
}

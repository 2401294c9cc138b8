package labforge

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

func gitlabMessage(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"message": msg})
}

// gitlab serves GET /projects/:id, /projects/:id/repository/branches/:b
// and /projects/:id/protected_branches/:name, where :id is the
// URL-encoded full path ("group%2Fsub%2Fproj") or the project's number
// (its index in Config.Repos plus one). Authentication is PRIVATE-TOKEN
// or "Bearer". Unknown tokens get 401 "401 Unauthorized", MissingScope
// 403 insufficient_scope, invisible projects "404 Project Not Found".
// Protected branches are readable only with Admin (Maintainer), else 403.
func (h *Handler) gitlab(w http.ResponseWriter, r *http.Request, rest string) {
	segs := splitRest(rest)
	if len(segs) == 2 && segs[0] == "personal_access_tokens" && segs[1] == "self" {
		t := h.token(r, "PRIVATE-TOKEN", "Bearer")
		if t == nil {
			gitlabMessage(w, http.StatusUnauthorized, "401 Unauthorized")
			return
		}
		scopes := t.Scopes
		if scopes == nil {
			scopes = []string{"api"}
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": 1, "name": "lab", "revoked": false, "active": true, "scopes": scopes, "user_id": 1,
			"created_at": fixedTime, "expires_at": nil})
		return
	}
	if len(segs) < 2 || segs[0] != "projects" {
		gitlabMessage(w, http.StatusNotFound, "404 Not Found")
		return
	}
	t := h.token(r, "PRIVATE-TOKEN", "Bearer")
	if t == nil {
		gitlabMessage(w, http.StatusUnauthorized, "401 Unauthorized")
		return
	}
	if r.Method != http.MethodGet {
		gitlabMessage(w, http.StatusMethodNotAllowed, "405 Method Not Allowed: this fake forge is read-only")
		return
	}
	if t.MissingScope {
		writeJSON(w, http.StatusForbidden, map[string]any{"error": "insufficient_scope",
			"error_description": "The request requires higher privileges than provided by the access token.", "scope": "api read_api"})
		return
	}
	// segs[1] is one segment: an encoded "/" stays "%2F" in EscapedPath.
	id := unescape(segs[1])
	if n, err := strconv.Atoi(id); err == nil && n >= 1 && n <= len(h.cfg.Repos) {
		id = h.cfg.Repos[n-1].Path
	}
	repo := h.visibleRepo(t, id)
	if repo == nil {
		gitlabMessage(w, http.StatusNotFound, "404 Project Not Found")
		return
	}
	base := baseURL(r, rest)
	switch {
	case len(segs) == 2:
		writeJSON(w, http.StatusOK, gitlabProjectJSON(h, repo, base))
	case len(segs) == 5 && segs[2] == "repository" && segs[3] == "branches":
		// GitLab wants the branch URL-encoded as one segment; a literal
		// "/" in it does not route (404), as on GitLab.
		b := repo.branch(unescape(segs[4]))
		if b == nil {
			gitlabMessage(w, http.StatusNotFound, "404 Branch Not Found")
			return
		}
		writeJSON(w, http.StatusOK, gitlabBranchJSON(repo, b, t))
	case len(segs) == 3 && segs[2] == "merge_requests":
		q := r.URL.Query()
		list := []any{}
		for _, pr := range repo.PullRequests {
			if q.Get("target_branch") != "" && pr.Base != q.Get("target_branch") {
				continue
			}
			list = append(list, gitlabMRJSON(repo, pr))
		}
		writeJSON(w, http.StatusOK, list)
	case len(segs) == 4 && segs[2] == "protected_branches":
		if !t.Admin {
			gitlabMessage(w, http.StatusForbidden, "403 Forbidden")
			return
		}
		name := unescape(segs[3])
		for i := range repo.Branches {
			b := &repo.Branches[i]
			pn := b.ProtectionName
			if pn == "" {
				pn = b.Name
			}
			if b.Protected && pn == name {
				writeJSON(w, http.StatusOK, gitlabProtectedJSON(b, pn))
				return
			}
		}
		gitlabMessage(w, http.StatusNotFound, "404 Not found")
	default:
		gitlabMessage(w, http.StatusNotFound, "404 Not Found")
	}
}

func gitlabProjectJSON(h *Handler, repo *Repo, base string) map[string]any {
	ns, name := splitLast(repo.Path)
	id := 0
	for i := range h.cfg.Repos {
		if h.cfg.Repos[i].Path == repo.Path {
			id = i + 1
		}
	}
	vis := "internal"
	if repo.Private {
		vis = "private"
	}
	web := "https://gitlab.example/" + repo.Path
	return map[string]any{
		"id": id, "name": name, "path": name, "path_with_namespace": repo.Path,
		"name_with_namespace": strings.ReplaceAll(repo.Path, "/", " / "), "default_branch": repo.defaultBranch(),
		"visibility": vis, "web_url": web, "http_url_to_repo": web + ".git", "ssh_url_to_repo": "git@gitlab.example:" + repo.Path + ".git",
		"namespace":  map[string]any{"id": 1, "name": ns, "path": ns, "kind": "group", "full_path": ns},
		"created_at": fixedTime, "last_activity_at": fixedTime,
		"_links": map[string]any{"self": base + "/projects/" + strconv.Itoa(id)},
	}
}

func gitlabBranchJSON(repo *Repo, b *Branch, t *Token) map[string]any {
	id := sha(repo.Path, b.Name)
	lvl, _ := b.gitlabLevel()
	web := "https://gitlab.example/" + repo.Path
	return map[string]any{
		"name": b.Name, "merged": false, "protected": b.Protected, "default": b.Name == repo.defaultBranch(),
		"developers_can_push": b.Protected && lvl == 30 || !b.Protected, "developers_can_merge": b.DevelopersCanMerge || !b.Protected,
		"can_push": b.canPush(t, true), "web_url": web + "/-/tree/" + url.PathEscape(b.Name),
		"commit": map[string]any{
			"id": id, "short_id": id[:8], "created_at": fixedTime, "parent_ids": []string{sha(id, "parent")},
			"title": "lab commit", "message": "lab commit", "author_name": "lab", "author_email": "lab@example.com",
			"authored_date": fixedTime, "committer_name": "lab", "committer_email": "lab@example.com",
			"committed_date": fixedTime, "trailers": map[string]any{}, "web_url": web + "/-/commit/" + id,
		},
	}
}

func gitlabProtectedJSON(b *Branch, name string) map[string]any {
	lvl, desc := b.gitlabLevel()
	push := []any{map[string]any{"id": 1, "access_level": lvl, "access_level_description": desc,
		"deploy_key_id": nil, "user_id": nil, "group_id": nil}}
	for i := range b.PushTokens {
		push = append(push, map[string]any{"id": i + 2, "access_level": 40, "access_level_description": "lab user " + strconv.Itoa(i+1),
			"deploy_key_id": nil, "user_id": i + 100, "group_id": nil})
	}
	return map[string]any{
		"id": 1, "name": name, "push_access_levels": push,
		"merge_access_levels":     []any{map[string]any{"id": 1, "access_level": 40, "access_level_description": "Maintainers"}},
		"unprotect_access_levels": []any{},
		"allow_force_push":        false, "code_owner_approval_required": false,
	}
}

func splitLast(p string) (string, string) {
	i := strings.LastIndex(p, "/")
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}

// gitlabMRJSON is a merge request as GitLab lists it.
func gitlabMRJSON(repo *Repo, pr PullRequest) map[string]any {
	created := pr.Created
	if created.IsZero() {
		created, _ = time.Parse(time.RFC3339, fixedTime)
	}
	status, conflicts := "mergeable", false
	switch pr.State {
	case "dirty":
		status, conflicts = "conflict", true
	case "blocked":
		status = "not_approved"
	case "unknown":
		status = "checking"
	}
	return map[string]any{
		"id": 1000 + pr.Number, "iid": pr.Number, "state": "opened", "title": pr.Title, "draft": false,
		"source_branch": pr.Head, "target_branch": pr.Base, "has_conflicts": conflicts, "detailed_merge_status": status,
		"web_url":    "https://gitlab.example/" + repo.Path + "/-/merge_requests/" + strconv.Itoa(pr.Number),
		"created_at": created.UTC().Format(time.RFC3339), "updated_at": created.UTC().Format(time.RFC3339),
		"author": map[string]any{"username": "image-updater-bot"},
	}
}

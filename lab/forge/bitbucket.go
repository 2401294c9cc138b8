package labforge

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

func bitbucketError(w http.ResponseWriter, status int, msg string, detail any) {
	e := map[string]any{"message": msg}
	if detail != nil {
		e["detail"] = detail
	}
	writeJSON(w, status, map[string]any{"type": "error", "error": e})
}

// bitbucket serves Bitbucket Cloud's GET /repositories/{w}/{s},
// .../branch-restrictions (kind, pattern, page, pagelen; paged with an
// absolute "next"), .../effective-branching-model and
// .../refs/branches/{name}. Authentication is "Bearer" or Basic (user
// name and token). Branch restrictions need Admin (repository:admin):
// other tokens get 403 with Bitbucket's granted/required detail.
func (h *Handler) bitbucket(w http.ResponseWriter, r *http.Request, rest string) {
	segs := splitRest(rest)
	if len(segs) < 3 || segs[0] != "repositories" {
		bitbucketError(w, http.StatusNotFound, "Resource not found", nil)
		return
	}
	t := h.token(r, "Bearer", "Basic")
	if t == nil {
		bitbucketError(w, http.StatusUnauthorized, "Token is invalid, expired, or not supported for this endpoint.", nil)
		return
	}
	if r.Method != http.MethodGet {
		bitbucketError(w, http.StatusMethodNotAllowed, "this fake forge is read-only", nil)
		return
	}
	if t.MissingScope {
		bitbucketError(w, http.StatusForbidden, "Your credentials lack one or more required privilege scopes.",
			map[string]any{"granted": []string{"account"}, "required": []string{"repository"}})
		return
	}
	path := unescape(segs[1]) + "/" + unescape(segs[2])
	repo := h.visibleRepo(t, path)
	if repo == nil {
		bitbucketError(w, http.StatusNotFound, "Repository "+path+" not found", nil)
		return
	}
	base := baseURL(r, rest)
	repoAPI := base + "/repositories/" + repo.Path
	switch {
	case len(segs) == 3:
		writeJSON(w, http.StatusOK, bitbucketRepoJSON(repo, repoAPI))
	case len(segs) == 4 && segs[3] == "branch-restrictions":
		if !t.Admin {
			granted := []string{"repository"}
			if t.Push {
				granted = append(granted, "repository:write")
			}
			bitbucketError(w, http.StatusForbidden, "Your credentials lack one or more required privilege scopes.",
				map[string]any{"granted": granted, "required": []string{"repository:admin"}})
			return
		}
		h.bitbucketRestrictions(w, r, repo, repoAPI)
	case len(segs) == 4 && segs[3] == "effective-branching-model":
		writeJSON(w, http.StatusOK, bitbucketModelJSON(repo))
	case len(segs) >= 6 && segs[3] == "refs" && segs[4] == "branches":
		b := repo.branch(unescape(strings.Join(segs[5:], "/")))
		if b == nil {
			bitbucketError(w, http.StatusNotFound, "Branch not found", nil)
			return
		}
		id := sha(repo.Path, b.Name)
		writeJSON(w, http.StatusOK, map[string]any{"type": "branch", "name": b.Name,
			"target": map[string]any{"type": "commit", "hash": id, "date": fixedTime, "message": "lab commit\n"},
			"links":  map[string]any{"self": map[string]any{"href": repoAPI + "/refs/branches/" + url.PathEscape(b.Name)}}})
	default:
		bitbucketError(w, http.StatusNotFound, "Resource not found", nil)
	}
}

func (h *Handler) bitbucketRestrictions(w http.ResponseWriter, r *http.Request, repo *Repo, repoAPI string) {
	q := r.URL.Query()
	var vals []any
	for _, rs := range repo.Restrictions {
		kind := rs.Kind
		if kind == "" {
			kind = "push"
		}
		if k := q.Get("kind"); k != "" && k != kind {
			continue
		}
		if p := q.Get("pattern"); p != "" && p != rs.Pattern {
			continue
		}
		vals = append(vals, bitbucketRestrictionJSON(rs, kind, repoAPI))
	}
	pagelen := h.cfg.PageSize
	if n, err := strconv.Atoi(q.Get("pagelen")); err == nil && n > 0 && n < pagelen {
		pagelen = n
	}
	page := 1
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 0 {
		page = n
	}
	start := min((page-1)*pagelen, len(vals))
	end := min(start+pagelen, len(vals))
	body := map[string]any{"pagelen": pagelen, "page": page, "size": len(vals), "values": append([]any{}, vals[start:end]...)}
	if end < len(vals) {
		q.Set("page", strconv.Itoa(page+1))
		body["next"] = repoAPI + "/branch-restrictions?" + q.Encode()
	}
	writeJSON(w, http.StatusOK, body)
}

func bitbucketRestrictionJSON(rs Restriction, kind, repoAPI string) map[string]any {
	users := []any{}
	for _, u := range rs.Users {
		users = append(users, map[string]any{"type": "user", "display_name": u, "nickname": u,
			"uuid": "{" + sha("user", u)[:8] + "-lab}", "account_id": "lab:" + u})
	}
	groups := []any{}
	for _, g := range rs.Groups {
		groups = append(groups, map[string]any{"type": "group", "name": g, "slug": g, "full_slug": "lab:" + g})
	}
	m := map[string]any{
		"type": "branchrestriction", "id": rs.ID, "kind": kind, "users": users, "groups": groups, "value": nil,
		"links": map[string]any{"self": map[string]any{"href": repoAPI + "/branch-restrictions/" + strconv.Itoa(rs.ID)}},
	}
	if rs.BranchType != "" {
		m["branch_match_kind"], m["branch_type"], m["pattern"] = "branching_model", rs.BranchType, ""
	} else {
		m["branch_match_kind"], m["pattern"] = "glob", rs.Pattern
	}
	return m
}

func bitbucketRepoJSON(repo *Repo, api string) map[string]any {
	ws, slug, _ := strings.Cut(repo.Path, "/")
	return map[string]any{
		"type": "repository", "full_name": repo.Path, "name": slug, "slug": slug, "uuid": "{" + sha(repo.Path)[:8] + "-lab}",
		"is_private": repo.Private, "scm": "git", "created_on": fixedTime, "updated_on": fixedTime,
		"mainbranch": map[string]any{"type": "branch", "name": repo.defaultBranch()},
		"workspace":  map[string]any{"type": "workspace", "slug": ws, "name": ws},
		"links":      map[string]any{"self": map[string]any{"href": api}, "html": map[string]any{"href": "https://bitbucket.example/" + repo.Path}},
	}
}

func bitbucketModelJSON(repo *Repo) map[string]any {
	m := repo.BranchingModel
	if m == nil {
		m = &BranchingModel{Development: repo.defaultBranch(),
			Prefixes: map[string]string{"feature": "feature/", "bugfix": "bugfix/", "release": "release/", "hotfix": "hotfix/"}}
	}
	branch := func(name string) map[string]any {
		return map[string]any{"name": name, "use_mainbranch": name == repo.defaultBranch(),
			"branch": map[string]any{"type": "branch", "name": name}}
	}
	types := []any{}
	for _, k := range []string{"feature", "bugfix", "release", "hotfix"} {
		if p, ok := m.Prefixes[k]; ok {
			types = append(types, map[string]any{"kind": k, "prefix": p})
		}
	}
	out := map[string]any{"type": "effective_repo_branching_model", "branch_types": types, "development": branch(m.Development)}
	if m.Production != "" {
		out["production"] = branch(m.Production)
	}
	return out
}

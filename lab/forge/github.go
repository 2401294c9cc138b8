package labforge

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

const githubDocs = "https://docs.github.com/rest"

// githubError is GitHub's error body: message, documentation_url, status.
func githubError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"message": msg, "documentation_url": githubDocs, "status": strconv.Itoa(status)})
}

// github serves GET /repos/{o}/{r}, .../branches/{b} and
// .../rules/branches/{b}. Authentication is "Bearer" or "token". Unknown
// tokens get 401 "Bad credentials", tokens with MissingScope 403
// "Resource not accessible by personal access token", repositories the
// token cannot see 404, as GitHub answers for private repositories.
func (h *Handler) github(w http.ResponseWriter, r *http.Request, rest string) {
	segs := splitRest(rest)
	if len(segs) < 3 || segs[0] != "repos" {
		githubError(w, http.StatusNotFound, "Not Found")
		return
	}
	t := h.token(r, "Bearer", "token")
	if t == nil {
		githubError(w, http.StatusUnauthorized, "Bad credentials")
		return
	}
	if r.Method != http.MethodGet {
		githubError(w, http.StatusMethodNotAllowed, "Method Not Allowed: this fake forge is read-only")
		return
	}
	if t.MissingScope {
		githubError(w, http.StatusForbidden, "Resource not accessible by personal access token")
		return
	}
	owner, name := unescape(segs[1]), unescape(segs[2])
	repo := h.visibleRepo(t, owner+"/"+name)
	if repo == nil {
		githubError(w, http.StatusNotFound, "Not Found")
		return
	}
	base := baseURL(r, rest)
	repoAPI := base + "/repos/" + repo.Path
	if t.Scopes != nil {
		w.Header().Set("X-OAuth-Scopes", strings.Join(t.Scopes, ", "))
	}
	switch {
	case len(segs) == 4 && segs[3] == "pulls":
		q := r.URL.Query()
		list := []any{}
		for _, pr := range repo.PullRequests {
			if q.Get("base") != "" && pr.Base != q.Get("base") {
				continue
			}
			list = append(list, githubPullJSON(repo, pr, repoAPI, false))
		}
		writeJSON(w, http.StatusOK, list)
	case len(segs) == 5 && segs[3] == "pulls":
		for _, pr := range repo.PullRequests {
			if strconv.Itoa(pr.Number) == segs[4] {
				writeJSON(w, http.StatusOK, githubPullJSON(repo, pr, repoAPI, true))
				return
			}
		}
		githubError(w, http.StatusNotFound, "Not Found")
	case len(segs) == 3:
		writeJSON(w, http.StatusOK, githubRepoJSON(repo, t, repoAPI))
	case len(segs) >= 5 && segs[3] == "branches":
		b := repo.branch(unescape(strings.Join(segs[4:], "/")))
		if b == nil {
			githubError(w, http.StatusNotFound, "Branch not found")
			return
		}
		writeJSON(w, http.StatusOK, githubBranchJSON(repo, b, repoAPI))
	case len(segs) >= 6 && segs[3] == "rules" && segs[4] == "branches":
		// Rules apply by pattern, so GitHub answers (with []) for branches
		// that do not exist too.
		rules := []any{}
		if b := repo.branch(unescape(strings.Join(segs[5:], "/"))); b != nil {
			for _, rule := range b.Rules {
				rules = append(rules, githubRuleJSON(repo, rule))
			}
		}
		writeJSON(w, http.StatusOK, rules)
	default:
		githubError(w, http.StatusNotFound, "Not Found")
	}
}

func githubRepoJSON(repo *Repo, t *Token, api string) map[string]any {
	owner, name, _ := strings.Cut(repo.Path, "/")
	vis := "public"
	if repo.Private {
		vis = "private"
	}
	m := map[string]any{
		"id": 1296269, "node_id": "R_kgDOlabforge", "name": name, "full_name": repo.Path, "private": repo.Private,
		"owner":    map[string]any{"login": owner, "id": 1, "node_id": "O_kgDOlab", "type": "Organization", "site_admin": false},
		"html_url": "https://github.example/" + repo.Path, "description": "lab repository", "fork": false,
		"url": api, "branches_url": api + "/branches{/branch}", "default_branch": repo.defaultBranch(),
		"visibility": vis, "archived": false, "disabled": false,
		"created_at": fixedTime, "updated_at": fixedTime, "pushed_at": fixedTime,
	}
	if !t.NoPermissions {
		m["permissions"] = map[string]any{"admin": t.Admin, "maintain": t.Admin, "push": t.Push || t.Admin, "triage": true, "pull": true}
	}
	return m
}

func githubBranchJSON(repo *Repo, b *Branch, api string) map[string]any {
	id := sha(repo.Path, b.Name)
	checks := []any{}
	contexts := []string{}
	level := "off"
	if b.Protected && len(b.StatusChecks) > 0 {
		level = "non_admins"
		for _, c := range b.StatusChecks {
			contexts = append(contexts, c)
			checks = append(checks, map[string]any{"context": c, "app_id": nil})
		}
	}
	branchAPI := api + "/branches/" + url.PathEscape(b.Name)
	return map[string]any{
		"name": b.Name,
		"commit": map[string]any{
			"sha": id, "node_id": "C_" + id[:12], "url": api + "/commits/" + id,
			"html_url": "https://github.example/" + repo.Path + "/commit/" + id,
			"commit": map[string]any{
				"message":   "lab commit",
				"author":    map[string]any{"name": "lab", "email": "lab@example.com", "date": fixedTime},
				"committer": map[string]any{"name": "lab", "email": "lab@example.com", "date": fixedTime},
				"tree":      map[string]any{"sha": sha(id, "tree"), "url": api + "/git/trees/" + sha(id, "tree")},
			},
			"parents": []any{},
		},
		"_links":    map[string]any{"self": branchAPI, "html": "https://github.example/" + repo.Path + "/tree/" + b.Name},
		"protected": b.Protected,
		"protection": map[string]any{
			"enabled":                b.Protected,
			"required_status_checks": map[string]any{"enforcement_level": level, "contexts": contexts, "checks": checks},
		},
		"protection_url": branchAPI + "/protection",
	}
}

// githubRuleJSON is one active rule with the type's documented default
// parameters (or the configured ones).
func githubRuleJSON(repo *Repo, rule Rule) map[string]any {
	id, src, srcType := rule.RulesetID, rule.Source, rule.SourceType
	if id == 0 {
		id = 1
	}
	if src == "" {
		src = repo.Path
	}
	if srcType == "" {
		srcType = "Repository"
	}
	m := map[string]any{"type": rule.Type, "ruleset_source_type": srcType, "ruleset_source": src, "ruleset_id": id}
	params := rule.Parameters
	if params == nil {
		switch rule.Type {
		case "update":
			params = map[string]any{"update_allows_fetch_and_merge": false}
		case "pull_request":
			params = map[string]any{"required_approving_review_count": 1, "dismiss_stale_reviews_on_push": false,
				"require_code_owner_review": false, "require_last_push_approval": false,
				"required_review_thread_resolution": false, "allowed_merge_methods": []string{"merge", "squash", "rebase"}}
		case "required_status_checks":
			params = map[string]any{"strict_required_status_checks_policy": false,
				"required_status_checks": []any{map[string]any{"context": "ci"}}}
		}
	}
	if params != nil {
		m["parameters"] = params
	}
	return m
}

// baseURL is the API base the request came in on: scheme, host and the
// dialect prefix it used (or none).
func baseURL(r *http.Request, rest string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	prefix := strings.TrimSuffix(r.URL.EscapedPath(), rest)
	return scheme + "://" + r.Host + prefix
}

func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// githubPullJSON is a pull request as GitHub lists it (one: as GET
// .../pulls/{n} answers, with mergeable and mergeable_state).
func githubPullJSON(repo *Repo, pr PullRequest, api string, one bool) map[string]any {
	created := pr.Created
	if created.IsZero() {
		created, _ = time.Parse(time.RFC3339, fixedTime)
	}
	m := map[string]any{
		"number": pr.Number, "state": "open", "title": pr.Title, "draft": false,
		"url": api + "/pulls/" + strconv.Itoa(pr.Number), "html_url": "https://github.example/" + repo.Path + "/pull/" + strconv.Itoa(pr.Number),
		"head":       map[string]any{"ref": pr.Head, "sha": sha(repo.Path, pr.Head), "label": strings.Split(repo.Path, "/")[0] + ":" + pr.Head},
		"base":       map[string]any{"ref": pr.Base, "sha": sha(repo.Path, pr.Base)},
		"user":       map[string]any{"login": "image-updater-bot", "type": "User"},
		"created_at": created.UTC().Format(time.RFC3339), "updated_at": created.UTC().Format(time.RFC3339),
	}
	if one {
		state := pr.State
		if state == "" {
			state = "clean"
		}
		m["mergeable_state"] = state
		switch state {
		case "unknown":
			m["mergeable"] = nil
		case "dirty":
			m["mergeable"] = false
		default:
			m["mergeable"] = true
		}
	}
	return m
}

package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/advice"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/forge"
	"github.com/imgupd/imgupd/sources/gitsource"
)

// Pull-request write-back (v1.2+, gitConfig.pullRequest), as Image Updater
// v1.3.0 does it (pkg/argocd/pr_service.go commitChangesPR): it needs
// token credentials (an SSH key fails every update: "credentials type %T do
// not support PR creation"), skips the update while a request from its
// branch image-updater-<targetKey>-<sha256> into the checked-out branch is
// open (skipIfPRExists: "open PR from %q to %q already exists, skipping
// update"), else pushes that branch and opens one (pr_github.go: GitHub or
// GitHub Enterprise at https://HOST/api/v3; mr_gitlab.go: GitLab at the
// repository's host), logging "created PR #%d ..." / "created MR !%d ...",
// or failing with "could not create PR %q → %q: ..." / "could not create MR
// ...". Nothing reaches the branch Argo CD deploys until someone merges it.

// prBranchPrefix starts every head branch Image Updater opens a request
// from (PRBranchTemplate, "image-updater-{{.TargetKey}}-{{.SHA256}}").
const prBranchPrefix = "image-updater-"

// prWords names the provider's requests.
func prWords(provider string) (many, one, mark string) {
	if provider == "gitlab" {
		return "merge requests (GitLab)", "merge request", "!"
	}
	return "pull requests (GitHub)", "pull request", "#"
}

// checkPullRequest: how the update reaches base (the branch Argo CD
// deploys) in pull-request mode, and what the forge says about the request
// Image Updater opened (or will open) with these credentials.
func (r *run) checkPullRequest(ctx context.Context, wb *updater.WriteBack, repo, base string, auth gitsource.Auth) []report.Finding {
	many, one, mark := prWords(wb.PullRequest.Provider)
	out := []report.Finding{find(report.CodeWriteBackPullRequest, report.Info,
		fmt.Sprintf("updates are proposed as %s from %s* branches into %s: each deploys once someone merges it", many, prBranchPrefix, base)).
		With(ev("provider", wb.PullRequest.Provider))}
	if gitsource.IsSSHURL(repo) || !auth.SSHPrivateKey.IsEmpty() {
		f := find(report.CodeWriteBackPRCredentials, report.Fail, fmt.Sprintf("Image Updater cannot open %ss with the SSH key it writes back with: every update fails before its push", one)).
			With(ev("repository", repo), ev("Image Updater logs", "credentials type *git.SSHCreds do not support PR creation (use HTTPS or GitHub App credentials)"))
		f.Fix = &report.Fix{Summary: "Write back over HTTPS with a token that may push and open " + many + " (gitConfig.repository: the https:// URL, and a repository Secret or git:secret with username and password, or GitHub App credentials), or drop gitConfig.pullRequest."}
		return append(out, f)
	}
	unverified := func(why string) []report.Finding {
		f := find(report.CodeWriteBackPRPermUnverified, report.Unknown, fmt.Sprintf("whether the write-back token may open %ss on %s was not verified: %s", one, gitsource.NormalizeURL(repo), why))
		f.Verify = "Image Updater's log after its next cycle says it: created PR (MR) or could not create PR (MR): grant get on pods/log or pass --updater-log"
		return append(out, f)
	}
	switch {
	case auth.Password.IsEmpty():
		return unverified("the credentials give imgupd no token to ask the forge with")
	case r.e.Forge == nil:
		return unverified("imgupd has no forge client")
	}
	prs, err := r.e.Forge.OpenPullRequests(ctx, repo, base, prBranchPrefix, updater.Credentials{Username: auth.Username, Password: auth.Password})
	if err != nil {
		msg := textutil.OneLine(err.Error())
		var fe *forge.Error
		if errors.As(err, &fe) && fe.Kind != forge.NotRecognised {
			msg += " (" + advice.ForForge(fe.Facts()) + ")"
		}
		return unverified("the forge's API did not list them: " + msg)
	}
	calls := make([]string, 0, len(prs.Calls))
	for _, c := range prs.Calls {
		calls = append(calls, c.String())
	}
	if len(prs.Open) > 0 {
		return append(out, r.openPullRequest(prs, prs.Open[0], one, mark, calls))
	}
	switch {
	case prs.MayOpen == nil:
		return unverified(prs.Permission)
	case !*prs.MayOpen:
		f := find(report.CodeWriteBackPRRefused, report.Fail, fmt.Sprintf("the write-back token may not open %ss on %s: Image Updater pushes its branch and the forge refuses the request", one, prs.Repo)).
			With(ev(prs.Forge.String()+" says", prs.Permission), ev("asked", strings.Join(calls, "; ")))
		return append(out, f.WithFix(prPermissionFix(prs.Forge), r.prTokenWhere(), r.prTokenSteps(repo)...))
	}
	return append(out, find(report.CodeWriteBackPullRequest, report.Info, fmt.Sprintf("no %s of Image Updater's is open into %s; the token may open one", one, base)).
		With(ev(prs.Forge.String()+" says", prs.Permission), ev("asked", strings.Join(calls, "; "))))
}

// openPullRequest is the finding for Image Updater's newest open request:
// waiting for a merge, or unable to merge as it is.
func (r *run) openPullRequest(prs forge.PullRequests, pr forge.PullRequest, one, mark string, calls []string) report.Finding {
	age := ""
	if !pr.Created.IsZero() {
		age = ", opened " + ageText(r.opts.Now().Sub(pr.Created)) + " ago"
	}
	name := fmt.Sprintf("%s %s%d", one, mark, pr.Number)
	evs := []report.Evidence{ev(one, fmt.Sprintf("%s%d %s", mark, pr.Number, pr.URL)), ev("branch", pr.Head+" → "+pr.Base)}
	if pr.Title != "" {
		evs = append(evs, ev("title", textutil.ClipWords(textutil.OneLine(pr.Title), 200)))
	}
	if !pr.Created.IsZero() {
		evs = append(evs, ev("opened", pr.Created.UTC().Format("2006-01-02 15:04Z")))
	}
	evs = append(evs, ev(prs.Forge.String()+" says", orDefault(pr.State, "nothing")+": "+orDefault(strings.Join(pr.Why, "; "), "mergeable "+pr.Mergeable)), ev("asked", strings.Join(calls, "; ")))
	if len(prs.Open) > 1 {
		evs = append(evs, ev("also open", fmt.Sprintf("%d more of Image Updater's into %s", len(prs.Open)-1, pr.Base)))
	}
	if pr.Mergeable == "no" {
		f := find(report.CodeWriteBackPRNotMergeable, report.Fail, fmt.Sprintf("Image Updater's %s into %s cannot be merged as it is: %s (%s%s)", name, pr.Base, strings.Join(pr.Why, "; "), pr.URL, age)).With(evs...)
		conflict := false
		for _, w := range pr.Why {
			conflict = conflict || strings.HasPrefix(w, "it conflicts")
		}
		if conflict && strings.HasPrefix(pr.Head, prBranchPrefix) {
			repo := r.target.WriteBack.Repository
			summary := fmt.Sprintf("Image Updater does not rebase its branch. Delete %s (GitHub closes %s with it): Image Updater opens a new one from the current %s on its next cycle.", pr.Head, name, pr.Base)
			if prs.Forge == forge.GitLab {
				// GitLab keeps a merge request open when its source branch
				// goes, and Image Updater skips the update while one is open.
				summary = fmt.Sprintf("Image Updater does not rebase its branch. Close %s on its page (%s), then delete %s: Image Updater opens a new one from the current %s on its next cycle.", name, pr.URL, pr.Head, pr.Base)
			}
			return f.WithFix(summary,
				"branch "+pr.Head+" of "+repo,
				r.gitClone(repo, pr.Base),
				report.Command("delete Image Updater's branch "+pr.Head+" (its "+one+" closes)", "git", "-C", fixClone, "push", "origin", ":refs/heads/"+pr.Head))
		}
		f.Fix = &report.Fix{Summary: fmt.Sprintf("Get %s merged: %s. Its page says what is missing: %s", name, strings.Join(pr.Why, "; "), pr.URL)}
		return f
	}
	can := "the forge says it can be merged"
	if pr.Mergeable != "yes" {
		can = "the forge has not said yet whether it can be merged"
	}
	return find(report.CodeWriteBackPROpen, report.Info, fmt.Sprintf("Image Updater's %s into %s is open (%s%s; %s)", name, pr.Base, pr.URL, age, can)).With(evs...)
}

// prPermissionFix is what the write-back token needs to open requests.
func prPermissionFix(f forge.Forge) string {
	if f == forge.GitLab {
		return "Give the write-back token the api scope, and its user at least the Developer role on the project (GitLab opens merge requests with them), in the repository Secret's password or the git:secret Secret."
	}
	return "Give the write-back token the right to open pull requests: a fine-grained token with Pull requests: Read and write (and Contents: Read and write), or a classic token with the repo scope (public_repo for a public repository); a GitHub App needs the Pull requests: write permission. Put it in the repository Secret's password or the git:secret Secret."
}

// prCommitFailure is the finding for a logged pull-request failure: the
// forge refused to open the request (403), or the credentials cannot open
// one (an SSH key).
func (r *run) prCommitFailure(msg string, prior []report.Finding) (report.Finding, bool) {
	wb := r.target.WriteBack
	if wb == nil || wb.PullRequest == nil {
		return report.Finding{}, false
	}
	m := strings.ToLower(msg)
	_, one, _ := prWords(wb.PullRequest.Provider)
	switch {
	case strings.Contains(m, "do not support pr creation"):
		if hasCode(prior, report.CodeWriteBackPRCredentials) {
			return report.Finding{}, false
		}
		f := find(report.CodeWriteBackPRCredentials, report.Fail, fmt.Sprintf("Image Updater cannot open %ss with the SSH key it writes back with: its last update failed before its push", one))
		f.Fix = &report.Fix{Summary: "Write back over HTTPS with a token that may push and open " + one + "s, or drop gitConfig.pullRequest."}
		return f, true
	case (strings.Contains(m, "could not create pr") || strings.Contains(m, "could not create mr")) &&
		(strings.Contains(m, " 403") || strings.Contains(m, "forbidden") || strings.Contains(m, "not accessible")):
		if hasCode(prior, report.CodeWriteBackPRRefused) {
			return report.Finding{}, false
		}
		fk := forge.GitHub
		if wb.PullRequest.Provider == "gitlab" {
			fk = forge.GitLab
		}
		f := find(report.CodeWriteBackPRRefused, report.Fail, fmt.Sprintf("the forge refused to open Image Updater's %s (403): the write-back token may push its branch but not open %ss", one, one))
		return f.WithFix(prPermissionFix(fk), r.prTokenWhere(), r.prTokenSteps(wb.Repository)...), true
	}
	return report.Finding{}, false
}

// ageText is a duration as people say it: "3d 4h", "5h", "12m".
func ageText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "less than a minute"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	days := int(d / (24 * time.Hour))
	if h := int(d%(24*time.Hour)) / int(time.Hour); h > 0 {
		return fmt.Sprintf("%dd %dh", days, h)
	}
	return fmt.Sprintf("%dd", days)
}

// prTokenWhere names the Secret the write-back token is in.
func (r *run) prTokenWhere() string {
	if r.wbSecret == "" {
		return r.writeBackPlace("method")
	}
	return "Secret " + r.wbSecretNS + "/" + r.wbSecret + ", key password"
}

// prTokenSteps put a token that may open pull requests where Image
// Updater reads the write-back token: the Secret its credentials come
// from (the reader makes the token on the forge), or a new git:secret.
func (r *run) prTokenSteps(repo string) []report.Step {
	if r.wbSecret == "" {
		return r.newGitSecretSteps(r.req.Namespace)
	}
	return []report.Step{
		report.SetVars(report.Var{Name: "GIT_TOKEN", About: "a token that may push to " + repo + " and open pull requests there"}),
		report.PatchStep("put it in Secret "+r.wbSecretNS+"/"+r.wbSecret, report.Patch{Kind: "Secret", Resource: "secret", Namespace: r.wbSecretNS, Name: r.wbSecret,
			Type: report.PatchMerge, Merge: map[string]any{"stringData": map[string]any{"password": report.VarValue("GIT_TOKEN")}}}),
	}
}

package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/advice"
	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/model/updaterlog"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/forge"
	"github.com/imgupd/imgupd/sources/gitsource"
)

// iuAuthorEmail is the author of Image Updater's commits.
const iuAuthorEmail = "noreply@argoproj.io"

// checkWriteBack checks how the update is recorded and whether it sticks:
// for argocd write-back, whether a parent Application, an ApplicationSet or
// an .argocd-source file will undo it; for git write-back, the credentials
// (really used, with ls-remote), the branch, the target file, push
// permission (without writing) and Image Updater's last commit.
func checkWriteBack(ctx context.Context, r *run) []report.Finding {
	wb := r.target.WriteBack
	var out []report.Finding
	for _, p := range r.target.Problems {
		if f := r.problemFinding(p); f.Stage == report.StageWriteBack {
			out = append(out, f)
		}
	}
	if wb == nil {
		// The configuration could not be built: its problems are the answer.
		return out
	}
	desc := wb.Method
	if wb.Method == "git" {
		desc = "git (" + wb.Creds + ") to " + wb.Repository
	}
	out = append(out, find(report.CodeWriteBackMethod, report.Info, "write-back: "+desc).With(ev("method", wb.Method)))
	if wb.Method != "git" {
		out = append(out, r.checkArgoCDWriteBack(ctx)...)
	} else {
		out = append(out, r.checkGitWriteBack(ctx, wb)...)
	}
	out = append(out, r.checkKustomizeOverrides()...)
	out = append(out, r.commitFailuresInLogs(ctx, out)...)
	if !hasSeverity(out, report.Fail) && !hasSeverity(out, report.Unknown) && !hasCode(out, report.CodeWriteBackOK) {
		out = append(out, find(report.CodeWriteBackOK, report.Pass, "write-back can succeed"))
	}
	return out
}

func (r *run) checkArgoCDWriteBack(ctx context.Context) []report.Finding {
	var out []report.Finding
	if p, ok := r.app.Parent(); ok {
		sev := report.Fail
		title := fmt.Sprintf("%s manages %s and will revert the parameters Image Updater sets", p.String(), r.req.App)
		switch {
		case p.Via == argo.ViaInstanceLabel:
			sev = report.Warn // Helm charts set the same label; weaker evidence
		case !r.anyDue():
			sev = report.Warn
			title += " (nothing is due now; the next update will be reverted)"
		}
		out = append(out, find(report.CodeWriteBackParentReverts, sev, title).
			With(ev("managed via", p.Via)).
			WithFix("Switch to git write-back so the change lives in git.", "the image's writeBackConfig (or write-back-method annotation)",
				r.writeBackStep("write back with git", kv{"method", "git"}, kv{"gitConfig.branch", "main"})))
	}
	src := r.editedSource("")
	if src == nil || src.RepoURL == "" || isChartSource(src) || r.e.Git == nil {
		return out
	}
	sc := r.readSource(ctx, src)
	if sc.snap == nil {
		return out // not readable: the source stage says so
	}
	snap, branch := sc.snap, sc.branch
	for _, name := range []string{".argocd-source-" + r.req.App + ".yaml", ".argocd-source.yaml"} {
		p := path.Join(src.Path, name)
		if snap.Exists(p) {
			sev, title := report.Fail, fmt.Sprintf("%s in %s overrides the parameters Image Updater writes to the Application", p, src.RepoURL)
			if !r.anyDue() {
				sev, title = report.Warn, title+" (nothing is due now; the next update will have no effect)"
			}
			out = append(out, find(report.CodeWriteBackSourceFile, sev, title).
				With(ev("file", p), ev("branch", branch)).
				WithFix("Remove the file, or switch to git write-back (which maintains it).", p,
					r.gitChangeSteps(src.RepoURL, branch, "Remove "+p+": it overrides the parameters Image Updater writes", []string{"rm", "--", p})...))
		}
	}
	return out
}

func (r *run) checkGitWriteBack(ctx context.Context, wb *updater.WriteBack) []report.Finding {
	var out []report.Finding
	repo := wb.Repository
	if repo == "" {
		return append(out, find(report.CodeWriteBackRepoNotFound, report.Fail, "no repository to write back to (the source has no repoURL)"))
	}
	if r.target.HasProblem(updater.ProblemWriteBackInsecureURL) {
		return out // the configuration already says why every commit fails
	}
	auth, f := r.gitWriteBackAuth(ctx, wb)
	if f != nil {
		return append(out, *f)
	}
	if wb.Creds == "secret" {
		out = append(out, find(report.CodeWriteBackTLSUnverified, report.Info, "Image Updater does not verify the git server's TLS certificate or SSH host key with git:secret credentials; imgupd probes the same way"))
	}
	if r.e.Git == nil {
		return out
	}
	remote, err := r.e.Git.LsRemote(ctx, repo, auth)
	if err != nil {
		return append(out, r.gitFailure(ctx, repo, err))
	}
	src := r.editedSource("")
	tracked := ""
	if src != nil {
		tracked = src.TargetRevision
	}
	base := wb.BaseBranch
	if base == "" {
		base = tracked
	}
	if base == "" || base == "HEAD" {
		base = remote.DefaultBranch
	}
	if tracked == "" || tracked == "HEAD" {
		tracked = remote.DefaultBranch
	}
	if !hasBranch(remote, base) {
		return append(out, find(report.CodeWriteBackBranchMissing, report.Fail, fmt.Sprintf("branch %q does not exist in %s", base, repo)).
			With(ev("branches", textutil.ClipWords(strings.Join(remote.Branches, ", "), 200))).
			WithFix("Create the branch, or write to an existing one (base:target creates target from base).", "gitConfig.branch / git-branch",
				r.gitClone(repo, remote.DefaultBranch),
				report.Command(fmt.Sprintf("create branch %s from %s", base, remote.DefaultBranch), "git", "-C", fixClone, "push", "origin", "--", "HEAD:refs/heads/"+base)))
	}
	push := base
	if wb.TargetBranchTemplate != "" {
		push = wb.TargetBranchTemplate
	}
	switch {
	case wb.PullRequest != nil:
		out = append(out, r.checkPullRequest(ctx, wb, repo, base, auth)...)
	case push != tracked:
		sev, title := report.Fail, fmt.Sprintf("Image Updater commits to %q, but the Application deploys %q: the update is not deployed until someone merges it", push, tracked)
		if !r.anyDue() {
			sev, title = report.Warn, fmt.Sprintf("Image Updater commits to %q, but the Application deploys %q (nothing is due now)", push, tracked)
		}
		out = append(out, find(report.CodeWriteBackBranchMismatch, sev, title).
			WithFix("Write to the branch the Application tracks, or merge the write-back branch.", r.writeBackPlace("branch"), r.writeBackStep("write to "+tracked, kv{"gitConfig.branch", tracked})))
	}
	snap, err := r.e.Git.Snapshot(ctx, repo, base, auth)
	if err != nil {
		return append(out, r.gitFailure(ctx, repo, err))
	}
	if tf := r.checkTargetFile(snap, wb, base); tf != nil {
		out = append(out, *tf)
	} else if tf := r.checkTargetRendered(ctx, snap, wb, base); tf != nil {
		out = append(out, *tf)
	}
	pushDenied := false
	if pc, err := r.e.Git.CanPush(ctx, repo, auth); err == nil && !pc.Allowed {
		pushDenied = true
		out = append(out, find(report.CodeWriteBackPushDenied, report.Fail, fmt.Sprintf("the write-back credentials may not push to %s: %s", repo, pc.Reason)).
			With(ev("HTTP status", fmt.Sprint(pc.Status))))
	}
	if !pushDenied && wb.PullRequest == nil {
		out = append(out, r.branchAcceptsPush(ctx, wb, repo, push, auth)...)
	}
	if c, err := snap.LastCommitBy(iuAuthorEmail); err == nil && c != nil {
		r.iuCommit, r.iuCommitBranch = c.Hash, base
		r.iuCommitUndeployed = commitNewerThan(snap, c.Hash, r.app.Status.Sync.Revision)
		out = append(out, find(report.CodeWriteBackLastCommit, report.Info, fmt.Sprintf("Image Updater's last commit on %s: %s %s", base, shortHash(c.Hash), c.When.UTC().Format("2006-01-02 15:04Z"))).
			With(ev("message", textutil.ClipWords(textutil.FirstLine(c.Message), 200))))
	}
	return out
}

// gitWriteBackAuth reads the credentials Image Updater would use.
func (r *run) gitWriteBackAuth(ctx context.Context, wb *updater.WriteBack) (gitsource.Auth, *report.Finding) {
	repo := wb.Repository
	if wb.Creds == "secret" {
		if gitsource.RequiresSecureURL(repo) {
			f := find(report.CodeWriteBackInsecureURL, report.Fail, fmt.Sprintf("git:secret credentials need an https:// or SSH URL, not %s", repo)).
				With(ev("Image Updater logs", "could not get creds for repo '"+repo+"': unknown repository type"))
			return gitsource.Auth{}, &f
		}
		ns := wb.SecretNamespace
		if ns == "" {
			ns = r.req.Namespace
		}
		data, err := r.updaterSecret(ctx, ns, wb.SecretName)
		if err != nil {
			home := r.req.Namespace
			if r.install != nil && !r.version.SecretsMustShareAppNamespace() {
				home = r.install.Namespace
			}
			use := secretUse{stay: r.version.SecretsMustShareAppNamespace(), sendsTo: cluster.HostOf(repo), chosenBy: "the write-back repository setting (gitConfig.repository, or the Application's source)",
				instead: r.newGitSecretSteps(home), insteadWhere: r.writeBackPlace("method")}
			if f, ok := r.secretGateFinding(report.CodeWriteBackSecretDenied, "the credentials of git:secret:"+ns+"/"+wb.SecretName, use, err); ok {
				return gitsource.Auth{}, &f
			}
			if cluster.IsNotFound(err) {
				f := find(report.CodeWriteBackCredsMissing, report.Fail, fmt.Sprintf("the write-back secret %s/%s does not exist", ns, wb.SecretName))
				return gitsource.Auth{}, &f
			}
			f := readFailure(report.StageWriteBack, "the write-back secret "+ns+"/"+wb.SecretName, err)
			f.Decides = true // without it imgupd cannot tell whether Image Updater can commit
			return gitsource.Auth{}, &f
		}
		auth, missing := authFromData(data, repo)
		if missing != "" {
			f := find(report.CodeWriteBackCredsMissing, report.Fail, fmt.Sprintf("the write-back secret %s/%s lacks %s", ns, wb.SecretName, missing)).
				With(ev("keys present", strings.Join(keysOf(data), ", ")))
			return gitsource.Auth{}, &f
		}
		auth.InsecureSkipTLS = true
		r.wbSecretNS, r.wbSecret = ns, wb.SecretName
		return auth, nil
	}
	v, f := r.updaterView(ctx, repo)
	r.wbTrust = v.trust
	r.wbSecretNS, r.wbSecret = r.argoNamespace(), firstNonEmpty(v.repo.Secret, v.repo.Template)
	if f != nil {
		return gitsource.Auth{}, f
	}
	if v.none != "" {
		nf := find(report.CodeWriteBackCredsMissing, report.Fail, "Image Updater has no git credentials for "+repo+": "+v.none).With(ev("credentials", v.repo.Why)).
			WithFix("Give the repository Secret a token (username and password) or an sshPrivateKey; for a GitHub App, add githubAppInstallationID.", "Secret "+r.argoNamespace()+"/"+firstNonEmpty(v.repo.Secret, v.repo.Template),
				report.SetVars(report.Var{Name: "GITHUB_APP_INSTALLATION_ID", About: "the installation id of the GitHub App on the repository's organisation"}),
				report.PatchStep("add the GitHub App's installation id", report.Patch{Kind: "Secret", Resource: "secret", Namespace: r.argoNamespace(), Name: firstNonEmpty(v.repo.Secret, v.repo.Template),
					Type: report.PatchMerge, Merge: map[string]any{"stringData": map[string]any{"githubAppInstallationID": report.VarValue("GITHUB_APP_INSTALLATION_ID")}}}),
				report.Otherwise(report.SetVars(report.Var{Name: "GIT_USER", About: "a user that may push to " + repo}, report.Var{Name: "GIT_TOKEN", About: "its token"})),
				report.AndThen(report.PatchStep("add a username and a token that may push", report.Patch{Kind: "Secret", Resource: "secret", Namespace: r.argoNamespace(), Name: firstNonEmpty(v.repo.Secret, v.repo.Template),
					Type: report.PatchMerge, Merge: map[string]any{"stringData": map[string]any{"username": report.VarValue("GIT_USER"), "password": report.VarValue("GIT_TOKEN")}}})))
		return gitsource.Auth{}, &nf
	}
	if v.limit != "" {
		nf := find(report.CodeWriteBackCredsMissing, report.Unknown, "the write-back credentials could not be used as Image Updater uses them: "+v.limit).With(ev("credentials", v.repo.Why))
		nf.Verify = "Image Updater's log shows whether its commits succeed (get on pods/log, or --updater-log)"
		nf.Decides = true
		return gitsource.Auth{}, &nf
	}
	return v.auth, nil
}

func authFromData(data map[string][]byte, repo string) (gitsource.Auth, string) {
	var a gitsource.Auth
	if gitsource.IsSSHURL(repo) {
		k, ok := data["sshPrivateKey"]
		if !ok || len(k) == 0 {
			return a, "sshPrivateKey"
		}
		a.SSHPrivateKey = updater.Secret(k)
		return a, ""
	}
	if _, ok := data["githubAppPrivateKey"]; ok {
		return a, "" // GitHub App credentials: probed anonymously
	}
	u, p := data["username"], data["password"]
	if len(p) == 0 {
		return a, "username and password"
	}
	a.Username, a.Password = string(u), updater.Secret(p)
	return a, ""
}

func (r *run) checkTargetFile(snap *gitsource.Snapshot, wb *updater.WriteBack, branch string) *report.Finding {
	t := wb.Target
	switch t.Kind {
	case updater.TargetKustomization:
		for _, n := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
			if snap.Exists(path.Join(t.Path, n)) {
				return nil
			}
		}
		f := find(report.CodeWriteBackTargetMissing, report.Fail, fmt.Sprintf("no kustomization in %q on %s", t.Path, branch)).
			With(ev("Image Updater logs", "could not find kustomization in "+t.Path))
		return &f
	case updater.TargetHelmValues:
		if !snap.Exists(t.Path) && !r.version.CreatesHelmValuesTarget() {
			f := find(report.CodeWriteBackTargetMissing, report.Fail, fmt.Sprintf("the values file %q does not exist on %s", t.Path, branch))
			return &f
		}
	}
	return nil
}

// checkTargetRendered: a values file Image Updater writes (a helmvalues:
// target, created when missing) must be one Argo CD reads for the source:
// the chart's values.yaml or a helm.valueFiles entry (with the
// .argocd-source files merged in). Otherwise the commit is pushed, counted
// as an update, and changes nothing that is rendered.
func (r *run) checkTargetRendered(ctx context.Context, snap *gitsource.Snapshot, wb *updater.WriteBack, branch string) *report.Finding {
	if !writesHelmValues(wb.Target) || r.target.SourceKind != updater.AppSourceHelm {
		return nil
	}
	src := r.editedSource(updater.TargetKindHelm)
	if src == nil {
		return nil
	}
	sc := r.readSource(ctx, src)
	if sc.notReadable != nil || (sc.snap == nil && sc.chart == nil) {
		return nil // the source stage says what could not be read
	}
	w := r.helmWriteFor(sc, src)
	exists := snap.Exists(wb.Target.Path)
	if w.read {
		if !exists {
			f := find(report.CodeWriteBackMethod, report.Info, fmt.Sprintf("the values file %s does not exist on %s yet; Image Updater creates it on its first commit, and Argo CD reads it as %s", wb.Target.Path, branch, w.where))
			return &f
		}
		return nil
	}
	reads := []string{}
	if !isChartSource(src) {
		reads = append(reads, path.Join(src.Path, "values.yaml")+" (the chart's values)")
	}
	for i, vf := range sc.helm.helm.ValueFiles {
		reads = append(reads, fmt.Sprintf("helm.valueFiles[%d]: %s", i, vf))
	}
	title := fmt.Sprintf("Image Updater writes the image to %s, which Argo CD does not read for %s: it is neither the chart's values.yaml nor in helm.valueFiles, so the commit changes nothing that is rendered", wb.Target.Path, r.req.App)
	if !exists {
		title = fmt.Sprintf("Image Updater creates %s on %s and writes the image to it, but Argo CD does not read that file for %s: it is neither the chart's values.yaml nor in helm.valueFiles, so the commit changes nothing that is rendered", wb.Target.Path, branch, r.req.App)
	}
	f := find(report.CodeWriteBackTargetNotRead, report.Fail, title).
		With(ev("write-back target", orDefault(wb.Target.Raw, wb.Target.Kind)+" → "+wb.Target.Path), ev("Argo CD reads", orDefault(strings.Join(reads, "; "), "no values file")))
	rel := wb.Target.Path
	if !isChartSource(src) {
		rel = relPath(src.Path, wb.Target.Path)
	}
	f = f.WithFix(fmt.Sprintf("Add %s to the Application's helm.valueFiles (after the files it should override), or point the write-back target at a values file the Application reads.", rel),
		fmt.Sprintf("Application %s/%s, %s.helm.valueFiles", r.req.Namespace, r.req.App, r.sourceField(src)),
		r.valueFilesStep(src, append(append([]string(nil), sc.helm.helm.ValueFiles...), rel)))
	return &f
}

// valueFilesStep is the Application edit that sets the source's
// helm.valueFiles to vfs.
func (r *run) valueFilesStep(src *argo.ApplicationSource, vfs []string) report.Step {
	return r.sourcePatch("add the file to helm.valueFiles", src, kv{"helm.valueFiles", vfs})
}

// relPath is target relative to the source path, as valueFiles name it.
func relPath(base, target string) string {
	base, target = path.Clean(base), path.Clean(target)
	if base == "." || base == "/" {
		return target
	}
	b, t := strings.Split(base, "/"), strings.Split(target, "/")
	i := 0
	for i < len(b) && i < len(t)-1 && b[i] == t[i] {
		i++
	}
	return strings.Repeat("../", len(b)-i) + strings.Join(t[i:], "/")
}

// commitFailuresInLogs reports Image Updater's own failed commits for the
// app. A failure whose cause has its own code (a CA or an SSH host key its
// git client does not accept, a pull request the forge refuses) is reported
// with that code and its fix, unless a check before (prior) already found it
// from imgupd's own probe.
func (r *run) commitFailuresInLogs(ctx context.Context, prior []report.Finding) []report.Finding {
	if r.logs == nil {
		return nil
	}
	for i := len(r.logs.ForApp) - 1; i >= 0; i-- {
		e := r.logs.ForApp[i]
		if e.Match.Code == updaterlog.CodeCommitLiveSpec || e.Match.Code == updaterlog.CodeCommitAppSpec {
			return nil // a later write-back succeeded
		}
		if e.Match.Code == updaterlog.CodeCommitFailed {
			f := find(report.CodeWriteBackCommitFailed, report.Fail, "Image Updater's last write-back failed: "+textutil.ClipWords(textutil.OneLine(updaterlog.Redact(e.Msg)), 300))
			if cf, ok := r.classifiedCommitFailure(ctx, e.Msg, prior); ok {
				return []report.Finding{cf.With(ev("Image Updater logs", textutil.ClipWords(textutil.OneLine(updaterlog.Redact(e.Msg)), 300)), ev("at", e.Time.UTC().Format("2006-01-02 15:04:05Z")))}
			}
			msg := strings.ToLower(e.Msg)
			switch {
			case strings.Contains(e.Msg, "GH006") || strings.Contains(msg, "protected branch") || strings.Contains(msg, "pre-receive hook declined"):
				base := "main"
				if wb := r.target.WriteBack; wb != nil && wb.BaseBranch != "" {
					base = wb.BaseBranch
				}
				f = f.WithFix("The branch is protected: Image Updater cannot push to it. Write to another branch (base:target) and merge it, or use pull requests (v1.2+).",
					"gitConfig.branch / gitConfig.pullRequest", r.protectedBranchSteps(base, forge.GitHub)...)
			default:
				// The catalogue's advice covers several causes; the logged
				// error names one, which the write-back checks above (when
				// one of them is the root cause) explain with its own fix.
				f.Fix = &report.Fix{Summary: "Read the error Image Updater logged (above): an authentication error means the write-back credentials need renewing, a rejected or conflicting push clears or needs the branch changed, a missing branch needs creating."}
			}
			return []report.Finding{f.
				With(ev("at", e.Time.UTC().Format("2006-01-02 15:04:05Z")))}
		}
	}
	return nil
}

// gitFailure is the finding for a write-back repository Image Updater
// cannot use; a server whose identity its git client does not accept (a CA,
// an SSH host key) is fixed where that client reads its trust
// (stage_writeback_trust.go).
func (r *run) gitFailure(ctx context.Context, repo string, err error) report.Finding {
	if f, ok := r.trustFailure(ctx, repo, err); ok {
		return f.With(r.wbTrust...)
	}
	return gitFailure(repo, err)
}

// installEnv is the value of an env var of Image Updater's container, "".
func (r *run) installEnv(name string) string {
	if r.install == nil {
		return ""
	}
	for _, e := range r.install.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

func gitFailure(repo string, err error) report.Finding {
	var ge *gitsource.Error
	if !errors.As(err, &ge) {
		return find(report.CodeWriteBackGitUnreachable, report.Fail, fmt.Sprintf("cannot read %s: %s", repo, textutil.OneLine(err.Error())))
	}
	if ge.Kind == gitsource.TooLarge {
		return writeBackTooLarge(repo, ge)
	}
	code := report.CodeWriteBackGitUnreachable
	switch ge.Kind {
	case gitsource.AuthRequired, gitsource.AuthFailed:
		code = report.CodeWriteBackAuthFailed
	case gitsource.RepoNotFound:
		code = report.CodeWriteBackRepoNotFound
	case gitsource.BranchNotFound:
		code = report.CodeWriteBackBranchMissing
	case gitsource.UnsupportedURL:
		code = report.CodeWriteBackInsecureURL
	}
	f := find(code, report.Fail, fmt.Sprintf("%s: %s", gitsource.NormalizeURL(repo), textutil.OneLine(ge.Error())))
	if h := advice.ForGit(ge.Facts()); h != "" {
		f = f.WithFix(h, "")
	}
	return f
}

func hasBranch(rem gitsource.Remote, b string) bool {
	for _, x := range rem.Branches {
		if x == b {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// commitNewerThan reports whether commit comes after rev on the branch
// (newest-first history): Argo CD then has not deployed it yet.
func commitNewerThan(snap *gitsource.Snapshot, commit, rev string) bool {
	if rev == "" || strings.HasPrefix(rev, commit) || strings.HasPrefix(commit, rev) {
		return false
	}
	commits, err := snap.Commits(50)
	if err != nil {
		return false
	}
	for _, c := range commits {
		switch {
		case c.Hash == commit:
			return true // met Image Updater's commit first: it is newer
		case strings.HasPrefix(c.Hash, rev):
			return false
		}
	}
	return false
}

// branchAcceptsPush asks the forge, with the write-back credentials and
// without writing, whether the branch Image Updater pushes to is protected.
// Where no forge can say (SSH keys, an unknown host, a templated branch),
// Image Updater's log is the only evidence: a recent successful commit
// verifies it, otherwise it is not verified.
func (r *run) branchAcceptsPush(ctx context.Context, wb *updater.WriteBack, repo, branch string, auth gitsource.Auth) []report.Finding {
	notVerified := func(why string) []report.Finding {
		if r.logsShowCommit() {
			return []report.Finding{find(report.CodeWriteBackOK, report.Pass, "Image Updater's log shows its last write-back succeeded").With(ev("branch", branch))}
		}
		f := find(report.CodeWriteBackPushUnverified, report.Unknown, fmt.Sprintf("whether %s of %s accepts Image Updater's push was not verified: %s", branch, gitsource.NormalizeURL(repo), why))
		f.Verify = "a push rejection (a protected branch) shows only in Image Updater's log: grant get on pods/log or pass --updater-log; for a self-hosted forge, add it with --forge KIND:HOST"
		return []report.Finding{f}
	}
	switch {
	case strings.Contains(branch, "{{"):
		return notVerified("the branch name is a template, made at commit time")
	case auth.Password.IsEmpty():
		return notVerified("the write-back credentials are an SSH key, which gives no API access to ask the forge")
	case r.e.Forge == nil:
		return notVerified("imgupd has no forge client")
	}
	p, err := r.e.Forge.BranchProtection(ctx, repo, branch, updater.Credentials{Username: auth.Username, Password: auth.Password})
	if err != nil {
		var fe *forge.Error
		switch {
		case errors.As(err, &fe) && fe.Kind == forge.NotRecognised:
			return notVerified("the host is not a forge imgupd knows (GitHub, GitLab, Gitea/Forgejo, Bitbucket Cloud, or one given with --forge)")
		case errors.As(err, &fe) && fe.Kind == forge.BranchNotFound && wb.TargetBranchTemplate != "":
			return []report.Finding{find(report.CodeWriteBackMethod, report.Info, fmt.Sprintf("branch %s does not exist yet; Image Updater creates it from %s on its first commit", branch, wb.BaseBranch))}
		}
		msg := textutil.OneLine(err.Error())
		if errors.As(err, &fe) {
			msg += " (" + advice.ForForge(fe.Facts()) + ")"
		}
		if fe != nil && fe.Kind == forge.BadResponse {
			// An answer past the response limit, or not the documented JSON.
			return notVerified("the forge's API answered with what imgupd cannot use: " + msg)
		}
		return notVerified("the forge's API did not answer: " + msg)
	}
	calls := make([]string, 0, len(p.Calls))
	for _, c := range p.Calls {
		calls = append(calls, c.String())
	}
	if p.Verdict.Blocked() {
		f := find(report.CodeWriteBackProtected, report.Fail, fmt.Sprintf("%s protects branch %s of %s: Image Updater's push is rejected", p.Forge, branch, p.Repo)).
			With(ev(p.Forge.String()+" says", p.Reason))
		for _, rule := range p.Rules {
			f = f.With(ev("rule", rule))
		}
		f = f.With(ev("asked", strings.Join(calls, "; ")))
		return []report.Finding{f.WithFix("Let Image Updater commit to a branch it may push to, and merge that (or open pull requests, v1.2+).", r.writeBackPlace("branch"),
			r.protectedBranchSteps(branch, p.Forge)...)}
	}
	return []report.Finding{find(report.CodeWriteBackOK, report.Pass, fmt.Sprintf("%s says branch %s of %s accepts the push", p.Forge, branch, p.Repo)).With(ev(p.Forge.String()+" says", p.Reason), ev("asked", strings.Join(calls, "; ")))}
}

// protectedBranchSteps are the write-back settings that avoid a protected
// branch: a side branch to merge, or (in a CR, v1.2+) pull requests.
func (r *run) protectedBranchSteps(branch string, f forge.Forge) []report.Step {
	side := r.writeBackStep("commit to the side branch image-updater, created from "+branch+" (merge it into "+branch+" to deploy)", kv{"gitConfig.branch", branch + ":image-updater"})
	if r.target.Mode != updater.ModeCR {
		return []report.Step{side}
	}
	pr := "github"
	if f == forge.GitLab {
		pr = "gitlab"
	}
	return []report.Step{side, report.Otherwise(r.writeBackStep("(v1.2+) open pull requests against "+branch,
		kv{"gitConfig.branch", branch}, kv{"gitConfig.pullRequest." + pr, map[string]any{}}))}
}

// logsShowCommit: Image Updater's log shows a successful write for the app
// after its last failure.
func (r *run) logsShowCommit() bool {
	if r.logs == nil {
		return false
	}
	for i := len(r.logs.ForApp) - 1; i >= 0; i-- {
		switch r.logs.ForApp[i].Match.Code {
		case updaterlog.CodeCommitLiveSpec, updaterlog.CodeCommitAppSpec:
			return true
		case updaterlog.CodeCommitFailed:
			return false
		}
	}
	return false
}

package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/imgupd/imgupd/internal/shell"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/advice"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/gitsource"
)

// Argo CD's ConfigMaps of trust, in its namespace.
const (
	argoTLSCertsCM   = "argocd-tls-certs-cm"
	argoKnownHostsCM = "argocd-ssh-known-hosts-cm"
	knownHostsKey    = "ssh_known_hosts"
)

// repoView is how one party (Argo CD's repo-server, or Image Updater's
// write-back) reaches a git repository: the repository configuration Argo
// CD resolves, and the credentials, trust and proxy derived from it.
type repoView struct {
	repo cluster.Repository
	auth gitsource.Auth
	// trust lists where the trust came from, for the evidence.
	trust []report.Evidence
	// limit, when set, is why imgupd cannot reach the repository the way
	// that party does (a bearer token, Azure credentials): the read is
	// then not verified, never a failure.
	limit string
	// forbidden names the reads imgupd was refused on the way (Argo CD's
	// repository Secrets, its trust ConfigMaps): the view is then what
	// imgupd could build without them, and a read that fails with it may
	// be imgupd's missing permission, not the repository.
	forbidden []string
	// forbiddenRule is the RBAC that would allow them.
	forbiddenRule []string
	// none, when set, is why that party has no usable credentials at all
	// although the Secret holds some (Image Updater ignores bearer tokens,
	// and a GitHub App without installation ID): a failure, not a limit.
	none string
	// notes are findings about how that party reaches the repository that
	// do not stop imgupd from reading it (Argo CD may not read its own
	// repository Secrets, a credential template for another host).
	notes []report.Finding
}

// credLimit says why credentials cannot be used as given: limit (imgupd
// cannot do what that party does) or none (that party cannot either).
type credLimit struct{ limit, none string }

// configMap reads a ConfigMap once per diagnosis; a missing one is empty.
func (r *run) configMap(ctx context.Context, ns, name string) (map[string]string, error) {
	key := ns + "/" + name
	if c, ok := r.cms[key]; ok {
		return c.data, c.err
	}
	data, err := r.e.Cluster.ConfigMap(ctx, ns, name)
	if err != nil && cluster.IsNotFound(err) {
		data, err = map[string]string{}, nil
	}
	r.cms[key] = cmEntry{data, err}
	return data, err
}

// argoView is how Argo CD's repo-server reads repoURL for the app's
// project: the repository Secret or credential template (username and
// password, TLS client certificate, SSH key, proxy/noProxy, insecure), the
// CA of argocd-tls-certs-cm for the host (replacing the system roots), the
// SSH host keys of argocd-ssh-known-hosts-cm. A read that fails (forbidden)
// is returned as an unknown finding: the source cannot be read as Argo CD
// reads it.
func (r *run) argoView(ctx context.Context, repoURL string) (repoView, *report.Finding) {
	ns := r.argoNamespace()
	var v repoView
	// refused records a read imgupd may not make and goes on without it:
	// a public repository is still read; a private one then fails, and
	// that failure is imgupd's permission, not Argo CD's.
	refused := func(what string, err error) bool {
		var ae *cluster.AccessError
		if !errors.As(err, &ae) || !ae.Forbidden {
			return false
		}
		v.forbidden = append(v.forbidden, what)
		v.forbiddenRule = append(v.forbiddenRule, ae.Rule())
		return true
	}
	u := r.argoUser(ctx)
	creds, err := r.repoCredsFor(ctx, u)
	var sf *secretForbidden
	var su *secretUnverified
	if errors.As(err, &sf) || errors.As(err, &su) {
		creds, err = r.argoAccessUnsettled(ctx, &v, u, repoURL, creds, err, sf, su)
		sf, su = nil, nil
	}
	switch {
	case errors.As(err, &sf):
		// Argo CD could not read them either: go on without them, as it
		// would, and say so.
		f, _ := r.secretGateFinding(report.CodeSourceRepoSecretsDenied, "its repository Secrets, for "+repoURL, secretUse{sendsTo: "the repositories they name (" + cluster.HostOf(repoURL) + " among them)", chosenBy: "Argo CD's repository Secrets"}, err)
		v.notes = append(v.notes, f)
		creds, err = nil, nil
	case errors.As(err, &su) && su.err != nil && refused("Argo CD's repository Secrets in "+ns+" (imgupd could not ask whether "+su.user.subject.String()+" may read them)", su.err):
		creds, err = nil, nil
	case errors.As(err, &su):
		f := readFailure(report.StageSource, "whether Argo CD may read its repository Secrets in "+ns, su.err)
		f.Decides = false
		return repoView{}, &f
	}
	if err != nil && !refused("Argo CD's repository Secrets in "+ns, err) {
		f := readFailure(report.StageSource, "Argo CD's repository Secrets in "+ns, err)
		f.Decides = false
		return repoView{}, &f
	}
	repo := cluster.ResolveRepository(creds, repoURL, r.appProject())
	if repo.TemplateOtherHost != "" {
		v.notes = append(v.notes, r.templateOtherHost(repo, "Argo CD").With(ev("imgupd", "read "+repoURL+" without them")))
		repo = repo.WithoutCredentials()
	}
	v.repo = repo
	if repo.Err != nil {
		v.limit = repo.Err.Error()
		return v, nil
	}
	var cl credLimit
	v.auth, cl = r.credsAuth(ctx, repo, true)
	v.limit = firstNonEmpty(cl.limit, cl.none)
	v.auth.InsecureSkipTLS = repo.Insecure()
	if !cluster.IsArgoSSHURL(repoURL) {
		// HTTPS: the repository's proxy when set, else the environment.
		v.auth.Proxy, v.auth.NoProxy = repo.Get("proxy"), repo.Get("noProxy")
	}
	if v.auth.InsecureSkipTLS {
		v.trust = append(v.trust, ev("trust", "insecure: true on "+firstNonEmpty(repo.Secret, "the repository")+": Argo CD does not verify the server (TLS or host key), neither does imgupd"))
		return v, nil
	}
	host := cluster.HostOf(repoURL)
	if cluster.IsArgoSSHURL(repoURL) {
		cm, err := r.configMap(ctx, ns, argoKnownHostsCM)
		if err != nil && !refused("ConfigMap "+ns+"/"+argoKnownHostsCM, err) {
			f := readFailure(report.StageSource, "ConfigMap "+ns+"/"+argoKnownHostsCM+" (SSH host keys)", err)
			f.Decides = false
			return v, &f
		}
		v.auth.KnownHosts = []byte(cm[knownHostsKey])
		v.trust = append(v.trust, ev("trust", fmt.Sprintf("SSH host keys from %s/%s (%d line(s))", ns, argoKnownHostsCM, countLines(cm[knownHostsKey]))))
		return v, nil
	}
	cm, err := r.configMap(ctx, ns, argoTLSCertsCM)
	if err != nil && !refused("ConfigMap "+ns+"/"+argoTLSCertsCM, err) {
		f := readFailure(report.StageSource, "ConfigMap "+ns+"/"+argoTLSCertsCM+" (TLS certificates)", err)
		f.Decides = false
		return v, &f
	}
	if pem := cm[host]; strings.Contains(pem, "BEGIN CERTIFICATE") {
		v.auth.CAData, v.auth.CAReplacesSystemRoots = []byte(pem), true
		v.trust = append(v.trust, ev("trust", fmt.Sprintf("CA from %s/%s key %s (replaces the system roots for that host)", ns, argoTLSCertsCM, host)))
	}
	return v, nil
}

// argoAccessUnsettled settles a "no" or an unanswered question about
// whether Argo CD may read its repository Secrets when the ServiceAccount
// asked about is not known to be Argo CD's: one that does not exist (the
// API server's RBAC answers "no" for any name) or one guessed that imgupd
// could not read is "not verified", never "forbidden". And an Application
// Argo CD has synced from the repository shows that Argo CD reads it: its
// repository Secrets are then used for the source, as Argo CD uses them.
// When imgupd could not ask at all (su), nothing changes: it reads no
// Secret (the gate fails closed).
// It returns the gate's outcome (creds, err) as argoView goes on with it.
func (r *run) argoAccessUnsettled(ctx context.Context, v *repoView, u secretUser, repoURL string, creds []cluster.RepoCred, err error, sf *secretForbidden, su *secretUnverified) ([]cluster.RepoCred, error) {
	unknown := ""
	if sf != nil {
		switch exists, known := r.serviceAccountExists(ctx, u.subject); {
		case known && !exists:
			unknown = "ServiceAccount " + u.subject.Namespace + "/" + u.subject.ServiceAccount + " does not exist: Argo CD runs as another"
		case !known && u.guessed:
			unknown = "imgupd found no application controller workload naming Argo CD's ServiceAccount and could not read ServiceAccount " + u.subject.Namespace + "/" + u.subject.ServiceAccount
		}
	}
	if su != nil || unknown == "" {
		// imgupd could not ask (it then reads no Secret: the gate fails
		// closed), or a known ServiceAccount may not read them.
		return creds, err
	}
	if how, ok := r.syncedFrom(repoURL); ok {
		why := unknown
		v.notes = append(v.notes, find(report.CodeSourceArgoReadsRepo, report.Info,
			"Argo CD reads "+repoURL+": "+how+", so imgupd reads it with Argo CD's repository Secrets").
			With(ev("Argo CD's ServiceAccount", u.subject.String()+" (from "+u.via+")"), ev("not verified", why)))
		return r.repoCreds(ctx)
	}
	f := find(report.CodeSourceArgoSAUnknown, report.Unknown, "not verified: whether Argo CD may read its repository Secrets for "+repoURL+": "+unknown).
		With(ev("asked the API server", cluster.AccessQuery{Subject: u.subject, Verb: sf.verbs[0], Resource: "secrets", Namespace: sf.namespace}.String()+": no"),
			ev("ServiceAccount from", u.via),
			ev("imgupd", "did not read them and read the source without them"))
	f.Verify = "tell imgupd the ServiceAccount Argo CD's application controller runs as: --argocd-service-account NAME (kubectl -n " + u.subject.Namespace + " get statefulsets,deployments -l " + cluster.LabelComponent + "=application-controller -o wide shows the workload, its spec.template.spec.serviceAccountName the name)"
	v.notes = append(v.notes, f)
	return nil, nil
}

// syncedFrom: the Application is Synced from repoURL (one of its sources),
// at a revision Argo CD resolved: Argo CD read the repository.
func (r *run) syncedFrom(repoURL string) (string, bool) {
	if r.app == nil {
		return "", false
	}
	st := r.app.Status.Sync
	rev := st.Revision
	if rev == "" && len(st.Revisions) > 0 {
		rev = strings.Join(st.Revisions, ", ")
	}
	if st.Status != "Synced" || rev == "" {
		return "", false
	}
	var urls []string
	if s := r.app.Spec.Source; s != nil {
		urls = append(urls, s.RepoURL)
	}
	for _, s := range r.app.Spec.Sources {
		urls = append(urls, s.RepoURL)
	}
	want := cluster.ArgoNormalizeURL(repoURL)
	for _, u := range urls {
		if u != "" && cluster.ArgoNormalizeURL(u) == want {
			return "the Application is Synced from it (status.sync, revision " + textutil.ClipWords(rev, 80) + ")", true
		}
	}
	return "", false
}

// refusedFailure: the source could not be read while imgupd was refused
// Argo CD's repository Secrets or trust ConfigMaps. That is imgupd's
// permission, not the repository: the check decides the answer (when an
// update is due, see reconcile) and says which rule would allow it.
func refusedFailure(f report.Finding, v repoView) report.Finding {
	if len(v.forbidden) == 0 {
		return f
	}
	f.Title += " (imgupd may not read " + strings.Join(v.forbidden, ", ") + ")"
	f.Decides = true
	f.Verify = "grant imgupd " + strings.Join(v.forbiddenRule, "; ") + " (deploy/rbac.yaml, or the chart's rbac.secrets.read), so it reads the source as Argo CD does"
	return f
}

// updaterView is how Image Updater's git write-back reaches repoURL with
// git:repocreds: Argo CD's repository resolution (same Secrets, same
// namespace), but Image Updater's own credential choice (no bearer token,
// a GitHub App only with an installation ID), its pod's proxy for HTTPS (it
// ignores the Secret's proxy) and the host keys mounted in its pod.
func (r *run) updaterView(ctx context.Context, repoURL string) (repoView, *report.Finding) {
	ns := r.argoNamespace()
	var creds []cluster.RepoCred
	u, ok := r.updaterUser()
	err := error(&secretUnverified{namespace: ns, verbs: []string{"list", "watch"},
		reason: "imgupd found no Image Updater Deployment, so it does not know the ServiceAccount that would read them"})
	if ok {
		creds, err = r.repoCredsFor(ctx, u)
	}
	if f, gated := r.secretGateFinding(report.CodeWriteBackRepoDenied, "Argo CD's repository Secrets, which git:repocreds reads for "+repoURL, r.repocredsUse(repoURL), err); gated {
		return repoView{}, &f
	}
	if err != nil {
		f := readFailure(report.StageWriteBack, "Argo CD repository credentials in "+ns, err)
		f.Verify = "grant imgupd list on secrets in " + ns + " (only Argo CD's repository Secrets are read)"
		f.Decides = true // without them imgupd cannot tell whether Image Updater can commit
		return repoView{}, &f
	}
	repo := cluster.ResolveRepository(creds, repoURL, r.appProject())
	v := repoView{repo: repo}
	if repo.TemplateOtherHost != "" {
		f := r.templateOtherHost(repo, "Image Updater")
		f.Severity, f.Decides = report.Unknown, true
		f.Title += "; whether that push succeeds was not verified"
		f.Verify = "imgupd does not send credentials to a host they are not for; fix the template, then re-run"
		return v, &f
	}
	if !repo.HasCredentials() {
		f := find(report.CodeWriteBackCredsMissing, report.Fail, fmt.Sprintf("no Argo CD repository credentials in %s match %s", ns, repoURL)).
			With(ev("why", repo.Why), ev("Image Updater logs", fmt.Sprintf("credentials for '%s' are not configured in Argo CD settings", repoURL)),
				ev("looked in", "Secrets labelled argocd.argoproj.io/secret-type=repository|repo-creds in "+ns))
		f = f.WithFix("Add a repository Secret for the repository in Argo CD's namespace, with a token that may push.", "namespace "+ns,
			report.SetVars(report.Var{Name: "GIT_USER", About: "a user that may push to " + repoURL}, report.Var{Name: "GIT_TOKEN", About: "its token"}),
			report.RunPipe("create repository Secret "+ns+"/repo-"+r.req.App+" for "+repoURL+", labelled so that Argo CD reads it", shell.Pipeline{
				{Argv: append(shell.Args("kubectl", "-n", ns, "create", "secret", "generic", "repo-"+r.req.App, "--from-literal=url="+repoURL),
					shell.Concat(shell.Lit("--from-literal=username="), shell.Var("GIT_USER")), shell.Concat(shell.Lit("--from-literal=password="), shell.Var("GIT_TOKEN")),
					shell.Lit("--dry-run=client"), shell.Lit("-o"), shell.Lit("yaml"))},
				shell.Cmd("kubectl", "label", "-f", "-", "--local", "argocd.argoproj.io/secret-type=repository", "-o", "yaml"),
				shell.Cmd("kubectl", "apply", "-f", "-"),
			}))
		return v, &f
	}
	var cl credLimit
	v.auth, cl = r.credsAuth(ctx, repo, false)
	v.limit, v.none = cl.limit, cl.none
	v.auth.InsecureSkipTLS = repo.Insecure()
	if r.install != nil && !cluster.IsArgoSSHURL(repoURL) {
		p := r.install.Proxy
		v.auth.Proxy, v.auth.NoProxy = p.HTTPSProxy, p.NoProxy
		if strings.HasPrefix(strings.ToLower(repoURL), "http://") {
			v.auth.Proxy = p.HTTPProxy
		}
	}
	if v.auth.InsecureSkipTLS || r.install == nil {
		return v, nil
	}
	if !cluster.IsArgoSSHURL(repoURL) {
		return v, r.updaterTLSTrust(ctx, &v, repoURL)
	}
	{
		name := r.install.SSHKnownHostsConfigMap
		if name == "" {
			v.auth.KnownHosts = []byte{}
			v.trust = append(v.trust, ev("trust", "no ConfigMap is mounted at "+r.install.SSHDataPath+" in Image Updater's pod: it knows no SSH host key"))
			return v, nil
		}
		cm, err := r.configMap(ctx, r.install.Namespace, name)
		if err != nil {
			f := readFailure(report.StageWriteBack, "ConfigMap "+r.install.Namespace+"/"+name+" (Image Updater's SSH host keys)", err)
			return v, &f
		}
		v.auth.KnownHosts = []byte(cm[knownHostsKey])
		v.trust = append(v.trust, ev("trust", fmt.Sprintf("SSH host keys from %s/%s mounted at %s", r.install.Namespace, name, r.install.SSHDataPath)))
	}
	return v, nil
}

// templateOtherHost: repo's credentials come from a repo-creds template for
// another host, and party (Argo CD, Image Updater) sends them there.
func (r *run) templateOtherHost(repo cluster.Repository, party string) report.Finding {
	return find(report.CodeRepoCredsOtherHost, report.Warn, fmt.Sprintf("%s sends the credentials of repo-creds %s (for host %s) to %s: the template's url prefix crosses the host boundary",
		party, repo.Template, repo.TemplateOtherHost, cluster.OriginOf(repo.RepoURL))).
		With(ev("credentials", repo.Why)).
		WithFix("End the template's url with a slash so its prefix stops at the host (or the organisation), and check who points Applications at "+cluster.OriginOf(repo.RepoURL)+".",
			"Secret "+repo.Template+", key url",
			report.PatchStep("end the url with a slash: the prefix then stays on "+repo.TemplateOtherHost, report.Patch{Kind: "Secret", Resource: "secret", Namespace: r.argoNamespace(), Name: repo.Template,
				Type: report.PatchMerge, Merge: map[string]any{"stringData": map[string]any{"url": strings.TrimSuffix(repo.TemplateURL, "/") + "/"}}}))
}

// credsAuth turns the resolved repository into credentials: password (or
// bearer token, for Argo CD) for HTTPS, the SSH key, the TLS client
// certificate, or a GitHub App installation token made through the App.
// limit says why imgupd cannot use the credentials as that party does.
func (r *run) credsAuth(ctx context.Context, repo cluster.Repository, argo bool) (gitsource.Auth, credLimit) {
	a := gitsource.Auth{
		Username:      repo.Get("username"),
		Password:      updater.Secret(repo.Get("password")),
		SSHPrivateKey: updater.Secret(repo.Get("sshPrivateKey")),
		TLSClientCert: repo.Data["tlsClientCertData"],
		TLSClientKey:  updater.Secret(repo.Get("tlsClientCertKey")),
	}
	if a.Password.IsEmpty() && repo.Get("bearerToken") != "" {
		if argo {
			return a, credLimit{limit: "the repository Secret holds a bearerToken (Bitbucket Data Center); imgupd does not send bearer tokens to git"}
		}
		return a, credLimit{none: "the repository Secret holds only a bearerToken, which Image Updater v1.3 does not use for git: it has no credentials to push with"}
	}
	if a.Password.IsEmpty() && a.SSHPrivateKey.IsEmpty() && repo.Get("githubAppPrivateKey") != "" {
		return r.gitHubAppAuth(ctx, repo, a, argo)
	}
	if a.Password.IsEmpty() && a.SSHPrivateKey.IsEmpty() && (repo.Bool("useAzureWorkloadIdentity") || repo.Get("azureServicePrincipalClientSecret") != "") && !argo {
		return a, credLimit{none: "the repository Secret holds Azure credentials, which Image Updater v1.3 does not use for git: it has no credentials to push with"}
	}
	if a.Password.IsEmpty() && a.SSHPrivateKey.IsEmpty() && (repo.Get("gcpServiceAccountKey") != "" || repo.Bool("useAzureWorkloadIdentity") || repo.Get("azureServicePrincipalClientSecret") != "") {
		return a, credLimit{limit: "the repository Secret holds Google Cloud or Azure credentials, which imgupd cannot use"}
	}
	if a.Username == "" && !a.Password.IsEmpty() {
		a.Username = "x-access-token" // Argo CD's default for a token without user
	}
	return a, credLimit{}
}

// gitHubAppAuth makes an installation token through the GitHub App, as Argo
// CD does (Image Updater only with an installation ID).
func (r *run) gitHubAppAuth(ctx context.Context, repo cluster.Repository, a gitsource.Auth, argo bool) (gitsource.Auth, credLimit) {
	appID, err1 := strconv.ParseInt(strings.TrimSpace(repo.Get("githubAppID")), 10, 64)
	inst, err2 := strconv.ParseInt(strings.TrimSpace(repo.Get("githubAppInstallationID")), 10, 64)
	switch {
	case err1 != nil || appID == 0:
		return a, credLimit{none: "GitHub App credentials without a githubAppID: no installation token can be made"}
	case err2 != nil || inst == 0:
		if !argo {
			return a, credLimit{none: "GitHub App credentials without githubAppInstallationID: Image Updater v1.3 uses the App only with an installation ID, so it has no credentials for this repository"}
		}
		return a, credLimit{limit: "GitHub App credentials without githubAppInstallationID: Argo CD finds the installation by the organisation, which imgupd does not do"}
	case r.e.Forge == nil:
		return a, credLimit{limit: "GitHub App credentials: imgupd has no forge client to make an installation token"}
	}
	base := strings.TrimSuffix(repo.Get("githubAppEnterpriseBaseUrl"), "/")
	if base == "" {
		base = "https://api.github.com"
	}
	tok, err := r.e.Forge.GitHubAppToken(ctx, base, appID, inst, updater.Secret(repo.Get("githubAppPrivateKey")))
	if err != nil {
		return a, credLimit{limit: "a GitHub App installation token could not be made: " + textutil.OneLine(err.Error())}
	}
	a.Username, a.Password = "x-access-token", tok
	return a, credLimit{}
}

func (r *run) appProject() string {
	if r.app == nil || r.app.Spec.Project == "" {
		return "default"
	}
	return r.app.Spec.Project
}

func countLines(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			n++
		}
	}
	return n
}

// sourceReadFailure: imgupd could not read the source the way Argo CD
// does. It is not verified, never a failure: Argo CD may well read it (the
// app renders), and what depends on it (the mapping) is corroborating.
func sourceReadFailure(what string, err error, v repoView) report.Finding {
	f := find(report.CodeSourceNotReadable, report.Unknown, fmt.Sprintf("cannot read %s as Argo CD does: %s", what, textutil.OneLine(err.Error())))
	f.Evidence = append(f.Evidence, v.trust...)
	if v.repo.Why != "" {
		f = f.With(ev("credentials", v.repo.Why))
	}
	var ge *gitsource.Error
	if errors.As(err, &ge) {
		if h := advice.ForGit(ge.Facts()); h != "" {
			f = f.With(ev("hint", h))
		}
	}
	f.Verify = "give imgupd what Argo CD has: network access to " + cluster.HostOf(what) + ", list on secrets and get on configmaps " + argoTLSCertsCM + " and " + argoKnownHostsCM + " in Argo CD's namespace"
	return f
}

// repocredsUse: git:repocreds sends Argo CD's repository credentials to the
// write-back repository; instead, a git:secret of the reader's own.
func (r *run) repocredsUse(repoURL string) secretUse {
	ns := r.req.Namespace
	if r.install != nil && !r.version.SecretsMustShareAppNamespace() {
		ns = r.install.Namespace
	}
	return secretUse{sendsTo: cluster.HostOf(repoURL), chosenBy: "the write-back repository setting (gitConfig.repository, or the Application's source)",
		instead: r.newGitSecretSteps(ns), insteadWhere: r.writeBackPlace("method")}
}

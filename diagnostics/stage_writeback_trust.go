package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/imgupd/imgupd/internal/netclass"
	"github.com/imgupd/imgupd/internal/shell"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/gitsource"
)

// Trust of the write-back server, where Image Updater's git client (Argo
// CD's, vendored in argocd-image-updater's ext/git) reads it:
//
//   - HTTPS: ext/git client.go runCmdOutput sets GIT_SSL_CAINFO to
//     certutil.GetCertBundlePathForRepository(host), a file named by the host
//     (without port) in ARGOCD_TLS_DATA_PATH (default /app/config/tls);
//     pkg/argocd/gitcreds.go getCAPath does the same for the credentials.
//     Nothing there: git trusts only the image's system CAs.
//   - SSH: ext/git creds.go SSHCreds.Environ runs ssh with
//     StrictHostKeyChecking=yes and UserKnownHostsFile set to
//     certutil.GetSSHKnownHostsDataPath(), ssh_known_hosts in
//     ARGOCD_SSH_DATA_PATH (default /app/config/ssh, where the install mounts
//     argocd-ssh-known-hosts-cm); go-git's calls (client.go
//     resolveSSHHostKeyConfig) read the same file.
//
// git:secret credentials verify neither (reference §10.20).

// updaterTLSTrust adds to v the CA Image Updater's pod trusts for an HTTPS
// repository: the key named by the host of the ConfigMap mounted at its TLS
// data path, which replaces the system roots for git.
func (r *run) updaterTLSTrust(ctx context.Context, v *repoView, repoURL string) *report.Finding {
	if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(repoURL)), "https://") {
		return nil
	}
	host, dir := cluster.HostOf(repoURL), r.install.TLSDataPath
	name := r.install.TLSCertsConfigMap
	if name == "" {
		v.trust = append(v.trust, ev("trust", fmt.Sprintf("no ConfigMap is mounted at %s (ARGOCD_TLS_DATA_PATH) in Image Updater's pod: git trusts only the system CAs for %s", dir, host)))
		return nil
	}
	cm, err := r.configMap(ctx, r.install.Namespace, name)
	if err != nil {
		f := readFailure(report.StageWriteBack, "ConfigMap "+r.install.Namespace+"/"+name+" (Image Updater's TLS certificates)", err)
		return &f
	}
	pem := cm[host]
	if !strings.Contains(pem, "BEGIN CERTIFICATE") {
		v.trust = append(v.trust, ev("trust", fmt.Sprintf("ConfigMap %s/%s is mounted at %s, but has no key %s: git trusts only the system CAs for that host", r.install.Namespace, name, dir, host)))
		return nil
	}
	v.auth.CAData, v.auth.CAReplacesSystemRoots = []byte(pem), true
	v.trust = append(v.trust, ev("trust", fmt.Sprintf("CA from %s/%s key %s, mounted at %s (GIT_SSL_CAINFO: replaces the system roots)", r.install.Namespace, name, host, dir)))
	return nil
}

// trustFailure is the finding for a write-back server whose identity Image
// Updater's git client does not accept: a CA it does not trust, an SSH host
// key it does not know or that differs from the one it knows. ok is false
// for any other failure.
func (r *run) trustFailure(ctx context.Context, repo string, err error) (report.Finding, bool) {
	var ge *gitsource.Error
	if !errors.As(err, &ge) || r.install == nil {
		return report.Finding{}, false
	}
	detail := textutil.OneLine(ge.Error())
	switch {
	case ge.Kind == netclass.TLS && ge.Facts().TLS.UnknownAuthority && !cluster.IsArgoSSHURL(repo):
		return r.caUnknown(repo, fmt.Sprintf("%s: %s", gitsource.NormalizeURL(repo), detail)), true
	case ge.Kind == gitsource.HostKeyUnknown:
		return r.hostKeyFailure(ctx, repo, false, fmt.Sprintf("%s: %s", gitsource.NormalizeURL(repo), detail)), true
	case ge.Kind == gitsource.HostKeyMismatch:
		return r.hostKeyFailure(ctx, repo, true, fmt.Sprintf("%s: %s", gitsource.NormalizeURL(repo), detail)), true
	}
	return report.Finding{}, false
}

// caUnknown: the certificate of repo's server is signed by a CA Image
// Updater does not trust. The fix puts the CA where its git client looks:
// the key named by the host of the ConfigMap mounted at its TLS data path,
// or, when none is mounted (argocd-tls-certs-cm is Argo CD's, and the v1.3
// install mounts nothing for CAs: argocd-image-updater#346), a ConfigMap of
// its own mounted at a path of its own with ARGOCD_TLS_DATA_PATH pointing
// there.
func (r *run) caUnknown(repo, title string) report.Finding {
	f := find(report.CodeWriteBackCAUnknown, report.Fail, "Image Updater does not trust the CA of "+title)
	host := cluster.HostOf(repo)
	ns, dep := r.install.Namespace, r.install.Name
	f = f.With(ev("Image Updater reads CAs from", r.install.TLSDataPath+"/"+host+" (ARGOCD_TLS_DATA_PATH)"))
	steps := []report.Step{
		report.SetVars(report.Var{Name: "CA_FILE", About: "the PEM file of the CA that signs " + host + "'s certificate"}),
	}
	summary := fmt.Sprintf("The certificate of %s is signed by a CA Image Updater does not trust. Its git client looks for a CA in a file named %s in its TLS data path (ARGOCD_TLS_DATA_PATH) and hands it to git as GIT_SSL_CAINFO; ", repo, host)
	if cm := r.install.TLSCertsConfigMap; cm != "" {
		f = f.With(ev("mounted there", "ConfigMap "+ns+"/"+cm+", without a key "+host))
		summary += fmt.Sprintf("ConfigMap %s/%s is mounted there (%s): add the CA under the key %s.", ns, cm, r.install.TLSDataPath, host)
		steps = append(steps, report.RunPipe("add the CA to ConfigMap "+ns+"/"+cm+" under the key "+host+" (its other keys kept)", shell.Pipeline{
			{Argv: append(shell.Args("kubectl", "-n", ns, "create", "configmap"), shell.Concat(shell.Lit("--from-file="+host+"="), shell.Var("CA_FILE")), shell.Lit("--dry-run=client"), shell.Lit("-o"), shell.Lit("yaml"), shell.Lit("--"), shell.Lit(cm))},
			shell.Cmd("kubectl", "apply", "--server-side", "--force-conflicts", "-f", "-"),
		}))
		return f.WithFix(summary, "ConfigMap "+ns+"/"+cm+", key "+host, steps...)
	}
	const cm, dir = "argocd-image-updater-git-ca", "/app/config/git-tls"
	summary += fmt.Sprintf("nothing provides it in Image Updater's pod (argocd-tls-certs-cm is Argo CD's): put the CA in a ConfigMap, mount it at %s on Deployment %s/%s and point ARGOCD_TLS_DATA_PATH there.", dir, ns, dep)
	steps = append(steps,
		report.RunWords("create ConfigMap "+ns+"/"+cm+" with the CA under the key "+host,
			append(shell.Args("kubectl", "-n", ns, "create", "configmap"), shell.Concat(shell.Lit("--from-file="+host+"="), shell.Var("CA_FILE")), shell.Lit("--"), shell.Lit(cm))...),
		report.PatchStep("mount it at "+dir+" in Image Updater's container and point ARGOCD_TLS_DATA_PATH there", report.Patch{Kind: "Deployment", Resource: "deployment", Namespace: ns, Name: dep, Type: report.PatchStrategic,
			Merge: map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
				"volumes": []any{map[string]any{"name": "git-ca", "configMap": map[string]any{"name": cm}}},
				"containers": []any{map[string]any{"name": r.install.Container,
					"volumeMounts": []any{map[string]any{"name": "git-ca", "mountPath": dir, "readOnly": true}},
					"env":          []any{map[string]any{"name": "ARGOCD_TLS_DATA_PATH", "value": dir}}}},
			}}}}}))
	return f.WithFix(summary, "Deployment "+ns+"/"+dep+", a volume at "+dir+" and env ARGOCD_TLS_DATA_PATH", steps...)
}

// sshHostPort is the host and port of an SSH repository URL (scp-like or
// ssh://), port "22" by default.
func sshHostPort(repo string) (host, port string) {
	u, err := url.Parse(gitsource.NormalizeURL(repo))
	if err != nil {
		return cluster.HostOf(repo), "22"
	}
	port = u.Port()
	if port == "" {
		port = "22"
	}
	return u.Hostname(), port
}

// knownHostsPattern is how known_hosts names host:port ("host" on 22,
// "[host]:port" otherwise).
func knownHostsPattern(host, port string) string {
	if port == "22" {
		return host
	}
	return "[" + host + "]:" + port
}

// withoutHost is known_hosts content without the plain (unhashed) lines for
// pattern, and whether any was dropped; the rest is kept as written, ending
// in a line break when not empty.
func withoutHost(content, pattern string) (string, bool) {
	var keep []string
	dropped := false
	for _, l := range strings.Split(strings.TrimRight(content, "\n"), "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && !strings.HasPrefix(f[0], "#") && !strings.HasPrefix(f[0], "@") {
			hit := false
			for _, p := range strings.Split(f[0], ",") {
				if p == pattern {
					hit = true
				}
			}
			if hit {
				dropped = true
				continue
			}
		}
		keep = append(keep, l)
	}
	out := strings.Join(keep, "\n")
	if strings.TrimSpace(out) == "" {
		return "", dropped
	}
	return out + "\n", dropped
}

// hostKeyFailure: Image Updater's git client does not know the SSH host key
// of repo's server (mismatch: it knows another one). The key itself is
// never taken from the cluster or from imgupd's own connection: the reader
// runs ssh-keyscan, checks the fingerprint with the git host's admins and
// pastes the line; the patch adds it to the ConfigMap Image Updater reads
// (replacing the host's old lines on a mismatch), or mounts one where it
// reads known_hosts when nothing is mounted there.
func (r *run) hostKeyFailure(ctx context.Context, repo string, mismatch bool, title string) report.Finding {
	code, lead := report.CodeWriteBackHostKeyUnknown, "Image Updater does not know the SSH host key of "
	if mismatch {
		code, lead = report.CodeWriteBackHostKeyMismatch, "Image Updater knows another SSH host key than the one presented by "
	}
	host, port := sshHostPort(repo)
	pattern := knownHostsPattern(host, port)
	ns, dep, dir := r.install.Namespace, r.install.Name, r.install.SSHDataPath
	f := find(code, report.Fail, lead+title).
		With(ev("Image Updater reads host keys from", path.Join(dir, knownHostsKey)+" (ARGOCD_SSH_DATA_PATH), with StrictHostKeyChecking=yes"))
	scan := report.RunPipe("print "+pattern+"'s host keys with their fingerprints, and check them with the git host's admins", shell.Pipeline{
		shell.Cmd("ssh-keyscan", "-p", port, "--", host),
		shell.Cmd("ssh-keygen", "-l", "-f", "-"),
	})
	line := report.SetVars(report.Var{Name: "HOST_KEY_LINE", About: "one line ssh-keyscan -p " + port + " " + host + " printed (" + pattern + " KEYTYPE KEY), whose fingerprint you checked"})
	steps := []report.Step{scan, line}
	var summary, where string
	if cm := r.install.SSHKnownHostsConfigMap; cm != "" {
		data, err := r.configMap(ctx, ns, cm)
		content := data[knownHostsKey]
		kept, dropped := withoutHost(content, pattern)
		var p report.Patch
		if err == nil && hasKey(data, knownHostsKey) {
			p = report.Patch{Kind: "ConfigMap", Resource: "configmap", Namespace: ns, Name: cm, Type: report.PatchJSON, Ops: []report.PatchOp{
				{Op: "test", Path: report.Pointer("data", knownHostsKey), Value: content},
				{Op: "replace", Path: report.Pointer("data", knownHostsKey), Value: report.Joined{kept, report.VarValue("HOST_KEY_LINE"), "\n"}},
			}}
		} else {
			p = report.Patch{Kind: "ConfigMap", Resource: "configmap", Namespace: ns, Name: cm, Type: report.PatchMerge,
				Merge: map[string]any{"data": map[string]any{knownHostsKey: report.Joined{report.VarValue("HOST_KEY_LINE"), "\n"}}}}
		}
		say := "add the line to key " + knownHostsKey + " of ConfigMap " + ns + "/" + cm + " (its other lines kept)"
		if mismatch && dropped {
			say = "replace " + pattern + "'s lines in key " + knownHostsKey + " of ConfigMap " + ns + "/" + cm + " with the checked line (the other hosts' lines kept)"
		}
		steps = append(steps, report.PatchStep(say, p))
		where = "ConfigMap " + ns + "/" + cm + ", key " + knownHostsKey
		summary = fmt.Sprintf("Image Updater's git client checks %s's host key against %s, which ConfigMap %s/%s provides (mounted at %s). ", pattern, path.Join(dir, knownHostsKey), ns, cm, dir)
		if mismatch {
			summary += "It lists another key for the host than the one the server presents: the server's key changed, or something in between answers for it. Ask the git host's admins for its key's fingerprint; only if the key really changed, replace the host's line with the one you checked. Argo CD reads the same ConfigMap when it is argocd-ssh-known-hosts-cm."
		} else {
			summary += "The host's key is not in it: add the line ssh-keyscan prints, after checking its fingerprint with the git host's admins (never a key you did not check)."
		}
		return f.With(ev("mounted there", "ConfigMap "+ns+"/"+cm)).WithFix(summary, where, steps...)
	}
	// Nothing is mounted where Image Updater reads known_hosts: it knows no
	// host key at all. Mount Argo CD's ConfigMap when it is in Image
	// Updater's namespace (as the upstream install does), else one of its own.
	cm := argoKnownHostsCM
	if r.argoNamespace() != ns {
		cm = "argocd-image-updater-ssh-known-hosts"
		steps = append(steps, report.RunWords("create ConfigMap "+ns+"/"+cm+" with the checked line",
			append(shell.Args("kubectl", "-n", ns, "create", "configmap"), shell.Concat(shell.Lit("--from-literal="+knownHostsKey+"="), shell.Var("HOST_KEY_LINE")), shell.Lit("--"), shell.Lit(cm))...))
	} else {
		data, err := r.configMap(ctx, ns, cm)
		content := data[knownHostsKey]
		if _, has := withoutHost(content, pattern); err != nil || !has {
			if hasKey(data, knownHostsKey) {
				steps = append(steps, report.PatchStep("add the line to key "+knownHostsKey+" of ConfigMap "+ns+"/"+cm+" (its other lines kept)", report.Patch{Kind: "ConfigMap", Resource: "configmap", Namespace: ns, Name: cm, Type: report.PatchJSON, Ops: []report.PatchOp{
					{Op: "test", Path: report.Pointer("data", knownHostsKey), Value: content},
					{Op: "replace", Path: report.Pointer("data", knownHostsKey), Value: report.Joined{strings.TrimRight(content, "\n") + "\n", report.VarValue("HOST_KEY_LINE"), "\n"}},
				}}))
			} else {
				steps = append(steps, report.RunWords("create ConfigMap "+ns+"/"+cm+" with the checked line",
					append(shell.Args("kubectl", "-n", ns, "create", "configmap"), shell.Concat(shell.Lit("--from-literal="+knownHostsKey+"="), shell.Var("HOST_KEY_LINE")), shell.Lit("--"), shell.Lit(cm))...))
			}
		} else {
			// Argo CD's ConfigMap already lists the host: mounting it is
			// the fix, and the checked line is not needed.
			steps = []report.Step{}
		}
	}
	steps = append(steps, report.PatchStep("mount ConfigMap "+ns+"/"+cm+" at "+dir+" in Image Updater's container", report.Patch{Kind: "Deployment", Resource: "deployment", Namespace: ns, Name: dep, Type: report.PatchStrategic,
		Merge: map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"volumes": []any{map[string]any{"name": "ssh-known-hosts", "configMap": map[string]any{"name": cm}}},
			"containers": []any{map[string]any{"name": r.install.Container,
				"volumeMounts": []any{map[string]any{"name": "ssh-known-hosts", "mountPath": dir, "readOnly": true}}}},
		}}}}}))
	summary = fmt.Sprintf("Nothing is mounted at %s in Image Updater's pod, so its git client knows no SSH host key and refuses %s (StrictHostKeyChecking=yes). Mount ConfigMap %s/%s there (the upstream install mounts argocd-ssh-known-hosts-cm), with %s's key line, checked with the git host's admins.", dir, pattern, ns, cm, pattern)
	return f.With(ev("mounted there", "nothing")).WithFix(summary, "Deployment "+ns+"/"+dep+", a volume at "+dir, steps...)
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// Image Updater's log text for a write-back server it does not trust, as
// git (the CLI, which fetches and pushes) and go-git (ls-remote, the
// default branch) word it: OpenSSL's "SSL certificate problem: unable to get
// local issuer certificate" / "self-signed certificate in certificate
// chain", GnuTLS's "server certificate verification failed", Go's "x509:
// certificate signed by unknown authority"; ssh's "Host key verification
// failed." (after "REMOTE HOST IDENTIFICATION HAS CHANGED!" for another
// key), go-git's "knownhosts: key is unknown" / "knownhosts: key mismatch"
// (golang.org/x/crypto/ssh/knownhosts KeyError).
func logSaysCAUnknown(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "certificate signed by unknown authority") || strings.Contains(m, "ssl certificate problem") ||
		strings.Contains(m, "server certificate verification failed")
}

func logSaysHostKeyMismatch(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "knownhosts: key mismatch") || strings.Contains(m, "remote host identification has changed")
}

func logSaysHostKeyUnknown(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "knownhosts: key is unknown") || strings.Contains(m, "host key verification failed")
}

// classifiedCommitFailure is the finding for a logged commit failure whose
// cause has its own code, when no check before (prior) found that cause.
func (r *run) classifiedCommitFailure(ctx context.Context, msg string, prior []report.Finding) (report.Finding, bool) {
	wb := r.target.WriteBack
	if wb == nil || wb.Method != "git" || r.install == nil {
		return report.Finding{}, false
	}
	repo := wb.Repository
	found := func(c report.Code) bool { return hasCode(prior, c) }
	switch {
	case logSaysCAUnknown(msg) && !cluster.IsArgoSSHURL(repo):
		if found(report.CodeWriteBackCAUnknown) {
			return report.Finding{}, false
		}
		return r.caUnknown(repo, gitsource.NormalizeURL(repo)+": its last write-back failed with an unknown certificate authority").With(r.wbTrust...), true
	case logSaysHostKeyMismatch(msg) && cluster.IsArgoSSHURL(repo):
		if found(report.CodeWriteBackHostKeyMismatch) {
			return report.Finding{}, false
		}
		return r.hostKeyFailure(ctx, repo, true, gitsource.NormalizeURL(repo)+": its last write-back failed on the host key").With(r.wbTrust...), true
	case logSaysHostKeyUnknown(msg) && cluster.IsArgoSSHURL(repo):
		if found(report.CodeWriteBackHostKeyUnknown) || found(report.CodeWriteBackHostKeyMismatch) {
			return report.Finding{}, false
		}
		return r.hostKeyFailure(ctx, repo, false, gitsource.NormalizeURL(repo)+": its last write-back failed on the host key").With(r.wbTrust...), true
	}
	return r.prCommitFailure(msg, prior)
}

package advice

import (
	"fmt"
	"net/http"

	"github.com/imgupd/imgupd/internal/netclass"
)

// Git is what a git failure says (gitsource.Error.Facts).
type Git struct {
	// Kind is the gitsource.Kind, e.g. "AuthFailed".
	Kind string
	// URL is the repository URL without userinfo; Host and Port are its
	// host (without port) and port (the scheme's default when it has
	// none); SSH: it is an SSH URL.
	URL, Host, Port string
	SSH             bool
	// Branch is the branch concerned, when there is one.
	Branch string
	// Status is the HTTP status when one is known (for Proxy the proxy's
	// answer to CONNECT), else 0.
	Status int
	// Proxy is the repository proxy in use, without userinfo.
	Proxy string
	// Limit, for TooLarge, is the bound the answer passed, as text.
	Limit string
	// The settings in use: known hosts given (argocd-ssh-known-hosts-cm),
	// an extra CA (and whether it replaces the system roots), a client
	// certificate (and whether it is not a usable pair), a repository proxy.
	KnownHostsGiven, CAGiven, CAReplaces, ClientCert, ClientCertBad, RepoProxy bool
	// NeedsSecureURL: git:secret credentials with a URL Image Updater
	// cannot use them with. BadKnownHosts: the known-hosts data does not
	// parse. SSHNotSOCKS: an SSH repository with a proxy that is not
	// SOCKS5. BadProxy: the proxy is not a URL.
	NeedsSecureURL, BadKnownHosts, SSHNotSOCKS, BadProxy bool
	// TLS is what a failed handshake said.
	TLS netclass.TLSFacts
}

// ForGit is the fix for a git failure, in terms of Image Updater's git
// write-back configuration (the write-back method and its credentials,
// gitConfig.repository and gitConfig.branch) and Argo CD's repository
// settings.
func ForGit(f Git) string {
	repo := f.URL
	if repo == "" {
		repo = "the repository"
	}
	switch f.Kind {
	case "AuthRequired":
		return fmt.Sprintf("%s wants credentials and none were used. With write-back method git (git:repocreds) add repository "+
			"credentials for this URL in Argo CD (in Argo CD's namespace); with git:secret:<name> the Secret needs username and "+
			"password (HTTPS) or sshPrivateKey (SSH).", repo)
	case "AuthFailed":
		if f.Status == http.StatusForbidden {
			return fmt.Sprintf("%s accepted who the credentials belong to but refused this access (HTTP 403): the account or token "+
				"lacks permission (a push needs write access; on GitHub a fine-grained token needs Contents: read and write). "+
				"Grant it, or use other credentials.", repo)
		}
		return fmt.Sprintf("%s refused the credentials: the password or token is wrong, expired or revoked, or the username does "+
			"not match it. Update the Secret (git:secret) or Argo CD repository credentials (git:repocreds).", repo)
	case "RepoNotFound":
		return fmt.Sprintf("%s does not exist, or the credentials cannot see it (GitHub, GitLab and others answer \"not found\" for "+
			"private repositories a token has no access to). Check gitConfig.repository / the source repoURL for typos.", repo)
	case "BranchNotFound":
		b := f.Branch
		if b == "" {
			b = "the branch"
		}
		return fmt.Sprintf("%s has no branch %s. Image Updater needs the base branch to exist (\"couldn't find remote ref\"): set "+
			"gitConfig.branch (or the source targetRevision) to an existing branch, or use \"base:target\" to have the target "+
			"branch created from an existing base.", repo, b)
	case "DNS":
		return fmt.Sprintf("The host of %s does not resolve. Check the URL for typos and DNS from the image-updater pod; if the "+
			"host is only reachable through a proxy, set HTTPS_PROXY on the controller and keep the host out of NO_PROXY.", repo)
	case "Connect":
		return fmt.Sprintf("Nothing accepted the connection to %s. Check the port, that the git server is up, and that "+
			"NetworkPolicies or firewalls allow egress from the image-updater pod.", repo)
	case "TLS":
		return TLS(TLSCase{Source: SourceGit, Name: repo, CertsKey: f.Host, Facts: f.TLS, CAGiven: f.CAGiven, CAReplaces: f.CAReplaces,
			ClientCert: f.ClientCert, ClientCertBad: f.ClientCertBad})
	case "HostKeyUnknown":
		host, port := f.Host, f.Port
		if !f.KnownHostsGiven {
			return fmt.Sprintf("The SSH host key of %s is not in this machine's known_hosts (no argocd-ssh-known-hosts-cm data was given, so "+
				"the local files were used). Image Updater skips host-key checks for git:secret credentials, so this alone does not "+
				"stop it; Argo CD's repo-server needs it: add the host key to argocd-ssh-known-hosts-cm (ssh-keyscan -p %s %s).", repo, port, host)
		}
		entry := host
		if port != "22" {
			entry = "[" + host + "]:" + port
		}
		return fmt.Sprintf("Argo CD's repo-server checks SSH host keys only against argocd-ssh-known-hosts-cm, which has no entry for %s "+
			"(%s; a port other than 22 needs an entry written [host]:port, a bare host name covers only port 22): add the host key "+
			"to argocd-ssh-known-hosts-cm (ssh-keyscan -p %s %s), after checking its fingerprint with the git host, or set "+
			"insecureIgnoreHostKey on the repository Secret to skip the check.", entry, repo, port, host)
	case "HostKeyMismatch":
		where := "argocd-ssh-known-hosts-cm"
		if !f.KnownHostsGiven {
			where = "this machine's known_hosts"
		}
		return fmt.Sprintf("%s: the key differs from the one in %s: a changed or spoofed server (or a key rotation). Do not just "+
			"replace it: confirm the offered fingerprint (in the message) with the git host's operators, then update the entry in "+
			"argocd-ssh-known-hosts-cm.", repo, where)
	case "Proxy":
		return gitProxy(f, repo)
	case "Timeout":
		return fmt.Sprintf("%s did not answer in time. Traffic is probably dropped: check HTTPS_PROXY/NO_PROXY on the image-updater "+
			"pod and firewalls for egress to the git host.", repo)
	case "UnsupportedURL":
		if !f.NeedsSecureURL {
			return fmt.Sprintf("%s is not an https://, http:// or SSH URL. Image Updater's git write-back clones over HTTPS or SSH: "+
				"fix gitConfig.repository or the source repoURL.", repo)
		}
		return fmt.Sprintf("Image Updater cannot use git:secret credentials with %s: write the repository as https://... or as an "+
			"SSH URL with a user (git@host:org/repo.git or ssh://git@host/org/repo.git), in gitConfig.repository or the "+
			"source repoURL; otherwise it fails with \"could not get creds for repo: unknown repository type\".", repo)
	case "Canceled":
		return "The diagnosis was canceled before the git server answered; run it again."
	case "TooLarge":
		return fmt.Sprintf("%s answered with more than imgupd reads (%s). Argo CD and Image Updater clone with git to disk and would "+
			"keep reading: a server that never ends its answer holds them until their timeouts. If the repository is really this large, "+
			"keep the manifests Argo CD deploys (and Image Updater writes) in a smaller repository; otherwise check what the server at %s "+
			"sends.", repo, f.Limit, repo)
	}
	if f.BadKnownHosts {
		return "The ssh_known_hosts data of argocd-ssh-known-hosts-cm does not parse (the message names the line): Argo CD's " +
			"repo-server then fails every SSH repository. Fix or remove that line; each line is \"<hosts> <keytype> <base64 key>\", " +
			"as ssh-keyscan prints it."
	}
	return fmt.Sprintf("Unexpected failure talking to %s; compare with `git ls-remote` run from the controller pod.", repo)
}

// gitProxy: the repository Secret's proxy field (SOCKS5 for SSH, noProxy)
// or the environment's HTTPS_PROXY.
func gitProxy(f Git, repo string) string {
	proxy := f.Proxy
	if proxy == "" {
		proxy = "the proxy"
	}
	switch {
	case f.SSHNotSOCKS:
		return fmt.Sprintf("%s is an SSH repository, which Argo CD sends through its repository proxy as SOCKS5: set proxy to a "+
			"socks5://host:port URL, or remove proxy from the repository Secret if SSH reaches the host directly.", repo)
	case f.BadProxy:
		return "The proxy of the repository Secret is not a URL: write it as http://host:port (or socks5://host:port for SSH), " +
			"with user:password@ before the host if the proxy needs credentials."
	case f.Status == http.StatusProxyAuthRequired:
		return fmt.Sprintf("%s wants credentials (HTTP 407): put them in the proxy URL as http://user:password@host:port on the "+
			"repository Secret (or in HTTPS_PROXY), or use a proxy that lets the repo-server through.", proxy)
	case f.Status != 0:
		return fmt.Sprintf("%s refused to tunnel to %s (HTTP %d): the proxy's rules block this host; ask for it to be allowed, or add "+
			"the host to noProxy if it is reachable directly.", proxy, repo, f.Status)
	case f.RepoProxy && f.SSH:
		return fmt.Sprintf("%s (the proxy field of the Argo CD repository Secret) could not tunnel SSH to %s as SOCKS5: check its host, "+
			"port and credentials (user:password@ in the URL) and that it is up; noProxy does not apply to SSH repositories, so "+
			"remove proxy if the host is reachable directly.", proxy, repo)
	case f.RepoProxy:
		return fmt.Sprintf("%s (the proxy field of the Argo CD repository Secret) could not be used to reach %s: check its host, port "+
			"and credentials and that it is up, or add the git host to noProxy if it is reachable directly.", proxy, repo)
	}
	return fmt.Sprintf("The HTTP(S) proxy of the environment (HTTPS_PROXY/HTTP_PROXY) could not be used to reach %s: check its "+
		"address and that it is up, or add the git host to NO_PROXY.", repo)
}

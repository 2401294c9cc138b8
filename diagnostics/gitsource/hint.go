package gitsource

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"

	"golang.org/x/crypto/ssh/knownhosts"
)

// Hint is a suggested fix for the on-call engineer, in terms of Image
// Updater's git write-back configuration (the write-back method and its
// credentials, gitConfig.repository and gitConfig.branch). It never
// contains credentials.
func (e *Error) Hint() string {
	repo := e.URL
	if repo == "" {
		repo = "the repository"
	}
	switch e.Kind {
	case AuthRequired:
		return fmt.Sprintf("%s wants credentials and none were used. With write-back method git (git:repocreds) add repository "+
			"credentials for this URL in Argo CD (in Argo CD's namespace); with git:secret:<name> the Secret needs username and "+
			"password (HTTPS) or sshPrivateKey (SSH).", repo)
	case AuthFailed:
		if e.Status == http.StatusForbidden {
			return fmt.Sprintf("%s accepted who the credentials belong to but refused this access (HTTP 403): the account or token "+
				"lacks permission (a push needs write access; on GitHub a fine-grained token needs Contents: read and write). "+
				"Grant it, or use other credentials.", repo)
		}
		return fmt.Sprintf("%s refused the credentials: the password or token is wrong, expired or revoked, or the username does "+
			"not match it. Update the Secret (git:secret) or Argo CD repository credentials (git:repocreds).", repo)
	case RepoNotFound:
		return fmt.Sprintf("%s does not exist, or the credentials cannot see it (GitHub, GitLab and others answer \"not found\" for "+
			"private repositories a token has no access to). Check gitConfig.repository / the source repoURL for typos.", repo)
	case BranchNotFound:
		b := e.Branch
		if b == "" {
			b = "the branch"
		}
		return fmt.Sprintf("%s has no branch %s. Image Updater needs the base branch to exist (\"couldn't find remote ref\"): set "+
			"gitConfig.branch (or the source targetRevision) to an existing branch, or use \"base:target\" to have the target "+
			"branch created from an existing base.", repo, b)
	case DNS:
		return fmt.Sprintf("The host of %s does not resolve. Check the URL for typos and DNS from the image-updater pod; if the "+
			"host is only reachable through a proxy, set HTTPS_PROXY on the controller and keep the host out of NO_PROXY.", repo)
	case Connect:
		return fmt.Sprintf("Nothing accepted the connection to %s. Check the port, that the git server is up, and that "+
			"NetworkPolicies or firewalls allow egress from the image-updater pod.", repo)
	case TLS:
		return e.tlsHint(repo)
	case Timeout:
		return fmt.Sprintf("%s did not answer in time. Traffic is probably dropped: check HTTPS_PROXY/NO_PROXY on the image-updater "+
			"pod and firewalls for egress to the git host.", repo)
	case UnsupportedURL:
		if !errors.Is(e.Err, errNeedsSecureURL) {
			return fmt.Sprintf("%s is not an https://, http:// or SSH URL. Image Updater's git write-back clones over HTTPS or SSH: "+
				"fix gitConfig.repository or the source repoURL.", repo)
		}
		return fmt.Sprintf("Image Updater cannot use git:secret credentials with %s: write the repository as https://... or as an "+
			"SSH URL with a user (git@host:org/repo.git or ssh://git@host/org/repo.git), in gitConfig.repository or the "+
			"source repoURL; otherwise it fails with \"could not get creds for repo: unknown repository type\".", repo)
	case Canceled:
		return "The diagnosis was canceled before the git server answered; run it again."
	}
	return fmt.Sprintf("Unexpected failure talking to %s; compare with `git ls-remote` run from the controller pod.", repo)
}

func (e *Error) tlsHint(repo string) string {
	var (
		rec tls.RecordHeaderError
		hn  x509.HostnameError
		key *knownhosts.KeyError
	)
	switch {
	case errors.As(e.Err, &key):
		return fmt.Sprintf("The SSH host key of %s is not in the known hosts. Image Updater skips host-key checks for git:secret "+
			"credentials, so this alone does not stop it; Argo CD's repo-server needs the key in argocd-ssh-known-hosts-cm.", repo)
	case errors.As(e.Err, &rec), errors.Is(e.Err, http.ErrSchemeMismatch):
		return fmt.Sprintf("%s answered plain HTTP to a TLS handshake: the URL scheme or port is wrong.", repo)
	case errors.As(e.Err, &hn):
		return fmt.Sprintf("The certificate of %s is not valid for that host name: use the name the certificate was issued for.", repo)
	}
	return fmt.Sprintf("The certificate of %s is not trusted here. Image Updater with git:secret HTTPS credentials does not verify "+
		"it (it skips TLS verification), so probe with InsecureSkipTLS to reach its verdict; Argo CD itself needs the CA in "+
		"argocd-tls-certs-cm, and git:repocreds honour the repository's insecure flag.", repo)
}

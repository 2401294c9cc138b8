package advice

import "fmt"

// Forge is what a failed question to a forge's API says
// (forge.Error.Facts).
type Forge struct {
	// Kind is the forge.Kind, e.g. "Forbidden".
	Kind string
	// Forge is the forge's name ("GitHub", "Bitbucket"), "" when unknown.
	Forge string
	// Op is what was being done ("create installation token", ...).
	Op string
	// Repo is "owner/name" and Branch the branch, when known.
	Repo, Branch string
	// Scope is, for Forbidden, the token scope or permission the check
	// needs on this forge.
	Scope string
}

// ForForge is a suggested next step. Every kind means the push check could
// not be made: the advice says why and how to get an answer, never that the
// branch is or is not protected.
func ForForge(e Forge) string {
	f := e.Forge
	if f == "" {
		f = "the forge"
	}
	repo := e.Repo
	if repo == "" {
		repo = "the repository"
	}
	switch e.Kind {
	case "NotRecognised":
		return "Not verified: a push rejection shows only in Image Updater's log. To check it here, add the git host to the " +
			"forge endpoints (host, kind github/gitlab/gitea/forgejo, apiURL)."
	case "NoCredentials":
		return "Not verified: the write-back credentials hold no token (SSH keys give no API access); a push rejection shows " +
			"only in Image Updater's log."
	case "Unauthorized":
		if e.Op == "create installation token" {
			return "GitHub refused the App's JWT: githubAppID does not match githubAppPrivateKey, the key was revoked, or the " +
				"clock is off by more than a minute."
		}
		return fmt.Sprintf("%s's API refused the write-back token: it is wrong, expired or revoked, or a password the API does "+
			"not accept. Git over HTTPS would be refused the same way; update the write-back Secret or repository credentials.", f)
	case "Forbidden":
		scope := e.Scope
		if scope == "" {
			scope = "read access to the repository"
		}
		if e.Forge == "Bitbucket" {
			return fmt.Sprintf("Not verified: Bitbucket lets only %s tokens read branch restrictions, and the write-back token "+
				"has no such scope (normal for a write-only token). Check the branch's permissions in Bitbucket's repository "+
				"settings, or run the check with an admin token.", scope)
		}
		return fmt.Sprintf("Not verified: the token may not read %s's branch settings; it lacks %s. Grant that read "+
			"permission, or check the branch protection in %s's settings.", repo, scope, f)
	case "NotFound":
		return fmt.Sprintf("%s does not exist on %s, or the token cannot see it (private repositories answer \"not found\" to "+
			"tokens without access). Check gitConfig.repository / the source repoURL, and that the token has access.", repo, f)
	case "BranchNotFound":
		return fmt.Sprintf("%s has no branch %s. Image Updater needs the branch it checks out to exist; with gitConfig.branch "+
			"base:target it creates the target branch, whose protection is then not checked here.", repo, e.Branch)
	case "RateLimited":
		return fmt.Sprintf("%s's API rate limit is spent for this token; try again later.", f)
	case "BadResponse":
		return fmt.Sprintf("%s's API answered in an unexpected way: check that the forge endpoint's kind and apiURL point at "+
			"the API (GHES: https://HOST/api/v3, GitLab: /api/v4, Gitea/Forgejo: /api/v1).", f)
	case "InvalidKey":
		return "githubAppPrivateKey in the repository Secret is not a PEM RSA private key: paste the App's .pem file as it " +
			"was downloaded."
	case "DNS":
		return "The forge's API host does not resolve from here. Check the endpoint's apiURL and DNS or the proxy settings."
	case "Connect":
		return "Nothing accepted the connection to the forge's API. Check the apiURL's port, that the API is up, and egress rules."
	case "TLS":
		return "The forge's API certificate is not trusted here (or its name does not match, or the API speaks plain HTTP)."
	case "Timeout":
		return "The forge's API did not answer in time. Check proxy settings (HTTPS_PROXY/NO_PROXY) and firewalls; raise the " +
			"request timeout for a slow API."
	case "Proxy":
		return "The HTTP(S) proxy in the way to the forge's API could not be reached. Check HTTPS_PROXY."
	case "Canceled":
		return "The check was canceled before the forge answered; run it again."
	}
	return fmt.Sprintf("Unexpected failure asking %s's API; try the same request with curl.", f)
}

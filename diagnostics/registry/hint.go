package registry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Hint is a suggested fix for the on-call engineer, in terms of Image
// Updater's configuration (registries.conf, pull secrets, the controller
// pod's environment). It never contains credentials.
func (e *Error) Hint() string {
	host := e.Registry
	if host == "" {
		host = "the registry"
	}
	switch e.Kind {
	case DNS:
		return fmt.Sprintf("The host %s does not resolve. Check the registry host in the image reference or api_url in registries.conf for typos; "+
			"check cluster DNS (CoreDNS) from the image-updater pod; if the registry is only reachable through a proxy, make sure "+
			"HTTPS_PROXY is set and %s is not listed in NO_PROXY.", host, host)
	case Connect:
		return fmt.Sprintf("Nothing accepted the connection to %s. Check the port in api_url, that the registry service is up, and that "+
			"NetworkPolicies or firewalls allow egress from the image-updater pod to it.", host)
	case TLS:
		return e.tlsHint(host)
	case Timeout:
		if e.Err != nil && isCallerDeadline(e.Err) {
			return fmt.Sprintf("%s did not answer before the diagnosis deadline. If this persists, the controller will time out too: "+
				"check the HTTPS_PROXY/NO_PROXY settings of the image-updater pod, firewalls dropping traffic to %s, or registry health.", host, host)
		}
		return fmt.Sprintf("%s did not answer in time. Traffic is likely dropped: check HTTPS_PROXY/HTTP_PROXY/NO_PROXY on the image-updater pod "+
			"(a required proxy not set, or set but unreachable), and firewalls or NetworkPolicies for egress to %s.", host, host)
	case Proxy:
		return "The HTTP(S) proxy itself failed (proxyconnect): check the HTTPS_PROXY/HTTP_PROXY address and port on the image-updater pod " +
			"and that the proxy is up, or add " + host + " to NO_PROXY if it should be reached directly."
	case Unauthorized:
		return fmt.Sprintf("%s rejected the credentials, or none were sent. Set credentials for this registry (credentials: in registries.conf, "+
			"or pullSecret/the image's pull-secret setting) and check they are current; with a pull secret, its .dockerconfigjson "+
			"`auths` key must match the registry API URL exactly (Image Updater logs \"no valid auth entry for registry ... found in "+
			"image pull secret\" otherwise). Docker Hub also answers 401 for a repository that does not exist.", host)
	case Forbidden:
		h := fmt.Sprintf("%s accepted the credentials but they may not pull %s: grant the account or token pull (read) access to it.", host, e.where())
		if strings.EqualFold(e.Registry, "ghcr.io") {
			h += " On GHCR a personal access token needs the read:packages scope, and the package must be visible to its owner."
		} else {
			h += " (On GHCR: a PAT needs read:packages.)"
		}
		return h
	case NotFound:
		if e.Op == "list tags" {
			return fmt.Sprintf("The repository %s does not exist on %s. Check the image path; for Docker Hub official images the path "+
				"is library/<name> (registries.conf defaultns), and a registries.conf prefix that includes a path is not repeated.", e.Repository, host)
		}
		return fmt.Sprintf("The %s is missing on %s: the repository path may be wrong, or the tag was deleted or re-pushed while it "+
			"was being read; run the diagnosis again.", e.Op, host)
	case RateLimited:
		h := fmt.Sprintf("%s is rate limiting these requests", host)
		if e.RetryAfter > 0 {
			h += fmt.Sprintf(" (Retry-After %s)", e.RetryAfter)
		}
		return h + ". Image Updater does not retry within a cycle. Add credentials for this registry (anonymous limits are the " +
			"lowest) and/or set `limit:` (requests per second) for it in registries.conf; fewer images using newest-build or digest " +
			"also means fewer manifest requests."
	case NotRegistry:
		return fmt.Sprintf("GET /v2/ on %s answered HTTP %d, so it is not a registry API root. Point api_url at the registry API "+
			"(Docker Hub: https://registry-1.docker.io, not hub.docker.com; no path after the host). Image Updater logs "+
			"\"endpoint ... does not seem to be a valid v2 Docker Registry API\".", host, e.Status)
	case Canceled:
		return "The diagnosis was canceled before the registry answered; run it again."
	case TooLarge:
		if e.List == nil {
			return fmt.Sprintf("%s serves an image config larger than any real one; check what was pushed to %s.", host, e.where())
		}
		return fmt.Sprintf("The tag list of %s is %s. Image Updater has no such bound: every cycle it reads every page into memory, "+
			"so a list this long costs its pod memory (look for OOMKilled restarts) and cycle time. Delete old tags with a retention "+
			"policy on the registry, or push the images Image Updater follows to a repository with fewer tags.", e.where(), e.List.Over())
	}
	return fmt.Sprintf("Unexpected failure talking to %s; compare with `argocd-image-updater test <image>` run from the controller pod.", host)
}

func (e *Error) tlsHint(host string) string {
	var (
		rec  tls.RecordHeaderError
		hn   x509.HostnameError
		cert *tls.CertificateVerificationError
		ua   x509.UnknownAuthorityError
	)
	switch {
	case errors.As(e.Err, &rec), errors.Is(e.Err, http.ErrSchemeMismatch):
		return fmt.Sprintf("%s answered plain HTTP to a TLS handshake: use an http:// api_url for it in registries.conf.", host)
	case errors.As(e.Err, &hn):
		return fmt.Sprintf("The certificate of %s is not valid for that name: use the host name the certificate was issued for, "+
			"or set insecure: true for this registry in registries.conf.", host)
	case errors.As(e.Err, &ua), errors.As(e.Err, &cert):
		return fmt.Sprintf("The certificate of %s is signed by a CA the controller does not trust: add the CA as ca_data (or ca_file, "+
			"or /app/config/tls/<host>) for this registry in registries.conf (Image Updater v1.3+), or set insecure: true.", host)
	}
	return fmt.Sprintf("The TLS handshake with %s failed: check that api_url uses the right scheme and port, and ca_data or insecure: true "+
		"in registries.conf.", host)
}

// isCallerDeadline reports whether the timeout was the caller's own
// context deadline rather than a network timeout.
func isCallerDeadline(err error) bool { return errors.Is(err, context.DeadlineExceeded) }

package advice

import (
	"fmt"
	"strings"
	"time"

	"github.com/imgupd/imgupd/internal/netclass"
)

// Registry is what a registry failure says (registry.Error.Facts).
type Registry struct {
	// Kind is the registry.Kind, e.g. "Unauthorized".
	Kind string
	// Op is what was being done: "ping", "list tags", "manifest", "config".
	Op string
	// Host is the registry host ("ghcr.io"); Repository the path in it;
	// Where is "host/repository" (or either alone).
	Host, Repository, Where string
	// Status is the HTTP status, 0 when no HTTP answer was received.
	Status int
	// RetryAfter is a 429 answer's Retry-After, 0 if none was given.
	RetryAfter time.Duration
	// TagListOver, for TooLarge, says how far past its bound the tag list
	// went ("more than 10,000 tags"); "" when an image config was too large.
	TagListOver string
	// CallerDeadline: a timeout was the caller's own deadline, not the
	// network's.
	CallerDeadline bool
	// TLS is what a failed handshake said.
	TLS netclass.TLSFacts
}

// ForRegistry is the fix for a registry failure, in terms of Image
// Updater's configuration (registries.conf, pull secrets, the controller
// pod's environment).
func ForRegistry(f Registry) string {
	host := f.Host
	if host == "" {
		host = "the registry"
	}
	switch f.Kind {
	case "DNS":
		return fmt.Sprintf("The host %s does not resolve. Check the registry host in the image reference or api_url in registries.conf for typos; "+
			"check cluster DNS (CoreDNS) from the image-updater pod; if the registry is only reachable through a proxy, make sure "+
			"HTTPS_PROXY is set and %s is not listed in NO_PROXY.", host, host)
	case "Connect":
		return fmt.Sprintf("Nothing accepted the connection to %s. Check the port in api_url, that the registry service is up, and that "+
			"NetworkPolicies or firewalls allow egress from the image-updater pod to it.", host)
	case "TLS":
		return TLS(TLSCase{Source: SourceRegistry, Name: host, Facts: f.TLS})
	case "Timeout":
		if f.CallerDeadline {
			return fmt.Sprintf("%s did not answer before the diagnosis deadline. If this persists, the controller will time out too: "+
				"check the HTTPS_PROXY/NO_PROXY settings of the image-updater pod, firewalls dropping traffic to %s, or registry health.", host, host)
		}
		return fmt.Sprintf("%s did not answer in time. Traffic is likely dropped: check HTTPS_PROXY/HTTP_PROXY/NO_PROXY on the image-updater pod "+
			"(a required proxy not set, or set but unreachable), and firewalls or NetworkPolicies for egress to %s.", host, host)
	case "Proxy":
		return "The HTTP(S) proxy itself failed (proxyconnect): check the HTTPS_PROXY/HTTP_PROXY address and port on the image-updater pod " +
			"and that the proxy is up, or add " + host + " to NO_PROXY if it should be reached directly."
	case "Unauthorized":
		return fmt.Sprintf("%s rejected the credentials, or none were sent. Set credentials for this registry (credentials: in registries.conf, "+
			"or pullSecret/the image's pull-secret setting) and check they are current; with a pull secret, its .dockerconfigjson "+
			"`auths` key must match the registry API URL exactly (Image Updater logs \"no valid auth entry for registry ... found in "+
			"image pull secret\" otherwise). Docker Hub also answers 401 for a repository that does not exist.", host)
	case "Forbidden":
		h := fmt.Sprintf("%s accepted the credentials but they may not pull %s: grant the account or token pull (read) access to it.", host, f.Where)
		if strings.EqualFold(f.Host, "ghcr.io") {
			h += " On GHCR a personal access token needs the read:packages scope, and the package must be visible to its owner."
		} else {
			h += " (On GHCR: a PAT needs read:packages.)"
		}
		return h
	case "NotFound":
		if f.Op == "list tags" {
			return fmt.Sprintf("The repository %s does not exist on %s. Check the image path; for Docker Hub official images the path "+
				"is library/<name> (registries.conf defaultns), and a registries.conf prefix that includes a path is not repeated.", f.Repository, host)
		}
		return fmt.Sprintf("The %s is missing on %s: the repository path may be wrong, or the tag was deleted or re-pushed while it "+
			"was being read; run the diagnosis again.", f.Op, host)
	case "RateLimited":
		h := fmt.Sprintf("%s is rate limiting these requests", host)
		if f.RetryAfter > 0 {
			h += fmt.Sprintf(" (Retry-After %s)", f.RetryAfter)
		}
		return h + ". Image Updater does not retry within a cycle. Add credentials for this registry (anonymous limits are the " +
			"lowest) and/or set `limit:` (requests per second) for it in registries.conf; fewer images using newest-build or digest " +
			"also means fewer manifest requests."
	case "NotRegistry":
		return fmt.Sprintf("GET /v2/ on %s answered HTTP %d, so it is not a registry API root. Point api_url at the registry API "+
			"(Docker Hub: https://registry-1.docker.io, not hub.docker.com; no path after the host). Image Updater logs "+
			"\"endpoint ... does not seem to be a valid v2 Docker Registry API\".", host, f.Status)
	case "Canceled":
		return "The diagnosis was canceled before the registry answered; run it again."
	case "TooLarge":
		if f.TagListOver == "" {
			return fmt.Sprintf("%s serves an image config larger than any real one; check what was pushed to %s.", host, f.Where)
		}
		return fmt.Sprintf("The tag list of %s is %s. Image Updater has no such bound: every cycle it reads every page into memory, "+
			"so a list this long costs its pod memory (look for OOMKilled restarts) and cycle time. Delete old tags with a retention "+
			"policy on the registry, or push the images Image Updater follows to a repository with fewer tags.", f.Where, f.TagListOver)
	}
	return fmt.Sprintf("Unexpected failure talking to %s; compare with `argocd-image-updater test <image>` run from the controller pod.", host)
}

// ForRegistryImage is the fix for an image whose tags could not be listed,
// where the engine knows more than the failure: the endpoint's host (GHCR
// and ECR have their own way to grant access) and whether credentials are
// configured for the image at all.
func ForRegistryImage(f Registry, endpointHost string, hasCreds bool) string {
	switch {
	case f.Kind == "Forbidden" && strings.HasSuffix(endpointHost, "ghcr.io"):
		return "GHCR: the token needs the read:packages scope (a fine-grained token: Packages read), and the package must grant the token's owner access."
	case (f.Kind == "Unauthorized" || f.Kind == "Forbidden") && strings.Contains(endpointHost, ".dkr.ecr.") && strings.HasSuffix(endpointHost, ".amazonaws.com"):
		return "ECR: Image Updater needs a token from an IAM role (IRSA on the updater's ServiceAccount) with ecr:GetAuthorizationToken, ecr:ListImages and ecr:BatchGetImage, fed through an ext: credentials script."
	case f.Kind == "Unauthorized" && !hasCreds:
		return "The registry wants credentials and none are configured for this image: a pull secret in the Application's namespace, set as the image's pullSecret (or credentials on the registries.conf entry)."
	}
	return ForRegistry(f)
}

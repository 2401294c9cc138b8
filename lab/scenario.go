// Package lab turns a scenario file — one complete Argo CD + Image Updater
// environment, broken or healthy — into a running one: a cluster view
// (client-go fakes), a real in-process OCI registry, a real git server
// (git http-backend on loopback) and Image Updater's logs, wired into the
// diagnosis engine exactly as production wires the real ones. `imgupd demo`,
// the tests and the docs use it. The format is documented in
// docs/scenarios.md.
package lab

import (
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/report"
)

// Scenario is one environment and the verdict expected from it.
type Scenario struct {
	// Name identifies the scenario (defaults to the file name).
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Illustrates names the cause it shows (an article cause, a report class).
	Illustrates string `json:"illustrates,omitempty"`
	// Expect is the code the diagnosis must name: the root cause, or when
	// nothing fails the first warning; "healthy" when nothing may fail or warn.
	Expect string `json:"expect"`
	// ExpectState is the state the report must answer with (up-to-date,
	// update-on-its-way, held-back, wrong-update, blocked, not-deployed,
	// unknown); empty checks only Expect.
	ExpectState string `json:"expectState,omitempty"`
	// App is the Application to diagnose (namespace defaults to argocd).
	App AppRef `json:"app"`
	// UpdaterNamespace is where imgupd looks for Image Updater first (default argocd).
	UpdaterNamespace string `json:"updaterNamespace,omitempty"`
	// Now is the clock of the diagnosis (RFC 3339; default: the real time).
	Now string `json:"now,omitempty"`
	// ImgupdProxy is the proxy imgupd itself would use to reach registries
	// (to compare with Image Updater's); default none.
	ImgupdProxy string `json:"imgupdProxy,omitempty"`
	// Registry is the OCI registry of the scenario, reachable as ${REGISTRY}.
	Registry RegistrySpec `json:"registry,omitempty"`
	// Git is the git server, reachable as ${GIT} (base URL); a repository
	// "config" is ${GIT}/config.git.
	Git GitSpec `json:"git,omitempty"`
	// Objects are the Kubernetes objects, as multi-document YAML:
	// Applications, AppProjects, ImageUpdater CRs, the Image Updater
	// Deployment and Pods, Secrets (data or stringData), ConfigMaps, Events.
	Objects string `json:"objects"`
	// Logs are Image Updater's log lines, served as its pod's logs.
	Logs string `json:"logs,omitempty"`
	// LogsUnavailable makes the pod's logs unreadable, as on clusters that
	// do not grant pods/log ("forbidden") or whose node does not answer
	// ("unreachable"); Logs is then ignored.
	LogsUnavailable string `json:"logsUnavailable,omitempty"`
	// Proxy starts a forward proxy (HTTP CONNECT) at ${PROXY} that reaches
	// the registry and git server by their host names (registry.hostname,
	// git.hostname); ${CLOSED} is an address that refuses connections
	// (a dead proxy).
	Proxy bool `json:"proxy,omitempty"`
	// HelmRepo is a classic Helm chart repository at ${HELM_REPO}.
	HelmRepo *HelmRepoSpec `json:"helmRepo,omitempty"`
}

// HelmRepoSpec is a classic Helm repository (index.yaml and chart archives).
type HelmRepoSpec struct {
	Auth   *Auth   `json:"auth,omitempty"`
	Charts []Chart `json:"charts"`
}

// Chart is a Helm chart with its values.yaml; in registry.charts it is
// pushed as an OCI artifact to ${REGISTRY}/<repo>/<name>:<version>.
type Chart struct {
	// Repo is the OCI repository base in the registry ("charts").
	Repo    string `json:"repo,omitempty"`
	Name    string `json:"name"`
	Version string `json:"version"`
	Values  string `json:"values,omitempty"`
	// Template is templates/deployment.yaml (a default one otherwise).
	Template string `json:"template,omitempty"`
}

// AppRef names the Application to diagnose.
type AppRef struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// Auth is a username and password (use stand-in values: scenarios are
// committed and shown).
type Auth struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// RegistrySpec describes the registry and its behaviours.
type RegistrySpec struct {
	// Auth: "basic" or "token" credentials the registry demands; none = anonymous.
	Auth *RegistryAuth `json:"auth,omitempty"`
	// TLS serves HTTPS with a self-signed certificate.
	TLS bool `json:"tls,omitempty"`
	// PageSize paginates tag lists with Link headers.
	PageSize int `json:"pageSize,omitempty"`
	// Behaviours inject failures per repository.
	Behaviours []Behaviour `json:"behaviours,omitempty"`
	// Repositories map a repository path ("team/web") to its tags.
	Repositories map[string][]Image `json:"repositories,omitempty"`
	// Lazy lists every tag at once but pushes an image only when a client
	// first pulls it (labregistry's PushLazy): the same answers, for
	// fleets of thousands of tags that are never pulled.
	Lazy bool `json:"lazy,omitempty"`
	// Unreachable replaces ${REGISTRY} with a host that does not resolve.
	Unreachable bool `json:"unreachable,omitempty"`
	// Hostname makes ${REGISTRY} HOSTNAME:PORT, a name that does not
	// resolve: only the scenario's proxy reaches it (see Scenario.Proxy).
	Hostname string `json:"hostname,omitempty"`
	// Charts are Helm charts pushed as OCI artifacts.
	Charts []Chart `json:"charts,omitempty"`
	// CosignKeys names cosign key pairs the lab makes (ECDSA P-256, fresh
	// each run): ${COSIGN_PUBLIC_KEY_<NAME>} is the PEM public key of key
	// NAME (upper-cased, - as _), for a Secret; images name the key that
	// signs them with signedWith.
	CosignKeys []string `json:"cosignKeys,omitempty"`
}

// RegistryAuth is the registry's authentication.
type RegistryAuth struct {
	Type string `json:"type"` // basic or token
	Auth `json:",inline"`
}

// Behaviour is an injected failure.
type Behaviour struct {
	Repo string `json:"repo"`
	// Status is answered instead of the real response (403, 429, 404...).
	Status int `json:"status,omitempty"`
	// RetryAfter is sent with a 429 (Go duration, e.g. 60s).
	RetryAfter string `json:"retryAfter,omitempty"`
	// Delay slows every answer (Go duration).
	Delay string `json:"delay,omitempty"`
	// Only limits it to "tags", "manifests", "blobs", "referrers" or
	// "all" (default all).
	Only string `json:"only,omitempty"`
	// Tags limits it to the requests that read these tags (their
	// manifests, config blobs and referrers); tag lists are served.
	Tags []string `json:"tags,omitempty"`
	// Message is the error message the Status answer carries instead of
	// the registry's usual one (a registry writes what it likes there).
	Message string `json:"message,omitempty"`
	// ExtraTags are listed in the repository's tag list besides its
	// images: names no registry would store, as a broken or hostile one
	// may list.
	ExtraTags []string `json:"extraTags,omitempty"`
}

// Image is one tag.
type Image struct {
	Tag string `json:"tag"`
	// Created is the build time: 2026-01-02 or RFC 3339.
	Created string `json:"created,omitempty"`
	// Platforms: none or one = a single image (default linux/amd64),
	// several = a multi-platform index.
	Platforms []string `json:"platforms,omitempty"`
	// SameAs makes this tag point at another tag's manifest.
	SameAs string `json:"sameAs,omitempty"`
	// SignedWith signs the tag with the named cosign key (one of
	// registry.cosignKeys), as `cosign sign --key` does on a registry
	// without OCI referrers: a simple-signing manifest at
	// sha256-<hex>.sig.
	SignedWith string `json:"signedWith,omitempty"`
}

// GitSpec describes the git server.
type GitSpec struct {
	// Auth is required for all access when set.
	Auth *Auth `json:"auth,omitempty"`
	// RefusalText is the body of the server's 401 and 403 answers (a forge
	// writes its own message there, and git shows it).
	RefusalText string `json:"refusalText,omitempty"`
	// ReadOnly is a user that may fetch but not push.
	ReadOnly *Auth `json:"readOnly,omitempty"`
	// Repositories map a name to its branches.
	Repositories map[string]Repo `json:"repositories,omitempty"`
	// TLS serves HTTPS with a certificate from a private CA: ${GIT} is
	// https://, ${GIT_CA_PEM} the CA (for argocd-tls-certs-cm).
	TLS bool `json:"tls,omitempty"`
	// SSH also serves the repositories over SSH at ${GIT_SSH}
	// (ssh://git@127.0.0.1:PORT); ${GIT_SSH_KNOWN_HOSTS} is the server's
	// known_hosts line and ${GIT_SSH_KEY} an authorized private key (PEM).
	SSH bool `json:"ssh,omitempty"`
	// Forge answers as a forge's REST API for the git server's host:
	// github, gitlab, gitea or bitbucket. Branches marked protected are
	// protected there; git.auth's password is a token that may push.
	Forge string `json:"forge,omitempty"`
	// GitHubApp is a GitHub App installed on the repositories: the git
	// server (with forge github) makes installation tokens for it and
	// accepts them as x-access-token:<token>; ${GITHUB_APP_KEY} is its
	// private key (PEM) and ${GITHUB_API} the API base.
	GitHubApp *GitHubApp `json:"githubApp,omitempty"`
	// ForgeScopes are the scopes of git.auth's token as a classic token
	// lists them: GitHub's X-OAuth-Scopes header (none sent when unset, as
	// for a fine-grained token), GitLab's token scopes (unset: api).
	ForgeScopes []string `json:"forgeScopes,omitempty"`
}

// GitHubApp is a GitHub App's IDs.
type GitHubApp struct {
	AppID          int64 `json:"appID"`
	InstallationID int64 `json:"installationID"`
}

// Repo is one git repository.
type Repo struct {
	DefaultBranch string            `json:"defaultBranch,omitempty"`
	Branches      map[string]Branch `json:"branches"`
	// PullRequests are open pull (merge) requests the forge (git.forge
	// github or gitlab) lists.
	PullRequests []PullRequest `json:"pullRequests,omitempty"`
}

// PullRequest is an open pull request (GitHub) or merge request (GitLab).
type PullRequest struct {
	Number int    `json:"number"`
	Head   string `json:"head"`
	Base   string `json:"base"`
	Title  string `json:"title,omitempty"`
	// Created is when it was opened, RFC 3339.
	Created string `json:"created,omitempty"`
	// State is clean (default), dirty (a conflict), blocked (reviews or
	// required checks) or unknown (not computed yet).
	State string `json:"state,omitempty"`
}

// Branch is one branch: its files, extra commits, and protection.
type Branch struct {
	Files     map[string]string `json:"files,omitempty"`
	Commits   []Commit          `json:"commits,omitempty"`
	Protected bool              `json:"protected,omitempty"`
}

// Commit is a commit on top of a branch's files.
type Commit struct {
	Author  string            `json:"author,omitempty"`
	Email   string            `json:"email,omitempty"`
	Message string            `json:"message,omitempty"`
	Files   map[string]string `json:"files,omitempty"`
	Delete  []string          `json:"delete,omitempty"`
}

// ScenarioError says what is wrong in a scenario file.
type ScenarioError struct {
	File   string
	Field  string
	Reason string
	Err    error
}

func (e *ScenarioError) Error() string {
	s := "scenario"
	if e.File != "" {
		s += " " + e.File
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	s += ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *ScenarioError) Unwrap() error { return e.Err }

// Parse reads a scenario strictly: unknown fields are errors, so a typo in
// a hand-written file is reported instead of silently ignored.
func Parse(data []byte, file string) (*Scenario, error) {
	var sc Scenario
	if err := yaml.UnmarshalStrict(data, &sc); err != nil {
		return nil, &ScenarioError{File: file, Reason: "does not parse", Err: err}
	}
	if sc.Name == "" {
		sc.Name = strings.TrimSuffix(strings.TrimSuffix(baseName(file), ".yaml"), ".yml")
	}
	if sc.App.Name == "" {
		return nil, &ScenarioError{File: file, Field: "app.name", Reason: "the Application to diagnose is required"}
	}
	if sc.App.Namespace == "" {
		sc.App.Namespace = "argocd"
	}
	if sc.Expect == "" {
		return nil, &ScenarioError{File: file, Field: "expect", Reason: `the expected code is required ("healthy" when nothing should fail)`}
	}
	if strings.TrimSpace(sc.Objects) == "" {
		return nil, &ScenarioError{File: file, Field: "objects", Reason: "no Kubernetes objects"}
	}
	if st := sc.ExpectState; st != "" && !knownState(st) {
		return nil, &ScenarioError{File: file, Field: "expectState", Reason: fmt.Sprintf("%q is not a state (want one of %s)", st, stateNames())}
	}
	switch sc.LogsUnavailable {
	case "", "forbidden", "unreachable":
	default:
		return nil, &ScenarioError{File: file, Field: "logsUnavailable", Reason: fmt.Sprintf("%q: want forbidden or unreachable", sc.LogsUnavailable)}
	}
	if sc.Git.GitHubApp != nil && sc.Git.Forge != "" && sc.Git.Forge != "github" {
		return nil, &ScenarioError{File: file, Field: "git.githubApp", Reason: "a GitHub App needs forge github"}
	}
	switch sc.Git.Forge {
	case "", "github", "gitlab", "gitea", "bitbucket":
	default:
		return nil, &ScenarioError{File: file, Field: "git.forge", Reason: fmt.Sprintf("%q: want github, gitlab, gitea or bitbucket", sc.Git.Forge)}
	}
	if a := sc.Registry.Auth; a != nil && a.Type != "basic" && a.Type != "token" {
		return nil, &ScenarioError{File: file, Field: "registry.auth.type", Reason: fmt.Sprintf("%q: want basic or token", a.Type)}
	}
	return &sc, nil
}

// LoadFile reads a scenario file.
func LoadFile(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &ScenarioError{File: path, Reason: "cannot be read", Err: err}
	}
	return Parse(data, path)
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

func knownState(s string) bool {
	for _, x := range report.States() {
		if string(x) == s {
			return true
		}
	}
	return false
}

func stateNames() string {
	var out []string
	for _, x := range report.States() {
		out = append(out, string(x))
	}
	return strings.Join(out, ", ")
}

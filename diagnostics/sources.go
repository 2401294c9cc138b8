package diagnostics

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/forge"
	"github.com/imgupd/imgupd/sources/gitsource"
	"github.com/imgupd/imgupd/sources/helmchart"
	"github.com/imgupd/imgupd/sources/registry"
	"github.com/imgupd/imgupd/sources/signature"
)

// Cluster is what the engine reads from Kubernetes. *cluster.Reader
// implements it over client-go; the lab and the tests give it fakes or a
// real API server.
type Cluster interface {
	Application(ctx context.Context, ns, name string) (*argo.Application, error)
	Applications(ctx context.Context, ns string) ([]argo.Application, error)
	AppProject(ctx context.Context, ns, name string) (*argo.AppProject, error)
	ImageUpdaters(ctx context.Context, ns string) ([]updater.ImageUpdater, error)
	FindUpdater(ctx context.Context, preferNS string) (*cluster.UpdaterInstall, error)
	PodLogs(ctx context.Context, ns, pod, container string, since time.Duration, limitBytes int64) (string, error)
	Secret(ctx context.Context, ns, name string) (map[string][]byte, error)
	Events(ctx context.Context, ns, kind, name string) ([]corev1.Event, error)
	RepoCredentials(ctx context.Context, argocdNS string) ([]cluster.RepoCred, error)
	ConfigMap(ctx context.Context, ns, name string) (map[string]string, error)
	ServiceAccountAnnotations(ctx context.Context, ns, name string) (map[string]string, error)
	// ArgoController finds Argo CD's application controller workload in
	// its namespace, for the ServiceAccount that reads its repository
	// Secrets.
	ArgoController(ctx context.Context, ns string) (*cluster.ArgoController, error)
	// ReviewAccess asks the API server whether another identity (Image
	// Updater's or Argo CD's ServiceAccount) may read an object: a
	// SubjectAccessReview, which writes nothing. The engine asks before
	// every Secret read (secretaccess.go).
	ReviewAccess(ctx context.Context, q cluster.AccessQuery) (cluster.AccessAnswer, error)
}

// Registry is what the engine reads from container registries.
// *registry.Client implements it.
type Registry interface {
	ListTags(ctx context.Context, t registry.Target) ([]string, error)
	Metadata(ctx context.Context, t registry.Target, tags []string, want func(updater.Platform) bool) (map[string]updater.TagMeta, error)
	Stats() registry.Stats
	// Signatures reads the cosign signatures of a tag (imagesVerification).
	Signatures(ctx context.Context, t registry.Target, tag string) (signature.Found, error)
}

// Git is what the engine reads from git servers. *gitsource.Client
// implements it.
type Git interface {
	LsRemote(ctx context.Context, url string, auth gitsource.Auth) (gitsource.Remote, error)
	Snapshot(ctx context.Context, url, branch string, auth gitsource.Auth) (*gitsource.Snapshot, error)
	CanPush(ctx context.Context, url string, auth gitsource.Auth) (gitsource.PushCheck, error)
}

// Forge is what the engine asks git forges (GitHub, GitLab, Gitea,
// Bitbucket): whether a branch accepts a push, and GitHub App tokens.
// *forge.Client implements it.
type Forge interface {
	BranchProtection(ctx context.Context, repoURL, branch string, creds updater.Credentials) (forge.Protection, error)
	GitHubAppToken(ctx context.Context, apiBase string, appID, installationID int64, privateKeyPEM updater.Secret) (updater.Secret, error)
	// OpenPullRequests lists the open pull (merge) requests into base from
	// head branches starting with headPrefix (pull-request write-back).
	OpenPullRequests(ctx context.Context, repoURL, base, headPrefix string, creds updater.Credentials) (forge.PullRequests, error)
}

// Charts fetches a chart's values from a Helm or OCI repository as Argo CD
// does. *helmchart.Client implements it.
type Charts interface {
	Values(ctx context.Context, src helmchart.Source, auth helmchart.Auth) (*helmchart.Chart, error)
}

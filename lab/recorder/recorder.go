// Package recorder puts a recording layer between the engine and its
// sources (cluster, registries, git): every read is passed on to the real
// source and noted, so a test can prove what a diagnosis, a scan or a
// command read — and that what the asker may not see cost no read at all.
// Only tests import it.
package recorder

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/gitsource"
	"github.com/imgupd/imgupd/sources/registry"
	"github.com/imgupd/imgupd/sources/signature"
)

// Log is the reads noted, in order. It is safe for concurrent use.
type Log struct {
	mu    sync.Mutex
	reads []string
}

func (l *Log) note(format string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reads = append(l.reads, fmt.Sprintf(format, a...))
}

// Reads returns a copy of the reads noted so far.
func (l *Log) Reads() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reads)
}

// Wrap returns a copy of eng whose cluster, registry and git sources note
// every read in the returned Log, and the cluster layer (it also serves
// commands.Service.Apps).
func Wrap(eng *diagnostics.Engine) (*diagnostics.Engine, *Cluster, *Log) {
	e := *eng
	l := &Log{}
	c := &Cluster{Cluster: e.Cluster, log: l}
	e.Cluster = c
	if e.Registry != nil {
		e.Registry = Registry{Registry: e.Registry, log: l}
	}
	if e.Git != nil {
		e.Git = Git{Git: e.Git, log: l}
	}
	return &e, c, l
}

// Cluster notes every cluster read.
type Cluster struct {
	diagnostics.Cluster
	log *Log
}

func (s *Cluster) Application(ctx context.Context, ns, name string) (*argo.Application, error) {
	s.log.note("application %s/%s", ns, name)
	return s.Cluster.Application(ctx, ns, name)
}

func (s *Cluster) Applications(ctx context.Context, ns string) ([]argo.Application, error) {
	s.log.note("applications %q", ns)
	return s.Cluster.Applications(ctx, ns)
}

func (s *Cluster) AppProject(ctx context.Context, ns, name string) (*argo.AppProject, error) {
	s.log.note("appproject %s/%s", ns, name)
	return s.Cluster.AppProject(ctx, ns, name)
}

func (s *Cluster) Secret(ctx context.Context, ns, name string) (map[string][]byte, error) {
	s.log.note("secret %s/%s", ns, name)
	return s.Cluster.Secret(ctx, ns, name)
}

func (s *Cluster) Events(ctx context.Context, ns, kind, name string) ([]corev1.Event, error) {
	s.log.note("events %s/%s %s", ns, name, kind)
	return s.Cluster.Events(ctx, ns, kind, name)
}

// EventsOfKind keeps the reader's one-list-per-namespace read the fleet scan uses.
func (s *Cluster) EventsOfKind(ctx context.Context, ns, kind string) ([]corev1.Event, error) {
	s.log.note("events %s %s", ns, kind)
	el, ok := s.Cluster.(interface {
		EventsOfKind(ctx context.Context, ns, kind string) ([]corev1.Event, error)
	})
	if !ok {
		return nil, fmt.Errorf("the reader lists no events by kind")
	}
	return el.EventsOfKind(ctx, ns, kind)
}

func (s *Cluster) PodLogs(ctx context.Context, ns, pod, container string, since time.Duration, limit int64) (string, error) {
	s.log.note("logs %s/%s", ns, pod)
	return s.Cluster.PodLogs(ctx, ns, pod, container, since, limit)
}

func (s *Cluster) ConfigMap(ctx context.Context, ns, name string) (map[string]string, error) {
	s.log.note("configmap %s/%s", ns, name)
	return s.Cluster.ConfigMap(ctx, ns, name)
}

func (s *Cluster) RepoCredentials(ctx context.Context, ns string) ([]cluster.RepoCred, error) {
	s.log.note("repocreds %s", ns)
	return s.Cluster.RepoCredentials(ctx, ns)
}

func (s *Cluster) ServiceAccountAnnotations(ctx context.Context, ns, name string) (map[string]string, error) {
	s.log.note("serviceaccount %s/%s", ns, name)
	return s.Cluster.ServiceAccountAnnotations(ctx, ns, name)
}

// Registry notes every registry read.
type Registry struct {
	diagnostics.Registry
	log *Log
}

func (s Registry) ListTags(ctx context.Context, t registry.Target) ([]string, error) {
	s.log.note("tags %s", t.Repository)
	return s.Registry.ListTags(ctx, t)
}

func (s Registry) Metadata(ctx context.Context, t registry.Target, tags []string, want func(updater.Platform) bool) (map[string]updater.TagMeta, error) {
	s.log.note("metadata %s", t.Repository)
	return s.Registry.Metadata(ctx, t, tags, want)
}

func (s Registry) Signatures(ctx context.Context, t registry.Target, tag string) (signature.Found, error) {
	s.log.note("signatures %s:%s", t.Repository, tag)
	return s.Registry.Signatures(ctx, t, tag)
}

// Git notes every git read.
type Git struct {
	diagnostics.Git
	log *Log
}

func (s Git) LsRemote(ctx context.Context, url string, auth gitsource.Auth) (gitsource.Remote, error) {
	s.log.note("ls-remote %s", url)
	return s.Git.LsRemote(ctx, url, auth)
}

func (s Git) Snapshot(ctx context.Context, url, branch string, auth gitsource.Auth) (*gitsource.Snapshot, error) {
	s.log.note("snapshot %s %s", url, branch)
	return s.Git.Snapshot(ctx, url, branch, auth)
}

func (s Git) CanPush(ctx context.Context, url string, auth gitsource.Auth) (gitsource.PushCheck, error) {
	s.log.note("can-push %s", url)
	return s.Git.CanPush(ctx, url, auth)
}

package fleet

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/internal/flight"
	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/registry"
	"github.com/imgupd/imgupd/sources/signature"
)

// shareScan is what one scan shares, and nothing outlives it: the
// engine's scope (Engine.Share: each git repository, branch and chart read
// once, failures included, and a host whose connection failed met once),
// Kubernetes objects read once per kind and namespace, tag lists once per
// repository. The returned context carries the scope's memory of host
// failures: the scan's reads and its apps' diagnoses use it.
//
// Its lists of Applications and CRs come from the API server's watch
// cache (cluster.Reader.ListsFromCache): a scan sees the fleet as the
// controllers' informers do, and an API server over an older etcd does
// not read thousands of objects from etcd for it. What one app's
// diagnosis reads by name is read at the newest revision.
func shareScan(ctx context.Context, e *diagnostics.Engine) (*diagnostics.Engine, context.Context, *clusterCache, *registryCache) {
	eng, ctx := e.Share(ctx)
	inner := e.Cluster
	if r, ok := inner.(*cluster.Reader); ok {
		inner = r.WithListsFromCache()
	}
	cc := newClusterCache(ctx, inner)
	rc := &registryCache{ctx: ctx, inner: e.Registry}
	eng.Cluster, eng.Registry = cc, rc
	return eng, ctx, cc, rc
}

// eventLister is the Reader's one-list-per-namespace events read.
type eventLister interface {
	EventsOfKind(ctx context.Context, ns, kind string) ([]corev1.Event, error)
}

// clusterCache answers the engine's reads for every app of a scan from one
// read per kind and namespace (or per named object), counting the reads it
// passes on. It never writes and keeps nothing after the scan. Reads use
// the scan's context (ctx), not the app's: a shared read is not cut short
// by one app's deadline.
type clusterCache struct {
	ctx   context.Context
	inner diagnostics.Cluster
	reads atomic.Int64

	apps     flight.Group[map[string]*argo.Application] // namespace → name → app
	appLists flight.Group[[]argo.Application]
	appMeta  flight.Group[[]argo.Application]
	// got are Applications read one by one (a "where" reads only the
	// apps that may use its repository), by namespace/name: Application
	// answers from them before it lists a namespace.
	gotMu      sync.Mutex
	got        map[string]*argo.Application
	gets       flight.Group[*argo.Application] // one read at a time per app, failures forgotten
	projects   flight.Group[*argo.AppProject]
	crs        flight.Group[[]updater.ImageUpdater]
	updater    flight.Group[*cluster.UpdaterInstall]
	logs       flight.Group[string]
	secrets    flight.Group[map[string][]byte]
	events     flight.Group[[]corev1.Event]
	repoCreds  flight.Group[[]cluster.RepoCred]
	configMaps flight.Group[map[string]string]
	saAnn      flight.Group[map[string]string]
	argoCtl    flight.Group[*cluster.ArgoController]
	reviews    flight.Group[cluster.AccessAnswer]
}

func newClusterCache(ctx context.Context, inner diagnostics.Cluster) *clusterCache {
	c := &clusterCache{ctx: ctx, inner: inner}
	c.gets.ForgetErrors = true
	return c
}

func (c *clusterCache) read() { c.reads.Add(1) }

// Applications lists the namespace ("" = all) once.
func (c *clusterCache) Applications(_ context.Context, ns string) ([]argo.Application, error) {
	return c.appLists.Do(c.ctx, ns, func() ([]argo.Application, error) {
		c.read()
		return c.inner.Applications(c.ctx, ns)
	})
}

// metadataLister lists Applications with their metadata only
// (cluster.Reader.ApplicationsMetadata).
type metadataLister interface {
	ApplicationsMetadata(ctx context.Context, ns string) ([]argo.Application, error)
}

// ApplicationsMetadata lists the namespace's ("" = all) Applications with
// their metadata only, once; whole when the reader cannot, or when the
// namespace was listed whole already.
func (c *clusterCache) ApplicationsMetadata(ctx context.Context, ns string) ([]argo.Application, error) {
	ml, ok := c.inner.(metadataLister)
	if !ok || c.listed(ns) {
		return c.Applications(ctx, ns)
	}
	return c.appMeta.Do(c.ctx, ns, func() ([]argo.Application, error) {
		c.read()
		return ml.ApplicationsMetadata(c.ctx, ns)
	})
}

// get reads one Application by name once (a "where" may ask for it
// before the Applications are listed and again after), through the cache
// of Application (the read is kept for the diagnosis); a failed read is
// tried again by the next caller.
func (c *clusterCache) get(ns, name string) (*argo.Application, error) {
	return c.gets.Do(c.ctx, ns+"/"+name, func() (*argo.Application, error) {
		c.read()
		a, err := c.inner.Application(c.ctx, ns, name)
		if err != nil {
			return nil, err
		}
		c.gotMu.Lock()
		if c.got == nil {
			c.got = map[string]*argo.Application{}
		}
		c.got[ns+"/"+name] = a
		c.gotMu.Unlock()
		return a, nil
	})
}

// Application is answered from the Applications read one by one, else
// from the list of its namespace (or of all namespaces, when that was
// listed already).
func (c *clusterCache) Application(ctx context.Context, ns, name string) (*argo.Application, error) {
	c.gotMu.Lock()
	got, ok := c.got[ns+"/"+name]
	c.gotMu.Unlock()
	if ok {
		cp := *got // the engine may keep pointers into it; give each its own copy
		return &cp, nil
	}
	byName, err := c.apps.Do(c.ctx, ns, func() (map[string]*argo.Application, error) {
		src := ns
		if c.listed("") {
			src = ""
		}
		list, err := c.Applications(ctx, src)
		if err != nil {
			return nil, err
		}
		m := map[string]*argo.Application{}
		for i := range list {
			if list[i].Namespace == ns || ns == "" {
				m[list[i].Name] = &list[i]
			}
		}
		return m, nil
	})
	if err != nil {
		return nil, err
	}
	a, ok := byName[name]
	if !ok {
		return nil, &cluster.AccessError{Verb: "get", Group: argo.Group, Resource: "applications", Namespace: ns, Name: name, NotFound: true}
	}
	cp := *a // the engine may keep pointers into it; give each its own copy
	return &cp, nil
}

func (c *clusterCache) listed(ns string) bool {
	_, ok := c.appLists.Peek(ns)
	return ok
}

func (c *clusterCache) AppProject(_ context.Context, ns, name string) (*argo.AppProject, error) {
	return c.projects.Do(c.ctx, ns+"/"+name, func() (*argo.AppProject, error) {
		c.read()
		return c.inner.AppProject(c.ctx, ns, name)
	})
}

func (c *clusterCache) ImageUpdaters(_ context.Context, ns string) ([]updater.ImageUpdater, error) {
	return c.crs.Do(c.ctx, ns, func() ([]updater.ImageUpdater, error) {
		c.read()
		return c.inner.ImageUpdaters(c.ctx, ns)
	})
}

func (c *clusterCache) FindUpdater(_ context.Context, preferNS string) (*cluster.UpdaterInstall, error) {
	return c.updater.Do(c.ctx, preferNS, func() (*cluster.UpdaterInstall, error) {
		c.read()
		return c.inner.FindUpdater(c.ctx, preferNS)
	})
}

func (c *clusterCache) PodLogs(_ context.Context, ns, pod, container string, since time.Duration, limit int64) (string, error) {
	return c.logs.Do(c.ctx, fmt.Sprintf("%s/%s/%s/%s/%d", ns, pod, container, since, limit), func() (string, error) {
		c.read()
		return c.inner.PodLogs(c.ctx, ns, pod, container, since, limit)
	})
}

func (c *clusterCache) Secret(_ context.Context, ns, name string) (map[string][]byte, error) {
	return c.secrets.Do(c.ctx, ns+"/"+name, func() (map[string][]byte, error) {
		c.read()
		return c.inner.Secret(c.ctx, ns, name)
	})
}

// Events lists the namespace's events of the kind once, when the reader
// can, and filters by name.
func (c *clusterCache) Events(ctx context.Context, ns, kind, name string) ([]corev1.Event, error) {
	el, ok := c.inner.(eventLister)
	if !ok || kind == "" {
		c.read()
		return c.inner.Events(ctx, ns, kind, name)
	}
	all, err := c.events.Do(c.ctx, ns+"/"+kind, func() ([]corev1.Event, error) {
		c.read()
		return el.EventsOfKind(c.ctx, ns, kind)
	})
	if err != nil {
		return nil, err
	}
	var out []corev1.Event
	for _, e := range all {
		if e.InvolvedObject.Name == name {
			out = append(out, e)
		}
	}
	return out, nil
}

func (c *clusterCache) RepoCredentials(_ context.Context, ns string) ([]cluster.RepoCred, error) {
	return c.repoCreds.Do(c.ctx, ns, func() ([]cluster.RepoCred, error) {
		c.read()
		return c.inner.RepoCredentials(c.ctx, ns)
	})
}

func (c *clusterCache) ConfigMap(_ context.Context, ns, name string) (map[string]string, error) {
	return c.configMaps.Do(c.ctx, ns+"/"+name, func() (map[string]string, error) {
		c.read()
		return c.inner.ConfigMap(c.ctx, ns, name)
	})
}

func (c *clusterCache) ServiceAccountAnnotations(_ context.Context, ns, name string) (map[string]string, error) {
	return c.saAnn.Do(c.ctx, ns+"/"+name, func() (map[string]string, error) {
		c.read()
		return c.inner.ServiceAccountAnnotations(c.ctx, ns, name)
	})
}

// ArgoController finds Argo CD's application controller once per namespace.
func (c *clusterCache) ArgoController(_ context.Context, ns string) (*cluster.ArgoController, error) {
	return c.argoCtl.Do(c.ctx, ns, func() (*cluster.ArgoController, error) {
		c.read()
		return c.inner.ArgoController(c.ctx, ns)
	})
}

// ReviewAccess asks the API server each question once per scan.
func (c *clusterCache) ReviewAccess(_ context.Context, q cluster.AccessQuery) (cluster.AccessAnswer, error) {
	return c.reviews.Do(c.ctx, q.Key(), func() (cluster.AccessAnswer, error) {
		c.read()
		return c.inner.ReviewAccess(c.ctx, q)
	})
}

// registryCache lists each repository's tags once for the scan, failures
// included; metadata goes to the client, which caches it by digest. A
// registry host that cannot be reached is met once for all its
// repositories (through the scan's context, see shareScan).
type registryCache struct {
	ctx   context.Context // the scan's: a shared listing outlives one app's deadline
	inner diagnostics.Registry
	tags  flight.Group[[]string]
	lists atomic.Int64
}

func (c *registryCache) ListTags(ctx context.Context, t registry.Target) ([]string, error) {
	return c.tags.DoDetached(ctx, t.Key(), func() ([]string, error) {
		c.lists.Add(1)
		return c.inner.ListTags(c.ctx, t)
	})
}

func (c *registryCache) Metadata(ctx context.Context, t registry.Target, tags []string, want func(updater.Platform) bool) (map[string]updater.TagMeta, error) {
	return c.inner.Metadata(ctx, t, tags, want)
}

func (c *registryCache) Stats() registry.Stats { return c.inner.Stats() }

func (c *registryCache) Signatures(ctx context.Context, t registry.Target, tag string) (signature.Found, error) {
	return c.inner.Signatures(ctx, t, tag)
}

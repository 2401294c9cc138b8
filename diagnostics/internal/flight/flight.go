// Package flight caches values by key where concurrent callers for one
// key share a single computation: the first caller computes, the others
// wait for its result. The registry client uses it for image metadata by
// digest (failures forgotten, so the next caller tries again); the fleet
// scan for reads shared by every app of a scan (failures kept: within a
// scan a refused read is refused for every app).
package flight

import (
	"context"
	"sync"
)

// Group is a cache of computations by key. The zero value is ready to use
// and keeps failures; set ForgetErrors before first use to keep only
// successes.
type Group[V any] struct {
	// ForgetErrors drops a failed computation once its waiters have its
	// error, so that a later caller computes again.
	ForgetErrors bool

	mu sync.Mutex
	m  map[string]*entry[V]
}

type entry[V any] struct {
	done chan struct{}
	v    V
	err  error
}

// Do returns the value for key, computing it with fn if no caller has.
// The first caller runs fn itself; a caller that finds fn running stops
// waiting when its ctx ends (fn goes on for the others).
func (g *Group[V]) Do(ctx context.Context, key string, fn func() (V, error)) (V, error) {
	e, first := g.entry(key)
	if first {
		g.run(key, e, fn)
		return e.v, e.err
	}
	return wait(ctx, e)
}

// DoDetached is Do for a first caller with a deadline of its own: fn runs
// in its own goroutine, and every caller, the first one too, stops waiting
// when its ctx ends. fn should be bounded by a context of the cache's
// owner, not of one caller.
func (g *Group[V]) DoDetached(ctx context.Context, key string, fn func() (V, error)) (V, error) {
	e, first := g.entry(key)
	if first {
		go g.run(key, e, fn)
	}
	return wait(ctx, e)
}

// Peek returns the value for key if it is computed and succeeded.
func (g *Group[V]) Peek(key string) (V, bool) {
	g.mu.Lock()
	e, ok := g.m[key]
	g.mu.Unlock()
	if ok {
		select {
		case <-e.done:
			return e.v, e.err == nil
		default:
		}
	}
	var zero V
	return zero, false
}

func (g *Group[V]) entry(key string) (*entry[V], bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = map[string]*entry[V]{}
	}
	if e, ok := g.m[key]; ok {
		return e, false
	}
	e := &entry[V]{done: make(chan struct{})}
	g.m[key] = e
	return e, true
}

func (g *Group[V]) run(key string, e *entry[V], fn func() (V, error)) {
	e.v, e.err = fn()
	if e.err != nil && g.ForgetErrors {
		g.mu.Lock()
		if g.m[key] == e {
			delete(g.m, key)
		}
		g.mu.Unlock()
	}
	close(e.done)
}

func wait[V any](ctx context.Context, e *entry[V]) (V, error) {
	select {
	case <-e.done:
		return e.v, e.err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

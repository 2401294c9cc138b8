// Package flight caches values by key where concurrent callers for one
// key share a single computation: the first caller computes, the others
// wait for its result. The registry client uses it for image metadata by
// digest (failures forgotten, so the next caller tries again; bounded,
// because it outlives diagnoses); the fleet scan and the shared git and
// chart readers of one diagnosis or scan for reads shared by every app
// (failures kept: within a scan a refused read is refused for every app).
package flight

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/imgupd/imgupd/internal/lru"
)

// Group is a cache of computations by key. The zero value is ready to use,
// keeps failures and is unbounded (for a cache that lives one scan); set
// the fields before first use.
type Group[V any] struct {
	// ForgetErrors drops a failed computation once its waiters have its
	// error, so that a later caller computes again.
	ForgetErrors bool
	// MaxEntries and MaxBytes (bytes as Size counts them) bound the
	// results kept: past them the least recently used are dropped. Zero is
	// no bound. A cache that outlives one diagnosis must set one.
	MaxEntries int
	MaxBytes   int64
	Size       func(key string, v V) int64

	mu      sync.Mutex
	running map[string]*entry[V]
	done    *lru.Cache[string, *entry[V]]
}

type entry[V any] struct {
	done chan struct{}
	v    V
	err  error
	// retry: the computation's failure was its first caller's own (see
	// Transient); whoever waited for it computes again.
	retry bool
	// waiters counts the callers that waited (tests watch it).
	waiters atomic.Int32
}

// Transient marks an error of fn as its first caller's own (its deadline,
// its cancellation), not the key's: that caller gets the error, nothing is
// kept, and the callers that waited for it compute again.
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return transientError{err}
}

type transientError struct{ err error }

func (e transientError) Error() string { return e.err.Error() }
func (e transientError) Unwrap() error { return e.err }

// Do returns the value for key, computing it with fn if no caller has.
// The first caller runs fn itself; a caller that finds fn running stops
// waiting when its ctx ends (fn goes on for the others).
func (g *Group[V]) Do(ctx context.Context, key string, fn func() (V, error)) (V, error) {
	for {
		e, first := g.entry(key)
		if first {
			g.run(key, e, fn)
			return e.v, e.err
		}
		if v, err, again := wait(ctx, e); !again {
			return v, err
		}
	}
}

// DoDetached is Do for a first caller with a deadline of its own: fn runs
// in its own goroutine, and every caller, the first one too, stops waiting
// when its ctx ends. fn should be bounded by a context of the cache's
// owner, not of one caller.
func (g *Group[V]) DoDetached(ctx context.Context, key string, fn func() (V, error)) (V, error) {
	for {
		e, first := g.entry(key)
		if first {
			go g.run(key, e, fn)
		}
		if v, err, again := wait(ctx, e); !again {
			return v, err
		}
	}
}

// Peek returns the value for key if it is computed and succeeded.
func (g *Group[V]) Peek(key string) (V, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done != nil {
		if e, ok := g.done.Get(key); ok && e.err == nil {
			return e.v, true
		}
	}
	var zero V
	return zero, false
}

// Len is the number of results kept.
func (g *Group[V]) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done == nil {
		return 0
	}
	return g.done.Len()
}

func (g *Group[V]) entry(key string) (*entry[V], bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done == nil {
		var size func(string, *entry[V]) int64
		if g.Size != nil {
			size = func(k string, e *entry[V]) int64 { return g.Size(k, e.v) }
		}
		g.done = lru.New(g.MaxEntries, g.MaxBytes, size)
		g.running = map[string]*entry[V]{}
	}
	if e, ok := g.done.Get(key); ok {
		return e, false
	}
	if e, ok := g.running[key]; ok {
		return e, false
	}
	e := &entry[V]{done: make(chan struct{})}
	g.running[key] = e
	return e, true
}

func (g *Group[V]) run(key string, e *entry[V], fn func() (V, error)) {
	e.v, e.err = fn()
	if te, ok := e.err.(transientError); ok {
		e.err, e.retry = te.err, true
	}
	g.mu.Lock()
	if g.running[key] == e {
		delete(g.running, key)
	}
	if !e.retry && (e.err == nil || !g.ForgetErrors) {
		g.done.Add(key, e)
	}
	g.mu.Unlock()
	close(e.done)
}

// wait returns the entry's result once it is done, or the ctx's error;
// again is true when the computation was its first caller's only and the
// waiter should compute itself.
func wait[V any](ctx context.Context, e *entry[V]) (v V, err error, again bool) {
	e.waiters.Add(1)
	select {
	case <-e.done:
		if !e.retry {
			return e.v, e.err, false
		}
		if err := ctx.Err(); err != nil {
			return v, err, false
		}
		return v, nil, true
	case <-ctx.Done():
		return v, ctx.Err(), false
	}
}

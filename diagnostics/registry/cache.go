package registry

import (
	"context"
	"sync"
)

// flight is a cache of values by key where concurrent callers for one key
// share a single computation. Successes are kept for the cache's lifetime;
// failures are forgotten so that the next caller tries again.
type flight[V any] struct {
	mu sync.Mutex
	m  map[string]*flightEntry[V]
}

type flightEntry[V any] struct {
	done chan struct{}
	v    V
	err  error
}

// do returns the cached value for key, or runs fn once for all concurrent
// callers. A caller whose ctx ends stops waiting (fn keeps running for the
// others).
func (f *flight[V]) do(ctx context.Context, key string, fn func() (V, error)) (V, error) {
	f.mu.Lock()
	if f.m == nil {
		f.m = map[string]*flightEntry[V]{}
	}
	if e, ok := f.m[key]; ok {
		f.mu.Unlock()
		select {
		case <-e.done:
			return e.v, e.err
		case <-ctx.Done():
			var zero V
			return zero, ctx.Err()
		}
	}
	e := &flightEntry[V]{done: make(chan struct{})}
	f.m[key] = e
	f.mu.Unlock()

	e.v, e.err = fn()
	if e.err != nil {
		f.mu.Lock()
		delete(f.m, key)
		f.mu.Unlock()
	}
	close(e.done)
	return e.v, e.err
}

// peek returns the cached value for key if it is computed and succeeded.
func (f *flight[V]) peek(key string) (V, bool) {
	f.mu.Lock()
	e, ok := f.m[key]
	f.mu.Unlock()
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

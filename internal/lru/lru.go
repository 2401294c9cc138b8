// Package lru is a map bounded by entries and bytes that drops its least
// recently used entries. Caches that outlive one diagnosis use it: their
// keys come from the cluster, a registry or a user (a digest, a target, a
// CA bundle), so nothing may grow with what imgupd has ever seen.
package lru

import "container/list"

// Cache is not safe for concurrent use: its owner holds a lock.
type Cache[K comparable, V any] struct {
	maxEntries int
	maxBytes   int64
	size       func(K, V) int64
	// OnEvict, when set, is called for every entry dropped to make room
	// (not for Remove, nor for a value replaced by Add).
	OnEvict func(K, V)

	ll    list.List // of *item; front is the most recently used
	m     map[K]*list.Element
	bytes int64
}

type item[K comparable, V any] struct {
	k    K
	v    V
	size int64
}

// New returns a cache holding at most maxEntries entries and maxBytes
// bytes as size counts them (0: no bound of that kind; a nil size counts
// nothing).
func New[K comparable, V any](maxEntries int, maxBytes int64, size func(K, V) int64) *Cache[K, V] {
	return &Cache[K, V]{maxEntries: maxEntries, maxBytes: maxBytes, size: size, m: map[K]*list.Element{}}
}

// Get returns the value for k and marks it used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	if el, ok := c.m[k]; ok {
		c.ll.MoveToFront(el)
		return el.Value.(*item[K, V]).v, true
	}
	var zero V
	return zero, false
}

// Add stores v for k as the most recently used entry, then drops the least
// recently used entries until the cache is within its bounds. It reports
// whether v was kept: a value larger than maxBytes on its own is not (and
// OnEvict is not called for it).
func (c *Cache[K, V]) Add(k K, v V) bool {
	var n int64
	if c.size != nil {
		n = c.size(k, v)
	}
	if c.maxBytes > 0 && n > c.maxBytes {
		c.Remove(k)
		return false
	}
	if el, ok := c.m[k]; ok {
		it := el.Value.(*item[K, V])
		c.bytes += n - it.size
		it.v, it.size = v, n
		c.ll.MoveToFront(el)
	} else {
		c.m[k] = c.ll.PushFront(&item[K, V]{k: k, v: v, size: n})
		c.bytes += n
	}
	for c.over() {
		el := c.ll.Back()
		it := el.Value.(*item[K, V])
		c.drop(el)
		if c.OnEvict != nil {
			c.OnEvict(it.k, it.v)
		}
	}
	return true
}

func (c *Cache[K, V]) over() bool {
	return c.ll.Len() > 0 && (c.maxEntries > 0 && c.ll.Len() > c.maxEntries || c.maxBytes > 0 && c.bytes > c.maxBytes)
}

// Remove drops k, if present.
func (c *Cache[K, V]) Remove(k K) {
	if el, ok := c.m[k]; ok {
		c.drop(el)
	}
}

func (c *Cache[K, V]) drop(el *list.Element) {
	it := el.Value.(*item[K, V])
	c.ll.Remove(el)
	delete(c.m, it.k)
	c.bytes -= it.size
}

// Len is the number of entries.
func (c *Cache[K, V]) Len() int { return c.ll.Len() }

// Bytes is the sum of the entries' sizes.
func (c *Cache[K, V]) Bytes() int64 { return c.bytes }

// Each calls f for every entry, most recently used first, without marking
// them used.
func (c *Cache[K, V]) Each(f func(K, V)) {
	for el := c.ll.Front(); el != nil; el = el.Next() {
		it := el.Value.(*item[K, V])
		f(it.k, it.v)
	}
}

package lru

import (
	"fmt"
	"testing"
)

func TestDropsLeastRecentlyUsedPastEntries(t *testing.T) {
	c := New[string, int](2, 0, nil)
	var evicted []string
	c.OnEvict = func(k string, _ int) { evicted = append(evicted, k) }
	c.Add("a", 1)
	c.Add("b", 2)
	if _, ok := c.Get("a"); !ok { // a is now the most recent
		t.Fatal("a missing")
	}
	c.Add("c", 3)
	if _, ok := c.Get("b"); ok {
		t.Error("b, the least recently used, was kept")
	}
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Errorf("a = %d, %v", v, ok)
	}
	if fmt.Sprint(evicted) != "[b]" || c.Len() != 2 {
		t.Errorf("evicted %v, len %d", evicted, c.Len())
	}
}

func TestBoundedByBytes(t *testing.T) {
	c := New[string, string](0, 10, func(k, v string) int64 { return int64(len(v)) })
	c.Add("a", "xxxx")
	c.Add("b", "xxxx")
	c.Add("c", "xxxx") // 12 bytes: a goes
	if _, ok := c.Get("a"); ok || c.Bytes() != 8 || c.Len() != 2 {
		t.Errorf("a kept %v, bytes %d, len %d", ok, c.Bytes(), c.Len())
	}
	if c.Add("big", "xxxxxxxxxxxx") {
		t.Error("a value larger than the whole bound was kept")
	}
	if c.Len() != 2 || c.Bytes() != 8 {
		t.Errorf("a refused value changed the cache: len %d, bytes %d", c.Len(), c.Bytes())
	}
	c.Add("b", "x") // replacing updates the size
	if c.Bytes() != 5 {
		t.Errorf("bytes %d after replacing b, want 5", c.Bytes())
	}
	c.Remove("b")
	if _, ok := c.Get("b"); ok || c.Bytes() != 4 {
		t.Errorf("b kept after Remove, bytes %d", c.Bytes())
	}
}

func TestUnboundedKeepsEverything(t *testing.T) {
	c := New[int, int](0, 0, nil)
	for i := range 1000 {
		c.Add(i, i)
	}
	if c.Len() != 1000 {
		t.Errorf("len %d", c.Len())
	}
	n := 0
	c.Each(func(int, int) { n++ })
	if n != 1000 {
		t.Errorf("Each saw %d", n)
	}
}

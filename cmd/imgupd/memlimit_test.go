package main

import (
	"testing"

	"github.com/imgupd/imgupd/internal/heapfloor"
)

func TestSoftMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want int64
	}{
		{map[string]string{memoryLimitEnv: "536870912"}, 483183819},
		{map[string]string{memoryLimitEnv: " 1000 "}, 900},
		{map[string]string{memoryLimitEnv: "536870912", "GOMEMLIMIT": "300MiB"}, 0},
		{map[string]string{memoryLimitEnv: "512Mi"}, 0},
		{map[string]string{memoryLimitEnv: "-5"}, 0},
		{map[string]string{memoryLimitEnv: "9223372036854775807"}, 0},
		{map[string]string{}, 0},
	} {
		got := softMemoryLimit(func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
		if got != c.want {
			t.Errorf("%v: %d, want %d", c.env, got, c.want)
		}
	}
}

// The start-up heap floor (internal/heapfloor) begins before the package
// inits have allocated the 4 MB at which the runtime first collects (they
// allocate about 3.5 MB, client-go's scheme the most), or that collection
// would run during start-up as before (bench/simulate-process.sh). Only the
// packages that need no os, which runtime/debug imports, run before it:
// about 1.2 MB today.
func TestHeapFloorBeginsBeforeTheLargeInits(t *testing.T) {
	n, ok := heapfloor.AllocatedBeforeHold()
	if !ok {
		t.Skip("GOGC or GOMEMLIMIT is set: no heap floor")
	}
	t.Logf("allocated before the hold: %d bytes", n)
	if n > 2<<20 {
		t.Errorf("%d bytes allocated before the heap floor began, want under 2 MiB: heapfloor's init runs after the large ones", n)
	}
}

package heapfloor

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// sink keeps the test's garbage from being optimised away.
var sink []byte

// The hold, as this test binary's init started it: no collection below
// Floor; a limit set meanwhile is capped at Floor and applies after; the
// first collection (here the one Floor forces) restores GOGC and the limit.
func TestHoldUntilTheFirstCollection(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: no hold")
	}
	if _, ok := AllocatedBeforeHold(); !ok {
		t.Fatal("the hold did not start")
	}
	if !Holding() {
		t.Skip("the hold already ended in this process (a collection ran before the test)")
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("GOGC during the hold = %d, want off (-1)", got)
	}

	const wanted = 1 << 40
	if prev := SetMemoryLimit(wanted); prev != math.MaxInt64 {
		t.Errorf("SetMemoryLimit returned %d, want the runtime's default %d", prev, int64(math.MaxInt64))
	}
	if got := debug.SetMemoryLimit(-1); got != Floor {
		t.Errorf("limit in force during the hold = %d, want Floor %d", got, Floor)
	}
	if got := SetMemoryLimit(-1); got != wanted {
		t.Errorf("SetMemoryLimit(-1) = %d, want the limit set, %d", got, wanted)
	}

	// Garbage up to Floor, and past it: the runtime collects on its own.
	deadline := time.Now().Add(30 * time.Second)
	for Holding() && time.Now().Before(deadline) {
		for range 64 {
			sink = make([]byte, 64<<10)
		}
		runtime.Gosched()
	}
	if Holding() {
		t.Fatal("no collection ended the hold")
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if after.NumGC == before.NumGC {
		t.Error("the hold ended without a collection")
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC after the hold = %d, want 100", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != wanted {
		t.Errorf("limit after the hold = %d, want the one set during it, %d", got, wanted)
	}
	// Out of the hold, SetMemoryLimit is debug.SetMemoryLimit.
	if prev := SetMemoryLimit(wanted); prev != math.MaxInt64 || debug.SetMemoryLimit(math.MaxInt64) != wanted {
		t.Error("SetMemoryLimit after the hold does not set the runtime's limit")
	}
}

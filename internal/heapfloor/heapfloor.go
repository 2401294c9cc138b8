// Package heapfloor holds the program's first garbage collection back until
// the Go runtime's memory reaches Floor, then hands the collector back to
// its usual pacing (GOGC, and the soft memory limit if one is set).
//
// Why: at GOGC=100 the runtime first collects at a 4 MB heap. imgupd's
// package inits allocate about 3.5 MB (client-go's scheme above all, which
// the binary links for the bot's leader election and typed clients), so
// every command collected during its own start-up, and `imgupd simulate`
// over 5,000 tags collected two or three times in a run whose live heap
// stays under 4 MB: about a fifth of its CPU (bench/simulate-process.sh,
// bench/README.md). Short commands now end before they reach the floor and
// never collect (simulate's peak RSS: 39 MB instead of 35); long ones (serve,
// a fleet scan) collect for the first time at Floor and are paced as before
// from then on.
//
// The hold starts in this package's init. Go initialises packages in import
// path order once their own imports are initialised, so this one, which
// imports only the runtime's packages, os and sync, runs once os is ready: before
// client-go's inits, after about 1.2 MB of the 3.5 MB, well under the 4 MB
// of the first collection (cmd/imgupd's TestHeapFloorBeginsBeforeTheLargeInits).
// The hold ends after the first collection, whichever triggers it. An
// operator's GOGC or GOMEMLIMIT turns it off: their setting applies from the
// start, as the runtime reads it. The memory limit is set through
// SetMemoryLimit, which keeps the floor in force until the hold ends.
package heapfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Floor is the memory the runtime may use before its first collection.
const Floor = 32 << 20

// hold is the collector's state while the first collection is held back.
// It is process-wide because the collector's settings are.
var hold struct {
	sync.Mutex
	started bool
	on      bool
	percent int   // GOGC to restore
	limit   int64 // soft memory limit to restore
	// allocated is what the program had allocated when the hold began.
	allocated uint64
}

func init() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	start()
}

// start turns the collector off below Floor: the memory limit makes the
// runtime collect once it is reached, and the first collection frees the
// sentinel, whose cleanup restores the pacing.
func start() {
	hold.Lock()
	defer hold.Unlock()
	hold.started, hold.on = true, true
	// runtime/metrics, not ReadMemStats, which stops the world (0.5 ms here).
	m := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(m)
	if m[0].Value.Kind() == metrics.KindUint64 {
		hold.allocated = m[0].Value.Uint64()
	}
	hold.limit = debug.SetMemoryLimit(Floor)
	hold.percent = debug.SetGCPercent(-1)
	sentinel := new([64]byte) // not a tiny allocation, which may never be freed on its own
	runtime.AddCleanup(sentinel, func(struct{}) { release() }, struct{}{})
}

// release ends the hold: the collector's pacing and soft memory limit are
// the ones the hold replaced, or set with SetMemoryLimit during it.
func release() {
	hold.Lock()
	defer hold.Unlock()
	if !hold.on {
		return
	}
	hold.on = false
	debug.SetGCPercent(hold.percent)
	debug.SetMemoryLimit(hold.limit)
}

// Holding reports whether the first collection is still held back.
func Holding() bool {
	hold.Lock()
	defer hold.Unlock()
	return hold.on
}

// AllocatedBeforeHold is the heap the program had allocated when the hold
// began, in bytes: small when this package's init ran before the large ones.
// ok is false when the hold did not start (GOGC or GOMEMLIMIT set).
func AllocatedBeforeHold() (bytes uint64, ok bool) {
	hold.Lock()
	defer hold.Unlock()
	return hold.allocated, hold.started
}

// SetMemoryLimit sets the runtime's soft memory limit, as
// debug.SetMemoryLimit does; while the first collection is held back the
// limit in force is the lower of n and Floor, and n applies once the hold
// ends. A negative n changes nothing and returns the current limit.
func SetMemoryLimit(n int64) int64 {
	hold.Lock()
	defer hold.Unlock()
	if !hold.on {
		return debug.SetMemoryLimit(n)
	}
	prev := hold.limit
	if n >= 0 {
		hold.limit = n
		debug.SetMemoryLimit(min(n, Floor))
	}
	return prev
}

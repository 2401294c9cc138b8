// Package heapwatch measures how far the heap grows while a function runs,
// for tests that prove a read is bounded against a server that answers
// without end. Only tests import it.
package heapwatch

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// Growth is what Measure saw.
type Growth struct {
	// Peak is the largest heap (live and not yet collected objects) seen
	// while f ran, above the heap before it.
	Peak uint64
	// Allocated is every byte allocated meanwhile: an upper bound of
	// Peak that also counts garbage collected along the way.
	Allocated uint64
}

// MiB is Peak in MiB, for logs.
func (g Growth) MiB() float64 { return float64(g.Peak) / (1 << 20) }

const heapObjects = "/memory/classes/heap/objects:bytes"

// Measure runs f and samples the heap while it runs (every 200 µs, and
// once at the end). The process's other goroutines count too (a test's
// loopback server, other tests): callers must not run in parallel with
// tests that allocate much, and should set generous bounds.
func Measure(f func()) Growth {
	// Collect often while f runs, so that the peak is close to what f
	// holds rather than to when the collector happened to run (with the
	// default GOGC a busy machine saw the heap reach twice the live data).
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	base := heapNow()
	var (
		peak uint64
		mu   sync.Mutex
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	see := func() {
		if h := heapNow(); h > base {
			mu.Lock()
			peak = max(peak, h-base)
			mu.Unlock()
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				see()
			}
		}
	}()
	f()
	see()
	close(done)
	wg.Wait()
	runtime.ReadMemStats(&after)
	return Growth{Peak: peak, Allocated: after.TotalAlloc - before.TotalAlloc}
}

func heapNow() uint64 {
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

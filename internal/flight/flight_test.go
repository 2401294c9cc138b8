package flight

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

func TestConcurrentCallersShareOneComputation(t *testing.T) {
	var g Group[int]
	var calls atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	results := make([]int, 20)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := g.Do(context.Background(), "k", func() (int, error) {
				calls.Add(1)
				<-release
				return 42, nil
			})
			if err != nil {
				t.Error(err)
			}
			results[i] = v
		}()
	}
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Fatalf("fn ran %d times, want 1", n)
	}
	for i, v := range results {
		if v != 42 {
			t.Errorf("caller %d got %d", i, v)
		}
	}
	if v, ok := g.Peek("k"); !ok || v != 42 {
		t.Errorf("Peek = %d, %v", v, ok)
	}
	if _, ok := g.Peek("other"); ok {
		t.Error("Peek reports a key nobody asked for")
	}
}

func TestErrorsKeptOrForgotten(t *testing.T) {
	boom := errors.New("forbidden")
	for _, forget := range []bool{false, true} {
		g := Group[string]{ForgetErrors: forget}
		calls := 0
		fn := func() (string, error) { calls++; return "", boom }
		for range 2 {
			if _, err := g.Do(context.Background(), "k", fn); !errors.Is(err, boom) {
				t.Fatalf("forget=%v: err = %v", forget, err)
			}
		}
		want := 1
		if forget {
			want = 2
		}
		if calls != want {
			t.Errorf("forget=%v: fn ran %d times, want %d", forget, calls, want)
		}
		if _, ok := g.Peek("k"); ok {
			t.Errorf("forget=%v: Peek reports a failure as a value", forget)
		}
	}
}

func TestWaiterStopsAtItsDeadline(t *testing.T) {
	var g Group[int]
	release := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	go g.Do(context.Background(), "k", func() (int, error) { close(started); <-release; return 1, nil })
	<-started
	cancel()
	if _, err := g.Do(ctx, "k", func() (int, error) { t.Error("second fn ran"); return 0, nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	close(release)
	if v, err := g.Do(context.Background(), "k", nil); err != nil || v != 1 {
		t.Errorf("after: %d, %v", v, err)
	}
}

func TestDetachedFirstCallerStopsAtItsDeadline(t *testing.T) {
	var g Group[int]
	release := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.DoDetached(ctx, "k", func() (int, error) { <-release; return 7, nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	close(release)
	if v, err := g.DoDetached(context.Background(), "k", nil); err != nil || v != 7 {
		t.Errorf("the computation went on for the others: %d, %v", v, err)
	}
}

// TestTransientFailureIsRetriedByWaiters: a failure that was its first
// caller's own (its deadline) is not kept, and those who waited compute
// again instead of getting someone else's deadline.
func TestTransientFailureIsRetriedByWaiters(t *testing.T) {
	var g Group[int]
	started, release := make(chan struct{}), make(chan struct{})
	firstErr := make(chan error, 1)
	go func() {
		_, err := g.Do(context.Background(), "k", func() (int, error) {
			close(started)
			<-release
			return 0, Transient(context.DeadlineExceeded)
		})
		firstErr <- err
	}()
	<-started
	waiter := make(chan int, 1)
	go func() {
		v, err := g.Do(context.Background(), "k", func() (int, error) { return 2, nil })
		if err != nil {
			t.Error(err)
		}
		waiter <- v
	}()
	for { // the waiter is waiting for the first caller's computation
		g.mu.Lock()
		e := g.running["k"]
		g.mu.Unlock()
		if e.waiters.Load() == 1 {
			break
		}
		runtime.Gosched()
	}
	close(release)
	if err := <-firstErr; err != context.DeadlineExceeded {
		t.Errorf("first caller: %v, want its own deadline, unwrapped", err)
	}
	if v := <-waiter; v != 2 {
		t.Errorf("waiter: %d, want its own computation (2)", v)
	}
	if v, err := g.Do(context.Background(), "k", nil); err != nil || v != 2 {
		t.Errorf("later: %d, %v", v, err)
	}
}

// TestBoundedGroupDropsLeastRecentlyUsed: a bounded group keeps at most
// MaxEntries results (and MaxBytes as Size counts them).
func TestBoundedGroupDropsLeastRecentlyUsed(t *testing.T) {
	g := Group[string]{MaxEntries: 3, MaxBytes: 10, Size: func(k, v string) int64 { return int64(len(v)) }}
	calls := map[string]int{}
	get := func(k, v string) {
		got, err := g.Do(context.Background(), k, func() (string, error) { calls[k]++; return v, nil })
		if err != nil || got != v {
			t.Fatalf("%s: %q, %v", k, got, err)
		}
	}
	for i := range 100 {
		get(string(rune('a'+i%26))+"x", "v")
	}
	if n := g.Len(); n != 3 {
		t.Errorf("%d entries kept, want 3", n)
	}
	get("y", "vv")
	get("big", "0123456789") // 10 bytes: everything else goes
	if _, ok := g.Peek("y"); ok || g.Len() != 1 {
		t.Errorf("past MaxBytes: y kept %v, %d entries", ok, g.Len())
	}
	get("big", "0123456789")
	if calls["big"] != 1 {
		t.Errorf("the kept value was computed %d times", calls["big"])
	}
}

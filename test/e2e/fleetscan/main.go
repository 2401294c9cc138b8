// Command fleetscan is the fleet benchmark's scan process (see
// test/e2e/fleet_bench_test.go and bench/fleet.sh): one fleet scan
// (fleet.Scanner with its defaults) over the cluster of --kubeconfig, with
// the engine `imgupd diagnose` builds (registry, git, forge and chart
// clients of their own, nothing shared with the process that set the fleet
// up), and prints what it cost as one JSON object on stdout. Kubernetes
// requests are counted at the rest.Config's transport, so every request
// the scan sends is seen, whatever client sends it. The parent measures
// this process's peak RSS: it holds the scan and nothing else.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/forge"
	"github.com/imgupd/imgupd/sources/gitsource"
	"github.com/imgupd/imgupd/sources/helmchart"
	"github.com/imgupd/imgupd/sources/registry"
)

// Output is what one scan cost; the parent decodes it.
type Output struct {
	Apps      int            `json:"apps"`
	Unmanaged int            `json:"unmanaged"`
	Partial   bool           `json:"partial"`
	States    map[string]int `json:"states"`
	// Codes counts the root-cause codes ("" for none).
	Codes map[string]int `json:"codes"`
	// ScanNs is the wall time of Scan; ProcessNs from the start of main
	// (flags, clients) to the end of the scan.
	ScanNs    int64 `json:"scanNs"`
	ProcessNs int64 `json:"processNs"`
	// ScanCPUNs is the CPU time (user and system, every thread) the
	// process spent during Scan: on a shared machine, the scan's cost
	// without its neighbours' share of the cores.
	ScanCPUNs int64 `json:"scanCpuNs"`
	// FirstAnswerNs is when the first app's answer came, from the start
	// of Scan: the reads every app shares, then one diagnosis.
	FirstAnswerNs int64 `json:"firstAnswerNs"`
	// KubeRequests are the HTTP requests sent to the API server, by
	// method and path.
	KubeRequests     int64            `json:"kubeRequests"`
	KubeByPath       map[string]int64 `json:"kubeByPath"`
	Stats            report.ScanStats `json:"stats"`
	RegistryRequests int64            `json:"registryRequests"`
	// VmHWMKiB is this process's peak resident set as the kernel keeps it
	// for its own address space (/proc/self/status), a cross-check of the
	// parent's measure. (getrusage's ru_maxrss is no use here: Go starts
	// a child with vfork, and the kernel counts the parent's resident set
	// at the exec into the child's maximum.)
	VmHWMKiB   int64  `json:"vmHWMKiB"`
	HeapSysMiB uint64 `json:"heapSysMiB"`
	// PeakHeapMiB is the largest heap (live and not yet collected
	// objects) seen during the scan, sampled every 2 ms.
	PeakHeapMiB float64 `json:"peakHeapMiB"`
	// HeldHeapMiB is what the scan's result holds: the live heap after a
	// collection at the end of the scan, the result still in use, above
	// the live heap before it (clients, flags).
	HeldHeapMiB float64 `json:"heldHeapMiB"`
}

// counter counts requests at the transport.
type counter struct {
	mu     sync.Mutex
	n      int64
	byPath map[string]int64
	next   http.RoundTripper
	// timeline, when set, gets each request's start and end (from t0)
	// and its method and path, one line each, after the response.
	timeline io.Writer
	t0       time.Time
}

func (c *counter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.n++
	c.byPath[r.Method+" "+r.URL.Path]++
	c.mu.Unlock()
	if c.timeline == nil {
		return c.next.RoundTrip(r)
	}
	start := time.Since(c.t0)
	resp, err := c.next.RoundTrip(r)
	if err == nil {
		// The body is read by the caller: the end is when it is closed.
		resp.Body = &timedBody{ReadCloser: resp.Body, c: c, start: start, what: r.Method + " " + r.URL.Path}
		return resp, nil
	}
	c.line(start, r.Method+" "+r.URL.Path+" "+err.Error())
	return resp, err
}

// startTimeline writes each request from here on to w, timed from t0.
func (c *counter) startTimeline(w io.Writer, t0 time.Time) {
	c.mu.Lock()
	c.timeline, c.t0 = w, t0
	c.mu.Unlock()
}

func (c *counter) line(start time.Duration, what string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.timeline, "kube %7.1f ms .. %7.1f ms  %s\n", ms(start), ms(time.Since(c.t0)), what)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// timedBody writes its request's line when it is closed.
type timedBody struct {
	io.ReadCloser
	c     *counter
	start time.Duration
	what  string
	once  sync.Once
}

func (b *timedBody) Close() error {
	b.once.Do(func() { b.c.line(b.start, b.what) })
	return b.ReadCloser.Close()
}

// staticLog serves the given text as every pod's log: the test tier's
// API server has no kubelet, so the log Image Updater would have written
// is given as a file (as `imgupd diagnose --updater-log` does).
type staticLog string

func (s staticLog) Logs(context.Context, string, string, string, cluster.LogOptions) (string, error) {
	return string(s), nil
}

func main() {
	exit := 0
	defer func() { os.Exit(exit) }()
	t0 := time.Now()
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster to scan")
	logFile := flag.String("updater-log", "", "Image Updater's log, served as its pod's (default: read through the API server)")
	now := flag.String("now", "", "the clock, RFC 3339 (default: the real time)")
	conc := flag.Int("concurrency", 0, "apps diagnosed at once (0: fleet.DefaultConcurrency)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the scan to this file")
	memProfile := flag.String("memprofile", "", "write a heap profile (allocations, and what is in use at the end of the scan) to this file")
	peakProfile := flag.String("peakprofile", "", "write a heap profile to this file each time the heap grows 10% past the last one written: what is in use near the scan's peak")
	traceFile := flag.String("trace", "", "write an execution trace of the scan (runtime/trace) to this file: where its goroutines wait")
	where := flag.String("where", "", "instead of the scan, answer `where IMAGE` over the same fleet (Scanner.Where): scanNs is its time, apps its answers")
	timeline := flag.Bool("timeline", false, "write each Kubernetes request's start and end (ms from the scan's or where's start) to stderr, each stage of a where's diagnoses as it begins, and the (first) answer's time")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fleetscan:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(t0, *kubeconfig, *logFile, *now, *conc, *memProfile, *peakProfile, *traceFile, *where, *timeline); err != nil {
		fmt.Fprintln(os.Stderr, "fleetscan:", err)
		exit = 1
	}
}

func run(t0 time.Time, kubeconfig, logFile, now string, conc int, memProfile, peakProfile, traceFile, where string, timeline bool) error {
	cfg, err := cluster.RESTConfig(cluster.ConfigOptions{Kubeconfig: kubeconfig})
	if err != nil {
		return err
	}
	cnt := &counter{byPath: map[string]int64{}}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { cnt.next = rt; return cnt })
	reader, err := cluster.NewReader(cfg)
	if err != nil {
		return err
	}
	if logFile != "" {
		b, err := os.ReadFile(logFile)
		if err != nil {
			return err
		}
		reader.Logs = staticLog(b)
	}
	fc, err := forge.New()
	if err != nil {
		return err
	}
	opts := diagnostics.Options{ClusterName: cfg.Host}
	if now != "" {
		t, err := time.Parse(time.RFC3339, now)
		if err != nil {
			return fmt.Errorf("--now: %w", err)
		}
		opts.Now = func() time.Time { return t }
	}
	if timeline && where != "" {
		// Each stage of the answer's diagnoses as it begins.
		opts.OnStage = func(st report.StageInfo) {
			cnt.mu.Lock()
			defer cnt.mu.Unlock()
			if cnt.timeline != nil {
				fmt.Fprintf(cnt.timeline, "stage %7.1f ms  %s\n", ms(time.Since(cnt.t0)), st.ID)
			}
		}
	}
	eng := &diagnostics.Engine{Cluster: reader, Registry: registry.New(), Git: gitsource.New(), Forge: fc, Charts: helmchart.New(), Options: opts}
	var firstAnswer atomic.Int64
	s := &fleet.Scanner{Engine: eng, Concurrency: conc}
	if traceFile != "" {
		f, err := os.Create(traceFile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			return err
		}
		defer trace.Stop()
	}
	if where != "" {
		q, err := fleet.ParseImageQuery(where)
		if err != nil {
			return err
		}
		cpu0 := cpuTime()
		start := time.Now()
		if timeline {
			cnt.startTimeline(os.Stderr, start)
		}
		w, err := s.Where(context.Background(), fleet.Query{}, q)
		if err != nil {
			return err
		}
		if timeline {
			fmt.Fprintf(os.Stderr, "answer  %7.1f ms\n", ms(time.Since(start)))
		}
		out := Output{Apps: len(w.Apps), ScanNs: time.Since(start).Nanoseconds(), ScanCPUNs: (cpuTime() - cpu0).Nanoseconds(), ProcessNs: time.Since(t0).Nanoseconds(),
			Stats: w.Stats, RegistryRequests: eng.Registry.Stats().Total(), VmHWMKiB: vmHWM()}
		cnt.mu.Lock()
		out.KubeRequests, out.KubeByPath = cnt.n, cnt.byPath
		cnt.mu.Unlock()
		return json.NewEncoder(os.Stdout).Encode(out)
	}
	runtime.GC()
	before := liveHeap()
	stopSampling := sampleHeap(peakProfile)
	cpu0 := cpuTime()
	start := time.Now()
	if timeline {
		cnt.startTimeline(os.Stderr, start)
	}
	ctx := fleet.WithProgress(context.Background(), func(done, total int) {
		if done == 1 {
			firstAnswer.Store(int64(time.Since(start)))
			if timeline {
				fmt.Fprintf(os.Stderr, "first answer  %7.1f ms\n", ms(time.Since(start)))
			}
		}
	})
	res, err := s.Scan(ctx, fleet.Query{})
	scan, scanCPU := time.Since(start), cpuTime()-cpu0
	if timeline {
		fmt.Fprintf(os.Stderr, "scan end  %7.1f ms\n", ms(scan))
	}
	peakHeap := stopSampling()
	if err != nil {
		return err
	}
	runtime.GC()
	held := float64(liveHeap()) - float64(before)
	if memProfile != "" {
		// After a collection, with the result still held: what the scan
		// keeps, and (alloc_space) everything it allocated.
		runtime.GC()
		f, err := os.Create(memProfile)
		if err != nil {
			return err
		}
		err = pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
		if err != nil {
			return err
		}
		runtime.KeepAlive(res)
	}
	out := Output{Apps: len(res.Apps), Unmanaged: res.Unmanaged, Partial: res.Partial, States: map[string]int{}, Codes: map[string]int{},
		ScanNs: scan.Nanoseconds(), ProcessNs: time.Since(t0).Nanoseconds(), ScanCPUNs: scanCPU.Nanoseconds(), FirstAnswerNs: firstAnswer.Load(), Stats: res.Stats, RegistryRequests: eng.Registry.Stats().Total()}
	for _, a := range res.Apps {
		out.States[string(a.State)]++
		out.Codes[string(a.Code)]++
	}
	cnt.mu.Lock()
	out.KubeRequests, out.KubeByPath = cnt.n, cnt.byPath
	cnt.mu.Unlock()
	out.VmHWMKiB = vmHWM()
	out.PeakHeapMiB = float64(peakHeap) / (1 << 20)
	out.HeldHeapMiB = held / (1 << 20)
	runtime.KeepAlive(res)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	out.HeapSysMiB = ms.HeapSys >> 20
	return json.NewEncoder(os.Stdout).Encode(out)
}

// vmHWM is the VmHWM line of /proc/self/status, in KiB (0 when unknown).
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// liveHeap is the heap's object bytes (after a collection: the live ones).
func liveHeap() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// sampleHeap samples the heap's object bytes every 2 ms until the
// returned func is called, which returns the largest seen. With a
// profile path, it writes a heap profile there each time the heap grows
// 10% past the last one written (what is in use as of the last
// collection, near the peak).
func sampleHeap(profile string) func() uint64 {
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		var peak, written uint64
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			h := liveHeap()
			peak = max(peak, h)
			if profile != "" && h > written+written/10 {
				written = h
				if f, err := os.Create(profile); err == nil {
					_ = pprof.Lookup("heap").WriteTo(f, 0)
					f.Close()
				}
			}
			select {
			case <-stop:
				done <- peak
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(stop); return <-done }
}

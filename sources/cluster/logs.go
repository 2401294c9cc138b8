package cluster

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/imgupd/imgupd/internal/kubeclient"
)

// LogOptions select a slice of a container's log.
type LogOptions struct {
	// Since limits the log to the last Since (0 = all of it).
	Since time.Duration
	// LimitBytes caps the bytes returned (0 or more than MaxLogBytes:
	// MaxLogBytes): the newest LimitBytes of the window, from the start
	// of a line.
	LimitBytes int64
	// Previous reads the previous (terminated) instance of the container.
	Previous bool
}

// LogSource serves container logs. The default is KubeLogs; tests and the lab
// serve recorded Image Updater logs instead.
type LogSource interface {
	Logs(ctx context.Context, ns, pod, container string, opts LogOptions) (string, error)
}

// MaxLogBytes is the most of a log KubeLogs keeps, whatever LimitBytes says.
const MaxLogBytes = 16 << 20

// Reading the newest end of a window: the API server's limitBytes counts
// from the start of the window (a busy or debug-level Image Updater would
// give its oldest cycles), so KubeLogs asks for the last lines instead
// (tailLines, with sinceSeconds) and keeps the newest LimitBytes of what
// arrives. logLineBytes sizes tailLines so that lines of ordinary length fill
// the limit; streamFactor bounds what is read at all, so a server whose
// answer never ends cannot hold the read for ever.
const (
	logLineBytes = 128
	streamFactor = 16
)

// KubeLogs reads logs through the API server (pods/log), which asks the
// node's kubelet.
type KubeLogs struct {
	Pods kubeclient.PodsGetter
}

// Logs implements LogSource: the newest LimitBytes of the window, cut at a
// line start, in bounded memory.
func (k KubeLogs) Logs(ctx context.Context, ns, pod, container string, opts LogOptions) (string, error) {
	po := &corev1.PodLogOptions{Container: container, Previous: opts.Previous}
	if opts.Since > 0 {
		secs := int64((opts.Since + time.Second - 1) / time.Second)
		po.SinceSeconds = &secs
	}
	lb := opts.LimitBytes
	if lb <= 0 || lb > MaxLogBytes {
		lb = MaxLogBytes
	}
	tail := max(lb/logLineBytes, 1)
	po.TailLines = &tail
	rc, err := k.Pods.Pods(ns).GetLogs(pod, po).Stream(ctx)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	ring := newTailBuffer(int(lb))
	_, err = io.Copy(ring, io.LimitReader(rc, streamFactor*lb))
	if err != nil {
		return ring.String(), fmt.Errorf("reading the log of %s/%s: %w", ns, pod, err)
	}
	return ring.String(), nil
}

// tailBuffer keeps the last max bytes written to it. It grows as bytes
// arrive (a short log takes little memory), then wraps around.
type tailBuffer struct {
	max     int
	buf     []byte
	next    int // where the next byte goes once wrapped
	wrapped bool
}

// growAll is the size past which a tailBuffer takes its whole max at once.
const growAll = 1 << 20

func newTailBuffer(n int) *tailBuffer { return &tailBuffer{max: max(n, 1)} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if !t.wrapped {
		k := min(len(p), t.max-len(t.buf))
		if need := len(t.buf) + k; need > cap(t.buf) {
			// Double while the log is short; past growAll, a log that
			// long most likely fills the buffer: take it whole at once
			// rather than leave each smaller copy behind as garbage.
			c := max(need, 2*cap(t.buf))
			if c > growAll {
				c = t.max
			}
			t.buf = append(make([]byte, 0, min(c, t.max)), t.buf...)
		}
		t.buf = append(t.buf, p[:k]...)
		p = p[k:]
		if len(t.buf) < t.max {
			return n, nil
		}
		t.wrapped = true
	}
	if len(p) >= t.max {
		// Only the end of p survives.
		copy(t.buf, p[len(p)-t.max:])
		t.next = 0
		return n, nil
	}
	k := copy(t.buf[t.next:], p)
	copy(t.buf, p[k:])
	t.next = (t.next + len(p)) % t.max
	return n, nil
}

// String is what was kept, oldest first; once bytes were dropped it starts
// after the first line break, so no line is cut at its start.
func (t *tailBuffer) String() string {
	if !t.wrapped {
		return string(t.buf)
	}
	var b strings.Builder
	b.Grow(t.max)
	b.Write(t.buf[t.next:])
	b.Write(t.buf[:t.next])
	s := b.String()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// PodLogs returns the last since of the container's log, at most limitBytes
// (0: MaxLogBytes), from r.Logs (KubeLogs when nil). Errors are *AccessError for
// get pods/log.
func (r *Reader) PodLogs(ctx context.Context, ns, pod, container string, since time.Duration, limitBytes int64) (string, error) {
	src := r.Logs
	if src == nil {
		src = KubeLogs{Pods: r.Kube.CoreV1()}
	}
	s, err := src.Logs(ctx, ns, pod, container, LogOptions{Since: since, LimitBytes: limitBytes})
	if err != nil {
		return s, newAccessError("get", "", "pods/log", ns, pod, err)
	}
	return s, nil
}

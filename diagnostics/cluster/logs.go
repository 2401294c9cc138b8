package cluster

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
)

// LogOptions select a slice of a container's log.
type LogOptions struct {
	// Since limits the log to the last Since (0 = all of it).
	Since time.Duration
	// LimitBytes caps the bytes returned (0 or more than MaxLogBytes:
	// MaxLogBytes). The API server counts it from the start of the
	// window: a window with more gives its oldest LimitBytes.
	LimitBytes int64
	// Previous reads the previous (terminated) instance of the container.
	Previous bool
}

// LogSource serves container logs. The default is KubeLogs; tests and the lab
// serve recorded Image Updater logs instead.
type LogSource interface {
	Logs(ctx context.Context, ns, pod, container string, opts LogOptions) (string, error)
}

// MaxLogBytes is the most of a log KubeLogs reads, whatever LimitBytes
// says: the API server honours limitBytes, but the stream is read bounded
// here too, so an answer that never ends cannot take the memory.
const MaxLogBytes = 16 << 20

// KubeLogs reads logs through the API server (pods/log), which asks the
// node's kubelet.
type KubeLogs struct {
	Kube kubernetes.Interface
}

// Logs implements LogSource.
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
	po.LimitBytes = &lb
	rc, err := k.Kube.CoreV1().Pods(ns).GetLogs(pod, po).Stream(ctx)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	// A Builder hands its bytes over as the string, without ReadAll's
	// copy.
	var b strings.Builder
	if _, err := io.Copy(&b, io.LimitReader(rc, lb)); err != nil {
		return b.String(), fmt.Errorf("reading the log of %s/%s: %w", ns, pod, err)
	}
	return b.String(), nil
}

// PodLogs returns the last since of the container's log, at most limitBytes
// (0: MaxLogBytes), from r.Logs (KubeLogs when nil). Errors are *AccessError for
// get pods/log.
func (r *Reader) PodLogs(ctx context.Context, ns, pod, container string, since time.Duration, limitBytes int64) (string, error) {
	src := r.Logs
	if src == nil {
		src = KubeLogs{Kube: r.Kube}
	}
	s, err := src.Logs(ctx, ns, pod, container, LogOptions{Since: since, LimitBytes: limitBytes})
	if err != nil {
		return s, newAccessError("get", "", "pods/log", ns, pod, err)
	}
	return s, nil
}

package cluster

import (
	"context"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
)

// LogOptions select a slice of a container's log.
type LogOptions struct {
	// Since limits the log to the last Since (0 = all of it).
	Since time.Duration
	// LimitBytes caps the bytes returned (0 = no cap).
	LimitBytes int64
	// Previous reads the previous (terminated) instance of the container.
	Previous bool
}

// LogSource serves container logs. The default is KubeLogs; tests and the lab
// serve recorded Image Updater logs instead.
type LogSource interface {
	Logs(ctx context.Context, ns, pod, container string, opts LogOptions) (string, error)
}

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
	if opts.LimitBytes > 0 {
		lb := opts.LimitBytes
		po.LimitBytes = &lb
	}
	rc, err := k.Kube.CoreV1().Pods(ns).GetLogs(pod, po).Stream(ctx)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	var rd io.Reader = rc
	if opts.LimitBytes > 0 {
		rd = io.LimitReader(rc, opts.LimitBytes)
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		return string(b), fmt.Errorf("reading the log of %s/%s: %w", ns, pod, err)
	}
	return string(b), nil
}

// PodLogs returns the last since of the container's log, at most limitBytes
// (0 = no cap), from r.Logs (KubeLogs when nil). Errors are *AccessError for
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

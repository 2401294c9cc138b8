package cluster

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

func event(name, kind, obj, reason string, last time.Time) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: "argocd", Name: name},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Name: obj, Namespace: "argocd"},
		Reason:         reason,
		LastTimestamp:  metav1.NewTime(last),
	}
}

func TestEvents(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	micro := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "argocd", Name: "e4"},
		InvolvedObject: corev1.ObjectReference{Kind: "Application", Name: "web"}, Reason: "ResourceUpdated",
		EventTime: metav1.NewMicroTime(t0.Add(30 * time.Minute))}
	r := newTestReader(t, []runtime.Object{
		event("e1", "Application", "web", "ImagesUpdated", t0.Add(time.Hour)),
		event("e2", "Application", "web", "OperationStarted", t0),
		event("e3", "Application", "api", "ImagesUpdated", t0),
		event("e5", "Deployment", "web", "ScalingReplicaSet", t0),
		micro,
	})
	tests := []struct {
		kind, name string
		want       []string
	}{
		{"Application", "web", []string{"OperationStarted", "ResourceUpdated", "ImagesUpdated"}},
		{"", "web", []string{"OperationStarted", "ScalingReplicaSet", "ResourceUpdated", "ImagesUpdated"}},
		{"Application", "api", []string{"ImagesUpdated"}},
		{"Application", "none", nil},
	}
	for _, tt := range tests {
		t.Run(tt.kind+"/"+tt.name, func(t *testing.T) {
			evs, err := r.Events(context.Background(), "argocd", tt.kind, tt.name)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range evs {
				got = append(got, e.Reason)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("events %v, want %v", got, tt.want)
			}
		})
	}
	forbid(r.kube, "list", "", "events")
	_, err := r.Events(context.Background(), "argocd", "Application", "web")
	if ae := asAccess(t, err); !ae.Forbidden || ae.Rule() != `{apiGroups: [""], resources: ["events"], verbs: ["list"]} in namespace argocd` {
		t.Errorf("forbidden: %v", ae)
	}
}

func TestConfigMap(t *testing.T) {
	r := newTestReader(t, []runtime.Object{configMap("argocd", "argocd-image-updater-config", map[string]string{"log.level": "debug"})})
	d, err := r.ConfigMap(context.Background(), "argocd", "argocd-image-updater-config")
	if err != nil || d["log.level"] != "debug" {
		t.Fatalf("%v %v", d, err)
	}
	_, err = r.ConfigMap(context.Background(), "argocd", "nope")
	if ae := asAccess(t, err); !ae.NotFound || ae.Error() != "configmaps argocd/nope not found" {
		t.Errorf("not found: %v", ae)
	}
}

func TestSecretThroughReader(t *testing.T) {
	r := newTestReader(t, []runtime.Object{&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "argocd", Name: "s"}, Data: map[string][]byte{"k": []byte("v")}}})
	if d, err := r.Secret(context.Background(), "argocd", "s"); err != nil || string(d["k"]) != "v" {
		t.Fatalf("%v %v", d, err)
	}
}

func TestCan(t *testing.T) {
	r := newTestReader(t, nil)
	var seen []authorizationv1.ResourceAttributes
	r.kube.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		rev := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview)
		ra := *rev.Spec.ResourceAttributes
		seen = append(seen, ra)
		rev.Status.Allowed = ra.Group == "argoproj.io" && ra.Verb == "get"
		return true, rev, nil
	})
	ok, err := r.Can(context.Background(), "get", "argoproj.io", "applications", "argocd")
	if err != nil || !ok {
		t.Errorf("get applications: %v %v", ok, err)
	}
	ok, err = r.Can(context.Background(), "get", "", "pods/log", "argocd")
	if err != nil || ok {
		t.Errorf("get pods/log: %v %v", ok, err)
	}
	if seen[1].Resource != "pods" || seen[1].Subresource != "log" || seen[0].Namespace != "argocd" {
		t.Errorf("attributes: %+v", seen)
	}
	forbid(r.kube, "create", "authorization.k8s.io", "selfsubjectaccessreviews")
	_, err = r.Can(context.Background(), "list", "", "secrets", "")
	if ae := asAccess(t, err); !ae.Forbidden || ae.Group != "authorization.k8s.io" {
		t.Errorf("forbidden review: %v", ae)
	}
}

// recordedLogs serves logs from memory, as the lab does.
type recordedLogs struct {
	logs map[string]string
	got  LogOptions
}

func (l *recordedLogs) Logs(_ context.Context, ns, pod, container string, opts LogOptions) (string, error) {
	l.got = opts
	s, ok := l.logs[ns+"/"+pod+"/"+container]
	if !ok {
		return "", errors.New("container not found")
	}
	return s, nil
}

func TestPodLogs(t *testing.T) {
	const line = `time="2026-11-29T21:00:00Z" level=info msg="Starting image update cycle"`
	src := &recordedLogs{logs: map[string]string{"argocd/iu-1/argocd-image-updater-controller": line}}
	r := newTestReader(t, nil)
	r.Logs = src
	s, err := r.PodLogs(context.Background(), "argocd", "iu-1", "argocd-image-updater-controller", time.Hour, 1<<20)
	if err != nil || s != line || src.got.Since != time.Hour || src.got.LimitBytes != 1<<20 {
		t.Fatalf("%q %v %+v", s, err, src.got)
	}
	_, err = r.PodLogs(context.Background(), "argocd", "iu-2", "c", 0, 0)
	if ae := asAccess(t, err); ae.Resource != "pods/log" || ae.Name != "iu-2" {
		t.Errorf("error: %v", ae)
	}

	// The default source goes through the API server (the fake answers
	// "fake logs"), and keeps the newest end.
	r.Logs = nil
	s, err = r.PodLogs(context.Background(), "argocd", "iu-1", "c", time.Minute, 4)
	if err != nil || s != "logs" {
		t.Errorf("KubeLogs: %q %v", s, err)
	}
}

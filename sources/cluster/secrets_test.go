package cluster

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/lab/kubefake"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
)

func TestSecrets(t *testing.T) {
	const canary = "CANARY-secret-5d2e"
	cs := kubefake.NewClientset(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "argocd", Name: "regcred"},
		Data:       map[string][]byte{".dockerconfigjson": []byte(canary)},
	})
	s := Secrets{Client: cs.CoreV1()}
	data, err := s.Secret(context.Background(), "argocd", "regcred")
	if err != nil || string(data[".dockerconfigjson"]) != canary {
		t.Fatalf("got %q, %v", data, err)
	}

	_, err = s.Secret(context.Background(), "argocd", "missing")
	var ae *AccessError
	if !errors.As(err, &ae) || !ae.NotFound || ae.Forbidden {
		t.Fatalf("missing secret: %#v", err)
	}

	cs.PrependReactor("get", "secrets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "regcred", errors.New("no"))
	})
	_, err = s.Secret(context.Background(), "team", "regcred")
	if !errors.As(err, &ae) || !ae.Forbidden {
		t.Fatalf("forbidden: %#v", err)
	}
	if !strings.Contains(err.Error(), `resources: ["secrets"], verbs: ["get"]} in namespace team`) {
		t.Errorf("error should name the missing rule: %v", err)
	}
	if strings.Contains(err.Error(), canary) {
		t.Error("error leaks secret data")
	}
}

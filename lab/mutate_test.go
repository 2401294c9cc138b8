package lab

import (
	"context"
	"testing"

	"github.com/imgupd/imgupd/report"
)

// TestApplyChangesTheRunningCluster: Apply replaces an ImageUpdater CR
// (Argo CD and Image Updater kinds) and a ConfigMap (core kinds) in a
// running Env, and the next diagnosis reads them.
func TestApplyChangesTheRunningCluster(t *testing.T) {
	sc, ok := Builtin("healthy-kustomize-argocd")
	if !ok {
		t.Fatal("no scenario healthy-kustomize-argocd")
	}
	env, err := Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	ctx := context.Background()
	if rep := env.Diagnose(ctx); rep.RootCause != nil {
		t.Fatalf("the scenario is not healthy: %s", rep.RootCause.Code)
	}
	if err := env.Apply(ctx, `apiVersion: argocd-image-updater.argoproj.io/v1alpha1
kind: ImageUpdater
metadata: {name: web, namespace: argocd}
spec:
  applicationRefs:
  - namePattern: web
    images:
    - alias: web
      imageName: "${REGISTRY}/team/web:~1.0"
      manifestTargets: {kustomize: {name: "${REGISTRY}/team/other"}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-image-updater-config, namespace: argocd}
data:
  registries.conf: "registries: [ this is not YAML"
`); err != nil {
		t.Fatal(err)
	}
	rep := env.Diagnose(ctx)
	for _, code := range []report.Code{report.CodeKustomizeNameNotUsed, report.CodeRegistriesConfInvalid} {
		if !rep.HasCode(code) {
			t.Errorf("after Apply, the diagnosis has no %s: %s", code, rep.Headline)
		}
	}
	if err := env.Apply(ctx, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: new-one, namespace: argocd}\ndata: {a: b}\n"); err != nil {
		t.Errorf("Apply of a new object: %v", err)
	}
}

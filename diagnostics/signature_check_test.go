package diagnostics_test

import (
	"context"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// The signature scenarios (lab/scenarios/signature-*.yaml,
// healthy-signed-pick*) cover unsigned, wrongly signed, signed, a missing
// key Secret and an unusable key. These cover what a scenario file cannot
// say alone: RBAC that keeps Image Updater from the key, a registry that
// fails the signature reads, and the log line's place in the answer.

func diagnoseWeb(env *lab.Env) *report.Report {
	return env.Engine().Diagnose(context.Background(), diagnostics.Request{App: "web", Namespace: "argocd"})
}

// Image Updater's ServiceAccount may read configmaps but not secrets:
// imgupd does not read the key either, and says Image Updater cannot.
func TestSignatureKeyForbiddenForUpdater(t *testing.T) {
	t.Parallel() // its own lab
	env := start(t, "signature-unsigned-pick", func(sc *lab.Scenario) {
		sc.Objects += `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: argocd-image-updater, namespace: argocd}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: argocd-image-updater, namespace: argocd}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: argocd-image-updater}
subjects: [{kind: ServiceAccount, name: argocd-image-updater, namespace: argocd}]
`
	})
	r := diagnoseWeb(env)
	rc := r.RootCause
	if rc == nil || rc.Code != report.CodeSignatureKeyDenied || r.State != report.StateBlocked {
		t.Fatalf("root cause %+v, state %s\n%s", rc, r.State, dump(r))
	}
	if argvWith(rc.Fix, "create", "role", "--resource-name=cosign-key", "--verb=get") == nil || argvWith(rc.Fix, "create", "rolebinding", "--serviceaccount=argocd:argocd-image-updater") == nil {
		t.Fatalf("fix %+v", rc.Fix)
	}
	for _, f := range r.Findings() {
		if f.Code == report.CodeSignatureMissing {
			t.Fatalf("the signature was checked without the key: %+v", f)
		}
	}
}

// The registry fails every manifest read (the tag list still works, and
// semver needs nothing else): the signature cannot be read, and the
// answer is unknown, not "on its way".
func TestSignatureUnreadable(t *testing.T) {
	t.Parallel() // its own lab
	env := start(t, "healthy-signed-pick", func(sc *lab.Scenario) {
		sc.Registry.Behaviours = append(sc.Registry.Behaviours, lab.Behaviour{Repo: "team/web", Status: 500, Only: "manifests"})
	})
	r := diagnoseWeb(env)
	if r.State != report.StateUnknown {
		t.Fatalf("state %s\n%s", r.State, dump(r))
	}
	found := false
	for _, nv := range r.NotVerified {
		if nv.Code == report.CodeSignatureNotVerified && nv.Decides {
			found = true
		}
	}
	if !found {
		t.Fatalf("no deciding %s in not verified\n%s", report.CodeSignatureNotVerified, dump(r))
	}
}

// After the cycle, Image Updater's own line is evidence on the root cause.
func TestSignatureLogLineIsEvidence(t *testing.T) {
	t.Parallel() // its own lab
	r := diagnoseWeb(start(t, "signature-unsigned-pick-after", nil))
	rc := r.RootCause
	if rc == nil || rc.Code != report.CodeSignatureMissing {
		t.Fatalf("root cause %+v\n%s", rc, dump(r))
	}
	for _, e := range rc.Evidence {
		if strings.HasPrefix(e.Label, "Image Updater logged at 2026-11-29 11:58:01Z") && strings.Contains(e.Value, "no cosign signature found") {
			return
		}
	}
	t.Fatalf("no log evidence in %+v", rc.Evidence)
}

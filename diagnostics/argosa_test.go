package diagnostics_test

import (
	"context"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// Argo CD's ServiceAccount for its repository Secrets: found from its
// application controller's workload (a StatefulSet or a Deployment, by
// either label), or told; one that does not exist is "not verified", never
// "forbidden"; an Application Synced from the repository shows Argo CD
// reads it; a source that could not be read is named in the headline with
// the step that would verify it.
func TestArgoCDControllerServiceAccount(t *testing.T) {
	t.Parallel() // its own labs
	const (
		sts      = "kind: StatefulSet\n"
		svcName  = "  serviceName: openshift-gitops-application-controller\n"
		labels   = "labels: {app.kubernetes.io/name: openshift-gitops-application-controller, app.kubernetes.io/component: application-controller, app.kubernetes.io/part-of: argocd}"
		saName   = "serviceAccountName: openshift-gitops-argocd-application-controller"
		otherSA  = "openshift-gitops-argocd-application-controller"
		synced   = "sync: {status: Synced, revision: abc123}"
		noSynced = "sync: {status: Unknown}"
	)
	// noWorkload removes the controller's StatefulSet (imgupd cannot find it).
	noWorkload := func(sc *lab.Scenario) {
		i := strings.Index(sc.Objects, "apiVersion: apps/v1\nkind: StatefulSet")
		j := strings.Index(sc.Objects[i:], "---\n")
		sc.Objects = sc.Objects[:i] + sc.Objects[i+j+4:]
	}
	type want struct {
		state   report.State
		codes   []report.Code // present
		absent  []report.Code
		inTitle string // the headline holds it
	}
	onItsWay := want{state: report.StateOnItsWay, codes: []report.Code{report.CodeSourceMappingChecked},
		absent: []report.Code{report.CodeSourceArgoSAUnknown, report.CodeSourceRepoSecretsDenied, report.CodeSourceArgoReadsRepo, report.CodeSourceNotReadable}}
	for _, tc := range []struct {
		name string
		edit func(*lab.Scenario)
		sa   string // --argocd-service-account
		want want
	}{
		{name: "StatefulSet, component label", want: onItsWay},
		{name: "Deployment, component label", edit: func(sc *lab.Scenario) {
			sc.Objects = strings.Replace(strings.Replace(sc.Objects, sts, "kind: Deployment\n", 1), svcName, "", 1)
		}, want: onItsWay},
		{name: "StatefulSet, name label, another ServiceAccount", edit: func(sc *lab.Scenario) {
			sc.Objects = strings.Replace(sc.Objects, labels, "labels: {app.kubernetes.io/name: argocd-application-controller}", 1)
			sc.Objects = strings.ReplaceAll(sc.Objects, otherSA, "argocd-controller-prod")
		}, want: onItsWay},
		{name: "told", edit: noWorkload, sa: otherSA, want: onItsWay},
		{name: "no workload, Synced", edit: noWorkload, want: want{state: report.StateOnItsWay,
			codes:  []report.Code{report.CodeSourceArgoReadsRepo, report.CodeSourceMappingChecked},
			absent: []report.Code{report.CodeSourceRepoSecretsDenied, report.CodeSourceArgoSAUnknown, report.CodeSourceNotReadable}}},
		{name: "told a ServiceAccount that does not exist, Synced", sa: "argocd-application-controller", want: want{state: report.StateOnItsWay,
			codes:  []report.Code{report.CodeSourceArgoReadsRepo, report.CodeSourceMappingChecked},
			absent: []report.Code{report.CodeSourceRepoSecretsDenied, report.CodeSourceArgoSAUnknown}}},
		{name: "no workload, not synced", edit: func(sc *lab.Scenario) {
			noWorkload(sc)
			sc.Objects = strings.Replace(sc.Objects, synced, noSynced, 1)
		}, want: want{state: report.StateOnItsWay,
			codes:   []report.Code{report.CodeSourceArgoSAUnknown},
			absent:  []report.Code{report.CodeSourceRepoSecretsDenied, report.CodeSourceArgoReadsRepo, report.CodeSourceMappingChecked},
			inTitle: "source not read, so the mapping is not verified (to verify: tell imgupd the ServiceAccount Argo CD's application controller runs as: --argocd-service-account"}},
		{name: "told an existing ServiceAccount that may not read them", edit: func(sc *lab.Scenario) {
			sc.Objects += "\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: viewer, namespace: argocd}\n"
		}, sa: "viewer", want: want{state: report.StateOnItsWay,
			codes:   []report.Code{report.CodeSourceRepoSecretsDenied},
			absent:  []report.Code{report.CodeSourceArgoSAUnknown, report.CodeSourceArgoReadsRepo, report.CodeSourceMappingChecked},
			inTitle: "source not read, so the mapping is not verified (to verify: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := start(t, "argocd-controller-other-serviceaccount", tc.edit)
			env.Engine().Options.ArgoCDServiceAccount = tc.sa
			r := env.Diagnose(context.Background())
			if r.State != tc.want.state {
				t.Errorf("state %s, want %s", r.State, tc.want.state)
			}
			for _, c := range tc.want.codes {
				if !r.HasCode(c) {
					t.Errorf("no %s", c)
				}
			}
			for _, c := range tc.want.absent {
				if r.HasCode(c) {
					t.Errorf("%s, which it should not be", c)
				}
			}
			if tc.want.inTitle != "" && !strings.Contains(r.Headline, tc.want.inTitle) {
				t.Errorf("the headline does not say the source was not read, with the step that verifies it: %q", r.Headline)
			}
			if tc.want.inTitle == "" && strings.Contains(r.Headline, "not verified") {
				t.Errorf("the headline says something is not verified: %q", r.Headline)
			}
			if t.Failed() {
				t.Log(dump(r))
			}
		})
	}
}

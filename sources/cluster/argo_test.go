package cluster

import (
	"context"
	"strings"
	"testing"
)

const appYAML = `
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web, namespace: argocd, labels: {team: shop}}
spec:
  project: shop
  destination: {server: "https://kubernetes.default.svc", namespace: shop}
  source:
    repoURL: https://github.com/acme/web.git
    path: chart
    targetRevision: main
    helm:
      parameters: [{name: image.tag, value: "1.2.3", forceString: true}]
status:
  sourceType: Helm
  sync: {status: Synced, revision: abc123}
  summary: {images: [ghcr.io/acme/web:1.2.3]}
`

// The stored form of a CR whose image-level block only set allowTags: the
// v1.3.0 API server wrote updateStrategy/forceUpdate into it (§10.10).
const crYAML = `
apiVersion: argocd-image-updater.argoproj.io/v1alpha1
kind: ImageUpdater
metadata:
  name: shop
  namespace: argocd
  finalizers: [resources-finalizer.argocd-image-updater.argoproj.io]
spec:
  commonUpdateSettings: {updateStrategy: newest-build, forceUpdate: false}
  applicationRefs:
  - namePattern: web*
    useAnnotations: false
    images:
    - alias: web
      imageName: ghcr.io/acme/web
      commonUpdateSettings: {allowTags: "regexp:^1\\.", updateStrategy: semver, forceUpdate: false}
      manifestTargets: {helm: {name: image.repository, tag: image.tag}}
status:
  applicationsMatched: 1
  imagesManaged: 1
  lastCheckedAt: "2026-11-29T21:00:00Z"
  conditions:
  - {type: Ready, status: "True", reason: ReconcileSucceeded, message: ok, lastTransitionTime: "2026-11-29T21:00:00Z"}
`

func TestArgoReads(t *testing.T) {
	ctx := context.Background()
	r := newTestReader(t, nil,
		obj(t, appYAML),
		obj(t, strings.ReplaceAll(appYAML, "namespace: argocd", "namespace: team-a")),
		obj(t, crYAML),
		obj(t, `{apiVersion: argoproj.io/v1alpha1, kind: AppProject, metadata: {name: shop, namespace: argocd},
  spec: {sourceRepos: ["*"], syncWindows: [{kind: deny, schedule: "0 22 * * *", duration: 8h, applications: ["*"], manualSync: true, timeZone: Europe/Berlin}]}}`),
		obj(t, `{apiVersion: argoproj.io/v1alpha1, kind: ApplicationSet, metadata: {name: api, namespace: argocd},
  spec: {goTemplate: true, syncPolicy: {applicationsSync: create-only}, ignoreApplicationDifferences: [{jsonPointers: [/spec/source/helm/parameters]}]}}`),
	)

	app, err := r.Application(ctx, "argocd", "web")
	if err != nil {
		t.Fatal(err)
	}
	if m := app.ToModel(); m.SourceType != "Helm" || len(m.Sources) != 1 || !m.Sources[0].HasHelm || m.LiveImages[0] != "ghcr.io/acme/web:1.2.3" {
		t.Errorf("model: %+v", m)
	}

	all, err := r.Applications(ctx, "")
	if err != nil || len(all) != 2 {
		t.Fatalf("all namespaces: %d, %v", len(all), err)
	}
	one, err := r.Applications(ctx, "team-a")
	if err != nil || len(one) != 1 || one[0].Namespace != "team-a" {
		t.Fatalf("team-a: %+v, %v", one, err)
	}

	p, err := r.AppProject(ctx, "argocd", "shop")
	if err != nil || len(p.Spec.SyncWindows) != 1 || !p.Spec.SyncWindows[0].ManualSync || p.Spec.SyncWindows[0].TimeZone != "Europe/Berlin" {
		t.Fatalf("project: %+v, %v", p, err)
	}

	sets, err := r.ApplicationSets(ctx, "")
	if err != nil || len(sets) != 1 || *sets[0].Spec.SyncPolicy.ApplicationsSync != "create-only" ||
		sets[0].Spec.IgnoreApplicationDifferences[0].JSONPointers[0] != "/spec/source/helm/parameters" {
		t.Fatalf("applicationsets: %+v, %v", sets, err)
	}

	crs, err := r.ImageUpdaters(ctx, "")
	if err != nil || len(crs) != 1 {
		t.Fatalf("imageupdaters: %v, %v", crs, err)
	}
	cr := crs[0]
	img := cr.Spec.ApplicationRefs[0].Images[0]
	cus := img.CommonUpdateSettings
	if cus == nil || cus.UpdateStrategy == nil || *cus.UpdateStrategy != "semver" || cus.ForceUpdate == nil || *cus.ForceUpdate ||
		*cus.AllowTags != `regexp:^1\.` || cus.IgnoreTags != nil {
		t.Fatalf("stored image settings: %+v", cus)
	}
	if ua := cr.Spec.ApplicationRefs[0].UseAnnotations; ua == nil || *ua {
		t.Errorf("useAnnotations: %v", ua)
	}
	if *img.ManifestTargets.Helm.Tag != "image.tag" || cr.Status.ApplicationsMatched != 1 || cr.Status.Conditions[0].Reason != "ReconcileSucceeded" ||
		cr.Status.LastCheckedAt == nil {
		t.Errorf("cr: %+v", cr)
	}
	if len(cr.Finalizers) != 1 || cr.Key() != "argocd/shop" {
		t.Errorf("metadata: %+v", cr.ObjectMeta)
	}
}

func TestArgoAccessErrors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name              string
		verb, res         string
		call              func(r testReader) error
		group, rule       string
		forbidden, absent bool
	}{
		{name: "application not found", call: func(r testReader) error { _, err := r.Application(ctx, "argocd", "nope"); return err },
			group: "argoproj.io", absent: true},
		{name: "imageupdaters get forbidden", verb: "list", res: "imageupdaters", group: "argocd-image-updater.argoproj.io", forbidden: true,
			call: func(r testReader) error { _, err := r.ImageUpdaters(ctx, "argocd"); return err },
			rule: `{apiGroups: ["argocd-image-updater.argoproj.io"], resources: ["imageupdaters"], verbs: ["list"]} in namespace argocd`},
		{name: "application get forbidden", verb: "get", res: "applications", group: "argoproj.io", forbidden: true,
			call: func(r testReader) error { _, err := r.Application(ctx, "argocd", "web"); return err },
			rule: `{apiGroups: ["argoproj.io"], resources: ["applications"], verbs: ["get"]} in namespace argocd`},
		{name: "applications list all namespaces forbidden", verb: "list", res: "applications", group: "argoproj.io", forbidden: true,
			call: func(r testReader) error { _, err := r.Applications(ctx, ""); return err },
			rule: `{apiGroups: ["argoproj.io"], resources: ["applications"], verbs: ["list"]} cluster-wide (ClusterRole)`},
		{name: "appproject forbidden", verb: "get", res: "appprojects", group: "argoproj.io", forbidden: true,
			call: func(r testReader) error { _, err := r.AppProject(ctx, "argocd", "default"); return err },
			rule: `{apiGroups: ["argoproj.io"], resources: ["appprojects"], verbs: ["get"]} in namespace argocd`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTestReader(t, nil, obj(t, appYAML))
			if tt.verb != "" {
				forbid(r.dyn, tt.verb, tt.group, tt.res)
			}
			ae := asAccess(t, tt.call(r))
			if ae.Forbidden != tt.forbidden || ae.NotFound != tt.absent || ae.Group != tt.group {
				t.Errorf("flags: %+v", ae)
			}
			if tt.rule != "" && ae.Rule() != tt.rule {
				t.Errorf("Rule() = %s\nwant     %s", ae.Rule(), tt.rule)
			}
			if tt.forbidden && !strings.Contains(ae.Error(), "."+tt.group) {
				t.Errorf("error should name the group: %v", ae)
			}
		})
	}
}

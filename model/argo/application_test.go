package argo

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/model/updater"
)

// loadApps decodes testdata/applications.yaml twice: directly with
// sigs.k8s.io/yaml and through unstructured, as the dynamic client delivers
// them. Both must agree.
func loadApps(t *testing.T) map[string]*Application {
	t.Helper()
	raw, err := os.ReadFile("testdata/applications.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*Application{}
	for _, doc := range bytes.Split(raw, []byte("\n---\n")) {
		var direct Application
		if err := yaml.Unmarshal(doc, &direct); err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			t.Fatal(err)
		}
		var viaU Application
		if err := FromUnstructured(&unstructured.Unstructured{Object: obj}, &viaU); err != nil {
			t.Fatalf("FromUnstructured: %v", err)
		}
		dj, _ := json.Marshal(direct)
		uj, _ := json.Marshal(viaU)
		if !bytes.Equal(dj, uj) {
			t.Fatalf("%s: yaml and unstructured decoding differ:\n%s\n%s", direct.Name, dj, uj)
		}
		out[direct.Name] = &viaU
	}
	return out
}

func TestApplicationDecode(t *testing.T) {
	apps := loadApps(t)
	web := apps["web"]
	if web == nil || len(apps) != 3 {
		t.Fatalf("apps: %v", apps)
	}
	if !web.HasMultipleSources() || len(web.Spec.Sources) != 2 {
		t.Fatalf("sources: %+v", web.Spec.Sources)
	}
	h := web.Spec.Sources[0].Helm
	if h == nil || len(h.Parameters) != 2 || !h.Parameters[1].ForceString || h.Parameters[1].Value != "1.2.3" {
		t.Fatalf("helm: %+v", h)
	}
	if v, ok := web.Spec.Sources[0].HelmParameter("image.repository"); !ok || v != "ghcr.io/acme/web" {
		t.Errorf("HelmParameter = %q, %v", v, ok)
	}
	var vo map[string]any
	if err := json.Unmarshal(h.ValuesObject, &vo); err != nil || vo["image"] == nil {
		t.Errorf("valuesObject %s: %v", h.ValuesObject, err)
	}
	if !strings.Contains(h.Values, "replicas: 2") || h.ValueFiles[0] != "$values/web/values-prod.yaml" {
		t.Errorf("values: %q %v", h.Values, h.ValueFiles)
	}
	if web.Spec.Sources[1].Ref != "values" {
		t.Errorf("ref: %q", web.Spec.Sources[1].Ref)
	}
	st := web.Status
	if st.Sync.Status != "OutOfSync" || len(st.Sync.Revisions) != 2 || st.Health.Status != "Degraded" {
		t.Errorf("sync/health: %+v %+v", st.Sync, st.Health)
	}
	if op := st.OperationState; op == nil || op.Phase != "Failed" || op.SyncResult == nil || op.SyncResult.Revision != "1.4.2" ||
		op.FinishedAt == nil || op.StartedAt.IsZero() {
		t.Errorf("operationState: %+v", op)
	}
	if len(st.Conditions) != 1 || st.Conditions[0].Type != "SyncError" || st.ReconciledAt == nil {
		t.Errorf("conditions: %+v", st.Conditions)
	}
	if len(st.History) != 1 || st.History[0].ID != 7 || st.History[0].DeployedAt.IsZero() {
		t.Errorf("history: %+v", st.History)
	}
	if web.Spec.SyncPolicy.SyncOptions[1] != "ServerSideApply=true" || !web.Spec.SyncPolicy.Automated.SelfHeal {
		t.Errorf("syncPolicy: %+v", web.Spec.SyncPolicy)
	}

	api := apps["api-eu"]
	if api.Spec.Source == nil || api.Spec.Source.Kustomize == nil || api.Spec.Source.Kustomize.NamePrefix != "eu-" ||
		api.Spec.Destination.Name != "eu-1" {
		t.Errorf("api source: %+v", api.Spec)
	}
	hyd := apps["hydrated"].Spec.SourceHydrator
	if hyd == nil || hyd.DrySource.Helm == nil || hyd.SyncSource.TargetBranch != "env/prod" || hyd.HydrateTo.TargetBranch != "env/prod-next" {
		t.Errorf("hydrator: %+v", hyd)
	}
}

func TestAutomatedSync(t *testing.T) {
	apps := loadApps(t)
	for name, want := range map[string]bool{"web": true, "api-eu": false, "hydrated": true} {
		if got := apps[name].AutomatedSync(); got != want {
			t.Errorf("%s: AutomatedSync = %v, want %v", name, got, want)
		}
	}
	if (&Application{}).AutomatedSync() {
		t.Error("no syncPolicy must be manual")
	}
}

func TestToModel(t *testing.T) {
	apps := loadApps(t)
	tests := []struct {
		name string
		want updater.Application
	}{
		{"web", updater.Application{
			Name: "web", Namespace: "argocd",
			Labels: map[string]string{"team": "shop", "app.kubernetes.io/instance": "root"},
			Annotations: map[string]string{
				"argocd.argoproj.io/tracking-id":              "root:argoproj.io/Application:argocd/web",
				"argocd-image-updater.argoproj.io/image-list": "web=ghcr.io/acme/web",
			},
			SourceTypes: []string{"Helm", "Directory"},
			MultiSource: true,
			Sources: []updater.AppSource{
				{RepoURL: "https://charts.acme.io", Chart: "web", TargetRevision: "1.4.2", HasHelm: true},
				{RepoURL: "https://github.com/acme/deploy.git", TargetRevision: "main"},
			},
			LiveImages: []string{"ghcr.io/acme/web:1.2.3", "docker.io/library/redis:7.2"},
		}},
		{"api-eu", updater.Application{
			Name: "api-eu", Namespace: "team-a", SourceType: "Kustomize",
			Sources:    []updater.AppSource{{RepoURL: "https://github.com/acme/api.git", Path: "deploy/overlays/eu", TargetRevision: "HEAD", HasKustomize: true}},
			LiveImages: []string{"ghcr.io/acme/api:2.0.0"},
		}},
		{"hydrated", updater.Application{
			Name: "hydrated", Namespace: "argocd", SourceType: "Directory",
			Labels:   map[string]string{"app.kubernetes.io/instance": "platform_apps"},
			Hydrator: &updater.DrySource{RepoURL: "https://github.com/acme/dry.git", Path: "apps/hydrated", TargetRevision: "main", HasHelm: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := apps[tt.name].ToModel()
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ToModel:\n got %+v\nwant %+v", got, tt.want)
			}
			if got.Labels == nil {
				return
			}
			got.Labels["x"] = "y"
			if _, leaked := apps[tt.name].Labels["x"]; leaked {
				t.Error("ToModel shares the labels map")
			}
		})
	}
	// The model picks the Helm source of the multi-source app for write-back.
	if src, ok := apps["web"].ToModel().EditedSource(updater.AppSourceHelm); !ok || src.Chart != "web" {
		t.Errorf("EditedSource = %+v, %v", src, ok)
	}
}

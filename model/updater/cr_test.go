package updater

import (
	"testing"

	"sigs.k8s.io/yaml"
)

// trapCR is the §10.10 setup: a CR-wide newest-build and an image-level
// block that only sets allowTags.
const trapCR = `
apiVersion: argocd-image-updater.argoproj.io/v1alpha1
kind: ImageUpdater
metadata:
  name: web
  namespace: argocd
spec:
  commonUpdateSettings:
    updateStrategy: newest-build
  applicationRefs:
  - namePattern: "web-*"
    images:
    - alias: web
      imageName: ghcr.io/acme/web:1.x
      commonUpdateSettings:
        allowTags: "regexp:^1\\."
    - alias: sidecar
      imageName: ghcr.io/acme/sidecar
`

func loadCR(t *testing.T, doc string) ImageUpdater {
	t.Helper()
	var cr ImageUpdater
	if err := yaml.Unmarshal([]byte(doc), &cr); err != nil {
		t.Fatalf("unmarshal CR: %v", err)
	}
	return cr
}

func TestCRUnmarshalKeepsUnsetVersusEmpty(t *testing.T) {
	cr := loadCR(t, `
metadata: {name: x, namespace: argocd}
spec:
  commonUpdateSettings:
    ignoreTags: []
    forceUpdate: false
  applicationRefs:
  - namePattern: a
    images:
    - alias: a
      imageName: nginx
`)
	c := cr.Spec.CommonUpdateSettings
	if c == nil || c.IgnoreTags == nil || len(c.IgnoreTags) != 0 {
		t.Fatalf("ignoreTags: [] must be a non-nil empty list, got %#v", c)
	}
	if c.ForceUpdate == nil || *c.ForceUpdate {
		t.Fatalf("forceUpdate: false must be set to false, got %v", c.ForceUpdate)
	}
	if c.UpdateStrategy != nil || c.Platforms != nil {
		t.Fatalf("unset fields must stay nil: %#v", c)
	}
	if cr.Key() != "argocd/x" {
		t.Fatalf("Key = %q", cr.Key())
	}
}

func TestApplyCRDDefaults(t *testing.T) {
	const doc = `
metadata: {name: x, namespace: argocd}
spec:
  commonUpdateSettings:
    allowTags: any
  imagesVerification:
    cosignKey: {secretName: cosign, key: cosign.pub}
  writeBackConfig:
    method: git
    gitConfig:
      pullRequest:
        github: {}
        labels: [a]
  applicationRefs:
  - namePattern: a
    useAnnotations: true
  - namePattern: b
    images:
    - alias: web
      imageName: nginx
      commonUpdateSettings: {}
      manifestTargets:
        plugin: {name: IMAGE}
`
	tests := []struct {
		v                Version
		wantStrategy     bool
		wantUseAnnNil    bool
		wantVerifNil     bool
		wantPluginNil    bool
		wantPRNil        bool
		wantLabelsPruned bool
	}{
		{v: V1_0, wantStrategy: true, wantUseAnnNil: true, wantVerifNil: true, wantPluginNil: true, wantPRNil: true},
		{v: V1_1, wantStrategy: true, wantVerifNil: true, wantPluginNil: true, wantPRNil: true},
		{v: V1_2, wantStrategy: true, wantVerifNil: true, wantPluginNil: true, wantLabelsPruned: true},
		{v: V1_3, wantStrategy: true, wantLabelsPruned: true},
		{v: Version{Major: 1, Minor: 3, Head: true}},
	}
	for _, tc := range tests {
		t.Run(tc.v.String(), func(t *testing.T) {
			cr := loadCR(t, doc)
			ApplyCRDDefaults(&cr, tc.v)
			img := cr.Spec.ApplicationRefs[1].Images[0]
			gotStrategy := img.CommonUpdateSettings.UpdateStrategy != nil && *img.CommonUpdateSettings.UpdateStrategy == "semver" &&
				cr.Spec.CommonUpdateSettings.UpdateStrategy != nil &&
				img.CommonUpdateSettings.ForceUpdate != nil && !*img.CommonUpdateSettings.ForceUpdate
			if gotStrategy != tc.wantStrategy {
				t.Errorf("strategy defaulted = %v, want %v", gotStrategy, tc.wantStrategy)
			}
			if cr.Spec.ApplicationRefs[1].CommonUpdateSettings != nil {
				t.Errorf("absent blocks must stay absent")
			}
			if got := cr.Spec.ApplicationRefs[0].UseAnnotations == nil; got != tc.wantUseAnnNil {
				t.Errorf("useAnnotations nil = %v, want %v", got, tc.wantUseAnnNil)
			}
			if !tc.wantUseAnnNil && (cr.Spec.ApplicationRefs[1].UseAnnotations == nil || *cr.Spec.ApplicationRefs[1].UseAnnotations) {
				t.Errorf("useAnnotations must default to false")
			}
			if got := cr.Spec.ImagesVerification == nil; got != tc.wantVerifNil {
				t.Errorf("imagesVerification nil = %v, want %v", got, tc.wantVerifNil)
			}
			if !tc.wantVerifNil && !cr.Spec.ImagesVerification.IsEnabled() {
				t.Errorf("imagesVerification.enabled must default to true")
			}
			if got := img.ManifestTargets.Plugin == nil; got != tc.wantPluginNil {
				t.Errorf("plugin nil = %v, want %v", got, tc.wantPluginNil)
			}
			pr := cr.Spec.WriteBackConfig.GitConfig.PullRequest
			if got := pr == nil; got != tc.wantPRNil {
				t.Fatalf("pullRequest nil = %v, want %v", got, tc.wantPRNil)
			}
			if pr != nil && (pr.Labels == nil) != tc.wantLabelsPruned {
				t.Errorf("labels pruned = %v, want %v", pr.Labels == nil, tc.wantLabelsPruned)
			}
		})
	}
	t.Run("v0 and nil are no-ops", func(t *testing.T) {
		cr := loadCR(t, doc)
		ApplyCRDDefaults(&cr, V0_18)
		if cr.Spec.ApplicationRefs[1].Images[0].CommonUpdateSettings.UpdateStrategy != nil {
			t.Fatal("v0 has no CRD")
		}
		ApplyCRDDefaults(nil, V1_3)
	})
}

func TestDefaultedOverridesTrap(t *testing.T) {
	for _, v := range []Version{V1_0, V1_1, V1_2, V1_3} {
		t.Run(v.Short(), func(t *testing.T) {
			cr := loadCR(t, trapCR)
			ApplyCRDDefaults(&cr, v)
			ref := cr.Spec.ApplicationRefs[0]
			us, src := EffectiveUpdateSettings(
				SettingsLayer{Source: SettingFromCR, Settings: cr.Spec.CommonUpdateSettings},
				SettingsLayer{Source: SettingFromRef, Settings: ref.CommonUpdateSettings},
				SettingsLayer{Source: SettingFromImage, Settings: ref.Images[0].CommonUpdateSettings})
			if us.Strategy != StrategySemver || src[FieldUpdateStrategy] != SettingFromImage {
				t.Fatalf("web: strategy %v from %s, want semver from image (the trap)", us.Strategy, src[FieldUpdateStrategy])
			}
			side, sideSrc := EffectiveUpdateSettings(
				SettingsLayer{Source: SettingFromCR, Settings: cr.Spec.CommonUpdateSettings},
				SettingsLayer{Source: SettingFromImage, Settings: ref.Images[1].CommonUpdateSettings})
			if side.Strategy != StrategyNewestBuild || sideSrc[FieldUpdateStrategy] != SettingFromCR {
				t.Fatalf("sidecar without block must inherit newest-build, got %v from %s", side.Strategy, sideSrc[FieldUpdateStrategy])
			}
			ds := DefaultedOverrides(cr, v)
			if len(ds) != 1 {
				t.Fatalf("DefaultedOverrides = %+v, want exactly the web image", ds)
			}
			d := ds[0]
			if d.Alias != "web" || d.Field != FieldUpdateStrategy || d.Inherited != "newest-build" || d.InheritedFrom != SettingFromCR || d.Level != SettingFromImage {
				t.Fatalf("unexpected override %+v", d)
			}
			if d.Message() == "" {
				t.Fatal("empty message")
			}
		})
	}
	t.Run("user manifest without defaults is not flagged", func(t *testing.T) {
		cr := loadCR(t, trapCR)
		if ds := DefaultedOverrides(cr, V1_3); len(ds) != 0 {
			t.Fatalf("got %+v", ds)
		}
	})
	t.Run("forceUpdate false under true", func(t *testing.T) {
		cr := loadCR(t, `
metadata: {name: x, namespace: argocd}
spec:
  commonUpdateSettings: {forceUpdate: true, updateStrategy: semver}
  applicationRefs:
  - namePattern: a
    commonUpdateSettings: {allowTags: any}
`)
		ApplyCRDDefaults(&cr, V1_2)
		ds := DefaultedOverrides(cr, V1_2)
		if len(ds) != 1 || ds[0].Field != FieldForceUpdate || ds[0].Level != SettingFromRef {
			t.Fatalf("got %+v", ds)
		}
	})
	t.Run("useAnnotations refs are skipped; v0 returns nothing", func(t *testing.T) {
		cr := loadCR(t, trapCR)
		ApplyCRDDefaults(&cr, V1_3)
		tr := true
		cr.Spec.ApplicationRefs[0].UseAnnotations = &tr
		if ds := DefaultedOverrides(cr, V1_3); len(ds) != 0 {
			t.Fatalf("got %+v", ds)
		}
		if ds := DefaultedOverrides(cr, V0_18); ds != nil {
			t.Fatalf("got %+v", ds)
		}
	})
}

func TestImagesVerificationIsEnabled(t *testing.T) {
	f, tr := false, true
	tests := []struct {
		name string
		iv   *ImagesVerification
		want bool
	}{
		{"nil", nil, false},
		{"block without enabled", &ImagesVerification{}, true},
		{"enabled true", &ImagesVerification{Enabled: &tr}, true},
		{"enabled false", &ImagesVerification{Enabled: &f}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.iv.IsEnabled(); got != tc.want {
				t.Fatalf("got %v", got)
			}
		})
	}
}

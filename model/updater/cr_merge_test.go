package updater

import (
	"errors"
	"reflect"
	"testing"
)

func cfgStr(s string) *string { return &s }
func cfgBool(b bool) *bool    { return &b }

func TestMergeCommonUpdateSettings(t *testing.T) {
	cr := &CommonUpdateSettings{UpdateStrategy: cfgStr("newest-build"), IgnoreTags: []string{"latest", "*-rc*"}, Platforms: []string{"linux/amd64"}, PullSecret: cfgStr("pullsecret:argocd/hub")}
	ref := &CommonUpdateSettings{AllowTags: cfgStr("regexp:^v"), IgnoreTags: []string{"dev"}}
	img := &CommonUpdateSettings{ForceUpdate: cfgBool(true), Platforms: []string{}}
	tests := []struct {
		name    string
		layers  []SettingsLayer
		want    UpdateSettings
		wantSrc map[string]SettingSource
	}{
		{
			name: "nothing set gives defaults",
			want: UpdateSettings{Strategy: StrategySemver},
			wantSrc: map[string]SettingSource{FieldUpdateStrategy: SettingFromDefault, FieldForceUpdate: SettingFromDefault, FieldAllowTags: SettingFromDefault,
				FieldIgnoreTags: SettingFromDefault, FieldPullSecret: SettingFromDefault, FieldPlatforms: SettingFromDefault},
		},
		{
			name: "last non-nil wins per field, lists replaced, empty list overrides",
			layers: []SettingsLayer{
				{Source: SettingFromCR, Settings: cr},
				{Source: SettingFromRef, Settings: ref},
				{Source: SettingFromImage, Settings: nil},
				{Source: SettingFromImage, Settings: img},
			},
			want: UpdateSettings{Strategy: StrategyNewestBuild, StrategyRaw: "newest-build", ForceUpdate: true, AllowTags: ParseAllowTags("regexp:^v"),
				IgnoreTags: []string{"dev"}, PullSecret: "pullsecret:argocd/hub", Platforms: []string{}},
			wantSrc: map[string]SettingSource{FieldUpdateStrategy: SettingFromCR, FieldForceUpdate: SettingFromImage, FieldAllowTags: SettingFromRef,
				FieldIgnoreTags: SettingFromRef, FieldPullSecret: SettingFromCR, FieldPlatforms: SettingFromImage},
		},
		{
			name: "field sources name annotation keys",
			layers: []SettingsLayer{{Source: SettingFromDefault, FieldSources: map[string]SettingSource{FieldUpdateStrategy: SettingFromAnnotation("k")},
				Settings: &CommonUpdateSettings{UpdateStrategy: cfgStr("digest")}}},
			want: UpdateSettings{Strategy: StrategyDigest, StrategyRaw: "digest"},
			wantSrc: map[string]SettingSource{FieldUpdateStrategy: "annotation:k", FieldForceUpdate: SettingFromDefault, FieldAllowTags: SettingFromDefault,
				FieldIgnoreTags: SettingFromDefault, FieldPullSecret: SettingFromDefault, FieldPlatforms: SettingFromDefault},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, src := EffectiveUpdateSettings(tc.layers...)
			// AllowTags holds a compiled regexp; compare its raw form.
			if got.AllowTags.Raw != tc.want.AllowTags.Raw || got.AllowTags.Kind != tc.want.AllowTags.Kind {
				t.Errorf("allowTags %+v, want %+v", got.AllowTags, tc.want.AllowTags)
			}
			got.AllowTags, tc.want.AllowTags = AllowTags{}, AllowTags{}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("settings\n got %#v\nwant %#v", got, tc.want)
			}
			if !reflect.DeepEqual(src, tc.wantSrc) {
				t.Errorf("sources\n got %v\nwant %v", src, tc.wantSrc)
			}
		})
	}
}

func TestToUpdateSettingsNotes(t *testing.T) {
	tests := []struct {
		name      string
		blk       CommonUpdateSettings
		strategy  Strategy
		wantNotes int
	}{
		{"deprecated latest", CommonUpdateSettings{UpdateStrategy: cfgStr("latest")}, StrategyNewestBuild, 1},
		{"deprecated name", CommonUpdateSettings{UpdateStrategy: cfgStr("name")}, StrategyAlphabetical, 1},
		{"unknown strategy falls back to semver", CommonUpdateSettings{UpdateStrategy: cfgStr("newest")}, StrategySemver, 1},
		{"case-insensitive", CommonUpdateSettings{UpdateStrategy: cfgStr("Digest")}, StrategyDigest, 0},
		{"invalid allow-tags", CommonUpdateSettings{AllowTags: cfgStr("^v1")}, StrategySemver, 1},
		{"ignore everything", CommonUpdateSettings{IgnoreTags: []string{"*"}}, StrategySemver, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			us := tc.blk.ToUpdateSettings()
			if us.Strategy != tc.strategy || len(us.Notes) != tc.wantNotes {
				t.Fatalf("got %v notes %q", us.Strategy, us.Notes)
			}
		})
	}
}

func TestMergeWriteBackConfig(t *testing.T) {
	global := &WriteBackConfig{Method: cfgStr("git"), GitConfig: &GitConfig{Repository: cfgStr("https://git/a.git"), Branch: cfgStr("main"),
		PullRequest: &PullRequestConfig{GitHub: &PRProviderConfig{}, Labels: []string{"x"}}}}
	ref := &WriteBackConfig{GitConfig: &GitConfig{Branch: cfgStr("main:upd-{{.SHA256}}"), WriteBackTarget: cfgStr("helmvalues"),
		PullRequest: &PullRequestConfig{GitLab: &PRProviderConfig{}}}}
	t.Run("both nil gives an empty block", func(t *testing.T) {
		got, src := MergeWriteBackConfig(nil, nil)
		if got == nil || got.Method != nil || got.GitConfig != nil || len(src) != 0 {
			t.Fatalf("got %+v %v", got, src)
		}
	})
	t.Run("ref overrides field by field, pullRequest as a whole", func(t *testing.T) {
		got, src := MergeWriteBackConfig(global, ref)
		g := got.GitConfig
		if *got.Method != "git" || *g.Repository != "https://git/a.git" || *g.Branch != "main:upd-{{.SHA256}}" || *g.WriteBackTarget != "helmvalues" {
			t.Fatalf("got %+v", g)
		}
		if g.PullRequest.GitHub != nil || g.PullRequest.GitLab == nil || g.PullRequest.Labels != nil {
			t.Fatalf("pullRequest must be replaced whole, got %+v", g.PullRequest)
		}
		want := map[string]SettingSource{"method": SettingFromCR, "repository": SettingFromCR, "branch": SettingFromRef, "writeBackTarget": SettingFromRef, "pullRequest": SettingFromRef}
		if !reflect.DeepEqual(src, want) {
			t.Fatalf("sources %v", src)
		}
		if *global.GitConfig.Branch != "main" || global.GitConfig.PullRequest.GitHub == nil {
			t.Fatal("global block was modified")
		}
	})
}

func TestMergeAndValidateImagesVerification(t *testing.T) {
	key := &CosignKeyRef{SecretName: "cosign", Key: "cosign.pub"}
	crIV := &ImagesVerification{CosignKey: key}
	refIV := &ImagesVerification{Enabled: cfgBool(false)}
	imgIV := &ImagesVerification{Enabled: cfgBool(true)}
	tests := []struct {
		name    string
		v       Version
		cr, ref *ImagesVerification
		img     *ImagesVerification
		want    *ImagesVerification
		from    SettingSource
		wantErr bool
	}{
		{"none", V1_3, nil, nil, nil, nil, SettingFromDefault, false},
		{"cr level", V1_3, crIV, nil, nil, crIV, SettingFromCR, false},
		{"ref disables", V1_3, crIV, refIV, nil, &ImagesVerification{Enabled: cfgBool(false), CosignKey: key}, SettingFromCR, false},
		// mergeImagesVerification merges field by field: the image's
		// enabled: true re-enables with the CR's key.
		{"image re-enables with the cr key", V1_3, crIV, refIV, imgIV, &ImagesVerification{Enabled: cfgBool(true), CosignKey: key}, SettingFromCR, false},
		{"image enabled without any key", V1_3, nil, refIV, imgIV, &ImagesVerification{Enabled: cfgBool(true)}, SettingFromImage, true},
		{"ignored before v1.3", V1_2, crIV, refIV, imgIV, nil, SettingFromDefault, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, from := MergeImagesVerification(tc.v, tc.cr, tc.ref, tc.img)
			if !reflect.DeepEqual(got, tc.want) || from != tc.from {
				t.Fatalf("got %+v from %s", got, from)
			}
			err := ValidateImagesVerification(got, from)
			var ve *VerificationError
			if (err != nil) != tc.wantErr || (err != nil && !errors.As(err, &ve)) {
				t.Fatalf("err = %v", err)
			}
		})
	}
	if err := ValidateImagesVerification(&ImagesVerification{CosignKey: &CosignKeyRef{SecretName: "x"}}, SettingFromCR); err == nil {
		t.Fatal("cosignKey without key must fail")
	}
}

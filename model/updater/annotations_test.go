package updater

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

const annPfx = AnnotationPrefix

func annApp(ann map[string]string) Application {
	return Application{Name: "web", Namespace: "argocd", Annotations: ann, SourceType: AppSourceHelm,
		Sources: []AppSource{{RepoURL: "https://git.example.com/org/repo.git", Path: "charts/web", TargetRevision: "main", HasHelm: true}}}
}

func TestParseImageList(t *testing.T) {
	type img struct{ alias, name, tag string }
	tests := []struct {
		name    string
		in      string
		v       Version
		want    []img
		wantErr bool
	}{
		{"v1 alias and trim", " web = ghcr.io/acme/web:~1.2 , nginx:1.27 ", V1_3, []img{{"web", "acme/web", "~1.2"}, {"", "nginx", "1.27"}}, false},
		{"v1 skips empty items", "a=nginx,, ,b=redis", V1_0, []img{{"a", "nginx", ""}, {"b", "redis", ""}}, false},
		{"v1 empty alias means none", "=nginx", V1_2, []img{{"", "nginx", ""}}, false},
		{"v1 alias on first =", "a=b=c", V1_3, []img{{"a", "b=c", ""}}, false},
		{"v1 empty image name", "web=", V1_3, nil, true},
		{"v1 empty list", " , ,", V1_1, nil, true},
		{"v1 empty string", "", V1_1, nil, true},
		{"v0 keeps empty items", "a=nginx,,", V0_18, []img{{"a", "nginx", ""}, {"", "", ""}, {"", "", ""}}, false},
		{"v0 never fails on empty", "", V0_18, []img{{"", "", ""}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseImageList(tc.in, tc.v)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v", err)
			}
			if err != nil {
				var ae *AnnotationError
				if !errors.As(err, &ae) || ae.Key != AnnotationImageList || ae.Code != ProblemImageListEmpty {
					t.Fatalf("want *AnnotationError for image-list, got %#v", err)
				}
				return
			}
			var gi []img
			for _, r := range got {
				gi = append(gi, img{r.Alias, r.Name, r.Tag})
			}
			if !reflect.DeepEqual(gi, tc.want) {
				t.Fatalf("got %v, want %v", gi, tc.want)
			}
		})
	}
}

func TestParseAnnotationsEveryKeyV1(t *testing.T) {
	ann := map[string]string{
		annPfx + "image-list":                "web=ghcr.io/acme/web:1.x, side=nginx, redis",
		annPfx + "update-strategy":           "newest-build",
		annPfx + "allow-tags":                "regexp:^1",
		annPfx + "ignore-tags":               "latest",
		annPfx + "force-update":              "false",
		annPfx + "pull-secret":               "pullsecret:argocd/app",
		annPfx + "web.update-strategy":       " digest ",
		annPfx + "web.allow-tags":            "regexp:^1\\.2",
		annPfx + "web.ignore-tags":           "a, ,b",
		annPfx + "web.force-update":          "True",
		annPfx + "web.pull-secret":           "env:CREDS",
		annPfx + "web.platforms":             "linux/amd64, ,linux/arm64",
		annPfx + "web.helm.image-name":       "web.repo",
		annPfx + "web.helm.image-tag":        "web.tag",
		annPfx + "web.helm.image-spec":       "",
		annPfx + "side.kustomize.image-name": "docker.io/library/nginx",
		annPfx + "side.update-strategy":      "   ",
		annPfx + "write-back-method":         "git:secret:argocd/git-creds",
		annPfx + "git-branch":                "main:image-updater-{{.SHA256}}",
		annPfx + "write-back-target":         "helmvalues:values-prod.yaml",
		annPfx + "git-repository":            "https://git.example.com/org/other.git",
	}
	cfg, err := ParseAnnotations(annApp(ann), V1_3)
	if err != nil {
		t.Fatalf("err = %v", err)
	}
	if len(cfg.Images) != 3 {
		t.Fatalf("images = %d", len(cfg.Images))
	}
	web, side, plain := cfg.Images[0], cfg.Images[1], cfg.Images[2]
	t.Run("per-alias overrides app-wide field by field", func(t *testing.T) {
		s := web.Settings
		if s.Strategy != StrategyDigest || !s.ForceUpdate || s.AllowTags.Raw != `regexp:^1\.2` || s.PullSecret != "env:CREDS" {
			t.Fatalf("web settings %+v", s)
		}
		if !reflect.DeepEqual(s.IgnoreTags, []string{"a", "", "b"}) {
			t.Fatalf("v1 keeps empty ignore-tags items, got %q", s.IgnoreTags)
		}
		if !reflect.DeepEqual(s.Platforms, []string{"linux/amd64", "linux/arm64"}) {
			t.Fatalf("platforms %q", s.Platforms)
		}
		if web.Sources[FieldUpdateStrategy] != SettingFromAnnotation(annPfx+"web.update-strategy") {
			t.Fatalf("source %s", web.Sources[FieldUpdateStrategy])
		}
		if web.Target != (ManifestTarget{Kind: TargetKindHelm, Name: "web.repo", Tag: "web.tag"}) {
			t.Fatalf("target %+v", web.Target)
		}
	})
	t.Run("blank per-alias value inherits app-wide", func(t *testing.T) {
		if side.Settings.Strategy != StrategyNewestBuild || side.Sources[FieldUpdateStrategy] != SettingFromAnnotation(annPfx+"update-strategy") {
			t.Fatalf("side %+v from %s", side.Settings, side.Sources[FieldUpdateStrategy])
		}
		if side.Target != (ManifestTarget{Kind: TargetKindKustomize, Name: "docker.io/library/nginx"}) {
			t.Fatalf("target %+v", side.Target)
		}
		if side.Settings.Platforms != nil {
			t.Fatalf("platforms has no app-wide key: %q", side.Settings.Platforms)
		}
	})
	t.Run("item without alias gets app-wide only", func(t *testing.T) {
		if plain.Alias != "" || plain.Settings.Strategy != StrategyNewestBuild || plain.Settings.PullSecret != "pullsecret:argocd/app" || plain.Target.Kind != "" {
			t.Fatalf("plain %+v", plain)
		}
		if !hasProblemCode(cfg.Problems, ProblemImageWithoutAlias) {
			t.Fatalf("want %s in %v", ProblemImageWithoutAlias, cfg.Problems)
		}
	})
	t.Run("write-back annotations", func(t *testing.T) {
		w := cfg.WriteBack
		if w == nil || *w.Method != "git:secret:argocd/git-creds" || *w.GitConfig.Branch != "main:image-updater-{{.SHA256}}" ||
			*w.GitConfig.WriteBackTarget != "helmvalues:values-prod.yaml" || *w.GitConfig.Repository != "https://git.example.com/org/other.git" {
			t.Fatalf("write-back %+v", w)
		}
		if cfg.WriteBackSources["branch"] != SettingFromAnnotation(AnnotationGitBranch) {
			t.Fatalf("sources %v", cfg.WriteBackSources)
		}
	})
	t.Run("no lint findings for valid keys", func(t *testing.T) {
		for _, p := range cfg.Problems {
			if p.Code == ProblemUnknownAnnotationKey || p.Code == ProblemAnnotationForUnknownAlias {
				t.Fatalf("unexpected %v", p)
			}
		}
	})
}

func TestParseAnnotationsV0(t *testing.T) {
	ann := map[string]string{
		annPfx + "image-list":               "a/b=ghcr.io/acme/web:1.x,other=nginx",
		annPfx + "a_b.update-strategy":      "",
		annPfx + "update-strategy":          "newest-build",
		annPfx + "a_b.tag-match":            "regexp:^1",
		annPfx + "ignore-tags":              " x, ,y ",
		annPfx + "a_b.platforms":            "linux/amd64,",
		annPfx + "a_b.helm.image-spec":      " image.full ",
		annPfx + "a_b.helm.image-name":      "ignored.name",
		annPfx + "a_b.kustomize.image-name": "web",
		annPfx + "other.force-update":       "True",
		annPfx + "force-update":             "true",
	}
	cfg, err := ParseAnnotations(annApp(ann), V0_18)
	if err != nil {
		t.Fatalf("err = %v", err)
	}
	ab, other := cfg.Images[0], cfg.Images[1]
	t.Run("first present key wins even if empty", func(t *testing.T) {
		if ab.Settings.Strategy != StrategySemver || ab.Settings.StrategyRaw != "" {
			t.Fatalf("a/b strategy %v %q: the empty per-alias key hides the app-wide one in v0", ab.Settings.Strategy, ab.Settings.StrategyRaw)
		}
		if other.Settings.Strategy != StrategyNewestBuild {
			t.Fatalf("other strategy %v", other.Settings.Strategy)
		}
	})
	t.Run("tag-match is read by v0", func(t *testing.T) {
		if ab.Settings.AllowTags.Raw != "regexp:^1" || ab.Sources[FieldAllowTags] != SettingFromAnnotation(annPfx+"a_b.tag-match") {
			t.Fatalf("allow %+v from %s", ab.Settings.AllowTags, ab.Sources[FieldAllowTags])
		}
	})
	t.Run("v0 drops empty ignore-tags items and keeps platform items", func(t *testing.T) {
		if !reflect.DeepEqual(ab.Settings.IgnoreTags, []string{"x", "y"}) {
			t.Fatalf("ignore %q", ab.Settings.IgnoreTags)
		}
		if !reflect.DeepEqual(ab.Settings.Platforms, []string{"linux/amd64", ""}) {
			t.Fatalf("platforms %q", ab.Settings.Platforms)
		}
	})
	t.Run("force-update only exact true; per-alias first", func(t *testing.T) {
		if ab.Settings.ForceUpdate != true {
			t.Fatal("a/b inherits app-wide exact true")
		}
		if other.Settings.ForceUpdate {
			t.Fatal(`"True" must be false in v0`)
		}
		if !hasProblemCode(cfg.Problems, ProblemForceUpdateUnparsable) {
			t.Fatalf("want a finding for \"True\": %v", cfg.Problems)
		}
	})
	t.Run("helm spec wins, kustomize coexists with a warning", func(t *testing.T) {
		if ab.Target != (ManifestTarget{Kind: TargetKindHelm, Spec: "image.full"}) {
			t.Fatalf("target %+v", ab.Target)
		}
		if !hasProblemCode(cfg.Problems, ProblemHelmAndKustomize) {
			t.Fatalf("want warning %v", cfg.Problems)
		}
	})
	t.Run("missing image-list means not considered", func(t *testing.T) {
		_, err := ParseAnnotations(annApp(map[string]string{annPfx + "update-strategy": "semver"}), V0_18)
		var ae *AnnotationError
		if !errors.As(err, &ae) || ae.Code != ProblemImageListMissing {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestForceUpdatePerVersion(t *testing.T) {
	tests := []struct {
		val     string
		v       Version
		want    bool
		wantErr bool
	}{
		{"true", V0_18, true, false},
		{"True", V0_18, false, false},
		{"1", V0_18, false, false},
		{"yes", V0_18, false, false},
		{" true", V0_18, false, false},
		{"true", V1_3, true, false},
		{"True", V1_3, true, false},
		{"1", V1_0, true, false},
		{" t ", V1_2, true, false},
		{"0", V1_1, false, false},
		{"yes", V1_3, false, true},
		{"", V1_3, false, true},
	}
	for _, tc := range tests {
		for _, key := range []string{"web.force-update", "force-update"} {
			t.Run(tc.v.Short()+"/"+key+"="+tc.val, func(t *testing.T) {
				cfg, err := ParseAnnotations(annApp(map[string]string{annPfx + "image-list": "web=nginx", annPfx + key: tc.val}), tc.v)
				if (err != nil) != tc.wantErr {
					t.Fatalf("err = %v", err)
				}
				if tc.wantErr {
					var ae *AnnotationError
					if !errors.As(err, &ae) || ae.Code != ProblemForceUpdateUnparsable || !strings.Contains(ae.Key, key) {
						t.Fatalf("want *AnnotationError for %s, got %v", key, err)
					}
					if key == "force-update" && cfg.AppWideErr == nil || key != "force-update" && cfg.ImageListErr == nil {
						t.Fatalf("wrong error slot: image-list %v app-wide %v", cfg.ImageListErr, cfg.AppWideErr)
					}
					return
				}
				if got := cfg.Images[0].Settings.ForceUpdate; got != tc.want {
					t.Fatalf("force = %v", got)
				}
			})
		}
	}
}

func TestHelmAndKustomizeConflict(t *testing.T) {
	ann := map[string]string{annPfx + "image-list": "web=nginx", annPfx + "web.helm.image-tag": "tag", annPfx + "web.kustomize.image-name": "nginx"}
	_, err := ParseAnnotations(annApp(ann), V1_3)
	var ae *AnnotationError
	if !errors.As(err, &ae) || ae.Code != ProblemHelmAndKustomize || !strings.Contains(ae.Reason, `alias "web"`) {
		t.Fatalf("err = %v", err)
	}
	if _, err := ParseAnnotations(annApp(ann), V0_18); err != nil {
		t.Fatalf("v0 has no conflict error: %v", err)
	}
}

func TestAnnotationLint(t *testing.T) {
	tests := []struct {
		name     string
		ann      map[string]string
		v        Version
		code     string
		contains string
	}{
		{"alias mismatch §10.6", map[string]string{annPfx + "image-list": "web=nginx", annPfx + "app.helm.image-tag": "x"}, V1_3, ProblemAnnotationForUnknownAlias, `alias "app"`},
		{"alias mismatch suggests close alias", map[string]string{annPfx + "image-list": "frontend=nginx", annPfx + "fronted.update-strategy": "digest"}, V1_3, ProblemAnnotationForUnknownAlias, annPfx + "frontend.update-strategy"},
		{"alias on item without alias", map[string]string{annPfx + "image-list": "nginx", annPfx + "nginx.update-strategy": "digest"}, V1_2, ProblemAnnotationForUnknownAlias, "no aliased items"},
		{"image_list", map[string]string{annPfx + "image_list": "web=nginx"}, V1_3, ProblemUnknownAnnotationKey, `did you mean "` + annPfx + `image-list"`},
		{"app.update-stratgy", map[string]string{annPfx + "image-list": "app=nginx", annPfx + "app.update-stratgy": "digest"}, V1_3, ProblemUnknownAnnotationKey, `did you mean "` + annPfx + `app.update-strategy"`},
		{"helm typo", map[string]string{annPfx + "image-list": "app=nginx", annPfx + "app.helm.image-nme": "x"}, V1_3, ProblemUnknownAnnotationKey, annPfx + "app.helm.image-name"},
		{"app-wide platforms", map[string]string{annPfx + "image-list": "app=nginx", annPfx + "platforms": "linux/arm64"}, V1_3, ProblemUnknownAnnotationKey, "per alias"},
		{"tag-match ignored in v1", map[string]string{annPfx + "image-list": "app=nginx", annPfx + "app.tag-match": "regexp:x"}, V1_1, ProblemTagMatchIgnoredInV1, "allow-tags"},
		{"prefix typo", map[string]string{"argocd-image-updater.argoproj.io.image-list": "app=nginx", annPfx + "image-list": "app=nginx"}, V1_3, ProblemUnknownAnnotationKey, "does not start with"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _ := ParseAnnotations(annApp(tc.ann), tc.v)
			for _, p := range cfg.Problems {
				if p.Code == tc.code && strings.Contains(p.Message, tc.contains) {
					return
				}
			}
			t.Fatalf("want %s containing %q, got %+v", tc.code, tc.contains, cfg.Problems)
		})
	}
	t.Run("tag-match is fine in v0", func(t *testing.T) {
		cfg, _ := ParseAnnotations(annApp(map[string]string{annPfx + "image-list": "app=nginx", annPfx + "app.tag-match": "regexp:x"}), V0_18)
		if hasProblemCode(cfg.Problems, ProblemTagMatchIgnoredInV1) || hasProblemCode(cfg.Problems, ProblemUnknownAnnotationKey) {
			t.Fatalf("got %v", cfg.Problems)
		}
	})
	t.Run("v0 normalises / in alias", func(t *testing.T) {
		cfg, _ := ParseAnnotations(annApp(map[string]string{annPfx + "image-list": "a/b=nginx", annPfx + "a_b.allow-tags": "any"}), V0_18)
		if hasProblemCode(cfg.Problems, ProblemAnnotationForUnknownAlias) {
			t.Fatalf("got %v", cfg.Problems)
		}
		if cfg.Images[0].Sources[FieldAllowTags] != SettingFromAnnotation(annPfx+"a_b.allow-tags") {
			t.Fatalf("sources %v", cfg.Images[0].Sources)
		}
	})
}

func TestLevenshteinDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"image_list", "image-list", 1}, {"stratgy", "strategy", 1}, {"abc", "", 3}, {"kitten", "sitting", 3}} {
		if got := levenshteinDistance(tc.a, tc.b); got != tc.d {
			t.Errorf("%q %q = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}

func hasProblemCode(ps []Problem, code string) bool {
	for _, p := range ps {
		if p.Code == code {
			return true
		}
	}
	return false
}

func FuzzParseImageList(f *testing.F) {
	for _, s := range []string{"", ",", "web=nginx:1.2", "a=b=c", " = ,=, x= ", "ghcr.io/a/b:~1.2,c=library/nginx@sha256:" + strings.Repeat("a", 64), "a/b=x:>=1 <2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range KnownVersions() {
			refs, err := ParseImageList(s, v)
			if err == nil && v.UsesCRs() && len(refs) == 0 {
				t.Fatalf("v1 returned no images and no error for %q", s)
			}
			if !v.UsesCRs() && err != nil {
				t.Fatalf("v0 never fails, got %v", err)
			}
		}
	})
}

func FuzzParseAnnotations(f *testing.F) {
	f.Add("web=nginx", "web.force-update", "yes")
	f.Add("a/b=x,,", "a_b.helm.image-spec", " ")
	f.Add("", "image_list", "x")
	f.Add("x=y", "x.kustomize.image-name", "z")
	f.Add("=", ".", ".")
	f.Fuzz(func(t *testing.T, list, key, val string) {
		app := annApp(map[string]string{annPfx + "image-list": list, annPfx + key: val, key: val})
		for _, v := range KnownVersions() {
			cfg, err := ParseAnnotations(app, v)
			if err != cfg.Err() {
				t.Fatalf("error mismatch")
			}
			_ = SelectTarget(app, nil, SelectOptions{Version: v})
			tr := true
			cr := ImageUpdater{Spec: ImageUpdaterSpec{Namespace: &app.Namespace, ApplicationRefs: []ApplicationRef{
				{NamePattern: key, UseAnnotations: &tr},
				{NamePattern: "*", Images: []CRImage{{Alias: key, ImageName: val}}},
			}}}
			cr.Namespace = app.Namespace
			_ = SelectTarget(app, []ImageUpdater{cr}, SelectOptions{Version: v, ControllerNamespace: app.Namespace})
		}
	})
}

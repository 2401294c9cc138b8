package updater

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func selApp() Application {
	return Application{Name: "web-prod", Namespace: "argocd", Labels: map[string]string{"team": "a", "env": "prod"},
		SourceType: AppSourceHelm, LiveImages: []string{"ghcr.io/acme/web:1.2.0"},
		Sources: []AppSource{{RepoURL: "https://git.example.com/org/repo.git", Path: "charts/web", TargetRevision: "main", HasHelm: true}}}
}

var selOpts = SelectOptions{Version: V1_3, ControllerNamespace: "argocd"}

// TestSpecificityFormula: Specificity counts what calculateSpecificity
// counts (strings.NewReplacer over the regexp's result, as upstream
// writes it) for patterns made of every character that matters.
func TestSpecificityFormula(t *testing.T) {
	set := regexp.MustCompile(`\[.*?]`)
	upstream := func(p string) int {
		score := 0
		if !strings.ContainsAny(p, "*?[]") {
			score += 1_000_000
		}
		return score + len(strings.NewReplacer("*", "", "?", "").Replace(set.ReplaceAllString(p, "")))
	}
	alphabet := []string{"a", "-", "*", "?", "[", "]", "\n", "é"}
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		if got, want := Specificity(ApplicationRef{NamePattern: prefix}), upstream(prefix); got != want {
			t.Fatalf("%q: %d, upstream formula %d", prefix, got, want)
		}
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			gen(prefix+c, n-1)
		}
	}
	gen("", 5)
}

func TestSpecificity(t *testing.T) {
	sel := func(n int, e int) *metav1.LabelSelector {
		s := &metav1.LabelSelector{MatchLabels: map[string]string{}}
		for i := 0; i < n; i++ {
			s.MatchLabels[string(rune('a'+i))] = "x"
		}
		for i := 0; i < e; i++ {
			s.MatchExpressions = append(s.MatchExpressions, metav1.LabelSelectorRequirement{Key: "k", Operator: metav1.LabelSelectorOpExists})
		}
		return s
	}
	tests := []struct {
		ref  ApplicationRef
		want int
	}{
		{ApplicationRef{NamePattern: "web-prod"}, 1_000_008},
		{ApplicationRef{NamePattern: "*"}, 0},
		{ApplicationRef{NamePattern: "web-*"}, 4},
		{ApplicationRef{NamePattern: "web-[pq]ro?"}, 6},
		{ApplicationRef{NamePattern: "*", LabelSelectors: &metav1.LabelSelector{}}, 10_000},
		{ApplicationRef{NamePattern: "*", LabelSelectors: sel(2, 1)}, 10_300},
		{ApplicationRef{NamePattern: "a]b"}, 3},
		{ApplicationRef{NamePattern: "a[b*c"}, 4},
		{ApplicationRef{NamePattern: "[x]*[y]?z"}, 1},
		{ApplicationRef{NamePattern: "app-*-r0??"}, 7},
	}
	for _, tc := range tests {
		t.Run(tc.ref.NamePattern, func(t *testing.T) {
			if got := Specificity(tc.ref); got != tc.want {
				t.Fatalf("got %d, want %d", got, tc.want)
			}
		})
	}
	t.Run("order and stable ties", func(t *testing.T) {
		refs := []ApplicationRef{
			{NamePattern: "*"},
			{NamePattern: "web-*"},
			{NamePattern: "*", LabelSelectors: sel(1, 0)},
			{NamePattern: "app-*"},
			{NamePattern: "web-prod"},
		}
		if got, want := SortedRefs(refs), []int{4, 2, 1, 3, 0}; !reflect.DeepEqual(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})
}

func crWith(ns string, refs ...ApplicationRef) ImageUpdater {
	cr := ImageUpdater{Spec: ImageUpdaterSpec{ApplicationRefs: refs}}
	cr.Name, cr.Namespace = "iu", ns
	return cr
}

func webImages() []CRImage {
	return []CRImage{{Alias: "web", ImageName: "ghcr.io/acme/web:1.x"}}
}

func refOutcomes(tr CRTrace) map[string]RefOutcome {
	m := map[string]RefOutcome{}
	for _, r := range tr.Refs {
		m[r.NamePattern] = r.Outcome
	}
	return m
}

func TestSelectLabelSelectors(t *testing.T) {
	tests := []struct {
		name     string
		selector *metav1.LabelSelector
		want     RefOutcome
		problem  string
	}{
		{"nil matches", nil, RefSelected, ""},
		{"matchLabels match", &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}, RefSelected, ""},
		{"matchLabels mismatch", &metav1.LabelSelector{MatchLabels: map[string]string{"team": "b"}}, RefLabelsMismatch, ""},
		{"expression NotIn", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"prod"}}}}, RefLabelsMismatch, ""},
		{"invalid operator", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: "Equals", Values: []string{"prod"}}}}, RefInvalidSelector, ProblemInvalidLabelSelector},
		{"In without values", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpIn}}}, RefInvalidSelector, ProblemInvalidLabelSelector},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cr := crWith("argocd",
				ApplicationRef{NamePattern: "web-*", LabelSelectors: tc.selector, Images: webImages()},
				ApplicationRef{NamePattern: "*", Images: []CRImage{{Alias: "fallback", ImageName: "nginx"}}})
			got := SelectTarget(selApp(), []ImageUpdater{cr}, selOpts)
			if o := refOutcomes(got.CRs[0])["web-*"]; o != tc.want {
				t.Fatalf("outcome %s, want %s", o, tc.want)
			}
			if tc.want != RefSelected && (got.NamePattern != "*" || got.Images[0].Alias != "fallback") {
				t.Fatalf("must fall to the catch-all ref, got %q", got.NamePattern)
			}
			if tc.problem != "" && !got.HasProblem(tc.problem) {
				t.Fatalf("want %s in %+v", tc.problem, got.Problems)
			}
		})
	}
}

func TestSelectFallThroughOnBrokenRef(t *testing.T) {
	bad := "a:b:c"
	for _, v := range []Version{V1_0, V1_1, V1_2, V1_3} {
		t.Run(v.Short(), func(t *testing.T) {
			cr := crWith("argocd",
				ApplicationRef{NamePattern: "*", Images: []CRImage{{Alias: "broad", ImageName: "nginx"}}},
				ApplicationRef{NamePattern: "web-prod", Images: webImages(),
					WriteBackConfig: &WriteBackConfig{Method: cfgStr("git"), GitConfig: &GitConfig{Branch: &bad}}},
				ApplicationRef{NamePattern: "web-*", Images: []CRImage{{Alias: "mid", ImageName: "nginx"}}},
			)
			if v.AppNamespaceFromSpec() {
				cr.Spec.Namespace = cfgStr("argocd")
			}
			got := SelectTarget(selApp(), []ImageUpdater{cr}, SelectOptions{Version: v, ControllerNamespace: "argocd"})
			want := map[string]RefOutcome{"web-prod": RefConfigError, "web-*": RefSelected, "*": RefNotReached}
			if o := refOutcomes(got.CRs[0]); !reflect.DeepEqual(o, want) {
				t.Fatalf("outcomes %v", o)
			}
			if got.RefIndex != 2 || !got.Selected || got.Images[0].Alias != "mid" || got.Mode != ModeCR {
				t.Fatalf("targeting %+v", got)
			}
			if !got.HasProblem(ProblemRefConfigErrorFellThrough) {
				t.Fatalf("problems %+v", got.Problems)
			}
			if got.CRs[0].Refs[0].Specificity != 1_000_008 {
				t.Fatalf("trace must be in specificity order: %+v", got.CRs[0].Refs)
			}
		})
	}
	t.Run("no less specific ref left", func(t *testing.T) {
		cr := crWith("argocd", ApplicationRef{NamePattern: "web-prod", Images: webImages(),
			WriteBackConfig: &WriteBackConfig{Method: cfgStr("svn")}})
		got := SelectTarget(selApp(), []ImageUpdater{cr}, selOpts)
		if got.Selected || !got.HasProblem(ProblemRefConfigErrorNoFallback) {
			t.Fatalf("%+v", got)
		}
	})
}

func TestSelectUseAnnotations(t *testing.T) {
	app := selApp()
	app.Annotations = map[string]string{
		AnnotationImageList:                      "web=ghcr.io/acme/web:1.x",
		AnnotationPrefix + "web.update-strategy": "digest",
	}
	tr := true
	mk := func() ImageUpdater {
		cr := crWith("argocd",
			ApplicationRef{NamePattern: "web-prod", UseAnnotations: &tr},
			ApplicationRef{NamePattern: "*", Images: []CRImage{{Alias: "broad", ImageName: "nginx"}}})
		cr.Spec.Namespace = cfgStr("argocd")
		return cr
	}
	t.Run("v1.0 ignores useAnnotations", func(t *testing.T) {
		got := SelectTarget(app, []ImageUpdater{mk()}, SelectOptions{Version: V1_0, ControllerNamespace: "argocd"})
		if got.Mode != ModeCR || got.RefIndex != 0 || got.Selected || !got.HasProblem(ProblemUseAnnotationsNotSupported) || !got.HasProblem(ProblemNoImages) {
			t.Fatalf("%+v", got)
		}
		if !got.HasProblem(ProblemAnnotationsIgnoredWithoutCR) {
			t.Fatalf("want a note that the annotations are ignored: %+v", got.Problems)
		}
	})
	for _, v := range []Version{V1_1, V1_2, V1_3} {
		t.Run(v.Short()+" reads annotations", func(t *testing.T) {
			got := SelectTarget(app, []ImageUpdater{mk()}, SelectOptions{Version: v, ControllerNamespace: "argocd"})
			if got.Mode != ModeUseAnnotations || !got.Selected || got.Images[0].Settings.Strategy != StrategyDigest {
				t.Fatalf("%+v", got)
			}
		})
		t.Run(v.Short()+" broken annotations fall through", func(t *testing.T) {
			a := app
			a.Annotations = map[string]string{AnnotationImageList: "web=nginx", AnnotationPrefix + "web.force-update": "yes"}
			got := SelectTarget(a, []ImageUpdater{mk()}, SelectOptions{Version: v, ControllerNamespace: "argocd"})
			if got.Mode != ModeCR || got.NamePattern != "*" || !got.HasProblem(ProblemRefConfigErrorFellThrough) {
				t.Fatalf("%+v", got)
			}
		})
	}
	t.Run("missing image-list falls through", func(t *testing.T) {
		a := selApp()
		got := SelectTarget(a, []ImageUpdater{mk()}, selOpts)
		if got.NamePattern != "*" || refOutcomes(got.CRs[0])["web-prod"] != RefConfigError {
			t.Fatalf("%+v", got)
		}
	})
	// In useAnnotations mode v1.3.0 takes the ref's imagesVerification
	// alone (argocd.go: mergedImagesVerification =
	// applicationRef.ImagesVerification): the CR-wide block is ignored.
	t.Run("CR-wide verification is ignored in annotation mode", func(t *testing.T) {
		cr := mk()
		cr.Spec.ImagesVerification = &ImagesVerification{Enabled: &tr}
		got := SelectTarget(app, []ImageUpdater{cr}, selOpts)
		if len(got.Dropped) != 0 || !got.Selected || got.Images[0].Verification != nil {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("ref verification applies in annotation mode", func(t *testing.T) {
		cr := mk()
		cr.Spec.ApplicationRefs[0].ImagesVerification = &ImagesVerification{Enabled: &tr}
		got := SelectTarget(app, []ImageUpdater{cr}, selOpts)
		if len(got.Dropped) != 1 || got.Selected || !got.HasProblem(ProblemImageDropped) {
			t.Fatalf("%+v", got)
		}
	})
}

func TestSelectNamespaces(t *testing.T) {
	app := selApp()
	app.Namespace = "team-a"
	tests := []struct {
		v         Version
		specNS    *string
		selected  bool
		problems  []string
		listingNS string
	}{
		{V1_0, cfgStr("team-a"), true, nil, "team-a"},
		{V1_1, cfgStr("team-a"), true, nil, "team-a"},
		{V1_1, cfgStr("other"), false, []string{ProblemAppNotInCRNamespace}, "other"},
		{V1_1, nil, true, []string{ProblemCRSpecNamespaceMissing}, ""},
		{V1_2, cfgStr("team-a"), false, []string{ProblemAppNotInCRNamespace, ProblemCRSpecNamespaceIgnored}, "argocd"},
		{V1_3, nil, false, []string{ProblemAppNotInCRNamespace}, "argocd"},
	}
	for _, tc := range tests {
		name := tc.v.Short() + "/spec.namespace="
		if tc.specNS != nil {
			name += *tc.specNS
		}
		t.Run(name, func(t *testing.T) {
			cr := crWith("argocd", ApplicationRef{NamePattern: "*", Images: webImages()})
			cr.Spec.Namespace = tc.specNS
			got := SelectTarget(app, []ImageUpdater{cr}, SelectOptions{Version: tc.v, ControllerNamespace: "argocd"})
			if got.Selected != tc.selected || got.CRs[0].ListingNamespace != tc.listingNS {
				t.Fatalf("selected %v listing %q: %+v", got.Selected, got.CRs[0].ListingNamespace, got)
			}
			for _, p := range tc.problems {
				if !got.HasProblem(p) {
					t.Fatalf("want %s in %+v", p, got.Problems)
				}
			}
		})
	}
}

func TestSelectWatchedNamespaces(t *testing.T) {
	tests := []struct {
		name    string
		watch   []string
		watched bool
	}{
		{"default is the controller namespace", nil, false},
		{"empty string is the controller namespace", []string{""}, false},
		{"star", []string{"*"}, true},
		{"comma list", []string{"team-a, argocd"}, true},
		{"list without it", []string{"team-a", "team-b"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cr := crWith("argocd", ApplicationRef{NamePattern: "*", Images: webImages()})
			got := SelectTarget(selApp(), []ImageUpdater{cr}, SelectOptions{Version: V1_3, ControllerNamespace: "image-updater", WatchNamespaces: tc.watch})
			if got.CRs[0].Watched != tc.watched || got.Selected != tc.watched || got.HasProblem(ProblemCRNamespaceNotWatched) == tc.watched {
				t.Fatalf("%+v", got)
			}
		})
	}
}

func TestSelectCRErrorsAndConflicts(t *testing.T) {
	t.Run("no refs", func(t *testing.T) {
		got := SelectTarget(selApp(), []ImageUpdater{crWith("argocd")}, selOpts)
		if got.Selected || !got.HasProblem(ProblemCRNoApplicationRefs) {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("invalid name pattern fails the whole CR", func(t *testing.T) {
		cr := crWith("argocd", ApplicationRef{NamePattern: "web-prod", Images: webImages()}, ApplicationRef{NamePattern: "web-[", Images: webImages()})
		got := SelectTarget(selApp(), []ImageUpdater{cr}, selOpts)
		if got.Selected || !got.HasProblem(ProblemCRInvalidNamePattern) || got.CRs[0].Error == "" {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("no matching ref", func(t *testing.T) {
		cr := crWith("argocd", ApplicationRef{NamePattern: "api-*", Images: webImages()})
		got := SelectTarget(selApp(), []ImageUpdater{cr}, selOpts)
		if got.Selected || !got.HasProblem(ProblemNoMatchingRef) {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("two CRs fight", func(t *testing.T) {
		a := crWith("argocd", ApplicationRef{NamePattern: "*", Images: webImages()})
		a.Name = "b-second"
		b := crWith("argocd", ApplicationRef{NamePattern: "web-*", Images: webImages()})
		b.Name = "a-first"
		got := SelectTarget(selApp(), []ImageUpdater{a, b}, selOpts)
		if got.CR != "argocd/a-first" || !reflect.DeepEqual(got.AlsoSelectedBy, []string{"argocd/b-second"}) || !got.HasProblem(ProblemMultipleCRsMatch) {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("the app's own CR is followed, the team-wide one is judged beside it", func(t *testing.T) {
		team := crWith("argocd", ApplicationRef{NamePattern: "*", Images: []CRImage{{Alias: "web", ImageName: "ghcr.io/acme/web"}}})
		team.Name = "a-team"
		own := crWith("argocd", ApplicationRef{NamePattern: "web-prod", Images: webImages()})
		own.Name = "z-web"
		got := SelectTarget(selApp(), []ImageUpdater{team, own}, selOpts)
		if got.CR != "argocd/z-web" || !reflect.DeepEqual(got.AlsoSelectedBy, []string{"argocd/a-team"}) {
			t.Fatalf("followed %s, also %v", got.CR, got.AlsoSelectedBy)
		}
		if len(got.Also) != 1 || got.Also[0].CR != "argocd/a-team" || !got.Also[0].Selected || len(got.Also[0].Images) != 1 ||
			got.Also[0].Images[0].Image.Constraint() != "" || got.Also[0].Specificity >= got.Specificity {
			t.Fatalf("also %+v", got.Also)
		}
	})
	t.Run("a CR that processes the app is followed over one that does not", func(t *testing.T) {
		team := crWith("argocd", ApplicationRef{NamePattern: "*", Images: webImages()})
		team.Name = "team"
		own := crWith("argocd", ApplicationRef{NamePattern: "web-prod"}) // no images: drops the app
		own.Name = "web"
		got := SelectTarget(selApp(), []ImageUpdater{team, own}, selOpts)
		if got.CR != "argocd/team" || !got.Selected || len(got.Also) != 1 || got.Also[0].Selected {
			t.Fatalf("followed %s (selected %v), also %+v", got.CR, got.Selected, got.Also)
		}
	})
	t.Run("no CR but annotations", func(t *testing.T) {
		app := selApp()
		app.Annotations = map[string]string{AnnotationImageList: "web=nginx"}
		got := SelectTarget(app, nil, selOpts)
		if got.Selected || !got.HasProblem(ProblemNoCR) || !got.HasProblem(ProblemAnnotationsIgnoredWithoutCR) {
			t.Fatalf("%+v", got)
		}
		other := crWith("argocd", ApplicationRef{NamePattern: "api", Images: webImages()})
		got = SelectTarget(app, []ImageUpdater{other}, selOpts)
		if got.Selected || !got.HasProblem(ProblemAnnotationsIgnoredWithoutCR) {
			t.Fatalf("%+v", got)
		}
	})
}

func TestSelectCRDDefaultedSemver(t *testing.T) {
	app := selApp()
	app.Name = "web-a"
	for _, v := range []Version{V1_0, V1_2, V1_3} {
		t.Run(v.Short(), func(t *testing.T) {
			cr := loadCR(t, trapCR)
			ApplyCRDDefaults(&cr, v)
			cr.Spec.Namespace = cfgStr("argocd")
			got := SelectTarget(app, []ImageUpdater{cr}, SelectOptions{Version: v, ControllerNamespace: "argocd"})
			if !got.Selected || len(got.Images) != 2 {
				t.Fatalf("%+v", got)
			}
			web, side := got.Images[0], got.Images[1]
			if web.Settings.Strategy != StrategySemver || web.Sources[FieldUpdateStrategy] != SettingFromImage {
				t.Fatalf("web: %v from %s", web.Settings.Strategy, web.Sources[FieldUpdateStrategy])
			}
			if side.Settings.Strategy != StrategyNewestBuild || side.Sources[FieldUpdateStrategy] != SettingFromCR {
				t.Fatalf("sidecar: %v from %s", side.Settings.Strategy, side.Sources[FieldUpdateStrategy])
			}
			if len(got.DefaultedOverrides) != 1 || !got.HasProblem(ProblemCRDDefaultedOverride) {
				t.Fatalf("%+v", got.Problems)
			}
		})
	}
}

func TestSelectImagesDropped(t *testing.T) {
	f := false
	imgs := []CRImage{
		{Alias: "both", ImageName: "nginx", ManifestTargets: &CRManifestTargets{Helm: &HelmTarget{Name: cfgStr("a")}, Kustomize: &KustomizeTarget{Name: cfgStr("nginx")}}},
		{Alias: "verify", ImageName: "redis", ImagesVerification: &ImagesVerification{}},
		{Alias: "off", ImageName: "redis", ImagesVerification: &ImagesVerification{Enabled: &f}},
		{Alias: "spec", ImageName: "ghcr.io/a/b:1.x", ManifestTargets: &CRManifestTargets{Helm: &HelmTarget{Name: cfgStr("n"), Tag: cfgStr("t"), Spec: cfgStr("image.full")}}},
		{Alias: "plug", ImageName: "ghcr.io/a/c", ManifestTargets: &CRManifestTargets{Plugin: &PluginTarget{Tag: cfgStr("T")}}},
	}
	tests := []struct {
		v       Version
		kept    []string
		dropped int
	}{
		{V1_3, []string{"off", "spec"}, 3},
		{V1_2, []string{"verify", "off", "spec", "plug"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.v.Short(), func(t *testing.T) {
			cr := crWith("argocd", ApplicationRef{NamePattern: "*", Images: imgs})
			got := SelectTarget(selApp(), []ImageUpdater{cr}, SelectOptions{Version: tc.v, ControllerNamespace: "argocd"})
			var kept []string
			for _, ic := range got.Images {
				kept = append(kept, ic.Alias)
				if ic.Alias == "spec" && ic.Target != (ManifestTarget{Kind: TargetKindHelm, Spec: "image.full"}) {
					t.Fatalf("spec wins: %+v", ic.Target)
				}
			}
			if !reflect.DeepEqual(kept, tc.kept) || len(got.Dropped) != tc.dropped {
				t.Fatalf("kept %v dropped %+v", kept, got.Dropped)
			}
		})
	}
}

func TestSourceType(t *testing.T) {
	base := Application{Name: "a", Namespace: "argocd", Sources: []AppSource{{RepoURL: "https://g/r.git", Path: "p"}}}
	with := func(f func(*Application)) Application { a := base; f(&a); return a }
	gitTarget := func(target string) WriteBack {
		t, _ := ParseWriteBackTarget(target, "p")
		return WriteBack{Method: WriteBackGit, Target: t}
	}
	tests := []struct {
		name      string
		app       Application
		wb        WriteBack
		v         Version
		kind      string
		supported bool
	}{
		{"helm", with(func(a *Application) { a.SourceType = "Helm" }), WriteBack{}, V1_3, "Helm", true},
		{"kustomize v0", with(func(a *Application) { a.SourceType = "Kustomize" }), WriteBack{}, V0_18, "Kustomize", true},
		{"directory", with(func(a *Application) { a.SourceType = "Directory" }), WriteBack{}, V1_3, "Directory", false},
		{"not rendered", base, WriteBack{}, V1_3, "", false},
		{"plugin v1.2", with(func(a *Application) { a.SourceType = "Plugin" }), WriteBack{}, V1_2, "Plugin", false},
		{"plugin v1.3", with(func(a *Application) { a.SourceType = "Plugin" }), WriteBack{}, V1_3, "Plugin", true},
		{"multi-source first supported", with(func(a *Application) {
			a.MultiSource, a.SourceTypes, a.SourceType = true, []string{"Directory", "Kustomize", "Helm"}, "Helm"
		}), WriteBack{}, V1_3, "Kustomize", true},
		{"multi-source none", with(func(a *Application) { a.MultiSource, a.SourceTypes = true, []string{"Directory"} }), WriteBack{}, V1_3, "Directory", false},
		{"hydrator with helm block", with(func(a *Application) { a.Hydrator, a.SourceType = &DrySource{HasHelm: true}, "Directory" }), WriteBack{}, V1_3, "Helm", true},
		{"hydrator without block", with(func(a *Application) { a.Hydrator, a.SourceType = &DrySource{}, "Directory" }), WriteBack{}, V1_3, "Directory", false},
		{"hydrator before v1.3", with(func(a *Application) { a.Hydrator, a.SourceType = &DrySource{HasHelm: true}, "Directory" }), WriteBack{}, V1_2, "Directory", false},
		{"forced kustomize", with(func(a *Application) { a.SourceType = "Directory" }), gitTarget("kustomization"), V1_3, "Kustomize", true},
		{"forced helm by helmvalues", with(func(a *Application) { a.SourceType = "Kustomize" }), gitTarget("helmvalues"), V1_3, "Helm", true},
		{"default file does not force", with(func(a *Application) { a.SourceType = "Directory" }), WriteBack{Method: WriteBackGit, Target: WriteBackTarget{Kind: TargetDefault, Path: "p/.argocd-source-a.yaml"}}, V1_3, "Directory", false},
		{"argocd method does not force", with(func(a *Application) { a.SourceType = "Directory" }), WriteBack{Method: WriteBackArgoCD, Target: WriteBackTarget{Kind: TargetKustomization}}, V1_3, "Directory", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kind, ok, why := SourceType(tc.app, tc.wb, tc.v)
			if kind != tc.kind || ok != tc.supported || why == "" {
				t.Fatalf("got %q %v %q", kind, ok, why)
			}
		})
	}
}

func TestSelectSourceGateAndPlugin(t *testing.T) {
	app := selApp()
	app.SourceType = AppSourcePlugin
	cr := crWith("argocd", ApplicationRef{NamePattern: "*", Images: webImages(),
		WriteBackConfig: &WriteBackConfig{Method: cfgStr("git")}})
	got := SelectTarget(app, []ImageUpdater{cr}, SelectOptions{Version: V1_2, ControllerNamespace: "argocd"})
	if got.Selected || !got.HasProblem(ProblemPluginNotSupportedBeforeV13) {
		t.Fatalf("%+v", got)
	}
	got = SelectTarget(app, []ImageUpdater{cr}, selOpts)
	if !got.Selected || !got.HasProblem(ProblemPluginGitTreatedAsHelm) {
		t.Fatalf("%+v", got)
	}
	app.SourceType = AppSourceDirectory
	got = SelectTarget(app, []ImageUpdater{cr}, selOpts)
	if got.Selected || !got.HasProblem(ProblemUnsupportedSourceType) {
		t.Fatalf("%+v", got)
	}
}

func TestSelectV0(t *testing.T) {
	app := selApp()
	t.Run("no annotation: not considered", func(t *testing.T) {
		got := SelectTarget(app, []ImageUpdater{crWith("argocd", ApplicationRef{NamePattern: "*", Images: webImages()})}, SelectOptions{Version: V0_18})
		if got.Selected || !got.HasProblem(ProblemImageListMissing) || len(got.CRs) != 0 {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("annotations select", func(t *testing.T) {
		a := app
		a.Annotations = map[string]string{AnnotationImageList: "web=ghcr.io/acme/web:1.x", AnnotationPrefix + "web.update-strategy": "latest",
			AnnotationWriteBackMethod: "git", AnnotationGitBranch: "main"}
		got := SelectTarget(a, nil, SelectOptions{Version: V0_18, ControllerNamespace: "argocd"})
		if !got.Selected || got.Mode != ModeV0Annotations || got.Images[0].Settings.Strategy != StrategyNewestBuild || got.WriteBack.BaseBranch != "main" {
			t.Fatalf("%+v", got)
		}
		if !got.HasProblem(ProblemSettingsWarning) {
			t.Fatalf("want the deprecated-strategy warning: %+v", got.Problems)
		}
	})
	t.Run("empty write-back-method is invalid in v0", func(t *testing.T) {
		a := app
		a.Annotations = map[string]string{AnnotationImageList: "nginx", AnnotationWriteBackMethod: ""}
		got := SelectTarget(a, nil, SelectOptions{Version: V0_18})
		if got.Selected || !got.HasProblem(ProblemWriteBackConfig) {
			t.Fatalf("%+v", got)
		}
		got = SelectTarget(a, []ImageUpdater{crWith("argocd", ApplicationRef{NamePattern: "*", UseAnnotations: cfgBool(true)})}, selOpts)
		if !got.Selected || got.WriteBack.Method != WriteBackArgoCD {
			t.Fatalf("v1 ignores the empty annotation: %+v", got)
		}
	})
}

func TestSelectWriteBackDeferredSurfaces(t *testing.T) {
	cr := crWith("argocd", ApplicationRef{NamePattern: "*", Images: webImages(),
		WriteBackConfig: &WriteBackConfig{Method: cfgStr("git:secret:other/creds")}})
	got := SelectTarget(selApp(), []ImageUpdater{cr}, selOpts)
	if !got.Selected || !got.HasProblem(ProblemWriteBackSecretNamespace) {
		t.Fatalf("%+v", got)
	}
	for _, p := range got.Problems {
		if p.Code == ProblemWriteBackSecretNamespace && (!strings.Contains(p.Message, "differs from app namespace") || p.Value != "other/creds") {
			t.Fatalf("message %q", p.Message)
		}
	}
}

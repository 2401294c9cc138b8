package updater

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// selectWorld is one randomized cluster: CRs, Applications and the
// controller's options.
type selectWorld struct {
	crs  []ImageUpdater
	apps []Application
	opts SelectOptions
}

var (
	genAppNames = []string{"web-prod", "web-dev", "api-1", "api-22", "db", "web", "a-b", "x"}
	genPatterns = []string{
		// exact names, some of no app
		"web-prod", "web-dev", "api-1", "db", "nothing", "",
		// globs, escapes, sets
		"*", "web-*", "api-?", "[wa]*", "*-prod", `we\b-prod`, `a\-b`, "[!w]*", "api-[0-9]*",
		// globs with a literal end (Matches looks them up by it)
		"*-1", "[ad]*-1", "w?b-*d", "?b", "*-[0-9]2", "web*", "a*[!x]-b",
		// invalid: the whole CR fails
		"[", `web\`, "a[-]",
	}
	genNamespaces = []string{"argocd", "team", "other"}
)

func genSelector(r *rand.Rand) *metav1.LabelSelector {
	switch r.IntN(7) {
	case 0:
		return &metav1.LabelSelector{}
	case 1:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"team": []string{"a", "b"}[r.IntN(2)]}}
	case 2:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}, MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod"}}}}
	case 3:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpDoesNotExist}}}
	case 4: // invalid: an unknown operator
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: "Near"}}}
	case 5: // invalid: a key that is no label key
		return &metav1.LabelSelector{MatchLabels: map[string]string{"not a key!": "x"}}
	}
	return nil
}

func genRef(r *rand.Rand) ApplicationRef {
	ref := ApplicationRef{NamePattern: genPatterns[r.IntN(len(genPatterns))], LabelSelectors: genSelector(r)}
	if r.IntN(4) == 0 { // an unknown write-back method: the ref's configuration cannot be built
		m := []string{"bogus", "git", "argocd"}[r.IntN(3)]
		ref.WriteBackConfig = &WriteBackConfig{Method: &m}
	}
	if r.IntN(5) == 0 {
		t := true
		ref.UseAnnotations = &t
	} else {
		for n := r.IntN(3); n > 0; n-- {
			ref.Images = append(ref.Images, CRImage{Alias: fmt.Sprintf("img%d", n), ImageName: "ghcr.io/acme/web:1.x"})
		}
	}
	return ref
}

func genWorld(r *rand.Rand) selectWorld {
	var w selectWorld
	w.opts = SelectOptions{Version: []Version{V1_0, V1_2, V1_3, V1_3, V0_18}[r.IntN(5)], ControllerNamespace: "argocd"}
	switch r.IntN(4) {
	case 0:
		w.opts.WatchNamespaces = []string{"*"}
	case 1:
		w.opts.WatchNamespaces = []string{"argocd,team"}
	}
	for n := r.IntN(7); n > 0; n-- {
		cr := ImageUpdater{}
		cr.Name, cr.Namespace = fmt.Sprintf("cr-%d", r.IntN(5)), genNamespaces[r.IntN(len(genNamespaces))] // keys may repeat
		if r.IntN(3) == 0 {
			ns := genNamespaces[r.IntN(len(genNamespaces))]
			cr.Spec.Namespace = &ns
		}
		for k := r.IntN(5); k > 0; k-- {
			ref := genRef(r)
			cr.Spec.ApplicationRefs = append(cr.Spec.ApplicationRefs, ref)
			if r.IntN(4) == 0 { // the same ref twice
				cr.Spec.ApplicationRefs = append(cr.Spec.ApplicationRefs, ref)
			}
		}
		w.crs = append(w.crs, cr)
	}
	for n := 1 + r.IntN(6); n > 0; n-- {
		app := Application{Name: genAppNames[r.IntN(len(genAppNames))], Namespace: genNamespaces[r.IntN(2)], SourceType: AppSourceHelm,
			LiveImages: []string{"ghcr.io/acme/web:1.2.0"}, Labels: map[string]string{}}
		if r.IntN(2) == 0 {
			app.Labels["team"] = []string{"a", "b"}[r.IntN(2)]
		}
		if r.IntN(2) == 0 {
			app.Labels["env"] = "prod"
		}
		if r.IntN(4) == 0 {
			app.Annotations = map[string]string{AnnotationImageList: "web=ghcr.io/acme/web"}
		}
		w.apps = append(w.apps, app)
	}
	return w
}

// TestSelectorMatchesSelectTarget: over randomized CRs, refs and apps
// (globs, escapes, invalid patterns, label selectors valid and invalid,
// duplicated refs and CR keys, refs whose configuration cannot be built,
// watched and unwatched namespaces, every version's listing namespace),
// the prepared Selector decides exactly what walking every ref of every
// CR decided (refSelectTarget, the code as it was), and says each ref's
// outcome in the same words; SelectConcerned leaves out only CRs that do
// not reach the app; Matches is whether a CR selects the app by name and
// labels.
func TestSelectorMatchesSelectTarget(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 1))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for w := 0; w < n; w++ {
		world := genWorld(r)
		s := NewSelector(world.crs, world.opts)
		for _, app := range world.apps {
			details := map[string][]string{}
			want := refSelectTarget(app, world.crs, world.opts, details)
			got := s.Select(app)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("world %d, app %s: Select differs from SelectTarget as it was\ngot  %s\nwant %s", w, app.Key(), dumpTargeting(got), dumpTargeting(want))
			}
			if got := SelectTarget(app, world.crs, world.opts); !reflect.DeepEqual(got, want) {
				t.Fatalf("world %d, app %s: SelectTarget differs from SelectTarget as it was", w, app.Key())
			}
			seen := map[string]int{}
			for _, tr := range got.CRs {
				for _, rt := range tr.Refs {
					k := seen[tr.CR]
					seen[tr.CR]++
					if d := details[tr.CR]; k >= len(d) || rt.Detail() != d[k] {
						t.Fatalf("world %d, app %s, %s ref %d: detail %q, it was %q", w, app.Key(), tr.CR, rt.Index, rt.Detail(), d)
					}
				}
			}
			checkConcerned(t, w, app, s.SelectConcerned(app), want)
			if m, full := s.Matches(app), managedBy(want); m != full {
				t.Fatalf("world %d, app %s: Matches %v, the full selection says %v\n%s", w, app.Key(), m, full, dumpTargeting(want))
			}
		}
	}
}

// checkConcerned: c is full without some CRs that do not select the app,
// each with exactly one info problem (NO_MATCHING_REF or
// APP_NOT_IN_CR_NAMESPACE) and nothing else.
func checkConcerned(t *testing.T, w int, app Application, c, full Targeting) {
	t.Helper()
	if full.CR == "" {
		if !reflect.DeepEqual(c, full) {
			t.Fatalf("world %d, app %s: no CR selects the app, SelectConcerned must be Select\ngot  %s\nwant %s", w, app.Key(), dumpTargeting(c), dumpTargeting(full))
		}
		return
	}
	a, b := c, full
	a.CRs, a.Problems, b.CRs, b.Problems = nil, nil, nil, nil
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("world %d, app %s: SelectConcerned differs beyond CRs and problems\ngot  %s\nwant %s", w, app.Key(), dumpTargeting(c), dumpTargeting(full))
	}
	left := 0
	i := 0
	for _, tr := range full.CRs {
		if i < len(c.CRs) && sameConcernedTrace(c.CRs[i], tr) {
			i++
			continue
		}
		left++
		if tr.SelectedRef >= 0 || !tr.Watched || tr.Error != "" {
			t.Fatalf("world %d, app %s: SelectConcerned left out %+v", w, app.Key(), tr)
		}
	}
	if i != len(c.CRs) {
		t.Fatalf("world %d, app %s: SelectConcerned's CRs are not Select's in order", w, app.Key())
	}
	i = 0
	dropped := 0
	for _, p := range full.Problems {
		if i < len(c.Problems) && c.Problems[i] == p {
			i++
			continue
		}
		dropped++
		if p.Severity != SeverityInfo || p.Code != ProblemNoMatchingRef && p.Code != ProblemAppNotInCRNamespace {
			t.Fatalf("world %d, app %s: SelectConcerned left out %+v", w, app.Key(), p)
		}
	}
	if i != len(c.Problems) || dropped != left {
		t.Fatalf("world %d, app %s: %d CRs and %d problems left out; problems in order %v", w, app.Key(), left, dropped, i == len(c.Problems))
	}
}

// sameConcernedTrace: SelectConcerned's trace of a CR is Select's, but
// that a CR that selects the app keeps no ref trace.
func sameConcernedTrace(c, full CRTrace) bool {
	if full.SelectedRef >= 0 {
		if c.Refs != nil {
			return false
		}
		full.Refs = nil
	}
	return reflect.DeepEqual(c, full)
}

// managedBy is fleet's "managed" over a full selection: a CR selects the
// app, or a listed CR has a ref that matched it by name and labels.
func managedBy(t Targeting) bool {
	if t.CR != "" {
		return true
	}
	for _, c := range t.CRs {
		if !c.AppListed {
			continue
		}
		for _, r := range c.Refs {
			switch r.Outcome {
			case RefSelected, RefConfigError, RefNotReached:
				return true
			}
		}
	}
	return false
}

func dumpTargeting(t Targeting) string {
	b, err := json.MarshalIndent(t, "", " ")
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// TestSelectorIndexesExactNames: a CR per app (as an ApplicationSet makes
// them) is read only for its own app: SelectConcerned's trace names the
// app's CR and nothing else, and Select still traces them all.
func TestSelectorIndexesExactNames(t *testing.T) {
	var crs []ImageUpdater
	for i := range 50 {
		name := fmt.Sprintf("app-%02d", i)
		cr := crWith("argocd", ApplicationRef{NamePattern: name, Images: []CRImage{{Alias: "app", ImageName: "ghcr.io/acme/" + name}}})
		cr.Name = name
		crs = append(crs, cr)
	}
	s := NewSelector(crs, selOpts)
	app := selApp()
	app.Name = "app-07"
	c := s.SelectConcerned(app)
	if !c.Selected || c.CR != "argocd/app-07" || len(c.CRs) != 1 || slices.ContainsFunc(c.Problems, func(p Problem) bool { return p.Code == ProblemNoMatchingRef }) {
		t.Fatalf("SelectConcerned: %s", dumpTargeting(c))
	}
	full := s.Select(app)
	if len(full.CRs) != 50 || !strings.Contains(full.CRs[0].Refs[0].Detail(), `"app-07" does not match namePattern "app-00"`) {
		t.Fatalf("Select: %d CRs; %s", len(full.CRs), full.CRs[0].Refs[0].Detail())
	}
	if b, err := json.Marshal(full.CRs[0].Refs[0]); err != nil || !strings.Contains(string(b), `"detail":"\"app-07\" does not match namePattern \"app-00\""`) {
		t.Fatalf("JSON %s %v", b, err)
	}
}

// TestRefSetHoldsTheSelectedRefs: over randomized worlds, a RefSet kept to
// the refs a selection follows (the selecting CR's ref and every other
// selecting CR's) matches the app, whichever those refs are; a RefSet of
// no ref matches nothing. A "where" reads the images of an app's
// selection only for the apps a RefSet of the refs naming the repository
// matches.
func TestRefSetHoldsTheSelectedRefs(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 2))
	n := 2000
	if testing.Short() {
		n = 200
	}
	none := func(*ImageUpdater, *ApplicationRef) bool { return false }
	checked, namedChecked := 0, 0
	for w := 0; w < n; w++ {
		world := genWorld(r)
		for i := range world.apps { // a source, so that configurations build (or, without one, fall through)
			if r.IntN(4) != 0 {
				world.apps[i].Sources = []AppSource{{RepoURL: "https://git.example.com/config.git", Path: "apps/" + world.apps[i].Name, HasHelm: true}}
			}
		}
		s := NewSelector(world.crs, world.opts)
		if rs := s.Refs(none); !rs.Empty() {
			t.Fatalf("world %d: a set of no ref is not empty", w)
		}
		for _, app := range world.apps {
			got := s.Select(app)
			followed := append([]Targeting{got}, got.Also...)
			for _, f := range followed {
				if f.CR == "" || f.RefIndex < 0 {
					continue
				}
				rs := s.Refs(func(cr *ImageUpdater, ref *ApplicationRef) bool {
					return cr.Key() == f.CR && f.RefIndex < len(cr.Spec.ApplicationRefs) && ref == &cr.Spec.ApplicationRefs[f.RefIndex] // keys may repeat
				})
				if !rs.Matches(app) {
					t.Fatalf("world %d, app %s: the set of %s's ref %d does not match it\n%s", w, app.Key(), f.CR, f.RefIndex, dumpTargeting(got))
				}
				// Named: a ref that names the app exactly names it in its
				// own namespace, whenever the CR lists one namespace.
				named := rs.Named()
				if slices.ContainsFunc(named, func(k AppKey) bool { return k.Name == app.Name && k.Namespace != app.Namespace }) {
					t.Fatalf("world %d, app %s: Named %v has its name in another namespace", w, app.Key(), named)
				}
				if strings.ContainsAny(app.Name, `*?[\`) {
					continue
				}
				for _, c := range got.CRs {
					if c.CR == f.CR && c.SelectedRef >= 0 && c.ListingNamespace != "" && slices.Contains(named, AppKey{Namespace: app.Namespace, Name: app.Name}) {
						namedChecked++
					}
					if c.CR == f.CR && c.SelectedRef >= 0 && c.ListingNamespace != "" && c.Refs != nil && !slices.Contains(named, AppKey{Namespace: app.Namespace, Name: app.Name}) {
						for _, rt := range c.Refs {
							if rt.Outcome == RefSelected && rt.NamePattern == app.Name {
								t.Fatalf("world %d, app %s: followed the exact ref %d of %s, not in Named %v", w, app.Key(), f.RefIndex, f.CR, named)
							}
						}
					}
				}
				checked++
			}
			if s.Refs(none).Matches(app) {
				t.Fatalf("world %d, app %s: a set of no ref matches", w, app.Key())
			}
		}
	}
	if checked < n/10 || namedChecked < n/100 {
		t.Errorf("%d selections checked in %d worlds, %d of them named", checked, n, namedChecked)
	}
}

// BenchmarkSelectConcernedOneCR: the fleet benchmark's one-cr shape, one CR
// with a glob ref per repository (app-*-rNNN, 1,000 refs), 500 apps
// selected once each. What it costs is the trace: every ref's RefTrace
// for every app (about 120 KB an app, 60 MB for the 500), not the
// matching (a literal prefix and suffix checked before filepath.Match
// changed nothing measurable).
func BenchmarkSelectConcernedOneCR(b *testing.B) {
	cr := ImageUpdater{}
	cr.Name, cr.Namespace = "fleet", "argocd"
	for r := range 1000 {
		cr.Spec.ApplicationRefs = append(cr.Spec.ApplicationRefs, ApplicationRef{NamePattern: fmt.Sprintf("app-*-r%03d", r),
			Images: []CRImage{{Alias: "app", ImageName: fmt.Sprintf("registry.example/team/svc-%03d", r)}}})
	}
	s := NewSelector([]ImageUpdater{cr}, SelectOptions{Version: V1_3, ControllerNamespace: "argocd"})
	apps := make([]Application, 500)
	for i := range apps {
		apps[i] = Application{Name: fmt.Sprintf("app-%04d-r%03d", i, i%1000), Namespace: "argocd", SourceType: AppSourceKustomize,
			Sources: []AppSource{{RepoURL: "https://git.example.com/config.git", Path: "apps/x", HasKustomize: true}}}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, a := range apps {
			if t := s.SelectConcerned(a); t.CR == "" {
				b.Fatalf("%s not selected", a.Name)
			}
		}
	}
}

// TestNameMatchesIsFilepathMatch: a ref's name test, with its shortcut on
// the glob's literal ends, says what filepath.Match says, for patterns of
// every shape (classes holding ] or -, ranges, negations, escapes, stars
// at either end, malformed ones) over names from the same letters.
func TestNameMatchesIsFilepathMatch(t *testing.T) {
	letters := []string{"a", "b", "-", "*", "?", "[", "]", "^", "\\", "0", "9", "[0-9]", "[]a]", "[^b]", "\\*"}
	rng := rand.New(rand.NewPCG(28, 5000))
	gen := func(n int) string {
		var b strings.Builder
		for range rng.IntN(n) {
			b.WriteString(letters[rng.IntN(len(letters))])
		}
		return b.String()
	}
	patterns := []string{"app-*-r000", "app-[0-9][0-9]-r0", "*", "a*", "*a", "[]a]b", "a\\*b", "a[b", "a]b*", "\\", "ab*ba"}
	for range 3000 {
		patterns = append(patterns, gen(7))
	}
	for _, p := range patterns {
		r := preparedRef{ref: &ApplicationRef{NamePattern: p}, exact: !strings.ContainsAny(p, `*?[\`)}
		if !r.exact {
			r.head, r.tail = globEnds(p)
		}
		for range 40 {
			name := strings.NewReplacer("[", "", "]", "", "\\", "").Replace(gen(8)) + gen(2)
			want, _ := filepath.Match(p, name)
			if got := r.nameMatches(name); got != want {
				t.Fatalf("pattern %q, name %q: %v, filepath.Match %v", p, name, got, want)
			}
		}
		if want, _ := filepath.Match(p, p); r.nameMatches(p) != want {
			t.Fatalf("pattern %q against itself: %v, filepath.Match %v", p, r.nameMatches(p), want)
		}
	}
}

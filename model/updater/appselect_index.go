package updater

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Selector is SelectTarget prepared once for many Applications (a fleet
// scan selects for every app of the cluster): the CRs in key order, each
// checked once (watched, refs, name patterns, listing namespace), its refs
// sorted by specificity with their scores and their label selectors
// parsed, and an index from an Application's name to the CRs whose refs
// name it exactly. What Image Updater decides is unchanged: Select returns
// what SelectTarget returns.
//
// A Selector reads the CRs it was made from and never writes them; it may
// be used by many goroutines at once.
type Selector struct {
	opts SelectOptions
	crs  []preparedCR
	// byName maps an Application's name to the CRs (indexes in crs) with a
	// ref whose namePattern is that name, no glob.
	byName map[string][]int
	// others are the CRs every Application must be checked against: one
	// with a glob ref, or one whose state alone is a problem (not watched,
	// invalid, a spec.namespace to warn about).
	others []int
}

// preparedCR is one CR as every Application sees it.
type preparedCR struct {
	cr  *ImageUpdater
	key string
	// watched, errText and fail: the CR is not reconciled, or fails as a
	// whole (fail is its problem, the same for every app).
	watched bool
	errText string
	fail    *Problem
	// listing is the namespace it lists Applications in ("" for all);
	// nsNotes the problems of its spec.namespace.
	listing string
	nsNotes []Problem
	// refs in Image Updater's order (most specific first, ties in spec
	// order).
	refs []preparedRef
	// glob: a ref's namePattern is a glob, which may match any name.
	glob bool
	// names are the refs (indexes in refs) that may match an app's name,
	// for Matches: which matches, not which comes first.
	names refNames
}

// refNames indexes a CR's refs by what an app's name must be to match
// them: its exact namePattern, else the literal end of its glob (its
// preparedRef's tail, globEnds: a suffix of every name it matches,
// "app-*-r042" matches only names ending in "-r042"); a glob with no
// literal end is tried for every name. With one CR of a glob ref per
// repository, an app's name is matched against one ref, not a thousand.
type refNames struct {
	exact map[string][]int
	tails map[string][]int
	lens  []int // the lengths of the tails, each once
	any   []int
}

func (x *refNames) add(i int, r *preparedRef) {
	if r.exact {
		if x.exact == nil {
			x.exact = map[string][]int{}
		}
		x.exact[r.ref.NamePattern] = append(x.exact[r.ref.NamePattern], i)
		return
	}
	tail := r.tail
	if tail == "" {
		x.any = append(x.any, i)
		return
	}
	if x.tails == nil {
		x.tails = map[string][]int{}
	}
	if !slices.Contains(x.lens, len(tail)) {
		x.lens = append(x.lens, len(tail))
	}
	x.tails[tail] = append(x.tails[tail], i)
}

// each calls f with every ref that may match name, until f returns true.
func (x *refNames) each(name string, f func(i int) bool) bool {
	for _, i := range x.exact[name] {
		if f(i) {
			return true
		}
	}
	for _, n := range x.lens {
		if n <= len(name) {
			for _, i := range x.tails[name[len(name)-n:]] {
				if f(i) {
					return true
				}
			}
		}
	}
	for _, i := range x.any {
		if f(i) {
			return true
		}
	}
	return false
}

// preparedRef is one applicationRef, scored and parsed once.
type preparedRef struct {
	index       int
	ref         *ApplicationRef
	specificity int
	annotations bool
	// exact: namePattern has no glob or escape, so it matches only
	// itself (filepath.Match would say the same).
	exact bool
	// head and tail are a glob's literal text before its first and after
	// its last special character (globEnds): a name that does not start
	// and end with them is no match, told without matching the glob.
	head, tail string
	// selector is the parsed labelSelectors (nil for none), or selErr.
	selector labels.Selector
	selErr   error
}

// NewSelector prepares crs (as stored) for SelectTarget's decisions under
// opts. It keeps pointers into crs.
func NewSelector(crs []ImageUpdater, opts SelectOptions) *Selector {
	s := &Selector{opts: opts, byName: map[string][]int{}}
	if !opts.Version.UsesCRs() {
		return s
	}
	order := make([]int, len(crs))
	for i := range order {
		order[i] = i
	}
	keys := make([]string, len(crs))
	for i := range crs {
		keys[i] = crs[i].Key()
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	s.crs = make([]preparedCR, len(crs))
	for k, i := range order {
		p := &s.crs[k]
		prepareCR(p, &crs[i], keys[i], opts)
		plain := p.fail == nil && len(p.nsNotes) == 0
		if !plain || p.glob {
			s.others = append(s.others, k)
			continue
		}
		for _, r := range p.refs {
			if names := s.byName[r.ref.NamePattern]; len(names) == 0 || names[len(names)-1] != k {
				s.byName[r.ref.NamePattern] = append(names, k)
			}
		}
	}
	return s
}

// prepareCR checks the CR as evaluateCR did for every app: what does not
// depend on the Application.
func prepareCR(p *preparedCR, cr *ImageUpdater, key string, opts SelectOptions) {
	v := opts.Version
	p.cr, p.key = cr, key
	p.watched = NamespaceWatched(cr.Namespace, opts)
	if !p.watched {
		p.fail = ptr(problemf(ProblemCRNamespaceNotWatched, SeverityError,
			"ImageUpdater %s is in namespace %q, which the controller does not watch (watch namespaces %q, controller namespace %q); it is never reconciled and gets no status",
			key, cr.Namespace, opts.WatchNamespaces, opts.ControllerNamespace))
		return
	}
	if len(cr.Spec.ApplicationRefs) == 0 {
		p.errText = "no application references defined in ImageUpdater CR"
		p.fail = ptr(problemf(ProblemCRNoApplicationRefs, SeverityError, "ImageUpdater %s: %s", key, p.errText))
		return
	}
	for _, ref := range cr.Spec.ApplicationRefs {
		if _, err := filepath.Match(ref.NamePattern, "validation"); err != nil {
			p.errText = fmt.Sprintf("invalid application name pattern '%s': %v", ref.NamePattern, err)
			p.fail = ptr(problemf(ProblemCRInvalidNamePattern, SeverityError,
				"ImageUpdater %s: %s; the whole CR fails (Ready=False) and selects no application", key, p.errText))
			return
		}
	}
	if v.AppNamespaceFromSpec() {
		if cr.Spec.Namespace == nil {
			p.nsNotes = append(p.nsNotes, problemf(ProblemCRSpecNamespaceMissing, SeverityWarning,
				"ImageUpdater %s has no spec.namespace, which %s requires; with an empty namespace it lists Applications in all namespaces", key, v.Short()))
		} else {
			p.listing = *cr.Spec.Namespace
		}
	} else {
		p.listing = cr.Namespace
		if cr.Spec.Namespace != nil && *cr.Spec.Namespace != cr.Namespace {
			p.nsNotes = append(p.nsNotes, problemf(ProblemCRSpecNamespaceIgnored, SeverityWarning,
				"ImageUpdater %s sets spec.namespace %q, which %s no longer reads (removed in v1.2.0, PR #1490): Applications are listed in the CR's own namespace %q",
				key, *cr.Spec.Namespace, v.Short(), cr.Namespace))
		}
	}
	refs := cr.Spec.ApplicationRefs
	for _, i := range SortedRefs(refs) {
		ref := &refs[i]
		r := preparedRef{index: i, ref: ref, specificity: Specificity(*ref), annotations: ref.UsesAnnotations(v),
			exact: !strings.ContainsAny(ref.NamePattern, `*?[\`)}
		if !r.exact {
			r.head, r.tail = globEnds(ref.NamePattern)
		}
		if ref.LabelSelectors != nil {
			r.selector, r.selErr = metav1.LabelSelectorAsSelector(ref.LabelSelectors)
		}
		p.glob = p.glob || !r.exact
		p.names.add(len(p.refs), &r)
		p.refs = append(p.refs, r)
	}
}

func ptr[T any](v T) *T { return &v }

// Select is SelectTarget(app, crs, opts) for the CRs and options the
// Selector was made from.
func (s *Selector) Select(app Application) Targeting {
	t, _ := s.selectApp(app, false)
	return t
}

// SelectConcerned is Select without the CRs that do not reach the app
// when another CR selects it: a CR that is watched and valid, and whose
// only word about the app is that it lists another namespace or that none
// of its refs matches (an info problem once another CR selects the app),
// is left out of CRs and Problems. Everything else (the CR followed, the
// others that select the app, their images, every other problem) is
// Select's. When no CR selects the app it is Select. A fleet scan takes
// this selection to its diagnoses: it costs what the app's own CRs cost,
// not what every CR of the cluster does.
func (s *Selector) SelectConcerned(app Application) Targeting {
	t, _ := s.selectApp(app, true)
	return t
}

// Matches reports whether one of the CRs selects the app by name and
// labels (its configuration built or not): a watched, valid CR that lists
// the app's namespace and has a ref whose namePattern and labelSelectors
// match it. It builds no configuration and reads only the app's own CRs.
func (s *Selector) Matches(app Application) bool {
	if !s.opts.Version.UsesCRs() {
		return false
	}
	for _, k := range s.candidates(app.Name) {
		p := &s.crs[k]
		if p.fail != nil || p.listing != "" && p.listing != app.Namespace {
			continue
		}
		if p.names.each(app.Name, func(i int) bool { ok, _ := p.refs[i].matches(app); return ok }) {
			return true
		}
	}
	return false
}

// RefSet is some of a Selector's applicationRefs (Selector.Refs), to ask
// whether one of them matches an app.
type RefSet struct {
	byName map[string]bool // exact namePatterns without labelSelectors
	refs   []*preparedRef  // the others
	named  []AppKey        // see Named
}

// AppKey is an Application's namespace and name.
type AppKey struct {
	Namespace, Name string
}

// Refs are the applicationRefs, of every CR whatever its state (failed,
// unwatched, listing another namespace), for which keep is true. A ref a
// selection of an app may follow is one that matches it by name and
// labels: an app whose selection may take a ref's images is one that
// RefSet.Matches.
func (s *Selector) Refs(keep func(cr *ImageUpdater, ref *ApplicationRef) bool) *RefSet {
	rs := &RefSet{byName: map[string]bool{}}
	if !s.opts.Version.UsesCRs() {
		return rs
	}
	seen := map[AppKey]bool{}
	for k := range s.crs {
		p := &s.crs[k]
		for i := range p.refs {
			r := &p.refs[i]
			if !keep(p.cr, r.ref) {
				continue
			}
			if r.exact && p.fail == nil && p.listing != "" {
				if k := (AppKey{Namespace: p.listing, Name: r.ref.NamePattern}); !seen[k] {
					seen[k] = true
					rs.named = append(rs.named, k)
				}
			}
			if r.exact && r.ref.LabelSelectors == nil {
				rs.byName[r.ref.NamePattern] = true
			} else {
				rs.refs = append(rs.refs, r)
			}
		}
	}
	return rs
}

// Named are the Applications the set's refs name exactly, in the one
// namespace their CR lists (a CR that reaches Applications, watched and
// valid): before the Applications are listed, the apps a ref may select
// by name, in the set's order (each once). An app whose labels a ref's
// labelSelectors refuse, or that does not exist, is among them; an app
// that only an image-list annotation or a glob names is not.
func (rs *RefSet) Named() []AppKey { return rs.named }

// Matches reports whether one of the refs matches the app by name and
// labels.
func (rs *RefSet) Matches(app Application) bool {
	if rs.byName[app.Name] {
		return true
	}
	for _, r := range rs.refs {
		if ok, _ := r.matches(app); ok {
			return true
		}
	}
	return false
}

// Empty: no ref is in the set.
func (rs *RefSet) Empty() bool { return len(rs.byName) == 0 && len(rs.refs) == 0 }

// candidates are the CRs (indexes in key order) whose answer for an app of
// this name is not the plain "no ref matches" or "another namespace".
func (s *Selector) candidates(name string) []int {
	exact := s.byName[name]
	if len(exact) == 0 {
		return s.others
	}
	if len(s.others) == 0 {
		return exact
	}
	out := make([]int, 0, len(exact)+len(s.others))
	out = append(out, exact...)
	out = append(out, s.others...)
	slices.Sort(out)
	return slices.Compact(out)
}

// matches: the ref matches the app by name and labels; invalid is the
// selector's error when the name matched and the selector is invalid.
func (r *preparedRef) matches(app Application) (ok bool, invalid error) {
	if !r.nameMatches(app.Name) {
		return false, nil
	}
	if r.ref.LabelSelectors == nil {
		return true, nil
	}
	if r.selErr != nil {
		return false, r.selErr
	}
	return r.selector.Matches(labels.Set(app.Labels)), nil
}

func (r *preparedRef) nameMatches(name string) bool {
	if r.exact {
		return r.ref.NamePattern == name
	}
	// A fleet's refs are often one glob per team or repository
	// (app-*-payments): most names differ at an end, told here.
	if len(name) < len(r.head)+len(r.tail) || !strings.HasPrefix(name, r.head) || !strings.HasSuffix(name, r.tail) {
		return false
	}
	ok, _ := filepath.Match(r.ref.NamePattern, name)
	return ok
}

// globEnds is the literal text of a filepath.Match pattern before its first
// and after its last special character (*, ?, [, ] or \): every name the
// pattern matches starts with head and ends with tail, apart. The special
// characters include ] (literal outside a class) and exclude none of the
// class's contents, so head and tail are literal whatever the classes
// hold; a malformed pattern matches nothing.
func globEnds(pattern string) (head, tail string) {
	const special = `*?[]\`
	i := strings.IndexAny(pattern, special)
	if i < 0 {
		return pattern, ""
	}
	return pattern[:i], pattern[strings.LastIndexAny(pattern, special)+1:]
}

// selectApp is SelectTarget; with concerned, the CRs that do not reach the
// app are left out when another selects it (ok false: every CR was
// evaluated).
func (s *Selector) selectApp(app Application, concerned bool) (Targeting, bool) {
	opts := s.opts
	v := opts.Version
	t := Targeting{App: app.Key(), Version: v.String(), RefIndex: -1}
	if !v.UsesCRs() {
		selectV0(app, opts, &t)
		return t, false
	}
	if len(s.crs) == 0 {
		t.add(problemf(ProblemNoCR, SeverityError, "no ImageUpdater CR exists; %s takes its configuration only from ImageUpdater CRs", v.Short()))
		if _, hasImageList := app.Annotations[AnnotationImageList]; hasImageList {
			t.add(problemf(ProblemAnnotationsIgnoredWithoutCR, SeverityError,
				"the application carries %s, but %s ignores Application annotations unless an ImageUpdater CR selects it with an applicationRef that sets useAnnotations: true (v1.1.0+)", AnnotationImageList, v.Short()))
		}
		return t, false
	}
	if concerned {
		var chosen []*crSelection
		var notes []Problem
		for _, k := range s.candidates(app.Name) {
			sel := s.crs[k].evaluate(app, opts, true)
			if sel.refIdx >= 0 {
				chosen = append(chosen, sel)
				t.CRs = append(t.CRs, sel.trace)
				continue
			}
			if sel.reachesNot() {
				continue
			}
			t.CRs = append(t.CRs, sel.trace)
			notes = append(notes, sel.details...)
		}
		if len(chosen) > 0 {
			return finishSelection(app, opts, t, chosen, notes), true
		}
		t.CRs = nil
	}
	var chosen []*crSelection
	var notes []Problem // per-CR reasons, reported fully only if nothing selects the app
	t.CRs = make([]CRTrace, 0, len(s.crs))
	for k := range s.crs {
		sel := s.crs[k].evaluate(app, opts, false)
		t.CRs = append(t.CRs, sel.trace)
		if sel.refIdx >= 0 {
			chosen = append(chosen, sel)
		} else {
			notes = append(notes, sel.details...)
		}
	}
	return finishSelection(app, opts, t, chosen, notes), false
}

// reachesNot: the CR's only word about the app is that it lists another
// namespace or that no ref matches it.
func (s *crSelection) reachesNot() bool {
	if s.refIdx >= 0 || len(s.details) != 1 {
		return false
	}
	c := s.details[0].Code
	return c == ProblemNoMatchingRef || c == ProblemAppNotInCRNamespace
}

// evaluate walks the CR's refs for the app, as Image Updater does. With
// lean (SelectConcerned: a fleet scan's selection) only the refs the names
// index says may match are tried, and a CR that selects the app keeps no
// ref trace (CRTrace.Refs nil): the trace of a selecting CR is never read
// (a diagnosis explains the refs of the CRs that do not select the app),
// and with one CR of a ref per repository it was a thousand entries per
// app. A CR that does not select the app is walked in full, as without lean.
func (p *preparedCR) evaluate(app Application, opts SelectOptions, lean bool) *crSelection {
	if lean && p.fail == nil && (p.listing == "" || p.listing == app.Namespace) {
		if sel := p.evaluateLean(app, opts); sel != nil {
			return sel
		}
	}
	cr := p.cr
	sel := &crSelection{cr: cr, refIdx: -1}
	tr := CRTrace{CR: p.key, SelectedRef: -1, Watched: p.watched, Error: p.errText}
	defer func() { sel.trace = tr }()
	if p.fail != nil {
		sel.details = append(sel.details, *p.fail)
		return sel
	}
	sel.details = append(sel.details, p.nsNotes...)
	tr.ListingNamespace = p.listing
	tr.AppListed = p.listing == "" || p.listing == app.Namespace
	if !tr.AppListed {
		where := "its metadata.namespace"
		if opts.Version.AppNamespaceFromSpec() {
			where = "spec.namespace"
		}
		sel.details = append(sel.details, problemf(ProblemAppNotInCRNamespace, SeverityError,
			"ImageUpdater %s lists Applications only in namespace %q (%s, %s); %s is in %q", p.key, p.listing, where, opts.Version.Short(), app.Key(), app.Namespace))
		return sel
	}

	w := refWalk{p: p, app: app, opts: opts, sel: sel}
	tr.Refs = make([]RefTrace, 0, len(p.refs))
	for ri := range p.refs {
		r := &p.refs[ri]
		// The refs not reached and those whose name does not match (all
		// but one of a CR of a ref per repository, for every app) are
		// written in place, in the capacity made above: no copy of the
		// ref nor of its trace.
		reached := sel.refIdx < 0
		if !reached || !r.nameMatches(app.Name) {
			tr.Refs = tr.Refs[:len(tr.Refs)+1]
			e := &tr.Refs[len(tr.Refs)-1]
			e.Index, e.NamePattern, e.Specificity, e.UsesAnnotations = r.index, r.ref.NamePattern, r.specificity, r.annotations
			e.Outcome = RefNotReached
			if reached {
				e.Outcome, e.App = RefNameMismatch, app.Name
			}
			continue
		}
		tr.Refs = append(tr.Refs, w.try(r))
	}
	tr.SelectedRef = sel.refIdx
	w.finish()
	return sel
}

// evaluateLean is evaluate of a listed, valid CR through the names index:
// the refs that may match the app's name, in Image Updater's order, until
// one is selected. It returns nil when none is (the caller walks every ref
// then, for the trace of a CR that does not select the app).
func (p *preparedCR) evaluateLean(app Application, opts SelectOptions) *crSelection {
	var try []int
	p.names.each(app.Name, func(i int) bool { try = append(try, i); return false })
	if len(try) == 0 {
		return nil
	}
	slices.Sort(try) // p.refs is in Image Updater's order
	sel := &crSelection{cr: p.cr, refIdx: -1}
	sel.details = append(sel.details, p.nsNotes...)
	w := refWalk{p: p, app: app, opts: opts, sel: sel}
	for _, ri := range try {
		if r := &p.refs[ri]; r.nameMatches(app.Name) {
			if w.try(r); sel.refIdx >= 0 {
				break
			}
		}
	}
	if sel.refIdx < 0 {
		return nil
	}
	w.finish()
	sel.trace = CRTrace{CR: p.key, SelectedRef: sel.refIdx, Watched: p.watched, Error: p.errText, ListingNamespace: p.listing, AppListed: true}
	return sel
}

// refWalk is one CR's refs tried for one app, in Image Updater's order:
// the selection it writes and what the refs that matched left behind.
type refWalk struct {
	p          *preparedCR
	app        Application
	opts       SelectOptions
	sel        *crSelection
	matchedAny bool
	lastErr    error
	failed     []int // indexes in sel.details of errors of refs that failed to build
}

// try is a ref reached whose name matches the app: its labels, then its
// configuration; the ref is selected when both hold. It returns the ref's
// trace.
func (w *refWalk) try(r *preparedRef) RefTrace {
	p, app, sel := w.p, w.app, w.sel
	i, ref := r.index, *r.ref
	rt := RefTrace{Index: i, NamePattern: ref.NamePattern, Specificity: r.specificity, UsesAnnotations: r.annotations}
	if ref.LabelSelectors != nil {
		if r.selErr != nil {
			rt.Outcome, rt.Err = RefInvalidSelector, r.selErr
			sel.details = append(sel.details, problemf(ProblemInvalidLabelSelector, SeverityWarning,
				"ImageUpdater %s applicationRefs[%d] (namePattern %q): invalid labelSelectors (%v); the ref matches no application", p.key, i, ref.NamePattern, r.selErr))
			return rt
		}
		if !r.selector.Matches(labels.Set(app.Labels)) {
			rt.Outcome, rt.Labels, rt.Selector = RefLabelsMismatch, app.Labels, r.selector
			return rt
		}
	}
	w.matchedAny = true
	if probs, err := buildRefConfig(app, p.cr, ref, w.opts, sel); err != nil {
		rt.Outcome, rt.Err = RefConfigError, err
		w.lastErr = err
		// The specific problems (a typo with "did you mean", an
		// unparsable value) come first: they are the cause and carry
		// the key and value to fix.
		for _, pr := range probs {
			if pr.Severity == SeverityError {
				w.failed = append(w.failed, len(sel.details))
			}
			sel.details = append(sel.details, pr)
		}
		sel.details = append(sel.details, problemf(ProblemRefConfigErrorFellThrough, SeverityWarning,
			"ImageUpdater %s applicationRefs[%d] (namePattern %q) matches but its configuration cannot be built (%v); Image Updater logs a warning and falls through to the next, less specific ref",
			p.key, i, ref.NamePattern, err))
		return rt
	}
	rt.Outcome = RefSelected
	sel.refIdx = i
	return rt
}

// finish is the CR's word once its refs are walked: a broader ref's
// selection makes the specific refs' errors warnings; no selection is
// an error.
func (w *refWalk) finish() {
	sel := w.sel
	if sel.refIdx >= 0 {
		// A broader ref took over: the specific ref's errors explain the
		// fall-through, they do not stop the app.
		for _, i := range w.failed {
			sel.details[i].Severity = SeverityWarning
		}
		return
	}
	if w.matchedAny {
		sel.details = append(sel.details, problemf(ProblemRefConfigErrorNoFallback, SeverityError,
			"ImageUpdater %s: every applicationRef matching %s failed to build its configuration (%v) and no less specific ref was left; Image Updater skips the application (the CR still reports Ready)", w.p.key, w.app.Key(), w.lastErr))
	} else {
		sel.details = append(sel.details, problemf(ProblemNoMatchingRef, SeverityError,
			"ImageUpdater %s: no applicationRef matches %s by name and labels; unmatched applications are ignored silently", w.p.key, w.app.Key()))
	}
}

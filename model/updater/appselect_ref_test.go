package updater

// The reference of TestSelectorMatchesSelectTarget: SelectTarget as it was
// before the Selector, kept as written then (its RefTrace details aside).

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// refSelectTarget is SelectTarget as it was before the Selector: every
// ref of every CR walked for the app (the property tests' reference).
// details collects each trace's detail in words, in the words it had.
//
// Its original doc: SelectTarget decides, like FilterApplicationsForUpdate of the version in
// opts, whether and how Image Updater processes app given the ImageUpdater
// CRs of the cluster (as stored, see ApplyCRDDefaults), and explains every
// step: per CR whether it is watched, valid and lists the app's namespace;
// per ref its specificity and outcome; the selected CR and ref; the mode;
// the images with effective settings and their sources; the write-back
// configuration; the source-type gate; and the problems found. For v0.x the
// CRs are ignored and the annotations decide. It never fails and never
// panics; a Targeting with Selected false says why in Problems.
func refSelectTarget(app Application, crs []ImageUpdater, opts SelectOptions, details map[string][]string) Targeting {
	v := opts.Version
	t := Targeting{App: app.Key(), Version: v.String(), RefIndex: -1}
	if !v.UsesCRs() {
		selectV0(app, opts, &t)
		return t
	}
	_, hasImageList := app.Annotations[AnnotationImageList]
	if len(crs) == 0 {
		t.add(problemf(ProblemNoCR, SeverityError, "no ImageUpdater CR exists; %s takes its configuration only from ImageUpdater CRs", v.Short()))
		if hasImageList {
			t.add(problemf(ProblemAnnotationsIgnoredWithoutCR, SeverityError,
				"the application carries %s, but %s ignores Application annotations unless an ImageUpdater CR selects it with an applicationRef that sets useAnnotations: true (v1.1.0+)", AnnotationImageList, v.Short()))
		}
		return t
	}
	order := make([]int, len(crs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(crs[a].Key(), crs[b].Key()) })

	var chosen []*crSelection
	var notes []Problem // per-CR reasons, reported fully only if nothing selects the app
	for _, i := range order {
		sel := refEvaluateCR(app, &crs[i], opts, details)
		t.CRs = append(t.CRs, sel.trace)
		if sel.refIdx >= 0 {
			chosen = append(chosen, sel)
		} else {
			notes = append(notes, sel.details...)
		}
	}
	if len(chosen) == 0 {
		t.add(notes...)
		if hasImageList {
			t.add(problemf(ProblemAnnotationsIgnoredWithoutCR, SeverityWarning,
				"the application carries %s, but no ImageUpdater CR selects it, so the annotations are ignored", AnnotationImageList))
		}
		return t
	}
	for _, n := range notes {
		if n.Severity == SeverityError {
			n.Severity = SeverityInfo
		}
		t.add(n)
	}
	// Image Updater runs every selecting CR on its own; imgupd follows one
	// in full (the later stages) and the candidates stage judges the
	// others' picks against its pick. It follows one that processes the app
	// (a CR whose images are all dropped, or whose source type is skipped,
	// writes nothing) and among those the app's own: the most specific
	// selecting ref; chosen is in key order, which breaks ties.
	slices.SortStableFunc(chosen, func(a, b *crSelection) int { return cmp.Compare(b.specificity(), a.specificity()) })
	finished := make([]Targeting, len(chosen))
	pi := -1
	for i, c := range chosen {
		finished[i] = Targeting{App: t.App, Version: t.Version, RefIndex: -1, Problems: c.details}
		finishCR(app, c, opts, &finished[i])
		if pi < 0 && finished[i].Selected {
			pi = i
		}
	}
	if pi < 0 {
		pi = 0
	}
	primary := chosen[pi]
	t.add(primary.details...)
	if len(chosen) > 1 {
		var others []string
		for i, c := range chosen {
			if i == pi {
				continue
			}
			others = append(others, c.cr.Key())
			t.Also = append(t.Also, finished[i])
		}
		t.AlsoSelectedBy = others
		t.add(problemf(ProblemMultipleCRsMatch, SeverityWarning,
			"%d ImageUpdater CRs select this application (%s and %s); Image Updater reconciles each CR on its own, with its own settings, pick and write, and does not de-conflict them: where their picks differ they rewrite the image in turn",
			len(chosen), primary.cr.Key(), strings.Join(others, ", ")))
	}
	finishCR(app, primary, opts, &t)
	return t
}

// refEvaluateCR is evaluateCR as it was: every ref of the CR, for the app.
func refEvaluateCR(app Application, cr *ImageUpdater, opts SelectOptions, details map[string][]string) *crSelection {
	v := opts.Version
	sel := &crSelection{cr: cr, refIdx: -1}
	tr := CRTrace{CR: cr.Key(), SelectedRef: -1}
	refDetail := map[int]string{}
	defer func() {
		sel.trace = tr
		for _, r := range tr.Refs {
			details[tr.CR] = append(details[tr.CR], refDetail[r.Index])
		}
	}()

	tr.Watched = NamespaceWatched(cr.Namespace, opts)
	if !tr.Watched {
		sel.details = append(sel.details, problemf(ProblemCRNamespaceNotWatched, SeverityError,
			"ImageUpdater %s is in namespace %q, which the controller does not watch (watch namespaces %q, controller namespace %q); it is never reconciled and gets no status",
			cr.Key(), cr.Namespace, opts.WatchNamespaces, opts.ControllerNamespace))
		return sel
	}
	if len(cr.Spec.ApplicationRefs) == 0 {
		tr.Error = "no application references defined in ImageUpdater CR"
		sel.details = append(sel.details, problemf(ProblemCRNoApplicationRefs, SeverityError, "ImageUpdater %s: %s", cr.Key(), tr.Error))
		return sel
	}
	for _, ref := range cr.Spec.ApplicationRefs {
		if _, err := filepath.Match(ref.NamePattern, "validation"); err != nil {
			tr.Error = fmt.Sprintf("invalid application name pattern '%s': %v", ref.NamePattern, err)
			sel.details = append(sel.details, problemf(ProblemCRInvalidNamePattern, SeverityError,
				"ImageUpdater %s: %s; the whole CR fails (Ready=False) and selects no application", cr.Key(), tr.Error))
			return sel
		}
	}
	if v.AppNamespaceFromSpec() {
		if cr.Spec.Namespace == nil {
			sel.details = append(sel.details, problemf(ProblemCRSpecNamespaceMissing, SeverityWarning,
				"ImageUpdater %s has no spec.namespace, which %s requires; with an empty namespace it lists Applications in all namespaces", cr.Key(), v.Short()))
		} else {
			tr.ListingNamespace = *cr.Spec.Namespace
		}
	} else {
		tr.ListingNamespace = cr.Namespace
		if cr.Spec.Namespace != nil && *cr.Spec.Namespace != cr.Namespace {
			sel.details = append(sel.details, problemf(ProblemCRSpecNamespaceIgnored, SeverityWarning,
				"ImageUpdater %s sets spec.namespace %q, which %s no longer reads (removed in v1.2.0, PR #1490): Applications are listed in the CR's own namespace %q",
				cr.Key(), *cr.Spec.Namespace, v.Short(), cr.Namespace))
		}
	}
	tr.AppListed = tr.ListingNamespace == "" || tr.ListingNamespace == app.Namespace
	if !tr.AppListed {
		where := "its metadata.namespace"
		if v.AppNamespaceFromSpec() {
			where = "spec.namespace"
		}
		sel.details = append(sel.details, problemf(ProblemAppNotInCRNamespace, SeverityError,
			"ImageUpdater %s lists Applications only in namespace %q (%s, %s); %s is in %q", cr.Key(), tr.ListingNamespace, where, v.Short(), app.Key(), app.Namespace))
		return sel
	}

	refs := cr.Spec.ApplicationRefs
	matchedAny := false
	var lastErr error
	var failed []int // indexes in sel.details of errors of refs that failed to build
	for _, i := range SortedRefs(refs) {
		ref := refs[i]
		rt := RefTrace{Index: i, NamePattern: ref.NamePattern, Specificity: Specificity(ref), UsesAnnotations: ref.UsesAnnotations(v)}
		if sel.refIdx >= 0 {
			rt.Outcome = RefNotReached
			tr.Refs = append(tr.Refs, rt)
			continue
		}
		if ok, _ := filepath.Match(ref.NamePattern, app.Name); !ok {
			rt.Outcome, rt.App, refDetail[i] = RefNameMismatch, app.Name, fmt.Sprintf("%q does not match namePattern %q", app.Name, ref.NamePattern)
			tr.Refs = append(tr.Refs, rt)
			continue
		}
		if ref.LabelSelectors != nil {
			s, err := metav1.LabelSelectorAsSelector(ref.LabelSelectors)
			if err != nil {
				rt.Outcome, rt.Err, refDetail[i] = RefInvalidSelector, err, fmt.Sprintf("Invalid label selector provided: %v", err)
				sel.details = append(sel.details, problemf(ProblemInvalidLabelSelector, SeverityWarning,
					"ImageUpdater %s applicationRefs[%d] (namePattern %q): invalid labelSelectors (%v); the ref matches no application", cr.Key(), i, ref.NamePattern, err))
				tr.Refs = append(tr.Refs, rt)
				continue
			}
			if !s.Matches(labels.Set(app.Labels)) {
				rt.Outcome, rt.Labels, rt.Selector, refDetail[i] = RefLabelsMismatch, app.Labels, s, fmt.Sprintf("labels %v do not match selector %q", app.Labels, s.String())
				tr.Refs = append(tr.Refs, rt)
				continue
			}
		}
		matchedAny = true
		if probs, err := buildRefConfig(app, cr, ref, opts, sel); err != nil {
			rt.Outcome, rt.Err, refDetail[i] = RefConfigError, err, err.Error()
			lastErr = err
			// The specific problems (a typo with "did you mean", an
			// unparsable value) come first: they are the cause and carry
			// the key and value to fix.
			for _, p := range probs {
				if p.Severity == SeverityError {
					failed = append(failed, len(sel.details))
				}
				sel.details = append(sel.details, p)
			}
			sel.details = append(sel.details, problemf(ProblemRefConfigErrorFellThrough, SeverityWarning,
				"ImageUpdater %s applicationRefs[%d] (namePattern %q) matches but its configuration cannot be built (%v); Image Updater logs a warning and falls through to the next, less specific ref",
				cr.Key(), i, ref.NamePattern, err))
			tr.Refs = append(tr.Refs, rt)
			continue
		}
		rt.Outcome = RefSelected
		sel.refIdx, tr.SelectedRef = i, i
		tr.Refs = append(tr.Refs, rt)
	}
	if sel.refIdx >= 0 {
		// A broader ref took over: the specific ref's errors explain the
		// fall-through, they do not stop the app.
		for _, i := range failed {
			sel.details[i].Severity = SeverityWarning
		}
	}
	if sel.refIdx < 0 {
		if matchedAny {
			sel.details = append(sel.details, problemf(ProblemRefConfigErrorNoFallback, SeverityError,
				"ImageUpdater %s: every applicationRef matching %s failed to build its configuration (%v) and no less specific ref was left; Image Updater skips the application (the CR still reports Ready)", cr.Key(), app.Key(), lastErr))
		} else {
			sel.details = append(sel.details, problemf(ProblemNoMatchingRef, SeverityError,
				"ImageUpdater %s: no applicationRef matches %s by name and labels; unmatched applications are ignored silently", cr.Key(), app.Key()))
		}
	}
	return sel
}

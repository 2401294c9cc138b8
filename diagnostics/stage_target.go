package diagnostics

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

// checkTarget decides whether Image Updater picks up the Application: which
// ImageUpdater CR and applicationRef select it (or, on v0.x and with
// useAnnotations, its annotations), with which effective settings, and every
// configuration problem the model finds on the way.
func checkTarget(ctx context.Context, r *run) []report.Finding {
	if r.app == nil {
		if !cluster.IsNotFound(r.appErr) {
			return []report.Finding{readFailure(report.StageTarget, fmt.Sprintf("Application %s/%s", r.req.Namespace, r.req.App), r.appErr)}
		}
		return []report.Finding{r.appNotFound(ctx)}
	}
	var out []report.Finding
	if r.version.UsesCRs() {
		crs, err := r.e.Cluster.ImageUpdaters(ctx, "")
		if err != nil {
			// A cluster-wide list may be forbidden; the CRs that matter for
			// v1.2+ are in the app's namespace.
			crs, err = r.e.Cluster.ImageUpdaters(ctx, r.req.Namespace)
			if err != nil {
				return []report.Finding{readFailure(report.StageTarget, "ImageUpdater CRs", err)}
			}
			out = append(out, report.Finding{Code: report.CodeReadForbidden, Severity: report.Info,
				Title: "ImageUpdater CRs were read in " + r.req.Namespace + " only (a cluster-wide list is not allowed)"})
		}
		r.crs = crs
	}
	opts := updater.SelectOptions{Version: r.version}
	if r.install != nil {
		opts.ControllerNamespace = r.install.Namespace
		if w := strings.TrimSpace(r.install.WatchNamespaces); w != "" {
			opts.WatchNamespaces = []string{w}
		}
	}
	t, ok := r.req.Selection.targetFor(r.model, r.crs, opts)
	if !ok {
		t = updater.SelectTarget(r.model, r.crs, opts)
	}
	r.target = t
	r.images = t.Images
	if t.Mode != "" {
		r.rep.Mode = string(t.Mode)
	}
	others := otherCRs(t)
	for _, p := range t.Problems {
		f := r.problemFinding(p)
		if others.collapses(p) {
			if others.n++; others.n > 1 {
				continue
			}
			others.at = len(out)
		}
		if f.Stage == report.StageTarget {
			out = append(out, f)
		}
		if p.Code == updater.ProblemAnnotationForUnknownAlias {
			r.aliasTypos = append(r.aliasTypos, aliasTypoOf(p, t.Images, f.Title))
		}
	}
	if others.n > 1 {
		out[others.at] = others.finding(out[others.at], r.req.Namespace+"/"+r.req.App)
	}
	out = dedupeFindings(out)
	// After an upgrade from v0.x the specific cause is that annotations are
	// ignored; put it before the generic "no CR".
	for i, f := range out {
		if f.Code == "TARGET_ANNOTATIONS_IGNORED" && i > 0 {
			out = append([]report.Finding{f}, append(out[:i:i], out[i+1:]...)...)
			break
		}
	}
	if !t.Selected {
		failsElsewhere := false
		for _, p := range t.Problems {
			failsElsewhere = failsElsewhere || p.Severity == updater.SeverityError
		}
		if !hasSeverity(out, report.Fail) && !failsElsewhere {
			out = append(out, find(report.Code("TARGET_NO_MATCHING_REF"), report.Fail, "Image Updater does not pick up "+r.req.App))
		}
		return out
	}
	f := find(report.CodeTargetMatched, report.Pass, selectedTitle(t))
	if t.CR != "" {
		f = f.With(ev("ImageUpdater", t.CR), ev("applicationRef", fmt.Sprintf("#%d namePattern %q", t.RefIndex, t.NamePattern)))
	}
	f = f.With(ev("mode", string(t.Mode)))
	for _, im := range t.Images {
		f = f.With(ev("image "+aliasOr(im), imageSettings(im)))
	}
	for _, d := range t.Dropped {
		f = f.With(ev("dropped image "+d.ImageName, d.Reason))
	}
	// Image Updater runs the other selecting CRs too; the candidates stage
	// compares their picks with this one's.
	for _, o := range t.Also {
		what := "does not process the app"
		if o.Selected {
			var ims []string
			for _, im := range o.Images {
				ims = append(ims, imageSettings(im))
			}
			what = strings.Join(ims, "; ")
		}
		f = f.With(ev("also ImageUpdater "+o.CR, fmt.Sprintf("applicationRef #%d namePattern %q: %s", o.RefIndex, o.NamePattern, what)))
	}
	return append(out, f)
}

func (r *run) appNotFound(ctx context.Context) report.Finding {
	f := find(report.CodeAppNotFound, report.Fail, fmt.Sprintf("Application %s/%s does not exist", r.req.Namespace, r.req.App))
	apps, err := r.e.Cluster.Applications(ctx, r.req.Namespace)
	if err != nil {
		return f
	}
	var names []string
	for _, a := range apps {
		names = append(names, a.Name)
	}
	if near := closest(r.req.App, names, 3); len(near) > 0 {
		f.Title += "; did you mean " + strings.Join(near, ", ") + "?"
		f = f.With(ev("closest names", strings.Join(near, ", ")))
	} else if len(names) > 0 {
		sort.Strings(names)
		f = f.With(ev("Applications in "+r.req.Namespace, textutil.ClipWords(strings.Join(names, ", "), 300)))
	} else {
		f = f.With(ev("Applications in "+r.req.Namespace, "none"))
	}
	return f
}

func selectedTitle(t updater.Targeting) string {
	n := len(t.Images)
	switch {
	case t.CR != "":
		return fmt.Sprintf("ImageUpdater %s selects the app (%d image(s), %s)", t.CR, n, t.Mode)
	default:
		return fmt.Sprintf("Image Updater picks up the app from its annotations (%d image(s))", n)
	}
}

// unselecting is what a diagnosis says of the CRs that do not select the
// app while another one does (issue 28): with one CR per app, as an
// ApplicationSet generates them, every other CR of the fleet. Each is not
// a problem of this app (the model says so with an info problem per CR: no
// applicationRef matches), so they are one finding: how many, and their
// names (bounded) as its evidence, which -v and JSON show. When no CR
// selects the app, each CR's reason stays a finding of its own.
type unselecting struct {
	names []string // the CRs whose every ref missed the app, in key order
	n     int      // the info problems collapsed
	at    int      // the finding that stands for them
}

// maxUnselectingNames bounds the names the finding lists.
const maxUnselectingNames = 20

func otherCRs(t updater.Targeting) unselecting {
	var u unselecting
	for _, c := range t.CRs {
		if c.SelectedRef >= 0 || !c.AppListed || c.Error != "" || len(c.Refs) == 0 {
			continue
		}
		missed := true
		for _, ref := range c.Refs {
			switch ref.Outcome {
			case updater.RefNameMismatch, updater.RefLabelsMismatch, updater.RefInvalidSelector:
			default:
				missed = false
			}
		}
		if missed {
			u.names = append(u.names, c.CR)
		}
	}
	return u
}

// collapses: p is one CR's "no applicationRef matches" while another CR
// selects the app (the model then makes it info).
func (u *unselecting) collapses(p updater.Problem) bool {
	return p.Code == updater.ProblemNoMatchingRef && p.Severity == updater.SeverityInfo
}

// finding is first (the first CR's finding) made the one for all of them.
func (u *unselecting) finding(first report.Finding, app string) report.Finding {
	f := first
	f.Evidence = nil
	f.Title = fmt.Sprintf("%d other ImageUpdater CRs do not select %s: none of their applicationRefs matches it by name and labels", u.n, app)
	names := u.names
	more := ""
	if len(names) > maxUnselectingNames {
		more = fmt.Sprintf(" and %d more", len(names)-maxUnselectingNames)
		names = names[:maxUnselectingNames]
	}
	if len(names) > 0 {
		f = f.With(ev("ImageUpdater CRs", strings.Join(names, ", ")+more))
	}
	return f
}

func dedupeFindings(fs []report.Finding) []report.Finding {
	seen := map[string]bool{}
	var out []report.Finding
	for _, f := range fs {
		k := string(f.Code) + "\x00" + f.Title
		if !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}

// aliasTypoOf reads which alias an annotation for an unknown alias was
// meant for (the suggestion, or the only aliased image) and whether it
// names a manifest target.
func aliasTypoOf(p updater.Problem, images []updater.ImageConfig, title string) aliasTypo {
	t := aliasTypo{title: title}
	s := strings.TrimPrefix(p.Suggest, updater.AnnotationPrefix)
	for _, im := range images {
		if im.Alias != "" && strings.HasPrefix(s, im.Alias+".") {
			t.alias = im.Alias
		}
	}
	key := strings.TrimPrefix(p.Key, updater.AnnotationPrefix)
	for _, k := range []string{updater.AnnKeyHelmImageName, updater.AnnKeyHelmImageTag, updater.AnnKeyHelmImageSpec, updater.AnnKeyKustomizeImageName} {
		if strings.HasSuffix(key, "."+k) {
			t.targetKey = true
		}
	}
	return t
}

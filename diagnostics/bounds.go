package diagnostics

import (
	"errors"
	"fmt"

	"github.com/imgupd/imgupd/internal/shell"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/advice"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/gitsource"
	"github.com/imgupd/imgupd/sources/helmchart"
	"github.com/imgupd/imgupd/sources/registry"
)

// What the diagnosis says when a server answered past imgupd's read
// bounds (a tag list, a git answer, a Helm index or chart): that it
// stopped, where, what Image Updater or Argo CD does with such an answer,
// and what that leaves unverified.

// tooLarge is err's TooLarge *registry.Error for a tag list, or nil.
func tooLarge(err error) *registry.Error {
	var re *registry.Error
	if errors.As(err, &re) && re.Kind == registry.TooLarge && re.List != nil {
		return re
	}
	return nil
}

// tagListTooLarge: the registry lists more than imgupd reads. The tags
// read stand in for the list; partialPick says what that leaves open.
func (r *run) tagListTooLarge(im updater.ImageConfig, ep updater.Endpoint, repo string, re *registry.Error) report.Finding {
	lim := re.List
	f := find(report.CodeRegistryTagListTooLarge, report.Warn, fmt.Sprintf("the tag list of image %s at %s has %s: imgupd stopped after %d tags", aliasOr(im), ep.Host(), lim.Over(), lim.Tags)).
		WithImage(im.Alias).
		With(ev("repository", repo),
			ev("read", fmt.Sprintf("%d tags, %d bytes in %d pages, then stopped at the %s bound", lim.Tags, lim.Bytes, lim.Pages, lim.Bound)),
			ev("Image Updater", "reads every page into memory each cycle, with no bound of its own"))
	where := "the registry's retention settings for " + ep.Host() + "/" + repo
	var steps []report.Step
	if r.install != nil {
		steps = append(steps, report.RunPipe("see whether the list cost Image Updater its pod (OOMKilled)", shell.Pipeline{
			shell.Cmd("kubectl", "-n", r.install.Namespace, "get", "pods", "-o", "custom-columns=POD:.metadata.name,RESTARTS:.status.containerStatuses[*].restartCount,LAST:.status.containerStatuses[*].lastState.terminated.reason"),
			shell.Cmd("grep", "-i", "image-updater"),
		}))
	}
	return f.WithFix(advice.ForRegistry(re.Facts()), where, steps...)
}

// partialPick adjusts the candidate findings of an image whose tag list
// stopped at imgupd's bound, and adds the not-verified finding: a tag past
// the bound can only be picked instead of the pick among the tags read,
// so an update due among them is due whatever follows (unless the running
// tag was not among them), while "up to date", "no candidate", a downgrade
// or a tie could each change.
func partialPick(im updater.ImageConfig, d updater.Decision, lim *registry.ListLimit, fs []report.Finding) []report.Finding {
	among := fmt.Sprintf(" (among the first %d tags only)", lim.Tags)
	for i := range fs {
		f := &fs[i]
		switch {
		case f.Code == report.CodeCandidatesUpdate:
			f.Title += among + "; a tag past them may be picked instead"
		case f.Code == report.CodeCandidatesUpToDate:
			f.Severity, f.Title = report.Info, f.Title+among
		case f.Severity == report.Fail && d.Outcome != updater.OutcomeError:
			// What the tags read say; the tags past the bound may say
			// otherwise, so it cannot be the answer. A constraint that
			// does not parse fails whatever the tags.
			f.Severity, f.Title = report.Warn, f.Title+among
		}
	}
	decides := !updateCertain(d)
	what := "the pick is the best of those tags; a tag past them may change it"
	if !decides {
		what = "the update is due whatever follows (a tag past them can only be picked instead, and the running tag is below the pick)"
	}
	f := find(report.CodeCandidatesPartialList, report.Unknown, fmt.Sprintf("image %s: the candidate table holds the first %d tags the registry listed (%s): %s", aliasOr(im), lim.Tags, lim.Over(), what)).
		WithImage(im.Alias)
	f.Decides = decides
	f.Verify = fmt.Sprintf("Image Updater's own log for this image (Setting new image to …, or already on latest allowed version), or a repository of fewer than %d tags", registry.DefaultMaxTags)
	return append(fs, f)
}

// updateCertain: among the tags read an update is due that every longer
// list keeps due. Strategies pick the greatest candidate in their order, so
// more tags can only raise the pick; the running tag must be a candidate
// below it (its rank known), or the digest strategy's one tag was found, or
// the constraint pins one version below the running one (a rollback).
// An error outcome that does not depend on the tags (the constraint, the
// strategy) fails whatever follows and decides nothing here.
func updateCertain(d updater.Decision) bool {
	if d.Outcome == updater.OutcomeError {
		return true
	}
	if d.Selected == nil || (d.Outcome != updater.OutcomeUpdate && d.Outcome != updater.OutcomeAlreadyInSpec) || isDowngrade(d) {
		// A pin admits one version: no unread tag can be picked instead.
		_, pinned := rollbackPin(d)
		return pinned
	}
	if d.Strategy == updater.StrategyDigest {
		return true
	}
	for _, t := range d.Tags {
		if t.Tag == d.RunningTag && t.Kept && t.Rank > 1 {
			return true
		}
	}
	return false
}

// sourceTooLarge: the source's git server or Helm repository answered past
// imgupd's read bound. Like any source imgupd cannot read, it decides
// nothing: Argo CD may well read it.
func sourceTooLarge(what string, err error) (report.Finding, bool) {
	var (
		ge    *gitsource.Error
		he    *helmchart.Error
		bound string
		hint  string
		argo  string
	)
	switch {
	case errors.As(err, &ge) && ge.Kind == gitsource.TooLarge && ge.Limit != nil:
		bound, hint = ge.Limit.Error(), advice.ForGit(ge.Facts())
		argo = "clones it with git to disk, without this bound; an answer that never ends holds it until its exec timeout (ARGOCD_EXEC_TIMEOUT, 90 s)"
	case errors.As(err, &he) && he.Kind == helmchart.TooLarge:
		bound, hint = he.Error(), advice.ForChart(he.Facts())
		argo = "reads an index up to --helm-registry-max-index-size (default 1G) and unpacks a chart up to --helm-manifest-max-extracted-size (default 1G)"
	default:
		return report.Finding{}, false
	}
	f := find(report.CodeSourceTooLarge, report.Unknown, fmt.Sprintf("imgupd stopped reading %s: %s", what, textutil.OneLine(bound))).
		With(ev("error", textutil.OneLine(err.Error())), ev("Argo CD", argo))
	if hint != "" {
		f = f.WithFix(hint, what)
	}
	f.Verify = "check the app renders from it: argocd app manifests APP (the mapping checks need the source)"
	return f, true
}

// writeBackTooLarge: the write-back repository answered past imgupd's
// read bound; whether Image Updater's clone goes through is for its log
// to say.
func writeBackTooLarge(repo string, ge *gitsource.Error) report.Finding {
	bound := ge.Error()
	if ge.Limit != nil {
		bound = ge.Limit.Error()
	}
	f := find(report.CodeWriteBackGitTooLarge, report.Unknown, fmt.Sprintf("imgupd stopped reading the write-back repository %s: %s", gitsource.NormalizeURL(repo), textutil.OneLine(bound))).
		With(ev("error", textutil.OneLine(ge.Error())), ev("Image Updater", "clones it with git to disk for each commit, without this bound"))
	if h := advice.ForGit(ge.Facts()); h != "" {
		f = f.WithFix(h, "gitConfig.repository (or the source repoURL)")
	}
	f.Verify = "Image Updater's log: a write-back that fails logs Could not update application spec"
	return f
}

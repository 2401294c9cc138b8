package updater

// Several ImageUpdater CRs may select one Application. The controller
// (internal/controller/imageupdater_controller.go, v1.3.0) reconciles each
// CR on its own: one Reconcile per CR, each running RunImageUpdater over the
// applications that CR selects with that CR's settings, each requeued after
// the same --interval (IMAGE_UPDATER_INTERVAL, 2m by default). Nothing
// de-conflicts them (docs/configuration/applications.md). For one image,
// each CR's reconcile picks with its own constraint and filters and, by
// needsUpdate (pkg/argocd/update.go), writes its pick whenever the running
// tag differs from it, downwards too, unless the spec already holds that
// pick. So two CRs with different picks rewrite the image in turn, cycle
// after cycle; a CR with no pick (no candidate, an error) writes nothing.

// CRPick is one selecting CR's decision for one image of the Application.
type CRPick struct {
	// CR is the ImageUpdater (namespace/name), RefIndex its selecting
	// applicationRef, NamePattern that ref's pattern.
	CR          string
	RefIndex    int
	NamePattern string
	// Specificity is the selecting ref's score: the app's own CR scores
	// higher than a team-wide "*".
	Specificity int
	Alias       string
	Decision    Decision
}

// Tag is the tag the CR's reconcile sets for the image, and false when it
// sets none (no candidate, an error, or v1.1's fallback to the running tag,
// which is no pick of its own).
func (p CRPick) Tag() (string, bool) {
	d := p.Decision
	if d.Selected == nil || d.Selected.FromRunningTag {
		return "", false
	}
	switch d.Outcome {
	case OutcomeUpdate, OutcomeAlreadyInSpec, OutcomeUpToDate, OutcomePicked:
		return d.Selected.String(), true
	}
	return "", false
}

// ContestKind is how the picks of the selecting CRs combine for one image.
type ContestKind string

const (
	// ContestAgree: every CR that picks a tag picks the same one (or only
	// the followed CR picks): the image settles on it.
	ContestAgree ContestKind = "agree"
	// ContestAlternate: two CRs pick different tags; each reconcile writes
	// its own, so the image moves between them every cycle.
	ContestAlternate ContestKind = "alternate"
	// ContestOverride: the followed CR picks nothing (it holds the image
	// back or fails it), and another CR moves the image to its pick.
	ContestOverride ContestKind = "override"
)

// Contest is the judgement of every selecting CR's pick for one image.
type Contest struct {
	Kind ContestKind
	// Followed is the CR imgupd follows (the most specific selecting ref).
	Followed CRPick
	// Others are the other CRs whose reconcile writes a tag different from
	// the followed CR's (ContestAlternate), or the ones that move the image
	// though the followed CR picks nothing (ContestOverride), in the order
	// given.
	Others []CRPick
}

// JudgeCRPicks combines the followed CR's pick with the others' for the
// same image (same registry and repository).
func JudgeCRPicks(followed CRPick, others []CRPick) Contest {
	c := Contest{Kind: ContestAgree, Followed: followed}
	own, ok := followed.Tag()
	for _, o := range others {
		t, has := o.Tag()
		if !has {
			continue
		}
		switch {
		case ok && t != own:
			c.Kind = ContestAlternate
			c.Others = append(c.Others, o)
		case !ok && o.Decision.Outcome != OutcomeUpToDate:
			// The followed CR leaves the image alone; this one moves it.
			if c.Kind != ContestAlternate {
				c.Kind = ContestOverride
			}
			c.Others = append(c.Others, o)
		}
	}
	return c
}

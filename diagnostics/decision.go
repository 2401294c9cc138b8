package diagnostics

import (
	"github.com/Masterminds/semver/v3"

	"github.com/imgupd/imgupd/model/updater"
)

// What one image's tag decision says, for the stages' titles and the
// headline: the running tag as shown, whether the pick waits, a rollback pin.

// pending: the pick is not running yet, whether Image Updater writes it
// this cycle or has written it already. Both are judged alike.
func pending(d updater.Decision) bool {
	return d.Selected != nil && (d.Outcome == updater.OutcomeUpdate || d.Outcome == updater.OutcomeAlreadyInSpec)
}

// rollbackPin returns the pin of a pick below the running version that the
// configuration names exactly: a semver constraint that admits one version
// (updater.ExactPin: 1.0.0, =1.0.0, v1.0.0), or the tag the digest strategy
// follows. Both versions must parse; a word such as latest is no version.
func rollbackPin(d updater.Decision) (string, bool) {
	if !pending(d) {
		return "", false
	}
	run, err1 := semver.NewVersion(d.RunningTag)
	pick, err2 := semver.NewVersion(d.Selected.Tag)
	if err1 != nil || err2 != nil || !pick.LessThan(run) {
		return "", false
	}
	switch d.Strategy {
	case updater.StrategySemver:
		return updater.ExactPin(d.Constraint)
	case updater.StrategyDigest:
		return d.Constraint, d.Constraint != "" && d.Constraint == d.Selected.Tag
	}
	return "", false
}

func displayRunning(d updater.Decision) string {
	s := updater.ImageRef{Tag: d.RunningTag, Digest: d.RunningDigest}.TagWithDigest()
	if s == "" {
		return "(no tag)"
	}
	return s
}

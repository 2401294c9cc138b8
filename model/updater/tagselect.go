package updater

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/Masterminds/semver/v3"
)

// SelectInput is everything the tag selection of one image depends on.
type SelectInput struct {
	Version Version
	// Image is the configured image; its Tag is the version constraint.
	Image    ImageRef
	Settings UpdateSettings
	// Tags is the registry's tag list, in the order the registry sent it.
	Tags []string
	// Meta holds per-tag metadata for the strategies that need it
	// (newest-build, digest), keyed by tag. Tags missing from it are dropped
	// as "no metadata", as Image Updater drops tags whose manifest fails.
	Meta map[string]TagMeta
	// TagSortMode is the registry's tagsortmode ("", "none", "latest-first",
	// "latest-last"); a time-sorted mode replaces metadata with positions.
	TagSortMode string
	// ControllerPlatform is the platform the controller runs on, used when no
	// platforms are configured; zero means DefaultControllerPlatform.
	ControllerPlatform Platform
	// Live is the running image found in status.summary.images, nil when the
	// running image is not known (not live, or not given to simulate).
	// A live image without a tag has an empty Tag.
	Live *ImageRef
	// KustomizeName is the Kustomize image name override, if configured.
	KustomizeName string
	// InSpec is the image the Application spec already holds for this image
	// (Helm parameters, Kustomize images, plugin env), nil when unknown.
	InSpec *ImageRef
}

// Fate is what happened to one tag.
type Fate string

const (
	FateSelected         Fate = "selected"
	FateCandidate        Fate = "candidate"
	FateAllowTags        Fate = "dropped: allow-tags"
	FateIgnoreTags       Fate = "dropped: ignore-tags"
	FateNotConstraintTag Fate = "dropped: not the digest tag"
	FatePlatform         Fate = "dropped: platform"
	FateMetadata         Fate = "dropped: no metadata"
	FateNotVersion       Fate = "dropped: not a version"
	FateConstraint       Fate = "dropped: constraint"
	FateNotConsidered    Fate = "not considered"
)

// TagFate is one tag's fate with the reason in words.
type TagFate struct {
	Tag  string `json:"tag"`
	Kept bool   `json:"kept"`
	Fate Fate   `json:"fate"`
	Why  string `json:"why"`
	// Rank is the candidate's place in the strategy's order: 1 is the pick,
	// 2 the runner-up; 0 for dropped tags.
	Rank int `json:"rank"`
	// Created is the build time used by newest-build, when known.
	Created *time.Time `json:"created,omitempty"`
	// Digest is the manifest digest, when fetched.
	Digest string `json:"digest,omitempty"`
	// Platforms are the platforms the tag's image has, when its metadata
	// was read (newest-build and digest).
	Platforms []string `json:"platforms,omitempty"`
}

// Outcome is what Image Updater does with the image in this cycle.
type Outcome string

const (
	// OutcomeUpdate: a different tag is chosen and would be written.
	OutcomeUpdate Outcome = "update"
	// OutcomeUpToDate: the pick equals the running image.
	OutcomeUpToDate Outcome = "up-to-date"
	// OutcomeAlreadyInSpec: an update is due but the spec already holds it
	// (waiting for Argo CD to sync).
	OutcomeAlreadyInSpec Outcome = "already-in-spec"
	// OutcomeNoCandidate: no tag survived; the image is skipped.
	OutcomeNoCandidate Outcome = "no-candidate"
	// OutcomeError: Image Updater fails this image (counted in errors=).
	OutcomeError Outcome = "error"
	// OutcomePicked: a tag was picked, but the running tag is unknown, so
	// whether an update follows cannot be said (simulate without --current-tag).
	OutcomePicked Outcome = "picked"
)

// SelectErrorKind classifies the failures Image Updater reports for an image.
type SelectErrorKind string

const (
	ErrDigestWithoutConstraint SelectErrorKind = "digest-without-constraint"
	ErrImproperConstraint      SelectErrorKind = "improper-constraint"
	ErrRunningTagNotSemver     SelectErrorKind = "running-tag-not-semver"
)

// SelectError is a failure of tag selection, with the message Image Updater logs.
type SelectError struct {
	Kind SelectErrorKind
	// Log is the error line as Image Updater writes it.
	Log string
	Err error
}

func (e *SelectError) Error() string { return e.Log }
func (e *SelectError) Unwrap() error { return e.Err }

// Pick is the chosen tag.
type Pick struct {
	Tag    string `json:"tag"`
	Digest string `json:"digest,omitempty"`
	// FromRunningTag is true when v1.1-or-older returned the running tag
	// because no tag survived filtering (no real pick happened).
	FromRunningTag bool `json:"fromRunningTag,omitempty"`
}

// String is "tag" or "tag@sha256:..." as Image Updater writes it.
func (p Pick) String() string {
	return ImageRef{Tag: p.Tag, Digest: p.Digest}.TagWithDigest()
}

// Decision is the full account of one image's tag selection.
type Decision struct {
	Image      string   `json:"image"`
	Version    string   `json:"updaterVersion"`
	Strategy   Strategy `json:"-"`
	Constraint string   `json:"constraint"`
	// ConstraintMeaning explains the constraint in plain words ("" when none).
	ConstraintMeaning string `json:"constraintMeaning,omitempty"`
	// Platforms is the platform filter, for strategies that use one.
	Platforms *PlatformSet `json:"-"`
	// Tags holds every listed tag: candidates by rank first, then dropped
	// tags in registry order.
	Tags     []TagFate `json:"tags"`
	Selected *Pick     `json:"selected"`
	// RunningTag is the live tag ("" when unknown or untagged).
	RunningTag    string `json:"runningTag,omitempty"`
	RunningDigest string `json:"runningDigest,omitempty"`
	// UpdateNeeded is nil when it cannot be known (no running image given).
	UpdateNeeded *bool   `json:"updateNeeded"`
	Outcome      Outcome `json:"outcome"`
	// Reason says in words why the outcome is what it is.
	Reason string       `json:"reason"`
	Err    *SelectError `json:"-"`
	// Logs are the lines Image Updater would log for this image, level first.
	Logs []string `json:"logs,omitempty"`
	// Counts of tags at each step.
	Listed     int `json:"listed"`
	Filtered   int `json:"afterFilters"`
	Candidates int `json:"candidates"`
}

type candidate struct {
	i       int // index in the fate table
	name    string
	created time.Time
	digest  string
	ver     sver
}

// Select runs Image Updater's tag selection for one image and explains every
// step: GetTags filtering (allow-tags, ignore-tags, the digest tag), metadata
// and platforms for newest-build and digest, the strategy's sort, the
// constraint, the pick, and needsUpdate against the running image. Each step
// is a method of selection and can be run alone.
func Select(in SelectInput) Decision {
	sel := newSelection(in)
	sc := scratchPool.Get().(*scratch)
	defer sc.put()
	sel.scratch = sc
	kept, ok := sel.filter()
	if !ok {
		return sel.finish()
	}
	cands := sel.metadata(kept)
	sc.cands = cands // what put clears
	sel.d.Filtered = len(cands)
	if len(cands) == 0 {
		if !in.Version.NoTagsMeansNoCandidate() {
			return sel.d.noTagsOld(in, sel.fates)
		}
		sel.d.logf("warn", "no tags found for image %s in registry", in.Image.FullName())
		sel.d.Outcome = OutcomeNoCandidate
		sel.d.Reason = noTagsReason(sel.d.Listed, sel.fates)
		return sel.finish()
	}
	avail := sel.sort(cands)
	if len(avail) == 0 {
		if !in.Version.NoTagsMeansNoCandidate() {
			return sel.d.noTagsOld(in, sel.fates)
		}
		sel.d.logf("warn", "no tags for image %s matched by the %s strategy", in.Image.FullName(), in.Settings.Strategy)
		sel.d.Outcome = OutcomeNoCandidate
		sel.d.Reason = fmt.Sprintf("None of the %d tags is a semantic version, so the semver strategy has nothing to choose from. Use update-strategy newest-build or alphabetical, or push version tags.", len(cands))
		return sel.finish()
	}
	if !sel.runningTagAccepted() {
		return sel.finish()
	}
	check, ok := sel.constraintCheck()
	if !ok {
		return sel.finish()
	}
	consider := sel.constrain(cands, avail, &check)
	if len(consider) == 0 {
		return sel.finish()
	}
	sel.pick(cands, consider)
	return sel.finish()
}

// selection is one tag selection in progress: the input, the decision it
// writes and every listed tag's fate. Select runs its steps in Image
// Updater's order: filter, metadata, sort, the running tag, the constraint,
// the pick. A step that fails the image or leaves no tag says so, and the
// decision is then complete but for finish.
type selection struct {
	in         SelectInput
	constraint string
	d          Decision
	fates      *fateTable
	// tags are the distinct listed tags, in registry order (fates.list's).
	tags []string
	// scratch, when set, holds the steps' working slices (Select's).
	scratch *scratch
}

// scratch is one selection's working slices: the kept tags, the
// candidates and their order. Nothing of them outlives Select, which
// takes them from scratchPool and gives them back: a fleet scan selects
// an image of a thousand tags per app, and these were a third of what it
// allocated (bench/README.md).
type scratch struct {
	keptIdx []int
	cands   []candidate
	avail   []int32
}

// scratchPool is the scratch slices Select reuses. It is a cache: what it
// holds decides nothing.
var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// put clears what the candidates made point to (tag names, digests) and
// gives the slices back.
func (sc *scratch) put() {
	clear(sc.cands)
	sc.cands = sc.cands[:0]
	scratchPool.Put(sc)
}

// work is the selection's scratch: Select's, from the pool, or (a step
// run alone) its own.
func (sel *selection) work() *scratch {
	if sel.scratch == nil {
		sel.scratch = new(scratch)
	}
	return sel.scratch
}

// kept, candidates and order return the slice emptied, with room for n
// (its array when it has it).
func (sc *scratch) kept(n int) []int {
	sc.keptIdx = slices.Grow(sc.keptIdx[:0], n)
	return sc.keptIdx
}
func (sc *scratch) candidates(n int) []candidate {
	sc.cands = slices.Grow(sc.cands[:0], n)
	return sc.cands
}
func (sc *scratch) order(n int) []int32 {
	sc.avail = slices.Grow(sc.avail[:0], n)
	return sc.avail
}

// newSelection starts the decision: the image, the running image, the
// constraint in words, and the warnings the settings carry.
func newSelection(in SelectInput) selection {
	v := in.Version
	s := in.Settings
	constraint := in.Image.Constraint()
	sel := selection{in: in, constraint: constraint}
	d := &sel.d
	*d = Decision{
		Image:      in.Image.FullName(),
		Version:    v.String(),
		Strategy:   s.Strategy,
		Constraint: constraint,
	}
	if in.Live != nil {
		d.RunningTag, d.RunningDigest = in.Live.Tag, in.Live.Digest
	}
	if s.Strategy.UsesConstraint() {
		d.ConstraintMeaning = ExplainConstraint(constraint, s.Strategy, v)
	}
	for _, n := range s.Notes {
		d.logf("warn", "%s", n)
	}
	if s.AllowTags.Problem != "" {
		d.logf("warn", "%s", s.AllowTags.Problem)
	}
	sel.fates = newFateTable(in.Tags)
	if len(sel.fates.list) == len(in.Tags) {
		sel.tags = in.Tags // no duplicates: the same tags in the same order (read only)
	} else {
		sel.tags = sel.fates.tags()
	}
	d.Listed = len(sel.tags)
	return sel
}

// finish puts the tags' fates in the decision: candidates by rank, then the
// rest in registry order.
func (sel *selection) finish() Decision {
	sel.d.Tags = sel.fates.arranged()
	return sel.d
}

// filter is GetTags' filtering. The digest strategy needs a constraint
// (checked after the listing: without one the image fails, ok false); then
// allow-tags, ignore-tags and, for digest, the constraint tag drop tags. It
// returns the indices (into fates.list) of the tags kept.
func (sel *selection) filter() (kept []int, ok bool) {
	s, constraint, d, fates := sel.in.Settings, sel.constraint, &sel.d, sel.fates
	if s.Strategy == StrategyDigest && constraint == "" {
		msg := fmt.Sprintf("cannot use update strategy 'digest' for image '%s' without a version constraint", sel.in.Image.Original)
		d.fail(ErrDigestWithoutConstraint, "Could not get tags from registry: "+msg, nil)
		d.Reason = "The digest strategy tracks one tag and needs it named in the image (e.g. " + sel.in.Image.FullName() + ":latest); this image has none, so Image Updater fails it every cycle."
		markAll(fates, FateNotConsidered, "the image failed before tag selection: digest strategy without a tag to track")
		return nil, false
	}
	kept = sel.work().kept(len(sel.tags))
	for i, t := range sel.tags {
		f := &fates.list[i]
		switch {
		case !s.AllowTags.Allows(t):
			f.Fate, f.Why = FateAllowTags, allowWhy(s.AllowTags)
		case IgnoredBy(s.IgnoreTags, t) != "":
			f.Fate, f.Why = FateIgnoreTags, fmt.Sprintf("matches ignore-tags pattern %q", IgnoredBy(s.IgnoreTags, t))
		case s.Strategy == StrategyDigest && t != constraint:
			f.Fate, f.Why = FateNotConstraintTag, fmt.Sprintf("the digest strategy only follows tag %q", constraint)
		default:
			kept = append(kept, i)
		}
	}
	return kept, true
}

// metadata makes the kept tags candidates with a build time. Strategies
// without metadata, and registries that sort by time (tagsortmode), use the
// tag's position; newest-build and digest read each tag's metadata
// (SelectInput.Meta) through the platform filter, and drop a tag without
// metadata or without an image for the platforms.
func (sel *selection) metadata(kept []int) []candidate {
	in, s, d, fates, tags := sel.in, sel.in.Settings, &sel.d, sel.fates, sel.tags
	cands := sel.work().candidates(len(kept))
	timeSorted := in.TagSortMode == "latest-first" || in.TagSortMode == "latest-last"
	if !s.Strategy.NeedsMetadata() || timeSorted {
		if s.Strategy.NeedsMetadata() {
			d.logf("info", "taglistsort is set to '%s' but update strategy '%s' requires metadata. Results may not be what you expect.", in.TagSortMode, s.Strategy)
		}
		for i, k := range kept {
			var ts int
			switch in.TagSortMode {
			case "latest-first":
				ts = len(kept) - i
			case "latest-last":
				ts = i
			}
			cands = append(cands, candidate{i: k, name: tags[k], created: time.Unix(int64(ts), 0)})
		}
		return cands
	}
	ps := PlatformFilter(in)
	d.Platforms = &ps
	for _, p := range ps.Problems {
		d.logf("warn", "%s", p)
	}
	for _, k := range kept {
		t := tags[k]
		f := &fates.list[k]
		m, ok := in.Meta[t]
		if !ok {
			f.Fate, f.Why = FateMetadata, "metadata was not fetched"
			continue
		}
		if m.Err != "" {
			what := "its manifest"
			if m.ErrOp == "config" {
				what = "its image config (a blob)"
			}
			f.Fate, f.Why = FateMetadata, "could not read "+what+": "+m.Err
			d.logf("error", "error fetching metadata for %s:%s: %s", in.Image.Name, t, m.Err)
			continue
		}
		created, matched, all := platformCreated(m, ps)
		f.Platforms = all
		if !matched {
			f.Fate = FatePlatform
			f.Why = fmt.Sprintf("no image for %s (has %s)", ps.String(), strings.Join(all, ", "))
			if ps.FromController {
				f.Why += "; no platforms configured, so the controller's own platform is required"
			}
			continue
		}
		f.Digest = m.Digest
		c := created
		f.Created = &c
		cd := candidate{i: k, name: t, created: created}
		if s.Strategy == StrategyDigest {
			cd.digest = m.Digest
		}
		cands = append(cands, cd)
	}
	return cands
}

// sort orders the candidates by the strategy, ascending (the last one
// wins), as indices into cands: the sorts move indices, not candidates.
// Semver keeps only semantic versions and sorts after the constraint
// (constrain: only the tags that pass it get a rank, and filtering commutes
// with sorting); newest-build sorts by build time, then name; alphabetical
// and digest by name.
func (sel *selection) sort(cands []candidate) []int32 {
	avail := sel.work().order(len(cands))
	switch sel.in.Settings.Strategy {
	case StrategySemver:
		for i := range cands {
			ver, ok := parseSemver(cands[i].name)
			if !ok {
				f := &sel.fates.list[cands[i].i]
				f.Fate, f.Why = FateNotVersion, "not a semantic version, so the semver strategy skips it"
				continue
			}
			cands[i].ver = ver
			avail = append(avail, int32(i))
		}
	case StrategyNewestBuild:
		for i := range cands {
			avail = append(avail, int32(i))
		}
		slices.SortFunc(avail, func(x, y int32) int {
			a, b := &cands[x], &cands[y]
			if c := a.created.Compare(b.created); c != 0 {
				return c
			}
			return strings.Compare(a.name, b.name)
		})
	default: // alphabetical, digest
		for i := range cands {
			avail = append(avail, int32(i))
		}
		slices.SortFunc(avail, func(x, y int32) int { return strings.Compare(cands[x].name, cands[y].name) })
	}
	return avail
}

// runningTagAccepted is the running tag check of v1.1.0 and older with the
// semver strategy: a running tag that is not a semantic version fails the
// image (false).
func (sel *selection) runningTagAccepted() bool {
	in, v, d := sel.in, sel.in.Version, &sel.d
	if in.Settings.Strategy == StrategySemver && !v.AllowsNonSemverRunningTag() && in.Live != nil && in.Live.Tag != "" {
		if _, err := semver.NewVersion(in.Live.Tag); err != nil {
			d.fail(ErrRunningTagNotSemver, "Unable to find newest version from available tags: "+err.Error(), err)
			d.Reason = fmt.Sprintf("The running tag %q is not a semantic version, and Image Updater %s refuses to update from a non-semver tag with the semver strategy (fixed in v1.1.1/v1.2.0 by PR #1473). Upgrade Image Updater, or deploy a version tag once by hand.", in.Live.Tag, v.Short())
			markRemaining(sel.fates, FateNotConsidered, "the image failed before the constraint check: running tag is not semver")
			return false
		}
	}
	return true
}

// constraintCheck is the constraint a candidate must meet: any tag for
// strategies without one; for semver the image's constraint ("*" when it
// is empty and the version excludes pre-releases then). A constraint that
// does not parse fails the image (ok false).
func (sel *selection) constraintCheck() (check tagCheck, ok bool) {
	v, constraint, d := sel.in.Version, sel.constraint, &sel.d
	if sel.in.Settings.Strategy != StrategySemver {
		return check, true
	}
	c := constraint
	if c == "" && v.EmptyConstraintExcludesPrereleases() {
		c = "*"
	}
	if c == "" {
		return check, true
	}
	sc, err := semver.NewConstraint(c)
	if err != nil {
		d.logf("error", "invalid constraint '%s' given: '%v'", constraint, err)
		d.fail(ErrImproperConstraint, "Unable to find newest version from available tags: "+err.Error(), err)
		d.Reason = fmt.Sprintf("The tag part of the image, %q, is used as a semver constraint and is not one. Image Updater fails this image every cycle. Remove the tag from the image name, write a constraint such as ~1.2, or use update-strategy digest to follow %q.", constraint, constraint)
		markRemaining(sel.fates, FateNotConsidered, "the image failed: its constraint does not parse")
		return check, false
	}
	check.sc = sc
	check.fast, check.compiled = compileConstraint(sc)
	return check, true
}

// tagCheck is a candidate's constraint (constraintCheck): none (the zero
// value admits every tag), compiled for the parsed version, or the
// library's Check of the tag.
type tagCheck struct {
	sc       *semver.Constraints
	fast     sconstraint
	compiled bool
}

// admits reports whether the candidate meets the constraint.
func (k *tagCheck) admits(c *candidate) bool {
	switch {
	case k.sc == nil:
		return true
	case k.compiled:
		return k.fast.check(c.ver)
	}
	lv, err := semver.NewVersion(c.name)
	return err == nil && k.sc.Check(lv)
}

// constrain drops the sorted candidates (avail) that check does not admit, sorts what
// is left for semver, and ranks it: the last one is rank 1, the pick. With
// none left the decision says why (no candidate). It reuses avail's array.
func (sel *selection) constrain(cands []candidate, avail []int32, check *tagCheck) []int32 {
	in, v, constraint, d, fates := sel.in, sel.in.Version, sel.constraint, &sel.d, sel.fates
	s := in.Settings
	consider := avail[:0]
	releaseWhy, preWhy := constraintWhy(false, constraint, v), constraintWhy(true, constraint, v)
	for _, x := range avail {
		c := &cands[x]
		if !check.admits(c) {
			f := &fates.list[c.i]
			f.Fate, f.Why = FateConstraint, releaseWhy
			if c.ver.pre != "" {
				f.Why = preWhy
			}
			continue
		}
		consider = append(consider, x)
	}
	if s.Strategy == StrategySemver {
		slices.SortFunc(consider, func(x, y int32) int {
			a, b := &cands[x], &cands[y]
			if c := a.ver.cmp(b.ver); c != 0 {
				return c
			}
			return strings.Compare(a.name, b.name)
		})
	}
	d.Candidates = len(consider)
	d.logf("debug", "found %d from %d tags eligible for consideration", len(consider), len(avail))
	for i, x := range consider {
		c := &cands[x]
		f := &fates.list[c.i]
		f.Kept = true
		f.Rank = len(consider) - i
		f.Fate, f.Why = FateCandidate, rankWhy(s.Strategy, f.Rank, c)
	}
	if len(consider) == 0 {
		if v.LogsNoTagsWarnings() {
			d.logf("warn", "no tags for image %s matched constraint %q", in.Image.FullName(), constraint)
		}
		d.logf("debug", "No suitable image tag for upgrade found in list of available tags.")
		d.Outcome = OutcomeNoCandidate
		if constraint == "" {
			d.Reason = fmt.Sprintf("Only pre-release tags are left, and since v1.3.0 an empty constraint excludes pre-releases. Add a constraint with a pre-release part (e.g. %s) to allow them.", ">=0.0.0-0")
		} else {
			d.Reason = fmt.Sprintf("No tag satisfies the constraint %q (%s). Widen the constraint in the image name.", constraint, d.ConstraintMeaning)
		}
	}
	return consider
}

// pick selects the last ranked candidate, decides whether it is an update
// (needsUpdate, already in spec), and, for newest-build, names the tags
// that share its build time.
func (sel *selection) pick(cands []candidate, consider []int32) {
	d := &sel.d
	win := &cands[consider[len(consider)-1]]
	sel.fates.list[win.i].Fate = FateSelected
	d.Selected = &Pick{Tag: win.name, Digest: win.digest}
	d.decideUpdate(sel.in)
	if sel.in.Settings.Strategy == StrategyNewestBuild {
		var tied []string
		for _, x := range consider[:len(consider)-1] {
			if cands[x].created.Equal(win.created) {
				tied = append(tied, cands[x].name)
			}
		}
		if len(tied) > 0 {
			d.Reason += fmt.Sprintf(" %s shares its build time with %s; on a tie the greater name wins. If you meant %s, add ignore-tags %q.",
				win.name, strings.Join(tied, ", "), tied[len(tied)-1], win.name)
		}
	}
}

// MetadataTags returns the tags whose metadata Image Updater fetches for this
// input: none for strategies without metadata (or a time-sorted registry),
// otherwise the tags that pass allow-tags, ignore-tags and, for digest, the
// constraint tag. Sources call it to fetch no more than the model needs.
func MetadataTags(in SelectInput) []string {
	s := in.Settings
	if !s.Strategy.NeedsMetadata() || in.TagSortMode == "latest-first" || in.TagSortMode == "latest-last" {
		return nil
	}
	if s.Strategy == StrategyDigest && in.Image.Constraint() == "" {
		return nil
	}
	var out []string
	for _, t := range dedupe(in.Tags) {
		if s.AllowTags.Allows(t) && IgnoredBy(s.IgnoreTags, t) == "" && (s.Strategy != StrategyDigest || t == in.Image.Constraint()) {
			out = append(out, t)
		}
	}
	return out
}

// PlatformFilter is the platform filter the metadata strategies apply for in.
func PlatformFilter(in SelectInput) PlatformSet {
	ctrl := in.ControllerPlatform
	if ctrl == (Platform{}) {
		ctrl = DefaultControllerPlatform
	}
	return NewPlatformSet(in.Settings.Platforms, ctrl)
}

// decideUpdate applies needsUpdate and the "already set in spec" check.
func (d *Decision) decideUpdate(in SelectInput) {
	pick := *d.Selected
	newImg := in.Image
	newImg.Tag, newImg.Digest = pick.Tag, pick.Digest
	if in.Live == nil {
		d.Outcome = OutcomePicked
		d.Reason = fmt.Sprintf("Image Updater would pick %s. The running tag is unknown, so whether that is an update cannot be said (give the running tag).", pick)
		return
	}
	need := needsUpdate(in, pick)
	d.UpdateNeeded = &need
	if !need {
		d.Outcome = OutcomeUpToDate
		d.logf("debug", "Image '%s' already on latest allowed version", in.Image.FullName()+":"+in.Live.TagWithDigest())
		d.Reason = fmt.Sprintf("The running tag %s is already the pick; nothing to update.", displayTag(*in.Live))
		return
	}
	if in.InSpec != nil && in.InSpec.String() == newImg.String() {
		d.Outcome = OutcomeAlreadyInSpec
		d.logf("info", "New image %s already set in spec", newImg.String())
		d.Reason = fmt.Sprintf("The Application spec already asks for %s, but %s is still running: Image Updater waits for Argo CD to sync it.", pick, displayTag(*in.Live))
		return
	}
	d.Outcome = OutcomeUpdate
	d.logf("info", "Setting new image to %s", newImg.String())
	if in.Live.Tag == "" && in.Live.Digest == "" {
		d.Reason = fmt.Sprintf("The running image has no tag, so Image Updater always updates it, to %s.", pick)
		return
	}
	verb := "update"
	if in.Settings.Strategy == StrategySemver {
		if lv, err := semver.NewVersion(in.Live.Tag); err == nil {
			if pv, err := semver.NewVersion(pick.Tag); err == nil && pv.LessThan(lv) {
				verb = "DOWNGRADE"
			}
		}
	}
	if _, pin := ExactPin(in.Image.Constraint()); pin && verb == "DOWNGRADE" {
		d.Reason = fmt.Sprintf("Image Updater would roll %s back from %s to %s, the one version the constraint %q admits.", in.Image.FullName(), displayTag(*in.Live), pick, in.Image.Constraint())
		return
	}
	d.Reason = fmt.Sprintf("Image Updater would %s %s from %s to %s.", strings.ToLower(verb), in.Image.FullName(), displayTag(*in.Live), pick)
	if verb == "DOWNGRADE" {
		d.Reason += " The running tag is outside the constraint, and Image Updater moves to the best allowed tag even when it is lower (needsUpdate compares for equality, not order)."
	}
}

// needsUpdate mirrors Image Updater's needsUpdate.
func needsUpdate(in SelectInput, pick Pick) bool {
	live := in.Live
	if in.Settings.Strategy == StrategyDigest {
		if live.Digest == "" {
			return true
		}
		return live.Digest != pick.Digest
	}
	var equal bool
	if live.Digest != "" || pick.Digest != "" {
		equal = live.Digest == pick.Digest
	} else {
		equal = live.Tag == pick.Tag
	}
	if !equal {
		return true
	}
	return in.KustomizeName != "" && !in.Image.SameImage(*live)
}

// noTagsOld models v1.1 and older: with no tag left the running tag is
// returned, so the image silently looks up to date.
func (d *Decision) noTagsOld(in SelectInput, fates *fateTable) Decision {
	if in.Live == nil || (in.Live.Tag == "" && in.Live.Digest == "") {
		d.Outcome = OutcomeNoCandidate
		d.logf("debug", "No suitable image tag for upgrade found in list of available tags.")
		d.Reason = noTagsReason(d.Listed, fates)
	} else {
		d.Selected = &Pick{Tag: in.Live.Tag, Digest: in.Live.Digest, FromRunningTag: true}
		f := false
		d.UpdateNeeded = &f
		d.Outcome = OutcomeUpToDate
		d.logf("debug", "Image '%s' already on latest allowed version", in.Image.FullName()+":"+in.Live.TagWithDigest())
		d.Reason = noTagsReason(d.Listed, fates) + fmt.Sprintf(" Image Updater %s then keeps the running tag %s and logs nothing above debug level, so it looks up to date.", d.versionShort(), displayTag(*in.Live))
	}
	d.Tags = fates.arranged()
	return *d
}

func (d *Decision) versionShort() string {
	if v, err := ParseVersion(strings.Fields(d.Version)[0]); err == nil {
		return v.Short()
	}
	return d.Version
}

func (d *Decision) fail(kind SelectErrorKind, log string, err error) {
	d.Err = &SelectError{Kind: kind, Log: log, Err: err}
	d.Outcome = OutcomeError
	d.logf("error", "%s", log)
}

func (d *Decision) logf(level, format string, args ...any) {
	d.Logs = append(d.Logs, level+": "+fmt.Sprintf(format, args...))
}

// platformCreated applies the platform filter to a tag's metadata: whether any
// manifest matches, the newest build time among the matching ones, and every
// platform present (for the explanation).
func platformCreated(m TagMeta, ps PlatformSet) (time.Time, bool, []string) {
	var newest time.Time
	matched := false
	all := make([]string, 0, len(m.Manifests))
	for _, mm := range m.Manifests {
		all = append(all, mm.Platform.String())
		if !ps.Wants(mm.Platform) {
			continue
		}
		matched = true
		if mm.Created.After(newest) {
			newest = mm.Created
		}
	}
	if len(all) == 0 {
		all = append(all, "no platform information")
	}
	return newest, matched, all
}

func dedupe(tags []string) []string {
	seen := make(map[string]bool, len(tags))
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// fateTable holds one fate per distinct listed tag, in registry order.
type fateTable struct {
	list []TagFate
}

// newFateTable makes one entry per distinct tag, keeping the first
// occurrence (Image Updater keeps tags in a map by name). Registries list
// tags in lexical order, which proves there are no duplicates without
// hashing every tag; other lists go through a set.
func newFateTable(tags []string) *fateTable {
	// The entries are made zero and their tags set in place: appending
	// whole entries moved 112 bytes with their pointers for every tag.
	ft := &fateTable{list: make([]TagFate, len(tags))}
	if strictlyIncreasing(tags) {
		for i, t := range tags {
			ft.list[i].Tag = t
		}
		return ft
	}
	seen := make(map[string]struct{}, len(tags))
	n := 0
	for _, t := range tags {
		if _, dup := seen[t]; dup {
			continue
		}
		seen[t] = struct{}{}
		ft.list[n].Tag = t
		n++
	}
	ft.list = ft.list[:n]
	return ft
}

// strictlyIncreasing reports whether every tag is greater than the one
// before it, which rules out duplicates.
func strictlyIncreasing(tags []string) bool {
	for i := 1; i < len(tags); i++ {
		if tags[i] <= tags[i-1] {
			return false
		}
	}
	return true
}

func (ft *fateTable) tags() []string {
	out := make([]string, len(ft.list))
	for i := range ft.list {
		out[i] = ft.list[i].Tag
	}
	return out
}

func markAll(ft *fateTable, f Fate, why string) {
	for i := range ft.list {
		ft.list[i].Fate, ft.list[i].Why = f, why
	}
}

func markRemaining(ft *fateTable, f Fate, why string) {
	for i := range ft.list {
		if ft.list[i].Fate == "" {
			ft.list[i].Fate, ft.list[i].Why = f, why
		}
	}
}

// arranged orders fates in place: candidates by rank, then the rest in
// registry order. The table is not used after this.
func (ft *fateTable) arranged() []TagFate {
	n := 0
	for i := range ft.list {
		if ft.list[i].Fate == "" {
			ft.list[i].Fate, ft.list[i].Why = FateNotConsidered, "not reached"
		}
		if ft.list[i].Rank > 0 {
			n++
		}
	}
	if n == 0 {
		return ft.list
	}
	// Each entry's place: a candidate's rank, then the rest in their
	// order. The entries are moved there in place, cycle by cycle, with
	// 4 bytes a tag of bookkeeping instead of a copy of the ranked ones (a
	// table of 2,000 tags is 200 KiB, made for every image of every app a
	// fleet scan diagnoses: issue 28).
	place := make([]int32, len(ft.list))
	rest := int32(n)
	seen := make([]bool, n)
	for i := range ft.list {
		r := ft.list[i].Rank
		if r == 0 {
			place[i], rest = rest, rest+1
			continue
		}
		if r > n || seen[r-1] { // not a rank of 1 to n: never, as the ranks are made
			return ft.list
		}
		seen[r-1], place[i] = true, int32(r-1)
	}
	for i := range ft.list {
		for j := place[i]; j != int32(i); j = place[i] {
			ft.list[i], ft.list[j] = ft.list[j], ft.list[i]
			place[i], place[j] = place[j], place[i]
		}
	}
	return ft.list
}

func allowWhy(a AllowTags) string {
	if a.Kind == AllowNothing {
		return fmt.Sprintf("allow-tags %q is invalid (%s), so it matches no tag at all", a.Raw, a.Problem)
	}
	return fmt.Sprintf("does not match allow-tags %q (unanchored: a match anywhere in the tag counts)", a.Raw)
}

// constraintWhy explains a constraint failure of a release or a pre-release.
func constraintWhy(prerelease bool, constraint string, v Version) string {
	if constraint == "" {
		return "pre-release: with no constraint, Image Updater " + v.Short() + " excludes pre-releases"
	}
	if prerelease {
		hint := strings.TrimSpace(constraint) + "-0"
		if strings.ContainsAny(strings.TrimSpace(constraint), " ,|") || strings.Contains(constraint, "-") {
			hint = "a lower bound such as >=1.2.0-0"
		}
		return "pre-release: a constraint only matches pre-releases when it has a pre-release part itself (e.g. " + hint + ")"
	}
	return "outside constraint " + strconv.Quote(constraint)
}

func rankWhy(s Strategy, rank int, c *candidate) string {
	if s == StrategySemver || s == StrategyAlphabetical {
		return sharedRankWhy(s, rank)
	}
	place := "the pick"
	if rank > 1 {
		place = fmt.Sprintf("#%d", rank)
	}
	switch s {
	case StrategyNewestBuild:
		return fmt.Sprintf("%s by build date %s (ties go to the greater name)", place, c.created.UTC().Format(time.RFC3339))
	case StrategyDigest:
		return fmt.Sprintf("%s: the tracked tag, digest %s", place, shortDigest(c.digest))
	}
	return place
}

// rankWhys are the reasons of semver and alphabetical ranks, which
// depend on the rank alone: kept once, a fleet of 500 apps over
// repositories of 2,000 tags holds 2,000 of them instead of a million.
var rankWhys struct {
	mu sync.RWMutex
	m  map[Strategy][]string // rank-1 → reason
}

// maxSharedRank bounds the ranks kept (beyond it each is made anew).
const maxSharedRank = 1 << 14

func sharedRankWhy(s Strategy, rank int) string {
	if rank < 1 || rank > maxSharedRank {
		return rankWhyText(s, rank)
	}
	rankWhys.mu.RLock()
	list := rankWhys.m[s]
	rankWhys.mu.RUnlock()
	if rank <= len(list) {
		return list[rank-1]
	}
	rankWhys.mu.Lock()
	defer rankWhys.mu.Unlock()
	if rankWhys.m == nil {
		rankWhys.m = map[Strategy][]string{}
	}
	list = rankWhys.m[s]
	if rank <= len(list) {
		return list[rank-1]
	}
	grown := make([]string, min(max(rank, 2*len(list)), maxSharedRank))
	copy(grown, list)
	for r := len(list) + 1; r <= len(grown); r++ {
		grown[r-1] = rankWhyText(s, r)
	}
	rankWhys.m[s] = grown
	return grown[rank-1]
}

// rankWhyText is the reason of a semver or alphabetical rank.
func rankWhyText(s Strategy, rank int) string {
	place := "the pick"
	if rank > 1 {
		place = "#" + strconv.Itoa(rank)
	}
	if s == StrategySemver {
		return place + " by semantic version"
	}
	return place + " in byte order (the last name wins)"
}

func noTagsReason(listed int, fates *fateTable) string {
	if listed == 0 {
		return "The registry returned no tags for this repository."
	}
	counts := map[Fate]int{}
	for _, f := range fates.list {
		counts[f.Fate]++
	}
	var parts []string
	for _, f := range []Fate{FateAllowTags, FateIgnoreTags, FateNotConstraintTag, FatePlatform, FateMetadata} {
		if counts[f] > 0 {
			parts = append(parts, fmt.Sprintf("%d by %s", counts[f], strings.TrimPrefix(string(f), "dropped: ")))
		}
	}
	return fmt.Sprintf("All %d tags were removed before the strategy could choose (%s).", listed, strings.Join(parts, ", "))
}

func displayTag(r ImageRef) string {
	if r.Tag == "" && r.Digest == "" {
		return "(no tag)"
	}
	return r.TagWithDigest()
}

func shortDigest(d string) string {
	if len(d) > 19 {
		return d[:19]
	}
	return d
}

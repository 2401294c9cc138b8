package report

import (
	"slices"
	"strconv"
	"time"
)

// Where is the answer to "where is my tag?": every Application Image
// Updater manages whose images use the asked repository, and for each
// whether the tag reaches it and, if not, what stops it.
type Where struct {
	// Asked is the image as the asker wrote it.
	Asked string `json:"asked"`
	// Repository is the repository after Image Updater's normalisation
	// (registry host and path, Docker Hub as docker.io/library/NAME).
	Repository string `json:"repository"`
	// Tag is the tag the answer is about: the asked one, or, when none was
	// asked, the newest in the registry (TagFrom says which).
	Tag     string `json:"tag,omitempty"`
	TagFrom string `json:"tagFrom,omitempty"`
	// Digest is the asked digest; DigestTags the tags that point at it.
	Digest     string   `json:"digest,omitempty"`
	DigestTags []string `json:"digestTags,omitempty"`
	// DigestNote says what limited the search for the digest's tags (the
	// registry refused anonymous reads, only the highest versions read).
	DigestNote string `json:"digestNote,omitempty"`
	// Listed: the tag is in the registry's tag list (nil when no list
	// could be read); Nearest are the closest listed tags when it is not.
	Listed  *bool    `json:"listed,omitempty"`
	Nearest []string `json:"nearest,omitempty"`
	// Apps are the answers, one per app and image, grouped by answer in
	// WhereAnswers' order, then by namespace and name.
	Apps []WhereLine `json:"apps"`
	// Repositories, when no app uses the repository, are the managed
	// repositories closest to it.
	Repositories []string `json:"repositories,omitempty"`
	Cluster      string   `json:"cluster,omitempty"`
	Scope        Scope    `json:"scope"`
	// Unmanaged counts Applications in scope Image Updater does not
	// manage; Managed those it manages (whatever their images).
	Managed   int           `json:"managed"`
	Unmanaged int           `json:"unmanaged"`
	Partial   bool          `json:"partial,omitempty"`
	StartedAt time.Time     `json:"startedAt"`
	Duration  time.Duration `json:"durationNs"`
	Stats     ScanStats     `json:"stats"`
	// Clusters are the clusters the answer covers, when imgupd reads several; ClusterFailures
	// those of them whose Applications could not be read.
	Clusters        []string         `json:"clusters,omitempty"`
	ClusterFailures []ClusterFailure `json:"clusterFailures,omitempty"`
}

// Spans reports whether the answer covers more than one cluster: each app is then shown with
// its cluster.
func (w *Where) Spans() bool { return len(w.Clusters) > 1 }

// Shown is the app as an answer that spans several clusters names it (CLUSTER:NAMESPACE/APP),
// else NAMESPACE/APP.
func (l WhereLine) Shown(spans bool) string { return ClusterApp(l.Cluster, l.App, spans) }

// WhereAnswer is where the tag stands for one app.
type WhereAnswer string

// The answers, in the order a "where" groups them.
const (
	// WhereRunning: the app runs the tag.
	WhereRunning WhereAnswer = "running"
	// WhereWritten: Image Updater has written it; Argo CD deploys it.
	WhereWritten WhereAnswer = "written"
	// WhereDue: Image Updater picks it on its next cycle.
	WhereDue WhereAnswer = "due"
	// WhereWaitingMerge: Image Updater proposes it as a pull request (or
	// has); it deploys once someone merges it.
	WhereWaitingMerge WhereAnswer = "waiting-for-merge"
	// WhereHeldBack: Image Updater will not pick it: the configuration
	// drops it, or a newer tag wins.
	WhereHeldBack WhereAnswer = "held-back"
	// WhereBlocked: it would be picked, but something stops Image Updater.
	WhereBlocked WhereAnswer = "blocked"
	// WhereWrongUpdate: Image Updater writes it where it has no effect.
	WhereWrongUpdate WhereAnswer = "wrong-update"
	// WhereNotDeployed: written, but Argo CD will not deploy it.
	WhereNotDeployed WhereAnswer = "not-deployed"
	// WhereUnknown: a check that decides it could not be made.
	WhereUnknown WhereAnswer = "unknown"
)

// whereOrder is the answers in their order: WhereAnswers and Rank read it, nothing writes it.
var whereOrder = [...]WhereAnswer{WhereRunning, WhereWritten, WhereDue, WhereWaitingMerge, WhereHeldBack, WhereBlocked, WhereWrongUpdate, WhereNotDeployed, WhereUnknown}

// WhereAnswers lists the answers in their order.
func WhereAnswers() []WhereAnswer { return slices.Clone(whereOrder[:]) }

// Rank is the answer's place in that order (an answer's lines are grouped by it); -1 for a
// value that is none of them.
func (a WhereAnswer) Rank() int { return slices.Index(whereOrder[:], a) }

// State is the diagnosis state the answer stands for (its mark and colour).
func (a WhereAnswer) State() State {
	switch a {
	case WhereRunning:
		return StateUpToDate
	case WhereWritten, WhereDue:
		return StateOnItsWay
	case WhereHeldBack:
		return StateHeldBack
	case WhereWaitingMerge:
		return StateWaitingForMerge
	case WhereBlocked:
		return StateBlocked
	case WhereWrongUpdate:
		return StateWrongUpdate
	case WhereNotDeployed:
		return StateNotDeployed
	}
	return StateUnknown
}

// WhereLine is one app's answer for one of its images.
type WhereLine struct {
	// Cluster is the app's cluster, when imgupd reads several ("" for one).
	Cluster string `json:"cluster,omitempty"`
	App     AppRef `json:"app"`
	Project string `json:"project,omitempty"`
	// By names what configures the image: "ImageUpdater NS/NAME" or
	// "annotations".
	By string `json:"by,omitempty"`
	// Alias and Image are the image as configured (its imageName).
	Alias  string      `json:"alias,omitempty"`
	Image  string      `json:"image"`
	Answer WhereAnswer `json:"answer"`
	// Pick says whether Image Updater picks the tag, and if not why:
	// "picked", "dropped by allow-tags: …", "beaten by 1.4.3"; "" when the
	// selection could not be made (Cause says why).
	Pick string `json:"pick,omitempty"`
	// Picked is the tag Image Updater picks for this image ("" unknown).
	Picked string `json:"picked,omitempty"`
	// Written says how and when Image Updater wrote it, when it has.
	Written string `json:"written,omitempty"`
	// Running is the tag the app runs ("" unknown); Deployed when Argo CD
	// last deployed the app (its status.history's last entry): the tag has
	// run since then or before.
	Running  string     `json:"running,omitempty"`
	Deployed *time.Time `json:"deployed,omitempty"`
	// State, Code, Cause and Fix are the app's diagnosis: its state and
	// root cause, when something stops the tag.
	State State  `json:"state"`
	Code  Code   `json:"code,omitempty"`
	Cause string `json:"cause,omitempty"`
	Fix   *Fix   `json:"fix,omitempty"`
}

// FirstStopped is the line of the most urgent app that something stops
// (not running, written or due) and whose diagnosis has a fix, nil for
// none: a wrong update first (it deploys what nobody wanted), then blocked,
// then not deployed, then held back (often the owner's own choice, such as
// a pin), then unknown; in the answer's order within each.
func (w *Where) FirstStopped() *WhereLine {
	var best *WhereLine
	for i, l := range w.Apps {
		u := l.Answer.urgency()
		if u == 0 || l.Fix == nil || l.Fix.Summary == "" {
			continue
		}
		if best == nil || u > best.Answer.urgency() {
			best = &w.Apps[i]
		}
	}
	return best
}

// urgency ranks what stops the tag, for FirstStopped (0: nothing stops it).
func (a WhereAnswer) urgency() int {
	switch a {
	case WhereWrongUpdate:
		return 5
	case WhereBlocked:
		return 4
	case WhereNotDeployed:
		return 3
	case WhereHeldBack:
		return 2
	case WhereUnknown:
		return 1
	}
	return 0
}

// Group is the lines with one answer.
func (w *Where) Group(a WhereAnswer) []WhereLine {
	var out []WhereLine
	for _, l := range w.Apps {
		if l.Answer == a {
			out = append(out, l)
		}
	}
	return out
}

// Says is the line's answer in words, without markup: what stands between
// the tag and the app (its pick, its write, its root cause).
func (l WhereLine) Says(tag string) string {
	picks := ""
	if l.Picked != "" && l.Picked != tag {
		picks = "; Image Updater picks " + l.Picked
	}
	if tag == "" { // no tag asked about: the app's own pick
		tag = l.Picked
	}
	switch l.Answer {
	case WhereRunning:
		r := l.Running
		if r == "" {
			r = tag
		}
		if l.Deployed != nil {
			return "runs " + r + " (deployed " + l.Deployed.UTC().Format("2006-01-02 15:04Z") + " or before)"
		}
		return "runs " + r
	case WhereWritten:
		s := "Image Updater has written " + tag
		if l.Running != "" {
			s += "; " + l.Running + " still runs"
		}
		if l.Written != "" {
			return s + " (" + l.Written + ")"
		}
		return s + "; Argo CD deploys it on its next sync"
	case WhereDue:
		if l.Running != "" {
			return "runs " + l.Running + "; Image Updater picks " + tag + " on its next cycle"
		}
		return "Image Updater picks " + tag + " on its next cycle"
	case WhereHeldBack:
		why := l.Pick
		if why == "" {
			why = "not picked"
		}
		return why + picks
	}
	s := l.Cause
	if l.Code != "" {
		s = string(l.Code) + ": " + s
	}
	if l.Pick != "" && l.Pick != "picked" {
		s += " (" + l.Pick + picks + ")"
	}
	return s
}

// Worst is the most urgent state among the answers: unknown when no app
// uses the repository.
func (w *Where) Worst() State {
	if len(w.Apps) == 0 || len(w.ClusterFailures) > 0 {
		return StateUnknown
	}
	rank := map[State]int{}
	for i, s := range States() {
		rank[s] = i
	}
	worst := StateUpToDate
	for _, l := range w.Apps {
		if s := l.Answer.State(); rank[s] < rank[worst] {
			worst = s
		}
	}
	return worst
}

// Head is the answer's first line, without markup.
func (w *Where) Head() string {
	tag := w.Tag
	if tag == "" {
		tag = w.Digest
	}
	switch {
	case len(w.Apps) == 0:
		return "no Application Image Updater manages uses " + w.Repository
	case w.Digest != "" && w.Tag == "":
		return "no tag of " + w.Repository + " read points at " + w.Digest
	case w.Listed != nil && !*w.Listed:
		return tag + " is not in the tag list of " + w.Repository
	case tag == "":
		return plural(len(appsOf(w)), "app") + " use " + w.Repository
	}
	n := len(appsOf(w))
	running := 0
	for _, l := range w.Apps {
		if l.Answer == WhereRunning {
			running++
		}
	}
	return w.Repository + ":" + tag + " runs in " + strconv.Itoa(running) + " of the " + plural(n, "app") + " that use it"
}

func appsOf(w *Where) map[string]bool {
	m := map[string]bool{}
	for _, l := range w.Apps {
		m[l.Shown(true)] = true
	}
	return m
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

package report

import (
	"strconv"
	"strings"
	"time"

	"github.com/imgupd/imgupd/model/updater"
)

// Severity of a finding, and the status of a stage.
type Severity string

const (
	// Fail: Image Updater will not update the app because of this.
	Fail Severity = "fail"
	// Warn: probably wrong, or will break under some conditions.
	Warn Severity = "warn"
	// Info: context that helps read the report.
	Info Severity = "info"
	// Pass: a check that was made and is fine.
	Pass Severity = "pass"
	// Skipped: not checked because a prerequisite failed.
	Skipped Severity = "skipped"
	// Unknown: could not be checked (forbidden read, timeout, no data).
	Unknown Severity = "unknown"
)

// Rank orders severities for a stage's status: the worst wins.
func (s Severity) Rank() int {
	switch s {
	case Fail:
		return 5
	case Unknown:
		return 4
	case Warn:
		return 3
	case Info, Pass:
		return 1
	case Skipped:
		return 0
	}
	return 0
}

// StageID names a stage.
type StageID string

const (
	StageHealth     StageID = "health"
	StageTarget     StageID = "target"
	StageSource     StageID = "source"
	StageLive       StageID = "live"
	StageRegistry   StageID = "registry"
	StageCandidates StageID = "candidates"
	StageWriteBack  StageID = "writeback"
	StageSync       StageID = "sync"
	StageHistory    StageID = "history"
)

// StageInfo describes a stage.
type StageInfo struct {
	ID    StageID `json:"id"`
	Title string  `json:"title"`
	// Question is what the stage answers.
	Question string `json:"question"`
}

// Stages lists the stages in the order they run.
func Stages() []StageInfo {
	return []StageInfo{
		{StageHealth, "Image Updater health", "Is Image Updater running, which version, and is it cycling?"},
		{StageTarget, "Target", "Does Image Updater pick up this Application, with which settings?"},
		{StageSource, "Source and mapping", "Can Image Updater write to this source, and do the names match what renders?"},
		{StageLive, "Live image", "Is each configured image running in the Application?"},
		{StageRegistry, "Registry and network", "Can the registry be reached with Image Updater's endpoint and credentials?"},
		{StageCandidates, "Candidates", "Which tag would be picked, and is an update due?"},
		{StageWriteBack, "Write-back", "Can the change be written, and will it stick?"},
		{StageSync, "Sync", "Will Argo CD deploy what was written?"},
		{StageHistory, "History", "When did the image last change, and what happened since?"},
	}
}

// Evidence is one fact a finding rests on. Values read from secrets are
// never stored: Sensitive marks a value renderers must mask anyway (a key
// name, a URL that could carry credentials).
type Evidence struct {
	Label     string `json:"label"`
	Value     string `json:"value"`
	Sensitive bool   `json:"sensitive,omitempty"`
}

// Display is the value as it may be shown.
func (e Evidence) Display() string {
	if e.Sensitive {
		return "***"
	}
	return e.Value
}

// Finding is one result of one check.
type Finding struct {
	Code     Code     `json:"code"`
	Stage    StageID  `json:"stage"`
	Severity Severity `json:"severity"`
	// State is what the finding means for the answer when it is the root
	// cause (a failing finding): blocked, wrong-update, not-deployed or
	// held-back (see State).
	State State `json:"state,omitempty"`
	// Title is one line naming the object ("image web (ghcr.io/acme/web) is not live").
	Title string `json:"title"`
	// Detail explains, for the on-call engineer, in a few sentences.
	Detail   string     `json:"detail,omitempty"`
	Evidence []Evidence `json:"evidence,omitempty"`
	Fix      *Fix       `json:"fix,omitempty"`
	// Image is the alias of the image the finding is about, if any.
	Image string `json:"image,omitempty"`
	// Verify, for a check that could not be made (severity unknown), says
	// what would verify it: the RBAC rule, the ConfigMap, the flag.
	Verify string `json:"verify,omitempty"`
	// Decides, for a check that could not be made, is true when its answer
	// could change the report's state: imgupd then cannot tell which tag
	// Image Updater picks, or whether it processes the app at all.
	Decides bool `json:"decides,omitempty"`
	// Role is what the finding is for beyond its severity, as the
	// renderers use it; the catalogue declares it per code.
	Role Role `json:"role,omitempty"`
	// RootCause is true on the one finding that is the report's root cause
	// (Report.RootCause is a copy of it): renderers tell it by this mark,
	// not by its code or title.
	RootCause bool `json:"rootCause,omitempty"`
}

// With is the finding with more evidence.
func (f Finding) With(ev ...Evidence) Finding {
	f.Evidence = append(f.Evidence, ev...)
	return f
}

// WithFix is the finding with this fix: what to do, where, and the steps
// that do it (none when the fix is advice with nothing to run or paste).
// The engine writes the Snippet from the steps.
func (f Finding) WithFix(summary, where string, steps ...Step) Finding {
	f.Fix = &Fix{Summary: summary, Where: where, Steps: steps}
	return f
}

// WithImage is the finding about the image of this alias.
func (f Finding) WithImage(alias string) Finding {
	f.Image = alias
	return f
}

// Role is what a finding is for, beyond its severity: how the renderers
// use it. The catalogue declares it once per code (Entry.Role) and the
// engine copies it onto each finding it builds, so that no renderer
// matches codes or titles.
type Role string

const (
	// RoleContext: an info or passing finding that helps read the report
	// (the pick and its update, the CR that selects the app, the write-back
	// method...), shown without -v.
	RoleContext Role = "context"
	// RoleLogsUnread: the finding says why Image Updater's logs could not
	// be read, in its title.
	RoleLogsUnread Role = "logs-unread"
	// RoleLastCycle: the finding's evidence is Image Updater's last update
	// cycle, as its logs tell it.
	RoleLastCycle Role = "last-cycle"
)

// StageResult is one stage's outcome.
type StageResult struct {
	StageInfo
	Status Severity `json:"status"`
	// SkipReason says why a skipped stage did not run.
	SkipReason string        `json:"skipReason,omitempty"`
	Duration   time.Duration `json:"durationNs"`
	Findings   []Finding     `json:"findings"`
}

// Effective is the stage's status, or the worst of its findings' when it
// has none (a report built by hand).
func (s StageResult) Effective() Severity {
	if s.Status != "" && s.Status != Pass && s.Status != Info {
		return s.Status
	}
	st := s.Status
	for _, f := range s.Findings {
		if f.Severity != Pass && f.Severity != Info && (st == "" || f.Severity.Rank() > st.Rank()) {
			st = f.Severity
		}
	}
	if st == "" {
		return Pass
	}
	return st
}

// WorstFinding is the stage's worst non-passing finding: a failing one,
// else one not verified, else a warning (nil for none).
func (s StageResult) WorstFinding() *Finding {
	for _, sev := range []Severity{Fail, Unknown, Warn} {
		for i := range s.Findings {
			if s.Findings[i].Severity == sev {
				return &s.Findings[i]
			}
		}
	}
	return nil
}

// OtherStages says in one line how the stages a report does not list
// fared: "7 other stages passed · 1 skipped · 1 not verified" (others:
// some stages are listed above it; "stages passed" when none is); counts
// of 0 are left out.
func OtherStages(passed, skipped, unverified int, others bool) string {
	var rest []string
	if passed > 0 {
		other := ""
		if others {
			other = "other "
		}
		word := "stages"
		if passed == 1 {
			word = "stage"
		}
		rest = append(rest, strconv.Itoa(passed)+" "+other+word+" passed")
	}
	if skipped > 0 {
		rest = append(rest, strconv.Itoa(skipped)+" skipped")
	}
	if unverified > 0 {
		rest = append(rest, strconv.Itoa(unverified)+" not verified")
	}
	return strings.Join(rest, " · ")
}

// AppRef names an Application.
type AppRef struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

func (a AppRef) String() string { return a.Namespace + "/" + a.Name }

// Verdict is the coarse conclusion, derived from the State: healthy (up to
// date, or an update on its way), broken (something stops the tag) or
// unknown. Kept for scripts written against earlier releases; State is the
// answer.
type Verdict string

const (
	// VerdictHealthy: up to date, or the update is on its way.
	VerdictHealthy Verdict = "healthy"
	// VerdictBroken: the root cause says what stops the tag.
	VerdictBroken Verdict = "broken"
	// VerdictUnknown: a check that decides the answer could not be made.
	VerdictUnknown Verdict = "unknown"
)

// State answers the one question a report is for: will the tag Image
// Updater should pick reach the cluster, and if not, what stops it?
type State string

const (
	// StateUpToDate: every image runs the tag Image Updater picks.
	StateUpToDate State = "up-to-date"
	// StateOnItsWay: Image Updater will write (or has written) a new tag and
	// Argo CD will deploy it; nothing stops it.
	StateOnItsWay State = "update-on-its-way"
	// StateHeldBack: the configuration keeps newer tags out (filters, the
	// constraint, pre-release rules, the platform), as configured or not.
	StateHeldBack State = "held-back"
	// StateWrongUpdate: Image Updater will write something with no effect, or
	// not wanted: a parameter or Kustomize name the source does not read, a
	// downgrade, a CRD-defaulted strategy that picks another tag than the
	// one asked for, an annotation for an alias that does not exist.
	StateWrongUpdate State = "wrong-update"
	// StateBlocked: Image Updater cannot process the app or the image
	// (not installed, not selected, registry, credentials, write-back...).
	StateBlocked State = "blocked"
	// StateNotDeployed: Image Updater writes, but Argo CD will not deploy it
	// (automated sync off, a deny window, failing syncs, another branch).
	StateNotDeployed State = "not-deployed"
	// StateWaitingForMerge: Image Updater proposes (or has proposed) the
	// update as a pull request (gitConfig.pullRequest); it deploys once
	// someone merges it.
	StateWaitingForMerge State = "waiting-for-merge"
	// StateUnknown: a check that decides the answer could not be made, and
	// nothing already explains why the tag will not run.
	StateUnknown State = "unknown"
)

// States lists every state, most urgent first (the order a summary
// sorts by).
func States() []State {
	return []State{StateBlocked, StateWrongUpdate, StateNotDeployed, StateWaitingForMerge, StateHeldBack, StateUnknown, StateOnItsWay, StateUpToDate}
}

// ExitCode is the exit status of `imgupd diagnose` (and the worst app of a
// summary) for the state: 0 up to date or on its way, 1 blocked, 2 unknown
// (could not diagnose), 3 wrong update, 4 not deployed, 5 held back, 6
// waiting for a merge.
func (s State) ExitCode() int {
	switch s {
	case StateUpToDate, StateOnItsWay:
		return 0
	case StateBlocked:
		return 1
	case StateWrongUpdate:
		return 3
	case StateNotDeployed:
		return 4
	case StateHeldBack:
		return 5
	case StateWaitingForMerge:
		return 6
	}
	return 2
}

// Verdict is the coarse verdict of a state.
func (s State) Verdict() Verdict {
	switch s {
	case StateUpToDate, StateOnItsWay:
		return VerdictHealthy
	case StateUnknown:
		return VerdictUnknown
	}
	return VerdictBroken
}

// NotVerified is a check imgupd could not make: why, what would verify it,
// and whether it could change the answer (only then is the state unknown).
type NotVerified struct {
	Stage StageID `json:"stage"`
	Code  Code    `json:"code"`
	// What is the check and why it was not made, in one line.
	What string `json:"what"`
	// VerifyBy is what would verify it (an RBAC rule, a ConfigMap, a flag).
	VerifyBy string `json:"verifyBy,omitempty"`
	// Decides: the answer could change with it.
	Decides bool `json:"decides"`
}

// CandidateTable is the tag selection for one image.
type CandidateTable struct {
	Alias    string           `json:"alias"`
	Image    string           `json:"image"`
	Decision updater.Decision `json:"decision"`
}

// Report is everything a transport needs to show a diagnosis.
type Report struct {
	App     AppRef `json:"app"`
	Cluster string `json:"cluster,omitempty"`
	// UpdaterVersion is the Image Updater version the diagnosis modelled.
	UpdaterVersion string `json:"updaterVersion"`
	// UpdaterVersionAssumed is true when it could not be read from the
	// cluster and the default was used.
	UpdaterVersionAssumed bool `json:"updaterVersionAssumed,omitempty"`
	// Mode is how Image Updater is configured for this app: "cr",
	// "cr+annotations" (useAnnotations) or "annotations" (v0.x).
	Mode string `json:"mode,omitempty"`
	// State answers "will the tag Image Updater should pick reach the
	// cluster, and if not, what stops it?".
	State State `json:"state"`
	// Answer is the answer in one line of at most MaxAnswer runes: the
	// app, its state and the cause ("argocd/web is blocked: the registry
	// wants credentials (401)"); reports open with it and notifications
	// show it.
	Answer string `json:"answer"`
	// Headline is that answer in one sentence with its particulars (the
	// root cause's own title, every image's move).
	Headline string `json:"headline"`
	// Verdict is the coarse form of State (healthy, broken, unknown).
	Verdict Verdict `json:"verdict"`
	// RootCause is the finding that explains why the tag will not be
	// running (state blocked, wrong-update, not-deployed, held-back), or,
	// for state unknown, the first check that decides the answer and could
	// not be made. Nil when up to date or on its way.
	RootCause  *Finding         `json:"rootCause"`
	Stages     []StageResult    `json:"stages"`
	Candidates []CandidateTable `json:"candidates,omitempty"`
	// NotVerified lists what imgupd could not check, why, and what would
	// verify it; it decides the state only when an entry Decides.
	NotVerified []NotVerified `json:"notVerified,omitempty"`
	StartedAt   time.Time     `json:"startedAt"`
	Duration    time.Duration `json:"durationNs"`
	// RegistryRequests is the number of HTTP requests made to registries.
	RegistryRequests int64 `json:"registryRequests"`
	// UpdaterLog holds Image Updater's log lines about the Application (the
	// last MaxLogLines of the window read), secrets masked.
	UpdaterLog []LogLine `json:"updaterLog,omitempty"`
}

// MaxAnswer bounds Report.Answer: Slack's header block holds 150
// characters.
const MaxAnswer = 150

// MaxLogLines bounds Report.UpdaterLog.
const MaxLogLines = 40

// LogLine is one of Image Updater's log lines about the Application.
type LogLine struct {
	Time  time.Time `json:"time,omitempty"`
	Level string    `json:"level,omitempty"`
	// Message is the line's message with its fields (key=value), masked.
	Message string `json:"message"`
	// Code is the updater log catalogue code the line matched, if any.
	Code string `json:"code,omitempty"`
}

// Findings returns every finding in stage order.
func (r *Report) Findings() []Finding {
	n := 0
	for i := range r.Stages {
		n += len(r.Stages[i].Findings)
	}
	if n == 0 {
		return nil
	}
	out := make([]Finding, 0, n)
	for i := range r.Stages {
		out = append(out, r.Stages[i].Findings...)
	}
	return out
}

// Stage returns the result of one stage, or nil.
func (r *Report) Stage(id StageID) *StageResult {
	for i := range r.Stages {
		if r.Stages[i].ID == id {
			return &r.Stages[i]
		}
	}
	return nil
}

// HasCode reports whether any finding carries the code.
func (r *Report) HasCode(c Code) bool {
	for i := range r.Stages {
		for j := range r.Stages[i].Findings {
			if r.Stages[i].Findings[j].Code == c {
				return true
			}
		}
	}
	return false
}

package command

import (
	"context"
	"errors"
	"time"

	"github.com/imgupd/imgupd/clusters"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/report"
)

// Kind says what a Result carries.
type Kind string

const (
	KindReport   Kind = "report"    // Report: a diagnosis
	KindTags     Kind = "tags"      // Report (its candidate tables), Alias
	KindLogs     Kind = "logs"      // Report (its UpdaterLog)
	KindExplain  Kind = "explain"   // Entry
	KindHelp     Kind = "help"      // Text
	KindDenied   Kind = "denied"    // Text: the refusal and what would allow it
	KindNotFound Kind = "not_found" // Text, Suggestions
	KindInvalid  Kind = "invalid"   // Text: the input is not a command (with help)
	KindError    Kind = "error"     // Text: the command could not be carried out
	KindNotBuilt Kind = "not_built" // Text: the command exists but is not available yet
	KindSummary  Kind = "summary"   // Summary (of what the asker may see)
	KindWhere    Kind = "where"     // Where (over what the asker may see)
	KindBusy     Kind = "busy"      // Text: the asker already has as many commands running as one person may
)

// Result is the answer to one chat command.
type Result struct {
	Kind    Kind
	Command Command
	App     report.AppRef
	Report  *report.Report
	Alias   string
	Entry   *report.Entry
	// Text is chat Markdown (`code`, *bold*) with its values as they are
	// (names typed, text the cluster returned) and no link or mention: the
	// transport writes it so that nothing in it is parsed (blockkit.Notice).
	Text string
	// Suggestions are the closest "namespace/app" names the asker may see.
	Suggestions []string
	// Rule is the access rule that allowed the command.
	Rule string
	// Summary is a fleet summary of the Applications the asker may see: the scan never read
	// the others, and no figure in it depends on them.
	Summary *report.Summary
	// Where answers "where is my tag?" over the Applications the asker may see.
	Where *report.Where
	// Private, when not "", is why the answer is for the asker alone (chat Markdown, shown
	// with it): only an access rule naming them (users or groups), no rule for everyone in this
	// channel, grants what it shows. The transport then answers only them.
	Private string
}

// Outcome is the Result in one word, for metrics and the audit log: the
// verdict of a diagnosis, else the kind.
func (r Result) Outcome() string {
	if r.Report != nil && r.Kind == KindReport {
		return string(r.Report.Verdict)
	}
	return string(r.Kind)
}

// FleetScanner scans every managed Application in a scope, or those that use one image
// (*fleet.Scanner).
type FleetScanner interface {
	Scan(ctx context.Context, scope fleet.Query) (*fleet.Result, error)
	Where(ctx context.Context, scope fleet.Query, q fleet.ImageQuery) (*report.Where, error)
}

// ErrNoFleet is Deps.Scan's and Deps.Where's error when this imgupd has no fleet scanner.
var ErrNoFleet = errors.New("this imgupd has no fleet scanner")

// Refusal is an answer instead of a read (Deps.Scan, Deps.Where): the cluster asked for is none
// the asker may see here. Its Kind and Text are the Result's.
type Refusal struct {
	Kind Kind
	Text string
}

func (r *Refusal) Error() string { return r.Text }

// Deps are what the chat service shares with every command's handler, for one asker the access
// rules admit here. Every read of an Application or of the fleet goes through them, so that a
// handler sees only what the asker may see: it decides nothing about access itself.
type Deps interface {
	// Rule is the access rule that admits the asker here.
	Rule() string
	// App finds the Application name (in cluster, else the asker's default cluster, else every
	// cluster the asker may see; in ns, else in the default namespace, else wherever the asker
	// may see one of that name) and diagnoses it: the Result, of kind, carries the report, or
	// says that no such Application is there to see (an Application the asker may not see is
	// answered exactly as a missing one), with Private set when only a rule naming the asker
	// grants it.
	App(ctx context.Context, c Command, cluster, name, ns string, kind Kind) Result
	// Scan scans scope in cluster (""; the asker's default cluster, else every cluster the
	// asker may see, in parallel), narrowed before anything is read to what the asker may see
	// there: a cluster that cannot be read is a failure of the Scan, not its error, unless every
	// cluster failed. ErrNoFleet when this imgupd has no fleet scanner; a *Refusal when cluster
	// is none the asker may see.
	Scan(ctx context.Context, cluster string, scope report.Scope) (*clusters.Scan, error)
	// Where answers where the image q stands, over the same clusters and scope as Scan.
	Where(ctx context.Context, cluster string, scope report.Scope, q fleet.ImageQuery) (*report.Where, error)
	// ScanTimeout bounds a scan.
	ScanTimeout() time.Duration
	// Private is why an answer showing an Application of cluster, namespace ns and project
	// (Argo CD's "" is "default") is for the asker alone, naming what ("Applications in this
	// summary"), or "" when a rule for everyone here grants it.
	Private(cluster, ns, project, what string) string
	// ReadError says what could not be read (what), and the RBAC rule when forbidden.
	ReadError(what string, err error) string
	// Help is the chat's command list (/imgupd help).
	Help() string
}

// ScanFailure is the Result of a Scan's or a Where's error err (what: what could not be read).
func ScanFailure(d Deps, cmd Command, what string, err error) Result {
	var r *Refusal
	switch {
	case errors.As(err, &r):
		return Result{Kind: r.Kind, Command: cmd, Text: r.Text}
	case errors.Is(err, ErrNoFleet):
		return Result{Kind: KindNotBuilt, Command: cmd, Text: "`" + cmd.Verb() + "` is not available in this imgupd (it has no fleet scanner). Use `diagnose APP` for one application."}
	case errors.Is(err, fleet.ErrNoUpdater):
		what = "Image Updater's installation"
	}
	return Result{Kind: KindError, Command: cmd, Text: d.ReadError(what, err)}
}

package command

import (
	"context"
	"time"

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

// Deps are what the chat service shares with every command's handler, for one asker the access
// rules admit here. Every read of an Application or of the fleet goes through them, so that a
// handler sees only what the asker may see: it decides nothing about access itself.
type Deps interface {
	// Rule is the access rule that admits the asker here.
	Rule() string
	// Cluster is this installation's cluster name ("": it has none).
	Cluster() string
	// App finds the Application name (in ns, else in the default namespace, else wherever the
	// asker may see one of that name) and diagnoses it: the Result, of kind, carries the report,
	// or says that no such Application is there to see (an Application the asker may not see is
	// answered exactly as a missing one), with Private set when only a rule naming the asker
	// grants it.
	App(ctx context.Context, c Command, name, ns string, kind Kind) Result
	// Fleet is the fleet scanner (nil: this imgupd has none) and ScanTimeout bounds its scan.
	Fleet() FleetScanner
	ScanTimeout() time.Duration
	// Visible is scope narrowed, before anything is read, to what the asker may see here.
	Visible(scope report.Scope) fleet.Query
	// Private is why an answer showing an Application of namespace ns and project (Argo CD's
	// "" is "default") is for the asker alone, naming what ("Applications in this summary"),
	// or "" when a rule for everyone here grants it.
	Private(ns, project, what string) string
	// ReadError says what could not be read (what), and the RBAC rule when forbidden.
	ReadError(what string, err error) string
	// Help is the chat's command list (/imgupd help).
	Help() string
}

package bot_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/internal/testtier"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/present/blockkit"
	"github.com/imgupd/imgupd/report"
)

// ownMarks are the emoji the bot itself writes: a report's stage marks and
// the marks its notices start with. Any other emoji shown came from a value.
var ownMarks = []string{":x:", ":warning:", ":information_source:", ":white_check_mark:",
	":black_right_pointing_double_triangle_with_vertical_bar:", ":grey_question:", ":no_entry:",
	":hourglass_flowing_sand:", ":hourglass:", ":boom:", ":rotating_light:"}

// hostileInputs are what the hostile scenarios write wherever the cluster, a
// registry, git or a log has a say; each must be shown as written, somewhere.
var hostileInputs = []string{"<!channel>", "<!here>", "<@U0BADUSER>", "<https://evil.example|Click to re-authenticate>"}

// shownAnswers reads back every message of every answer as Slack shows it,
// fails on a live sequence, on an emoji the bot did not write, and on a
// message beyond Slack's limits, and returns all the text shown.
type shownAnswers struct {
	t     *testing.T
	text  strings.Builder
	count int
}

func (s *shownAnswers) check(where string, msgs ...blockkit.Message) {
	s.t.Helper()
	for i, m := range msgs {
		for _, err := range blockkit.Validate(blockkit.Payload{Message: m}) {
			s.t.Errorf("%s message %d: %v", where, i, err)
		}
		data, err := json.Marshal(m)
		if err != nil {
			s.t.Fatal(err)
		}
		sh, err := slacklab.ShowMessage(data)
		if err != nil {
			s.t.Fatal(err)
		}
		for _, l := range sh.Live {
			s.t.Errorf("%s message %d carries a live sequence: %s", where, i, l)
		}
		for _, e := range sh.Emoji {
			if !slices.Contains(ownMarks, e) {
				s.t.Errorf("%s message %d shows %s as an emoji", where, i, e)
			}
		}
		s.text.WriteString(sh.Text + "\n")
		for _, x := range sh.Texts {
			s.text.WriteString(x.Shown + "\n")
		}
		s.count++
	}
}

// TestHostileScenariosShowNothingLive: the hostile lab scenarios put Slack
// mentions, a disguised link, &, *, backticks and :emoji: shortcodes in
// every field the cluster, a registry, git or a log controls. Every answer
// the bot can give about them — the report and its thread, tags, logs, the
// explanation of the root cause, a summary of the scenario as a fleet, an
// alert and a recovery, a refusal, "not found", the notices that carry a
// value the user typed or the cluster returned — is within Slack's limits,
// carries no live sequence and shows no emoji the bot did not write; and the
// hostile text is shown, as written.
func TestHostileScenariosShowNothingLive(t *testing.T) {
	testtier.ContentOnly(t)
	t.Parallel() // its own lab, fake Slack and bot
	all, err := lab.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	var hostile []*lab.Scenario
	for _, sc := range all {
		if strings.HasPrefix(sc.Name, "hostile-") {
			hostile = append(hostile, sc)
		}
	}
	if len(hostile) < 4 {
		t.Fatalf("%d hostile scenarios", len(hostile))
	}
	// hostile-git's host refuses its read-only user with hostile text: the
	// same setup with that user's token in the repository Secret.
	for _, sc := range hostile {
		if sc.Name != "hostile-git" {
			continue
		}
		ro := *sc
		ro.Name, ro.Expect, ro.ExpectState = sc.Name+"-read-only-token", "WRITEBACK_GIT_PUSH_DENIED", "blocked"
		ro.Objects = strings.Replace(sc.Objects, "username: lab-git-user, password: lab-git-password-1}", "username: lab-git-reader, password: lab-git-reader-password-2}", 1)
		if ro.Objects == sc.Objects {
			t.Fatal("hostile-git has no repository Secret to give the read-only token")
		}
		hostile = append(hostile, &ro)
		break
	}
	everyone := &commands.Policy{Rules: []commands.Rule{{Name: "all", Channels: []string{"*"}}}}
	pr := commands.Principal{User: "U0ALICE001", Channel: "C0DEPLOYS1"}
	for _, sc := range hostile {
		t.Run(sc.Name, func(t *testing.T) {
			env, err := lab.Start(context.Background(), sc)
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			ctx := context.Background()
			eng := env.Engine()
			svc := &commands.Service{Apps: eng.Cluster, Engine: eng, Policy: everyone, Cluster: "lab", Fleet: &fleet.Scanner{Engine: eng}}
			sh := &shownAnswers{t: t}
			ns, app := sc.App.Namespace, sc.App.Name
			rep := svc.Handle(ctx, pr, commands.Diagnose{App: app, Namespace: ns})
			if rep.Report == nil || !sc.Matches(rep.Report) {
				t.Fatalf("%s: got %v", sc.Name, rep.Report)
			}
			sh.check("diagnose", bot.Payloads(rep)...)
			for _, cmd := range []commands.Command{
				commands.Tags{App: app, Namespace: ns},
				commands.Logs{App: app, Namespace: ns},
				commands.Summary{},
				commands.Explain{Code: lab.Primary(rep.Report)},
			} {
				sh.check(commands.Verb(cmd), bot.Payloads(svc.Handle(ctx, pr, cmd))...)
			}
			// "not found", listing the aliases there are.
			sh.check("tags no-such-alias", bot.Payloads(svc.Handle(ctx, pr, commands.Tags{App: app, Namespace: ns, Alias: "no-such-alias"}))...)
			for _, r := range rep.Report.Candidates {
				sh.check("tags "+r.Alias, bot.Payloads(svc.Handle(ctx, pr, commands.Tags{App: app, Namespace: ns, Alias: r.Alias}))...)
			}
			// A scheduled run's alert and recovery, from a scan's results.
			res, err := (&fleet.Scanner{Engine: eng}).Scan(ctx, fleet.Query{})
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range res.Apps {
				sh.check("alert", blockkit.Alert(report.Transition{App: a.App, From: report.StateUpToDate, To: a.State, Code: a.Code}, a))
				sh.check("recovery", blockkit.Alert(report.Transition{App: a.App, From: a.State, To: report.StateUpToDate}, report.AppResult{App: a.App, State: report.StateUpToDate, Headline: a.Headline}))
				sh.check("scheduled summary", blockkit.Summary(fleet.Summarize(res, nil), blockkit.SummaryOptions{Title: "Image Updater · <!channel> nightly :fire:", Buttons: true}).Message)
			}
			// A refusal in a channel whose name Slack sent, and an error the
			// cluster wrote.
			denied := &commands.Service{Apps: eng.Cluster, Engine: eng, Policy: &commands.Policy{Rules: []commands.Rule{{Name: "x", Channels: []string{"*"}, Namespaces: []string{"elsewhere"}}}}}
			sh.check("denied", bot.Payloads(denied.Handle(ctx, commands.Principal{User: "U0ALICE001", Channel: "C0DEPLOYS1", ChannelName: "<!channel>"}, commands.Diagnose{App: app, Namespace: ns}))...)
			broken := &commands.Service{Apps: failingApps{}, Engine: eng, Policy: everyone}
			sh.check("read error", bot.Payloads(broken.Handle(ctx, pr, commands.Diagnose{App: app}))...)
			shown := sh.text.String()
			for _, in := range hostileInputs {
				if !strings.Contains(shown, in) {
					t.Errorf("%q is never shown as written: the scenario does not reach the answers with it", in)
				}
			}
			if !strings.Contains(shown, ":") || sh.count < 10 {
				t.Errorf("only %d messages read back", sh.count)
			}
		})
	}
}

// failingApps is an API server that answers every read of Applications with
// an error text of its own (an aggregated API or a proxy in front of it
// writes what it likes).
type failingApps struct{}

var errHostile = errors.New(`Get "https://kube/apis": <!channel> <https://evil.example|Click to re-authenticate> :fire:`)

func (failingApps) Application(context.Context, string, string) (*argo.Application, error) {
	return nil, errHostile
}
func (failingApps) Applications(context.Context, string) ([]argo.Application, error) {
	return nil, errHostile
}

// TestHostileCommandTextShownAsWritten: what a user types is shown back as
// written in the parse error, the help and the progress note: their own
// mention or link does not become live in the bot's answer.
func TestHostileCommandTextShownAsWritten(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	sh := &shownAnswers{t: t}
	for _, text := range []string{
		"<!channel> diagnose web",
		"diagnose <!here>",
		"diagnose web -n <https://evil.example|Click to re-authenticate>",
		"tags web <@U0BADUSER>",
		"explain <!channel>",
		"summary --name <!channel>",
		"summary --selector team=<!here>",
		`diagnose "web :fire: & *x* ` + "`y`" + `"`,
	} {
		_, err := commands.Parse(text)
		if err == nil {
			t.Fatalf("%q parses", text)
		}
		sh.check(text, bot.Payloads(commands.Result{Kind: commands.KindInvalid, Text: err.Error() + "\n\n" + commands.HelpText()})...)
		sh.check(text, blockkit.Progress("Diagnosing `"+text+"`"))
	}
	if s := sh.text.String(); !strings.Contains(s, "<!here>") || !strings.Contains(s, "Click to re-authenticate") {
		t.Errorf("the typed text is not shown back:\n%s", s)
	}
}

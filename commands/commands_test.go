package commands

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/report"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want Command
	}{
		{"", Help{}},
		{"help", Help{}},
		{"<@U0ABC123> help", Help{}},
		{"diagnose guestbook", Diagnose{App: "guestbook"}},
		{"DIAGNOSE guestbook -n team-a", Diagnose{App: "guestbook", Namespace: "team-a"}},
		{"<@U0ABC123>   diagnose   guestbook --namespace=argocd", Diagnose{App: "guestbook", Namespace: "argocd"}},
		{"<@U0ABC123|imgupd> diagnose team-a/web --cluster prod-eu", Diagnose{App: "web", Namespace: "team-a", Cluster: "prod-eu"}},
		{"why web", Diagnose{App: "web"}},
		{"tags web", Tags{App: "web"}},
		{"tags web worker -n apps", Tags{App: "web", Alias: "worker", Namespace: "apps"}},
		{"explain live_image_not_live", Explain{Code: "LIVE_IMAGE_NOT_LIVE"}},
		{"summary", Summary{}},
		{"logs web", Logs{App: "web"}},
		{"log team-a/web", Logs{App: "web", Namespace: "team-a"}},
		{"summary -n team-a", Summary{Scope: report.Scope{Namespaces: []string{"team-a"}}}},
		{"status --namespace=payments-* -n payments,payments", Summary{Scope: report.Scope{Namespaces: []string{"payments-*", "payments"}}}},
		{"summary --project payments --name 'web-*' --selector team=payments,tier!=db", Summary{Scope: report.Scope{
			Projects: []string{"payments"}, Names: []string{"web-*"}, Selector: "team=payments,tier!=db"}}},
		{"<@U0ABC123> summary -l “tier in (web, api)”", Summary{Scope: report.Scope{Selector: "tier in (web, api)"}}},
		{`summary --selector="tier in (web,api)" --name=web,api`, Summary{Scope: report.Scope{Names: []string{"web", "api"}, Selector: "tier in (web,api)"}}},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%q) = %#v, want %#v", c.in, got, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		in, reason, suggestion string
	}{
		{"diagnos web", `unknown command "diagnos"`, "diagnose web"},
		{"dignose web -n a", `unknown command "dignose"`, "diagnose web -n a"},
		{"guestbook", `unknown command "guestbook"`, "diagnose guestbook"},
		{"diagnose", "diagnose takes one Application name", ""},
		{"diagnose a b", "diagnose takes one Application name", ""},
		{"diagnose Web", `"Web" is not an Application name`, "diagnose web"},
		{"diagnose web -n", "-n needs a namespace", ""},
		{"diagnose web -n Team_A", `"Team_A" is not a namespace name`, ""},
		{"diagnose web --force", `unknown option "--force"`, ""},
		{"tags Web", `"Web" is not an Application name`, "tags web"},
		{"explain", "explain takes one finding code", ""},
		{"explain not-a-code", `"not-a-code" is not a finding code`, ""},
		{"tags", "tags takes an Application name", ""},
		{"summary now", `summary takes options, not words like "now"`, "summary -n now"},
		{"summary -n", "-n needs a value", ""},
		{"summary -n Team_A", `"Team_A" is not a namespace name or glob`, ""},
		{"summary --projects payments", `unknown option "--projects" for summary; did you mean --project?`, ""},
		{"summary --cluster Prod_EU", `"Prod_EU" is not a cluster name`, ""},
		{"where nginx --cluster", `--cluster needs a value`, ""},
		{"summary --selector 'a in ((b'", `is not a label selector`, ""},
		{"summary --selector \"tier in (a)", "a quote is not closed", ""},
		{"summary -l a=b -l c=d", "give --selector once", ""},
		{"summary --name Web", `"Web" is not an Application name or glob`, ""},
		{"summary -n [a-", `"[a-" is not a namespace name or glob`, ""},
		{"deploy web", `unknown command "deploy"`, ""},
	}
	for _, c := range cases {
		_, err := Parse(c.in)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q): want a ParseError, got %v", c.in, err)
			continue
		}
		if !strings.Contains(pe.Reason, c.reason) || pe.Suggestion != c.suggestion {
			t.Errorf("Parse(%q) = reason %q suggestion %q; want reason containing %q, suggestion %q", c.in, pe.Reason, pe.Suggestion, c.reason, c.suggestion)
		}
	}
	if _, err := Parse(strings.Repeat("a", maxInput+1)); err == nil {
		t.Error("an over-long input should be refused")
	}
}

func TestHelpNamesEveryVerb(t *testing.T) {
	h := HelpText()
	for _, v := range Verbs() {
		if !strings.Contains(h, "`"+v) {
			t.Errorf("help does not mention %s", v)
		}
	}
}

// FuzzParse: any input gives a command or a ParseError with a reason, never
// a panic; a command's names are valid Kubernetes names.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "diagnose web -n a", "<@U1> tags a/b c", "explain X_Y", "summary -n", "dignose x", "diagnose --cluster=a b", "\x00\xff",
		"summary -n a-*,b --project p --name 'w*' -l \"x in (a, b)\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Parse(s)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Reason == "" {
				t.Fatalf("Parse(%q): %v", s, err)
			}
			return
		}
		switch c := c.(type) {
		case Diagnose:
			if !nameRE().MatchString(c.App) || (c.Namespace != "" && !namespaceRE().MatchString(c.Namespace)) {
				t.Fatalf("Parse(%q) = %#v", s, c)
			}
		case Tags:
			if !nameRE().MatchString(c.App) {
				t.Fatalf("Parse(%q) = %#v", s, c)
			}
		case Summary:
			if err := c.Scope.Validate(); err != nil {
				t.Fatalf("Parse(%q) = %#v: %v", s, c, err)
			}
			// What a Re-run button types parses back to the same command.
			again, err := Parse(c.String())
			if err != nil || !reflect.DeepEqual(again, c) {
				t.Fatalf("Parse(%q).String() = %q parses to %#v, %v", s, c.String(), again, err)
			}
		}
	})
}

// TestSummaryStringParsesBack: the text a summary's Re-run button runs is the same command.
func TestSummaryStringParsesBack(t *testing.T) {
	for _, sc := range []report.Scope{
		{},
		{Namespaces: []string{"payments", "payments-*"}, Projects: []string{"payments"}},
		{Names: []string{"web-?"}, Selector: "tier in (web, api),team=a"},
	} {
		c := Summary{Scope: sc}
		got, err := Parse(c.String())
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Errorf("%q parses to %#v, %v", c.String(), got, err)
		}
	}
}

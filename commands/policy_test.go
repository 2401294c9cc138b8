package commands

import (
	"slices"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/report"
)

func TestPolicyDecide(t *testing.T) {
	p := &Policy{Rules: []Rule{
		{Name: "platform", Groups: []string{"S0PLATFORM"}, Channels: []string{"*"}},
		{Name: "team-a", Channels: []string{"#team-a", "C0TEAMA001"}, Namespaces: []string{"team-a", "team-a-*"}},
		{Name: "payments", Users: []string{"U0BOB00002"}, Channels: []string{"dm"}, Projects: []string{"payments"}},
	}, AllowDMs: true}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	alice := Principal{User: "U0ALICE001", Channel: "C0TEAMA001"}
	cases := []struct {
		name  string
		pr    Principal
		scope Scope
		allow bool
		rule  string
		why   string
	}{
		{"channel by ID grants its namespaces", alice, Scope{"team-a", "default", ""}, true, "team-a", ""},
		{"channel glob", alice, Scope{"team-a-staging", "x", ""}, true, "team-a", ""},
		{"channel by name", Principal{User: "U0ALICE001", Channel: "C0OTHER001", ChannelName: "team-a"}, Scope{"team-a", "", ""}, true, "team-a", ""},
		{"outside the namespaces", alice, Scope{"team-b", "default", ""}, false, "", "namespaces `team-a`, `team-a-*`"},
		{"unknown channel", Principal{User: "U0ALICE001", Channel: "C0RANDOM01"}, Scope{"team-a", "", ""}, false, "", "no access rule admits you"},
		{"group member anywhere", Principal{User: "U0CAROL001", Channel: "C0RANDOM01", Groups: []string{"S0PLATFORM"}}, Scope{"prod", "x", ""}, true, "platform", ""},
		{"user in DM, right project", Principal{User: "U0BOB00002", Channel: "D0BOB00001", DM: true}, Scope{"prod", "payments", ""}, true, "payments", ""},
		{"user in DM, other project", Principal{User: "U0BOB00002", Channel: "D0BOB00001", DM: true}, Scope{"prod", "web", ""}, false, "", "projects `payments`"},
		{"other user in DM", Principal{User: "U0ALICE001", Channel: "D0ALICE001", DM: true}, Scope{"prod", "payments", ""}, false, "", "direct messages"},
	}
	for _, c := range cases {
		d := p.Decide(c.pr, c.scope)
		if d.Allowed != c.allow || d.Rule != c.rule || !strings.Contains(d.Reason, c.why) {
			t.Errorf("%s: got %+v, want allowed=%v rule=%q reason containing %q", c.name, d, c.allow, c.rule, c.why)
		}
	}
	p.AllowDMs = false
	if d := p.Decide(Principal{User: "U0BOB00002", Channel: "D0BOB00001", DM: true}, Scope{"prod", "payments", ""}); d.Allowed || !strings.Contains(d.Reason, "allowDMs") {
		t.Errorf("DMs off: %+v", d)
	}
	if got := p.Groups(); len(got) != 1 || got[0] != "S0PLATFORM" {
		t.Errorf("Groups() = %v", got)
	}
}

func TestZeroPolicyRefuses(t *testing.T) {
	var p Policy
	d := p.Decide(Principal{User: "U0ALICE001", Channel: "C0TEAMA001"}, Scope{"argocd", "default", ""})
	if d.Allowed || !strings.Contains(d.Reason, "access.rules") {
		t.Errorf("zero policy: %+v", d)
	}
}

func TestPolicyValidate(t *testing.T) {
	p := &Policy{Rules: []Rule{
		{Name: "empty"},
		{Name: "bad", Channels: []string{"deploys!"}, Users: []string{"alice"}, Groups: []string{"platform"}, Namespaces: []string{"[x"}},
	}}
	err := p.Validate()
	if err == nil {
		t.Fatal("want errors")
	}
	for _, want := range []string{"access rule empty: names no channels", `channel "deploys!"`, `user "alice"`, `group "platform"`, `pattern "[x"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// FuzzPolicy: any rule either fails validation with a message or decides
// without panicking; a decision never allows what Admits refuses, and DMs
// stay refused while allowDMs is off.
func FuzzPolicy(f *testing.F) {
	f.Add("#deploys", "U0ALICE001", "S0PLATFORM", "team-*", "payments", "C0DEPLOYS1", "deploys", "team-a", "payments", false)
	f.Add("*", "", "", "[", "", "D0ABC", "", "", "", true)
	f.Add("dm", "U0BOB", "", "", "*", "D0BOB", "", "prod", "x", true)
	f.Add("*", "", "", "", "", "G0GROUPDM1", "mpdm-alice--bob-1", "prod", "x", false)
	f.Add("C0DEPLOYS1", "U0BOB", "", "team-a", "", "C0DEPLOYS1", "", "team-a", "web", false)
	f.Fuzz(func(t *testing.T, channel, user, group, ns, project, prChannel, prName, scopeNS, scopeProject string, dm bool) {
		groupDM := strings.HasPrefix(prName, "mpdm-")
		r := Rule{Name: "fuzz", Channels: []string{channel}}
		if user != "" {
			r.Users = []string{user}
		}
		if group != "" {
			r.Groups = []string{group}
		}
		if ns != "" {
			r.Namespaces = []string{ns}
		}
		if project != "" {
			r.Projects = []string{project}
		}
		p := &Policy{Rules: []Rule{r}}
		if err := p.Validate(); err != nil {
			if !strings.Contains(err.Error(), "access rule fuzz") {
				t.Fatalf("validation error without the rule's name: %v", err)
			}
			return
		}
		pr := Principal{User: user, Channel: prChannel, ChannelName: prName, DM: dm, GroupDM: groupDM, Groups: []string{group}}
		d := p.Decide(pr, Scope{Namespace: scopeNS, Project: scopeProject})
		if d.Allowed && !p.Admits(pr).Allowed {
			t.Fatal("Decide allows what Admits refuses")
		}
		if dm && d.Allowed {
			t.Fatal("a DM is allowed while allowDMs is off")
		}
		if !d.Allowed && d.Reason == "" {
			t.Fatal("a refusal without a reason")
		}
		if groupDM && d.Allowed {
			t.Fatal("a group DM is allowed")
		}
		if d.Private && (dm || r.forEveryone()) {
			t.Fatal("private in a DM, or by a rule for everyone")
		}
	})
}

// TestConversationKinds: a group DM is neither a channel nor a DM (nothing applies there, with
// a refusal that says so); a conversation the transport could not classify gets only the rules
// that name it; "*" still covers DMs and channels.
func TestConversationKinds(t *testing.T) {
	p := &Policy{AllowDMs: true, Rules: []Rule{
		{Name: "anywhere", Channels: []string{"*"}},
		{Name: "everyone-everywhere", Namespaces: []string{"sandbox"}},
		{Name: "by-id", Channels: []string{"C0DEPLOYS1"}, Namespaces: []string{"deploys"}},
	}}
	group := Principal{User: "U0ALICE001", Channel: "G0GROUPDM1", ChannelName: "mpdm-alice--bob--carol-1", GroupDM: true}
	if d := p.Admits(group); d.Allowed || !strings.Contains(d.Reason, "group direct messages") || !strings.Contains(d.Reason, "write to imgupd directly") {
		t.Errorf("group DM: %+v", d)
	}
	if d := p.Decide(group, Scope{"sandbox", "default", ""}); d.Allowed {
		t.Errorf("group DM decided: %+v", d)
	}
	if ns := p.VisibleNamespaces(group); ns == nil || len(ns) != 0 {
		t.Errorf("a group DM sees namespaces %v", ns)
	}
	unknown := Principal{User: "U0ALICE001", Channel: "C0DEPLOYS1", KindUnknown: true}
	if d := p.Decide(unknown, Scope{"deploys", "default", ""}); !d.Allowed || d.Rule != "by-id" {
		t.Errorf("unknown kind, rule by ID: %+v", d)
	}
	if d := p.Decide(unknown, Scope{"sandbox", "default", ""}); d.Allowed {
		t.Errorf("unknown kind, a rule for every channel applies: %+v", d)
	}
	if d := p.Decide(Principal{User: "U0ALICE001", Channel: "D0ALICE001", DM: true}, Scope{"x", "y", ""}); !d.Allowed || d.Rule != "anywhere" {
		t.Errorf("\"*\" in a DM: %+v", d)
	}
}

// TestPrivateDecisions: a grant by a rule naming the asker is private unless a rule for
// everyone in the conversation grants the same app; in a DM, never.
func TestPrivateDecisions(t *testing.T) {
	p := &Policy{AllowDMs: true, Rules: []Rule{
		{Name: "bob", Users: []string{"U0BOB00001"}, Channels: []string{"*", "dm"}},
		{Name: "platform", Groups: []string{"S0PLATFORM"}, Channels: []string{"*"}, Projects: []string{"infra"}},
		{Name: "deploys", Channels: []string{"C0DEPLOYS1"}, Projects: []string{"web"}},
	}}
	cases := []struct {
		name    string
		pr      Principal
		scope   Scope
		rule    string
		private bool
	}{
		{"bob, an app only his rule grants", Principal{User: "U0BOB00001", Channel: "C0DEPLOYS1"}, Scope{"a", "payments", ""}, "bob", true},
		{"bob, an app the channel may see", Principal{User: "U0BOB00001", Channel: "C0DEPLOYS1"}, Scope{"a", "web", ""}, "deploys", false},
		{"a group member", Principal{User: "U0CAROL001", Channel: "C0DEPLOYS1", Groups: []string{"S0PLATFORM"}}, Scope{"a", "infra", ""}, "platform", true},
		{"bob in a DM", Principal{User: "U0BOB00001", Channel: "D0BOB00001", DM: true}, Scope{"a", "payments", ""}, "bob", false},
		{"bob in a Slack Connect channel", Principal{User: "U0BOB00001", Channel: "C0SHARED01"}, Scope{"a", "web", ""}, "bob", true},
	}
	for _, c := range cases {
		d := p.Decide(c.pr, c.scope)
		if !d.Allowed || d.Rule != c.rule || d.Private != c.private {
			t.Errorf("%s: %+v, want rule %q private %v", c.name, d, c.rule, c.private)
		}
	}
}

func TestVisibleNamespaces(t *testing.T) {
	p := &Policy{Rules: []Rule{
		{Name: "a", Channels: []string{"C0TEAMA001"}, Namespaces: []string{"team-a", "shared"}},
		{Name: "b", Channels: []string{"C0TEAMA001", "C0TEAMB001"}, Namespaces: []string{"team-b", "shared"}},
		{Name: "glob", Channels: []string{"C0GLOB0001"}, Namespaces: []string{"team-*"}},
		{Name: "any", Users: []string{"U0ROOT0001"}, Channels: []string{"*"}},
	}}
	for _, c := range []struct {
		pr   Principal
		want []string
	}{
		{Principal{User: "U0ALICE001", Channel: "C0TEAMA001"}, []string{"team-a", "shared", "team-b"}},
		{Principal{User: "U0ALICE001", Channel: "C0TEAMB001"}, []string{"team-b", "shared"}},
		{Principal{User: "U0ALICE001", Channel: "C0GLOB0001"}, nil},
		{Principal{User: "U0ROOT0001", Channel: "C0TEAMB001"}, nil},
		{Principal{User: "U0ALICE001", Channel: "C0RANDOM01"}, []string{}},
	} {
		got := p.VisibleNamespaces(c.pr)
		if (got == nil) != (c.want == nil) || !slices.Equal(got, c.want) {
			t.Errorf("%s in %s: %#v, want %#v", c.pr.User, c.pr.Channel, got, c.want)
		}
		// A summary's scan gets the same namespaces, and the asker's filter.
		sc := p.ScopeFor(c.pr, report.Scope{Names: []string{"web"}})
		if !slices.Equal(sc.VisibleNamespaces, got) || (sc.VisibleNamespaces == nil) != (got == nil) || sc.Visible == nil || sc.Names[0] != "web" {
			t.Errorf("%s in %s: ScopeFor %+v", c.pr.User, c.pr.Channel, sc)
		}
	}
	alice := Principal{User: "U0ALICE001", Channel: "C0TEAMB001"}
	sc := p.ScopeFor(alice, report.Scope{})
	if !sc.Visible("team-b", "x") || sc.Visible("team-a", "x") {
		t.Error("ScopeFor's filter is not the policy's")
	}
	if ch := p.ChannelScope("C0TEAMB001", report.Scope{}); !slices.Equal(ch.VisibleNamespaces, []string{"team-b", "shared"}) || !ch.Visible("shared", "x") || ch.Visible("team-a", "x") {
		t.Errorf("ChannelScope: %+v", ch)
	}
}

package commands

import (
	"strings"
	"testing"
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
		{"channel by ID grants its namespaces", alice, Scope{"team-a", "default"}, true, "team-a", ""},
		{"channel glob", alice, Scope{"team-a-staging", "x"}, true, "team-a", ""},
		{"channel by name", Principal{User: "U0ALICE001", Channel: "C0OTHER001", ChannelName: "team-a"}, Scope{"team-a", ""}, true, "team-a", ""},
		{"outside the namespaces", alice, Scope{"team-b", "default"}, false, "", "namespaces `team-a`, `team-a-*`"},
		{"unknown channel", Principal{User: "U0ALICE001", Channel: "C0RANDOM01"}, Scope{"team-a", ""}, false, "", "no access rule admits you"},
		{"group member anywhere", Principal{User: "U0CAROL001", Channel: "C0RANDOM01", Groups: []string{"S0PLATFORM"}}, Scope{"prod", "x"}, true, "platform", ""},
		{"user in DM, right project", Principal{User: "U0BOB00002", Channel: "D0BOB00001", DM: true}, Scope{"prod", "payments"}, true, "payments", ""},
		{"user in DM, other project", Principal{User: "U0BOB00002", Channel: "D0BOB00001", DM: true}, Scope{"prod", "web"}, false, "", "projects `payments`"},
		{"other user in DM", Principal{User: "U0ALICE001", Channel: "D0ALICE001", DM: true}, Scope{"prod", "payments"}, false, "", "direct messages"},
	}
	for _, c := range cases {
		d := p.Decide(c.pr, c.scope)
		if d.Allowed != c.allow || d.Rule != c.rule || !strings.Contains(d.Reason, c.why) {
			t.Errorf("%s: got %+v, want allowed=%v rule=%q reason containing %q", c.name, d, c.allow, c.rule, c.why)
		}
	}
	p.AllowDMs = false
	if d := p.Decide(Principal{User: "U0BOB00002", Channel: "D0BOB00001", DM: true}, Scope{"prod", "payments"}); d.Allowed || !strings.Contains(d.Reason, "allowDMs") {
		t.Errorf("DMs off: %+v", d)
	}
	if got := p.Groups(); len(got) != 1 || got[0] != "S0PLATFORM" {
		t.Errorf("Groups() = %v", got)
	}
	if !p.NeedsChannelNames() {
		t.Error("a rule names #team-a: NeedsChannelNames must be true")
	}
}

func TestZeroPolicyRefuses(t *testing.T) {
	var p Policy
	d := p.Decide(Principal{User: "U0ALICE001", Channel: "C0TEAMA001"}, Scope{"argocd", "default"})
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
	f.Fuzz(func(t *testing.T, channel, user, group, ns, project, prChannel, prName, scopeNS, scopeProject string, dm bool) {
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
		pr := Principal{User: user, Channel: prChannel, ChannelName: prName, DM: dm, Groups: []string{group}}
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
	})
}

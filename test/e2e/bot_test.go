package e2e

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/sources/cluster"
)

// TestBotOnRealAPIServer runs the Slack bot (real socketmode client, local
// Slack server) over a scenario stored in the real API server and read as
// imgupd's ServiceAccount with the shipped ClusterRole: a slash command gets
// the report; an unknown name gets the closest Applications (a cluster-wide
// list with the shipped RBAC); an Application outside the rule's namespaces is
// answered as a missing one.
func TestBotOnRealAPIServer(t *testing.T) {
	sc, _ := lab.Builtin("healthy-kustomize-argocd")
	env, cleanup := loadScenario(t, sc, nil)
	defer cleanup()
	reader, err := cluster.NewReader(asServiceAccount("imgupd", "imgupd"))
	if err != nil {
		t.Fatal(err)
	}
	reader.Logs = env.LogSource()
	env.UseCluster(reader)
	eng := env.Engine()

	const bt, at = "xoxb-e2e", "xapp-e2e"
	srv := slacklab.Start(slacklab.Config{BotToken: bt, AppToken: at, Channels: []slacklab.Channel{
		{ID: "C0DEPLOYS1", Name: "deploys", IsMember: true}, {ID: "C0TEAMB001", Name: "team-b", IsMember: true}}})
	defer srv.Close()
	policy := &commands.Policy{Rules: []commands.Rule{
		{Name: "deploys", Channels: []string{"C0DEPLOYS1"}, Namespaces: []string{"argocd"}},
		{Name: "team-b", Channels: []string{"C0TEAMB001"}, Namespaces: []string{"team-b"}},
	}}
	b := bot.New(bot.Config{BotToken: bot.Secret(bt), AppToken: bot.Secret(at), APIURL: srv.APIURL(),
		Service: &commands.Service{Apps: reader, Engine: eng, Policy: policy, Cluster: "e2e"},
		Log:     slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a net for what never happens, not a timing
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	if err := srv.WaitConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}
	send := func(env, channel, text string) {
		if err := srv.Send(ctx, slacklab.SlashCommand(env, slacklab.Slash{User: "U0ALICE001", Channel: channel, Text: text, ResponseURL: srv.ResponseURL(env)})); err != nil {
			t.Fatal(err)
		}
	}
	waitMessage := func(what string, f func(slacklab.Message) bool) {
		t.Helper()
		for {
			for _, m := range srv.Messages() {
				if f(m) {
					return
				}
			}
			select {
			case <-ctx.Done():
				t.Fatalf("no message: %s\n%+v", what, srv.Messages())
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	send("e1", "C0DEPLOYS1", "diagnose web")
	waitMessage("healthy report", func(m slacklab.Message) bool {
		return m.Via == "chat.postMessage" && strings.Contains(m.Text, "argocd/web: update on its way")
	})
	send("e2", "C0DEPLOYS1", "diagnose wbe")
	waitMessage("did you mean", func(m slacklab.Message) bool {
		return m.Via == "response_url" && strings.Contains(m.Text, "did you mean `argocd/web`")
	})
	send("e3", "C0TEAMB001", "diagnose web -n argocd")
	waitMessage("not found", func(m slacklab.Message) bool {
		return m.Via == "response_url" && strings.Contains(m.Text, "no Application `web` in namespace `argocd`")
	})
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// TestDeployManifestsAreValid: every object of deploy/imgupd.yaml is
// accepted by the real API server with strict field validation (a
// misspelt field is an error, not a warning), as a dry run.
func TestDeployManifestsAreValid(t *testing.T) {
	ctx := context.Background()
	admin, err := newClient(srv.config)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := readYAMLDocs(filepath.Join("..", "..", "deploy", "imgupd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) < 2 {
		t.Fatalf("deploy/imgupd.yaml has %d objects", len(objs))
	}
	for _, o := range objs {
		ri, err := admin.resource(o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ri.Create(ctx, o, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"}); err != nil {
			t.Errorf("%s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
}

// TestLeaderElectionWithShippedRBAC: two replicas, as imgupd's
// ServiceAccount with deploy/rbac.yaml, share the Lease in the real API
// server; only the holder connects to Slack; when it stops, the other
// takes over.
func TestLeaderElectionWithShippedRBAC(t *testing.T) {
	kc, err := cluster.NewClients(asServiceAccount("imgupd", "imgupd"))
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := lab.Builtin("healthy-kustomize-argocd")
	env, err := lab.Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	eng := env.Engine()
	const bt, at = "xoxb-e2e", "xapp-e2e"
	srv := slacklab.Start(slacklab.Config{BotToken: bt, AppToken: at})
	defer srv.Close()
	run := func(id string) (*bot.Bot, context.CancelFunc, chan error) {
		b := bot.New(bot.Config{BotToken: bot.Secret(bt), AppToken: bot.Secret(at), APIURL: srv.APIURL(), Log: slog.New(slog.DiscardHandler),
			Service: &commands.Service{Apps: eng.Cluster, Engine: eng, Policy: &commands.Policy{Rules: []commands.Rule{{Name: "all", Channels: []string{"*"}}}}}})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			// The Lease deploy/rbac.yaml creates and names: imgupd may create no other.
			done <- b.RunAsLeader(ctx, bot.LeaderConfig{Client: kc.CoordinationV1(), Namespace: "imgupd", Name: "imgupd", Identity: id,
				LeaseDuration: 30 * time.Second, RenewDeadline: 20 * time.Second, RetryPeriod: 200 * time.Millisecond}) // a leader releases the Lease when it stops; a loaded API server renews in time
		}()
		return b, cancel, done
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a net for what never happens, not a timing
	defer cancel()
	_, stopA, doneA := run("a")
	if err := srv.WaitConnections(ctx, 1); err != nil {
		t.Fatalf("nobody connected (can the ServiceAccount write its Lease?): %v", err)
	}
	b, stopB, doneB := run("b")
	for {
		if ok, why := b.Health().Ready(); ok && strings.Contains(why, "replica a holds") {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("b never saw a as the leader")
		case <-time.After(20 * time.Millisecond):
		}
	}
	if n := srv.Connections(); n != 1 {
		t.Fatalf("%d connections, want 1", n)
	}
	stopA()
	if err := <-doneA; err != nil {
		t.Fatalf("a: %v", err)
	}
	if err := srv.WaitConnections(ctx, 2); err != nil {
		t.Fatalf("b did not take over: %v", err)
	}
	stopB()
	if err := <-doneB; err != nil {
		t.Fatalf("b: %v", err)
	}
}

// TestLeaderElectionWithoutTheRoleFailsClearly: a ServiceAccount without
// the Lease Role gets a start-up error naming the rule, not a standby that
// waits for ever.
func TestLeaderElectionWithoutTheRoleFailsClearly(t *testing.T) {
	kc, err := cluster.NewClients(asServiceAccount("imgupd", "no-such-account"))
	if err != nil {
		t.Fatal(err)
	}
	b := bot.New(bot.Config{BotToken: "xoxb-x", AppToken: "xapp-x", APIURL: "http://127.0.0.1:1/", Service: &commands.Service{Policy: &commands.Policy{}}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a net, not a timing
	defer cancel()
	err = b.RunAsLeader(ctx, bot.LeaderConfig{Client: kc.CoordinationV1(), Namespace: "imgupd", Name: "imgupd", Identity: "x"})
	if err == nil || !strings.Contains(err.Error(), "may not read its Lease imgupd/imgupd") {
		t.Fatalf("want a clear RBAC error, got %v", err)
	}
}

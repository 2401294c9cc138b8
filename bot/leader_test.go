package bot_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/lab/kubefake"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/lab"
)

// TestOnlyTheLeaderConnects: two replicas share a Lease; only the holder
// opens a Slack socket, the other is a ready standby. When the leader
// shuts down it finishes, releases the Lease, and the standby connects and
// answers the next command.
func TestOnlyTheLeaderConnects(t *testing.T) {
	sc, _ := lab.Builtin("healthy-kustomize-argocd")
	env, err := lab.Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	eng := env.Engine()
	srv := slacklab.Start(slacklab.Config{BotToken: botToken, AppToken: appToken,
		Channels: []slacklab.Channel{{ID: deploys, Name: "deploys", IsMember: true}}})
	defer srv.Close()
	kube := kubefake.NewClientset()
	startReplica := func(id string) *replica {
		return startLeaderReplica(kube, id, bot.Config{BotToken: botToken, AppToken: appToken, APIURL: srv.APIURL(), Log: slog.New(slog.DiscardHandler),
			Service: &commands.Service{Apps: eng.Cluster, Engine: eng, Policy: &commands.Policy{Rules: []commands.Rule{{Name: "all", Channels: []string{"*"}}}}}})
	}
	wait := func(what string, cond func() bool) { t.Helper(); waitUntil(t, what, cond) }
	a := startReplica("replica-a")
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if err := srv.WaitConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}
	b := startReplica("replica-b")
	wait("b sees a as the leader", func() bool {
		ok, why := b.b.Health().Ready()
		return ok && strings.Contains(why, "standby: replica replica-a holds the leader Lease")
	})
	if n := srv.Connections(); n != 1 {
		t.Fatalf("%d Slack connections with one leader, want 1", n)
	}
	a.cancel()
	if err := <-a.done; err != nil {
		t.Fatalf("the leader's shutdown: %v", err)
	}
	if err := srv.WaitConnections(ctx, 2); err != nil {
		t.Fatalf("the standby did not take over: %v", err)
	}
	wait("b is connected", func() bool { return b.b.Health().Connected() })
	if err := srv.Send(ctx, slacklab.SlashCommand("after-failover", slacklab.Slash{User: alice, Channel: deploys, ChannelName: "deploys",
		Text: "diagnose web", ResponseURL: srv.ResponseURL("f")})); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.WaitCalls(ctx, "chat.postMessage", 1); err != nil {
		t.Fatal("the new leader did not answer")
	}
	b.cancel()
	if err := <-b.done; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("b: %v", err)
	}
}

// replica is one imgupd replica of a leader-election test.
type replica struct {
	b      *bot.Bot
	cancel context.CancelFunc
	done   chan error // RunAsLeader's result
}

// startLeaderReplica runs a bot made from cfg as a leader candidate on the
// Lease imgupd/imgupd. A leader releases the Lease when it stops, and a
// standby retries every 100 ms, so a failover takes no Lease expiry; the
// Lease's own durations are long enough that a loaded machine's leader
// renews in time (a missed renewal would hand the Lease over mid-test).
func startLeaderReplica(kube *kubefake.Clientset, id string, cfg bot.Config) *replica {
	r := &replica{b: bot.New(cfg), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() {
		r.done <- r.b.RunAsLeader(ctx, bot.LeaderConfig{Client: kube.CoordinationV1(), Namespace: "imgupd", Name: "imgupd", Identity: id,
			LeaseDuration: 30 * time.Second, RenewDeadline: 20 * time.Second, RetryPeriod: 100 * time.Millisecond})
	}()
	return r
}

// waitUntil polls cond until it holds, failing the test after patience.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s until %s", patience, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

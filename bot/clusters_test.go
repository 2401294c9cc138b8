package bot_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	kubefake "k8s.io/client-go/kubernetes/fake"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
)

// A schedule over several clusters: each app named with its cluster, the one cluster that
// cannot be read one unknown line, and the metrics' cluster label each app's own.
func TestScheduledSummaryAcrossClusters(t *testing.T) {
	clock := testingclock.NewFakeClock(t0)
	kube := kubefake.NewClientset(stateConfigMap())
	sc := fleetScenario(lab.FleetSpec{Apps: 4, Repos: 2, Broken: 4}, nil)
	acrossClusters := func(c *bot.Config, _ *slacklab.Config) {
		eng := c.Service.Engine.(*diagnostics.Engine)
		c.Service.Clusters = []commands.Cluster{
			{Name: "eu", Apps: eng.Cluster, Engine: eng, Fleet: &fleet.Scanner{Engine: eng}},
			{Name: "us", Down: errors.New("cluster us: Secret imgupd/imgupd-cluster-us: not found")},
		}
		c.Service.Fleet = nil
	}
	h := startScenario(t, sc, schedules(clock, kube, bot.Schedule{Name: "fleet", Cron: "*/10 * * * *", Channel: deploys, Clusters: []string{"eu", "us"}}), acrossClusters)

	h.tick(clock, 30*time.Second)
	if runs(t, h.bot, "fleet", "posted") != 1 {
		t.Fatalf("the first run did not post: %s", h.dump())
	}
	msgs := summaries(h)
	if len(msgs) != 1 {
		t.Fatalf("want one summary: %s", h.dump())
	}
	body := msgs[0].Text + string(msgs[0].Blocks)
	for _, want := range []string{"eu:argocd/app-0003-r001", "cluster us: every Application unknown", "Secret imgupd/imgupd-cluster-us", "clusters eu, us"} {
		if !strings.Contains(body, want) {
			t.Errorf("the summary lacks %q: %s", want, body)
		}
	}
	text := scrape(h.bot)
	if !strings.Contains(text, `imgupd_app_state{app="app-0000-r000",cluster="eu"`) {
		t.Errorf("/metrics: no app of cluster eu:\n%s", strings.Join(samples(text, "imgupd_app_state"), "\n"))
	}
}

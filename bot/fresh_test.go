package bot_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/lab"
	labgit "github.com/imgupd/imgupd/lab/git"
	"github.com/imgupd/imgupd/lab/helmrepo"
	labregistry "github.com/imgupd/imgupd/lab/registry"
)

// TestRerunSeesEveryChange is issue 14's "answers as fresh as the
// cluster": one bot, one engine for its whole life as imgupd serve holds
// them, and a lab (testdata/fresh-rerun.yaml) that its operators fix while
// the bot runs. After each change Re-run's report shows it: a fix pushed to
// git, a chart version published in the Helm repository (the constraint
// 1.* picks it), new tags pushed to the registry, an edited ImageUpdater
// CR.
func TestRerunSeesEveryChange(t *testing.T) {
	t.Parallel() // its own lab, fake Slack and bot
	sc, err := lab.LoadFile("testdata/fresh-rerun.yaml")
	if err != nil {
		t.Fatal(err)
	}
	h := startScenario(t, sc)
	env, ctx := h.env, context.Background()
	reg := env.Vars["REGISTRY"]

	n := 0
	diagnose := func(app string) slacklab.Message {
		t.Helper()
		n++
		h.send(slacklab.SlashCommand("env-fresh-"+app, slash(alice, deploys, "diagnose "+app, h.srv.ResponseURL("fresh-"+app))))
		h.waitFor("the report on "+app+" is posted", func() bool { return len(h.messages(isReport("argocd/"+app))) == 1 })
		return h.messages(isReport("argocd/" + app))[0]
	}
	// rerun presses the report's Re-run button and returns the new report.
	rerun := func(rep slacklab.Message, app string) slacklab.Message {
		t.Helper()
		n++
		before := len(h.srv.Messages())
		count := func() int {
			return len(h.messages(func(m slacklab.Message) bool { return isReport("argocd/"+app)(m) && m.ThreadTS == rep.TS }))
		}
		reports := count()
		h.send(slacklab.BlockAction("env-fresh-rerun-"+string(rune('a'+n)), slacklab.Action{User: alice, UserName: "alice", Channel: deploys, ChannelName: "deploys",
			MessageTS: rep.TS, ActionID: "imgupd_rerun", BlockID: "imgupd_actions", Value: "argocd/" + app, ResponseURL: h.srv.ResponseURL("rr")}))
		h.waitFor("Re-run posts a new report on "+app, func() bool { return count() == reports+1 })
		var got slacklab.Message
		for _, m := range h.srv.Messages()[before:] {
			if isReport("argocd/"+app)(m) && m.ThreadTS == rep.TS {
				got = m
			}
		}
		return got
	}
	shows := func(what string, m slacklab.Message, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(m.Text+string(m.Blocks), w) {
				t.Errorf("%s: the report does not show %q:\n%s\n%s", what, w, m.Text, m.Blocks)
			}
		}
	}
	hides := func(what string, m slacklab.Message, gone ...string) {
		t.Helper()
		for _, g := range gone {
			if strings.Contains(m.Text+string(m.Blocks), g) {
				t.Errorf("%s: the report still shows %q:\n%s", what, g, m.Text)
			}
		}
	}

	// git: the manifests use another image name; the fix is pushed.
	web := diagnose("web")
	shows("before the git fix", web, "SOURCE_KUSTOMIZE_NAME_NOT_USED", "team/web-legacy")
	if _, err := env.Git.Commit("config", "main", labgit.CommitSpec{Message: "use team/web", Files: map[string]string{
		"apps/web/kustomization.yaml": "resources:\n- deployment.yaml\nimages:\n- name: " + reg + "/team/web\n",
		"apps/web/deployment.yaml":    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: " + reg + "/team/web:1.0.0\n",
	}}); err != nil {
		t.Fatal(err)
	}
	got := rerun(web, "web")
	shows("after the git fix", got, "web 1.0.0 → 1.0.1")
	hides("after the git fix", got, "SOURCE_KUSTOMIZE_NAME_NOT_USED", "web-legacy")

	// Helm repository: chart 1.0.0 reads other parameters than the CR
	// sets; 1.5.0 reads them, and 1.* picks it.
	api := diagnose("api")
	shows("before chart 1.5.0", api, "SOURCE_HELM_PARAMETER_NOT_IN_VALUES")
	if err := env.HelmRepo.AddChart(helmrepo.Chart{Name: "api", Version: "1.5.0", Values: "image:\n  repository: " + reg + "/team/api\n  tag: 1.0.0\n"}); err != nil {
		t.Fatal(err)
	}
	got = rerun(api, "api")
	shows("after chart 1.5.0", got, "api is up to date")
	hides("after chart 1.5.0", got, "SOURCE_HELM_PARAMETER_NOT_IN_VALUES")

	// Registry: new tags.
	if err := env.Registry.Push(ctx, "team/api", labregistry.Image{Tag: "1.0.3", Created: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		labregistry.Image{Tag: "1.1.0", Created: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	got = rerun(api, "api")
	shows("after the new tags", got, "api 1.0.0 → 1.0.3")

	// The CR: the constraint widens to ^1.0.
	if err := env.Apply(ctx, `apiVersion: argocd-image-updater.argoproj.io/v1alpha1
kind: ImageUpdater
metadata: {name: fresh, namespace: argocd}
spec:
  applicationRefs:
  - namePattern: web
    images:
    - alias: web
      imageName: "${REGISTRY}/team/web:~1.0"
      manifestTargets: {kustomize: {name: "${REGISTRY}/team/web"}}
  - namePattern: api
    images:
    - alias: api
      imageName: "${REGISTRY}/team/api:^1.0"
      manifestTargets: {helm: {name: image.repository, tag: image.tag}}
`); err != nil {
		t.Fatal(err)
	}
	got = rerun(api, "api")
	shows("after the CR change", got, "api 1.0.0 → 1.1.0")
}

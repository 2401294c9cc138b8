package blockkit_test

import (
	"context"
	"strings"
	"testing"

	"github.com/slack-go/slack"

	"github.com/imgupd/imgupd/fleet"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/present/blockkit"
)

// TestWherePayload: the "where" answer on the lab fleet where-web is within Slack's limits,
// its header and notification are the answer, each app sits under its answer, and the fix
// shown is the first stopped app's.
func TestWherePayload(t *testing.T) {
	sc, err := lab.Fleet("where-web")
	if err != nil {
		t.Fatal(err)
	}
	env, err := lab.Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	for _, image := range []string{"/team/web:1.2.0", "/team/web", "/team/web:9.9.9", "/team/nope"} {
		q, err := fleet.ParseImageQuery(env.Vars["REGISTRY"] + image)
		if err != nil {
			t.Fatal(err)
		}
		w, err := (&fleet.Scanner{Engine: env.Engine()}).Where(context.Background(), fleet.Query{}, q)
		if err != nil {
			t.Fatal(err)
		}
		p := blockkit.Where(w)
		for _, e := range blockkit.Validate(p) {
			t.Errorf("%s: %v", image, e)
		}
		hdr := p.Message.Blocks.BlockSet[0]
		if !strings.Contains(p.Message.Text, w.Head()) || hdr.BlockType() != "header" {
			t.Errorf("%s: notification %q, header %v", image, p.Message.Text, hdr.BlockType())
		}
		if image == "/team/web:1.2.0" {
			body := ""
			for _, b := range p.Message.Blocks.BlockSet[1:] {
				body += sectionText(b)
			}
			for _, want := range []string{"*running* (1)", "*held back* (1)", "`team/web-stable`", "*argocd/web-legacy* `SOURCE_KUSTOMIZE_NAME_NOT_USED`"} {
				if !strings.Contains(body, want) {
					t.Errorf("%s: no %q in %s", image, want, body)
				}
			}
		}
	}
}

// sectionText is a section block's text ("" for other blocks).
func sectionText(b slack.Block) string {
	if s, ok := b.(*slack.SectionBlock); ok && s.Text != nil {
		return s.Text.Text + "\n"
	}
	return ""
}

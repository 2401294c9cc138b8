package updater

import "testing"

func pick(cr, tag string, o Outcome) CRPick {
	d := Decision{Outcome: o}
	if tag != "" {
		d.Selected = &Pick{Tag: tag}
	}
	return CRPick{CR: cr, Decision: d}
}

func TestJudgeCRPicks(t *testing.T) {
	cases := []struct {
		name     string
		followed CRPick
		others   []CRPick
		want     ContestKind
		against  []string
	}{
		{"same pick", pick("a/own", "1.0.1", OutcomeUpdate), []CRPick{pick("a/team", "1.0.1", OutcomeUpdate)}, ContestAgree, nil},
		{"same pick, written by the other", pick("a/own", "1.0.1", OutcomeAlreadyInSpec), []CRPick{pick("a/team", "1.0.1", OutcomeAlreadyInSpec)}, ContestAgree, nil},
		// The setup: the own CR holds at the running tag, the team CR moves on.
		{"held back vs newer", pick("a/own", "1.0.0", OutcomeUpToDate), []CRPick{pick("a/team", "2.0.0", OutcomeUpdate)}, ContestAlternate, []string{"a/team"}},
		{"both update, differently", pick("a/own", "1.0.1", OutcomeUpdate), []CRPick{pick("a/team", "2.0.0", OutcomeUpdate)}, ContestAlternate, []string{"a/team"}},
		// The other CR keeps the running tag: once the own CR's write runs, it writes the old one back.
		{"other holds the running tag", pick("a/own", "1.0.1", OutcomeUpdate), []CRPick{pick("a/team", "1.0.0", OutcomeUpToDate)}, ContestAlternate, []string{"a/team"}},
		{"own has no candidate, other moves", pick("a/own", "", OutcomeNoCandidate), []CRPick{pick("a/team", "2.0.0", OutcomeUpdate)}, ContestOverride, []string{"a/team"}},
		{"own fails, other moves", pick("a/own", "", OutcomeError), []CRPick{pick("a/team", "2.0.0", OutcomeAlreadyInSpec)}, ContestOverride, []string{"a/team"}},
		{"own has no candidate, other keeps the running tag", pick("a/own", "", OutcomeNoCandidate), []CRPick{pick("a/team", "1.0.0", OutcomeUpToDate)}, ContestAgree, nil},
		{"other has no candidate", pick("a/own", "1.0.1", OutcomeUpdate), []CRPick{pick("a/team", "", OutcomeNoCandidate)}, ContestAgree, nil},
		{"other fails", pick("a/own", "1.0.1", OutcomeUpdate), []CRPick{pick("a/team", "", OutcomeError)}, ContestAgree, nil},
		{"three CRs, one differs", pick("a/own", "1.0.1", OutcomeUpdate), []CRPick{pick("a/x", "1.0.1", OutcomeUpdate), pick("a/y", "2.0.0", OutcomeUpdate)}, ContestAlternate, []string{"a/y"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := JudgeCRPicks(c.followed, c.others)
			if got.Kind != c.want {
				t.Fatalf("kind %s, want %s", got.Kind, c.want)
			}
			var against []string
			for _, o := range got.Others {
				against = append(against, o.CR)
			}
			if len(against) != len(c.against) {
				t.Fatalf("others %v, want %v", against, c.against)
			}
			for i := range against {
				if against[i] != c.against[i] {
					t.Fatalf("others %v, want %v", against, c.against)
				}
			}
		})
	}
}

// v1.1's fallback to the running tag when nothing survives filtering is
// no pick of its own: it writes nothing another CR would undo.
func TestCRPickTagFromRunningTag(t *testing.T) {
	p := pick("a/own", "1.0.0", OutcomeUpToDate)
	p.Decision.Selected.FromRunningTag = true
	if tag, ok := p.Tag(); ok {
		t.Fatalf("Tag() = %q, true; want no pick", tag)
	}
	if got := JudgeCRPicks(p, []CRPick{pick("a/team", "2.0.0", OutcomeUpdate)}); got.Kind != ContestOverride {
		t.Fatalf("kind %s, want override", got.Kind)
	}
}

package diagnostics_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// TestHelmValuesTargetListedAgain: one file is one input, however
// helm.valueFiles spells it and in whatever order: the chart's values.yaml
// that Image Updater writes, listed again in valueFiles, carries the new tag
// both times Helm reads it (Image Updater's own e2e case 1-004-git-helm).
// Only a file Helm reads after its last reading outranks the write.
func TestHelmValuesTargetListedAgain(t *testing.T) {
	for _, c := range []struct {
		valueFiles, target string
		overridden         bool
		written            bool // values.yaml already holds the pick (after the cycle)
	}{
		{"[values.yaml]", "helmvalues:values.yaml", false, true},
		{"[values.yaml]", "helmvalues:/charts/web/values.yaml", false, true},
		{"[./values.yaml]", "helmvalues:values.yaml", false, true},
		{"[values.yaml]", "helmvalues:values.yaml", false, false},
		{"[./values.yaml]", "helmvalues:values.yaml", false, false},
		{"[/charts/web/values.yaml]", "helmvalues:values.yaml", false, false},
		{"[values.yaml]", "helmvalues:/charts/web/values.yaml", false, false},
		{"[values-prod.yaml, values.yaml]", "helmvalues:values.yaml", false, false},
		{"[values-prod.yaml, values.yaml]", "helmvalues:values.yaml", false, true},
		{"[values.yaml, values-prod.yaml]", "helmvalues:values.yaml", true, false},
		{"[values.yaml, values-prod.yaml]", "helmvalues:values.yaml", true, true},
		{"[values-prod.yaml]", "helmvalues:values.yaml", true, false},
	} {
		t.Run(fmt.Sprintf("%s %s written %v", c.valueFiles, c.target, c.written), func(t *testing.T) {
			env := start(t, "helm-values-target-in-valuefiles-before", func(sc *lab.Scenario) {
				replaceIn(t, &sc.Objects, "valueFiles: [values-prod.yaml]", "valueFiles: "+c.valueFiles)
				replaceIn(t, &sc.Objects, `writeBackTarget: "helmvalues:values-prod.yaml"`, `writeBackTarget: "`+c.target+`"`)
				if c.written {
					files := sc.Git.Repositories["config"].Branches["main"].Files
					files["charts/web/values.yaml"] = strings.Replace(files["charts/web/values.yaml"], "tag: 1.0.0", "tag: 1.0.1", 1)
				}
			})
			r := env.Diagnose(context.Background())
			got := findingOf(r, report.CodeHelmValueOverridden) != nil
			if got != c.overridden {
				t.Fatalf("overridden %v, want %v (state %s)\n%s", got, c.overridden, r.State, dump(r))
			}
			if !c.overridden && r.State != report.StateOnItsWay {
				t.Fatalf("state %s, want on its way\n%s", r.State, dump(r))
			}
		})
	}
}

// TestHelmValuesTargetUpstreamE2E is Image Updater's own e2e case
// 1-004-git-helm (test/ginkgo/parallel/1-004-git-helm_test.go): the chart at
// 1-004-git-helm-test/helm lists its values.yaml in helm.valueFiles and
// git write-back targets that same file. Every spelling of the target
// (helmvalues with no file, relative, ./, absolute from the repository
// root, through ..) and of the valueFiles entry names one file, which
// Argo CD reads from the same checkout as many times as it is listed:
// nothing outranks the write, before the commit and after it. Only a file
// Helm reads after the last reading of the target outranks it.
func TestHelmValuesTargetUpstreamE2E(t *testing.T) {
	const dir = "1-004-git-helm-test/helm"
	targets := []string{"helmvalues", "helmvalues:values.yaml", "helmvalues:./values.yaml", "helmvalues:/" + dir + "/values.yaml", "helmvalues:../helm/values.yaml"}
	spellings := []string{"[]", "[values.yaml]", "[./values.yaml]", `["/` + dir + `/values.yaml"]`, "[../helm/values.yaml]", "[values.yaml, ./values.yaml]"}
	type tc struct {
		target, valueFiles string
		after, overridden  bool
		missing            bool // values.yaml is not in the repository yet (Image Updater creates it)
	}
	var cases []tc
	for _, target := range targets {
		for _, vf := range spellings {
			for _, after := range []bool{false, true} {
				cases = append(cases, tc{target: target, valueFiles: vf, after: after})
			}
		}
	}
	for _, after := range []bool{false, true} {
		cases = append(cases,
			tc{target: "helmvalues:values.yaml", valueFiles: "[values-prod.yaml, values.yaml]", after: after},
			tc{target: "helmvalues", valueFiles: "[values-prod.yaml, ./values.yaml]", after: after},
			tc{target: "helmvalues:values.yaml", valueFiles: "[values.yaml, values-prod.yaml, ./values.yaml]", after: after},
			tc{target: "helmvalues:values.yaml", valueFiles: "[values.yaml, values-prod.yaml]", after: after, overridden: true},
			tc{target: "helmvalues:/" + dir + "/values.yaml", valueFiles: "[./values.yaml, values-prod.yaml]", after: after, overridden: true},
			tc{target: "helmvalues:values.yaml", valueFiles: "[values-prod.yaml]", after: after, overridden: true},
		)
	}
	// The chart has no values.yaml yet: Image Updater creates it where
	// Helm reads it last.
	cases = append(cases,
		tc{target: "helmvalues", valueFiles: "[values-prod.yaml, values.yaml]", missing: true},
		tc{target: "helmvalues:values.yaml", valueFiles: "[values.yaml, values-prod.yaml]", missing: true, overridden: true},
	)
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s %s after %v missing %v", c.target, c.valueFiles, c.after, c.missing), func(t *testing.T) {
			t.Parallel() // its own lab
			name := "helm-values-target-chart-values-listed-before"
			if c.after {
				name = "helm-values-target-chart-values-listed-after"
			}
			env := start(t, name, func(sc *lab.Scenario) {
				replaceIn(t, &sc.Objects, "valueFiles: [values.yaml]", "valueFiles: "+c.valueFiles)
				replaceIn(t, &sc.Objects, `writeBackTarget: "helmvalues:/`+dir+`/values.yaml"`, `writeBackTarget: "`+c.target+`"`)
				files := sc.Git.Repositories["testdata"].Branches["master"].Files
				files[dir+"/values-prod.yaml"] = "image:\n  name: ${REGISTRY}/dkarpele/my-guestbook\n  tag: \"1.0.0\"\n"
				if c.missing {
					delete(files, dir+"/values.yaml")
					replaceIn(t, &sc.Objects, "valueFiles: "+c.valueFiles, "valueFiles: "+c.valueFiles+"\n      ignoreMissingValueFiles: true")
				}
			})
			r := env.Diagnose(context.Background())
			if got := findingOf(r, report.CodeHelmValueOverridden) != nil; got != c.overridden {
				t.Fatalf("overridden %v, want %v (state %s)\n%s", got, c.overridden, r.State, dump(r))
			}
			if c.overridden {
				if r.State != report.StateWrongUpdate {
					t.Fatalf("state %s, want wrong update\n%s", r.State, dump(r))
				}
				return
			}
			if r.State != report.StateOnItsWay || r.RootCause != nil {
				t.Fatalf("state %s, root cause %v, want on its way with none\n%s", r.State, r.RootCause, dump(r))
			}
		})
	}
}

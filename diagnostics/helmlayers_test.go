package diagnostics_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/diagnostics/report"
	"github.com/imgupd/imgupd/lab"
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

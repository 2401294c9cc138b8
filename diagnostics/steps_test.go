package diagnostics

import (
	"testing"
)

// TestNestYAML: settings that share a path share its keys, in the order
// given, at the indent given.
func TestNestYAML(t *testing.T) {
	got := nestYAML("  ", []kv{{"method", "git"}, {"gitConfig.branch", "main"}, {"gitConfig.pullRequest.github", "{}"}, {"manifestTargets.helm.name", "a"}, {"manifestTargets.helm.tag", "b"}})
	want := `  method: git
  gitConfig:
    branch: main
    pullRequest:
      github: {}
  manifestTargets:
    helm:
      name: a
      tag: b`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

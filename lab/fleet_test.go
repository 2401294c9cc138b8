package lab

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestFleetScenarioSpreadsTagCounts: every tag count from MinTags to
// MaxTags is dealt once, and the first repositories (all a fleet of fewer
// apps uses) carry the same mix of sizes as all of them.
func TestFleetScenarioSpreadsTagCounts(t *testing.T) {
	for _, repos := range []int{1, 2, 5, 6, 150, 1000} {
		sc := FleetScenario(FleetSpec{Apps: 1, Repos: repos, MinTags: 50, MaxTags: 2000})
		counts := make([]int, repos)
		for r := range repos {
			counts[r] = len(sc.Registry.Repositories[repoName(r)])
		}
		got := slices.Sorted(slices.Values(counts))
		for i, n := range got {
			want := 50
			if repos > 1 {
				want += 1950 * i / (repos - 1)
			}
			if n != want {
				t.Fatalf("%d repositories: the %d-th smallest list has %d tags, want %d (every count once)", repos, i, n, want)
			}
		}
		if repos < 150 {
			continue
		}
		mean := func(c []int) float64 {
			s := 0
			for _, n := range c {
				s += n
			}
			return float64(s) / float64(len(c))
		}
		all, half := mean(counts), mean(counts[:repos/2])
		if d := half/all - 1; d > 0.05 || d < -0.05 {
			t.Errorf("%d repositories: the first half averages %.0f tags, all of them %.0f", repos, half, all)
		}
	}
}

// TestFleetScenarioGitUnreachable: the apps' repoURL names a host that
// does not resolve; the git server still serves the repository.
func TestFleetScenarioGitUnreachable(t *testing.T) {
	sc := FleetScenario(FleetSpec{Apps: 3, Repos: 2, GitUnreachable: true})
	want := fmt.Sprintf("repoURL: \"https://%s/config.git\"", UnreachableGitHost)
	if n := strings.Count(sc.Objects, want); n != 3 || strings.Contains(sc.Objects, "${GIT}") {
		t.Errorf("%d Applications with %s; ${GIT} left: %v", n, want, strings.Contains(sc.Objects, "${GIT}"))
	}
	if _, ok := sc.Git.Repositories["config"]; !ok {
		t.Error("no config repository")
	}
}

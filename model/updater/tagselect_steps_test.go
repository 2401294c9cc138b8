package updater

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// Each step of Select, run alone on a selection started by newSelection.
// TestSelectRules and the calibration tests check the steps together.

func stepInput(t *testing.T, v Version, image, strategy, allow string, ignore []string, tags ...string) SelectInput {
	t.Helper()
	return SelectInput{Version: v, Image: ParseImageRef(image, v), Settings: settings(strategy, allow, ignore, nil), Tags: tags}
}

// fatesOf returns each listed tag's fate, "" where no step has set one.
func fatesOf(sel *selection) map[string]Fate {
	out := map[string]Fate{}
	for _, f := range sel.fates.list {
		out[f.Tag] = f.Fate
	}
	return out
}

func keptTags(sel *selection, kept []int) []string {
	var out []string
	for _, k := range kept {
		out = append(out, sel.tags[k])
	}
	return out
}

func candNames(cands []candidate, idx []int32) []string {
	var out []string
	for _, x := range idx {
		out = append(out, cands[x].name)
	}
	return out
}

func TestSelectStepStart(t *testing.T) {
	in := stepInput(t, V1_3, "acme/app:~1.2", "latest", "regexp:[", nil, "1.2.0", "1.2.0", "1.2.1")
	live := ParseImageRef("acme/app:1.2.0", V1_3)
	in.Live = &live
	sel := newSelection(in)
	if sel.d.Listed != 2 || !slices.Equal(sel.tags, []string{"1.2.0", "1.2.1"}) {
		t.Errorf("listed %d %v, want the 2 distinct tags in registry order", sel.d.Listed, sel.tags)
	}
	if sel.constraint != "~1.2" || sel.d.RunningTag != "1.2.0" || sel.d.Strategy != StrategyNewestBuild {
		t.Errorf("constraint %q, running %q, strategy %v", sel.constraint, sel.d.RunningTag, sel.d.Strategy)
	}
	// The deprecated strategy name and the invalid allow-tags are warned
	// about first, as Image Updater logs them while reading the settings.
	if len(sel.d.Logs) != 2 || !strings.HasPrefix(sel.d.Logs[0], "warn: ") || !strings.HasPrefix(sel.d.Logs[1], "warn: ") {
		t.Errorf("logs %q, want the two settings warnings", sel.d.Logs)
	}
}

func TestSelectStepFilter(t *testing.T) {
	t.Run("allow and ignore", func(t *testing.T) {
		sel := newSelection(stepInput(t, V1_3, "acme/app", "semver", `regexp:^1\.`, []string{"*-rc*"}, "1.0.0", "2.0.0", "1.1.0-rc1", "1.1.0"))
		kept, ok := sel.filter()
		if !ok {
			t.Fatal("filter failed the image")
		}
		if got := keptTags(&sel, kept); !slices.Equal(got, []string{"1.0.0", "1.1.0"}) {
			t.Errorf("kept %v", got)
		}
		want := map[string]Fate{"1.0.0": "", "2.0.0": FateAllowTags, "1.1.0-rc1": FateIgnoreTags, "1.1.0": ""}
		if got := fatesOf(&sel); !maps.Equal(got, want) {
			t.Errorf("fates %v, want %v", got, want)
		}
	})
	t.Run("digest follows its tag", func(t *testing.T) {
		sel := newSelection(stepInput(t, V1_3, "acme/app:stable", "digest", "", nil, "latest", "stable", "1.0.0"))
		kept, ok := sel.filter()
		if !ok || !slices.Equal(keptTags(&sel, kept), []string{"stable"}) {
			t.Fatalf("kept %v ok %v, want only the constraint tag", keptTags(&sel, kept), ok)
		}
		if f := fatesOf(&sel)["latest"]; f != FateNotConstraintTag {
			t.Errorf("latest: %q", f)
		}
	})
	t.Run("digest without a tag fails the image", func(t *testing.T) {
		sel := newSelection(stepInput(t, V1_3, "acme/app", "digest", "", nil, "latest", "1.0.0"))
		kept, ok := sel.filter()
		if ok || kept != nil {
			t.Fatalf("kept %v ok %v, want the image failed", kept, ok)
		}
		if sel.d.Err == nil || sel.d.Err.Kind != ErrDigestWithoutConstraint || sel.d.Outcome != OutcomeError {
			t.Errorf("err %v outcome %q", sel.d.Err, sel.d.Outcome)
		}
		for tag, f := range fatesOf(&sel) {
			if f != FateNotConsidered {
				t.Errorf("%s: %q, want not considered", tag, f)
			}
		}
	})
}

func TestSelectStepMetadata(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	meta := func(created time.Time, plats ...string) TagMeta {
		m := TagMeta{Digest: "sha256:" + digestSuffix(created.String()+strings.Join(plats, ","))}
		for _, p := range plats {
			pl, err := ParsePlatform(p)
			if err != nil {
				t.Fatal(err)
			}
			m.Manifests = append(m.Manifests, ManifestMeta{Platform: pl, Created: created, HasCreated: true})
		}
		return m
	}
	t.Run("newest-build reads metadata through the platform filter", func(t *testing.T) {
		in := stepInput(t, V1_3, "acme/app", "newest-build", "", nil, "a", "b", "c", "d")
		in.Meta = map[string]TagMeta{
			"a": meta(day(1), "linux/amd64"),
			"b": {Err: "manifest unknown"},
			"c": meta(day(3), "linux/arm64"),
			// d: not fetched
		}
		sel := newSelection(in)
		kept, _ := sel.filter()
		cands := sel.metadata(kept)
		if len(cands) != 1 || cands[0].name != "a" || !cands[0].created.Equal(day(1)) || cands[0].digest != "" {
			t.Fatalf("candidates %+v, want a alone with its build time and no digest", cands)
		}
		want := map[string]Fate{"a": "", "b": FateMetadata, "c": FatePlatform, "d": FateMetadata}
		if got := fatesOf(&sel); !maps.Equal(got, want) {
			t.Errorf("fates %v, want %v", got, want)
		}
		if sel.d.Platforms == nil || !sel.d.Platforms.FromController {
			t.Errorf("platform filter %+v, want the controller's platform", sel.d.Platforms)
		}
		if !slices.ContainsFunc(sel.d.Logs, func(l string) bool { return strings.HasPrefix(l, "error: error fetching metadata for") }) {
			t.Errorf("logs %q, want the manifest error", sel.d.Logs)
		}
	})
	t.Run("digest keeps the digest", func(t *testing.T) {
		in := stepInput(t, V1_3, "acme/app:stable", "digest", "", nil, "stable")
		in.Meta = map[string]TagMeta{"stable": meta(day(2), "linux/amd64")}
		sel := newSelection(in)
		kept, _ := sel.filter()
		cands := sel.metadata(kept)
		if len(cands) != 1 || cands[0].digest != in.Meta["stable"].Digest {
			t.Errorf("candidates %+v", cands)
		}
	})
	t.Run("a time-sorted registry gives positions", func(t *testing.T) {
		in := stepInput(t, V1_3, "acme/app", "newest-build", "", nil, "x", "y", "z")
		in.TagSortMode = "latest-first"
		sel := newSelection(in)
		kept, _ := sel.filter()
		cands := sel.metadata(kept)
		var got []int64
		for _, c := range cands {
			got = append(got, c.created.Unix())
		}
		if !slices.Equal(got, []int64{3, 2, 1}) {
			t.Errorf("positions %v, want 3 2 1 (the first listed is the newest)", got)
		}
		if sel.d.Platforms != nil || !strings.HasPrefix(sel.d.Logs[len(sel.d.Logs)-1], "info: taglistsort is set to 'latest-first'") {
			t.Errorf("platforms %v, logs %q", sel.d.Platforms, sel.d.Logs)
		}
	})
	t.Run("semver needs none", func(t *testing.T) {
		sel := newSelection(stepInput(t, V1_3, "acme/app", "semver", "", nil, "1.0.0", "0.9.0"))
		kept, _ := sel.filter()
		cands := sel.metadata(kept)
		if len(cands) != 2 || !cands[0].created.Equal(time.Unix(0, 0)) || sel.d.Platforms != nil || len(sel.d.Logs) != 0 {
			t.Errorf("candidates %+v, platforms %v, logs %q", cands, sel.d.Platforms, sel.d.Logs)
		}
	})
}

func TestSelectStepSort(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	t.Run("semver keeps versions, unsorted", func(t *testing.T) {
		sel := newSelection(stepInput(t, V1_3, "acme/app", "semver", "", nil, "1.10.0", "latest", "1.9.0"))
		kept, _ := sel.filter()
		cands := sel.metadata(kept)
		avail := sel.sort(cands)
		if got := candNames(cands, avail); !slices.Equal(got, []string{"1.10.0", "1.9.0"}) {
			t.Errorf("sorted %v, want the versions in list order (sorted after the constraint)", got)
		}
		if f := fatesOf(&sel)["latest"]; f != FateNotVersion {
			t.Errorf("latest: %q", f)
		}
	})
	t.Run("newest-build by build time, then name", func(t *testing.T) {
		sel := newSelection(stepInput(t, V1_3, "acme/app", "newest-build", "", nil))
		cands := []candidate{{name: "b", created: day(2)}, {name: "c", created: day(1)}, {name: "a", created: day(2)}}
		if got := candNames(cands, sel.sort(cands)); !slices.Equal(got, []string{"c", "a", "b"}) {
			t.Errorf("sorted %v", got)
		}
	})
	t.Run("alphabetical by name", func(t *testing.T) {
		sel := newSelection(stepInput(t, V1_3, "acme/app", "alphabetical", "", nil))
		cands := []candidate{{name: "b"}, {name: "c"}, {name: "a"}}
		if got := candNames(cands, sel.sort(cands)); !slices.Equal(got, []string{"a", "b", "c"}) {
			t.Errorf("sorted %v", got)
		}
	})
}

func TestSelectStepRunningTag(t *testing.T) {
	for _, c := range []struct {
		v    Version
		want bool
	}{{V1_1, false}, {V1_2, true}} {
		in := stepInput(t, c.v, "acme/app", "semver", "", nil, "1.0.0")
		live := ParseImageRef("acme/app:latest", c.v)
		in.Live = &live
		sel := newSelection(in)
		if got := sel.runningTagAccepted(); got != c.want {
			t.Errorf("%s: accepted %v, want %v", c.v.Short(), got, c.want)
		}
		if !c.want && (sel.d.Err == nil || sel.d.Err.Kind != ErrRunningTagNotSemver || fatesOf(&sel)["1.0.0"] != FateNotConsidered) {
			t.Errorf("%s: err %v fates %v", c.v.Short(), sel.d.Err, fatesOf(&sel))
		}
	}
}

func TestSelectStepConstraint(t *testing.T) {
	t.Run("semver constraint, ranks", func(t *testing.T) {
		sel := newSelection(stepInput(t, V1_3, "acme/app:~1.2", "semver", "", nil, "1.2.10", "1.3.0", "1.2.9", "1.2.11-rc1"))
		kept, _ := sel.filter()
		cands := sel.metadata(kept)
		avail := sel.sort(cands)
		check, ok := sel.constraintCheck()
		if !ok {
			t.Fatal("constraint failed")
		}
		consider := sel.constrain(cands, avail, &check)
		if got := candNames(cands, consider); !slices.Equal(got, []string{"1.2.9", "1.2.10"}) {
			t.Errorf("considered %v, want 1.2.9 1.2.10 (ascending: the last wins)", got)
		}
		if sel.d.Candidates != 2 {
			t.Errorf("candidates %d", sel.d.Candidates)
		}
		for _, f := range sel.fates.list {
			switch f.Tag {
			case "1.2.10":
				if !f.Kept || f.Rank != 1 || f.Fate != FateCandidate {
					t.Errorf("1.2.10: %+v, want rank 1", f)
				}
			case "1.2.9":
				if !f.Kept || f.Rank != 2 {
					t.Errorf("1.2.9: %+v, want rank 2", f)
				}
			case "1.3.0":
				if f.Fate != FateConstraint || f.Why != `outside constraint "~1.2"` {
					t.Errorf("1.3.0: %+v", f)
				}
			case "1.2.11-rc1":
				if f.Fate != FateConstraint || !strings.HasPrefix(f.Why, "pre-release: a constraint only matches pre-releases") {
					t.Errorf("1.2.11-rc1: %+v", f)
				}
			}
		}
	})
	t.Run("none left", func(t *testing.T) {
		sel := newSelection(stepInput(t, V1_3, "acme/app:~2.0", "semver", "", nil, "1.0.0"))
		kept, _ := sel.filter()
		cands := sel.metadata(kept)
		check, _ := sel.constraintCheck()
		if consider := sel.constrain(cands, sel.sort(cands), &check); len(consider) != 0 {
			t.Fatalf("considered %v", consider)
		}
		if sel.d.Outcome != OutcomeNoCandidate || !strings.Contains(sel.d.Reason, `No tag satisfies the constraint "~2.0"`) {
			t.Errorf("outcome %q reason %q", sel.d.Outcome, sel.d.Reason)
		}
	})
	t.Run("a constraint that does not parse fails the image", func(t *testing.T) {
		sel := newSelection(stepInput(t, V1_3, "acme/app:latest", "semver", "", nil, "1.0.0"))
		if check, ok := sel.constraintCheck(); ok || check.sc != nil {
			t.Fatal("constraint accepted")
		}
		if sel.d.Err == nil || sel.d.Err.Kind != ErrImproperConstraint || fatesOf(&sel)["1.0.0"] != FateNotConsidered {
			t.Errorf("err %v fates %v", sel.d.Err, fatesOf(&sel))
		}
	})
	t.Run("other strategies take every tag", func(t *testing.T) {
		sel := newSelection(stepInput(t, V1_3, "acme/app:whatever[", "alphabetical", "", nil))
		check, ok := sel.constraintCheck()
		if !ok || !check.admits(&candidate{name: "anything"}) {
			t.Error("alphabetical applied a constraint")
		}
	})
}

func TestSelectStepPick(t *testing.T) {
	day := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	in := stepInput(t, V1_3, "acme/app", "newest-build", "", nil, "a", "b", "c")
	live := ParseImageRef("acme/app:a", V1_3)
	in.Live = &live
	sel := newSelection(in)
	cands := []candidate{{i: 0, name: "a", created: day.Add(-time.Hour)}, {i: 1, name: "b", created: day}, {i: 2, name: "c", created: day}}
	sel.pick(cands, []int32{0, 1, 2})
	if sel.d.Selected == nil || sel.d.Selected.Tag != "c" || sel.fates.list[2].Fate != FateSelected {
		t.Fatalf("selected %v, fates %v", sel.d.Selected, fatesOf(&sel))
	}
	if sel.d.Outcome != OutcomeUpdate || !strings.Contains(sel.d.Reason, "c shares its build time with b") {
		t.Errorf("outcome %q reason %q", sel.d.Outcome, sel.d.Reason)
	}
}

package diagnostics_test

import (
	"context"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// replaceIn replaces old (which must be there) in the scenario's objects
// or in one git file.
func findings(r *report.Report, c report.Code) []report.Finding {
	var out []report.Finding
	for _, f := range r.Findings() {
		if f.Code == c {
			out = append(out, f)
		}
	}
	return out
}

// TestNotLiveImagesDecideOnlyWhenNoneIsLive: of a three-image CR whose chart
// runs one image, the live one decides (on its way) and the two others are
// warnings that Image Updater skips them, also when the chart's values lack
// their parameters; when none of the three runs, an image not live is the
// root cause and the app is blocked.
func TestNotLiveImagesDecideOnlyWhenNoneIsLive(t *testing.T) {
	t.Parallel() // its own lab
	const sc = "live-multi-image-one-live"
	t.Run("one live", func(t *testing.T) {
		r := start(t, sc, nil).Diagnose(context.Background())
		nl := findings(r, report.CodeLiveNotLive)
		if r.State != report.StateOnItsWay || r.RootCause != nil || len(nl) != 2 {
			t.Fatalf("state %s, root cause %+v, %d not-live findings\n%s", r.State, r.RootCause, len(nl), dump(r))
		}
		for _, f := range nl {
			if f.Severity != report.Warn || !strings.Contains(f.Title, "Image Updater skips it") {
				t.Errorf("not-live finding %q is %s", f.Title, f.Severity)
			}
		}
	})
	t.Run("one live, the others' parameters not in the values", func(t *testing.T) {
		r := start(t, sc, func(s *lab.Scenario) {
			files := s.Git.Repositories["config"].Branches["main"].Files
			v := files["charts/guestbook/values.yaml"]
			replaceIn(t, &v, "reaper:\n  enabled: false\n  image:\n    repository: ${REGISTRY}/team/reaper\n    tag: 1.0.0\n", "")
			files["charts/guestbook/values.yaml"] = v
		}).Diagnose(context.Background())
		hp := findings(r, report.CodeHelmParamNotInValues)
		if r.State != report.StateOnItsWay || len(hp) != 1 || hp[0].Severity != report.Warn || hp[0].Image != "reaper" {
			t.Fatalf("state %s, helm parameter findings %+v\n%s", r.State, hp, dump(r))
		}
	})
	t.Run("none live", func(t *testing.T) {
		r := start(t, sc, func(s *lab.Scenario) {
			replaceIn(t, &s.Objects, `summary: {images: ["${REGISTRY}/team/manager:1.0.0"]}`, `summary: {images: ["${REGISTRY}/other/manager:1.0.0"]}`)
		}).Diagnose(context.Background())
		if r.State != report.StateBlocked || r.RootCause == nil || r.RootCause.Code != report.CodeLiveNotLive {
			t.Fatalf("state %s, root cause %+v\n%s", r.State, r.RootCause, dump(r))
		}
	})
}

// TestKustomizeNamesKeepPortOverridesApart: the two images on a registry
// with a port collide without Kustomize names (a wrong update naming the
// image that never moves), and each keeps its override with the names the
// fix gives, before and after the write.
func TestKustomizeNamesKeepPortOverridesApart(t *testing.T) {
	t.Parallel() // its own lab
	named := func(s *lab.Scenario) {
		replaceIn(t, &s.Objects, `imageName: "${REGISTRY}/team/web:~1.0"`, `imageName: "${REGISTRY}/team/web:~1.0"
      manifestTargets: {kustomize: {name: "${REGISTRY}/team/web"}}`)
		replaceIn(t, &s.Objects, `imageName: "${REGISTRY}/team/worker:~1.0"`, `imageName: "${REGISTRY}/team/worker:~1.0"
      manifestTargets: {kustomize: {name: "${REGISTRY}/team/worker"}}`)
	}
	for _, sc := range []string{"live-kustomize-port-overrides-collide", "live-kustomize-port-overrides-collide-after"} {
		t.Run(sc, func(t *testing.T) {
			r := start(t, sc, nil).Diagnose(context.Background())
			rc := r.RootCause
			if r.State != report.StateWrongUpdate || rc == nil || rc.Code != report.CodeWriteBackKustomizeCollide || rc.Image != "web" ||
				argvWith(rc.Fix, "patch", "imageupdater", `"path":"/spec/applicationRefs/0/images/0/manifestTargets","value":{"kustomize":{"name":"127.0.0.1:`) == nil {
				t.Fatalf("state %s, root cause %+v\n%s", r.State, rc, dump(r))
			}
			// After the write the spec lacks web's pick because of the
			// collision: no "something reverts the spec" warning beside it.
			for _, f := range findings(r, report.CodeHistoryWritten) {
				if f.Severity != report.Info || strings.Contains(f.Title, "reverts") {
					t.Errorf("history says %s %q; the collision explains the missing override", f.Severity, f.Title)
				}
			}
			r = start(t, sc, named).Diagnose(context.Background())
			if r.State != report.StateOnItsWay || r.HasCode(report.CodeWriteBackKustomizeCollide) {
				t.Fatalf("with Kustomize names: state %s, root cause %+v\n%s", r.State, r.RootCause, dump(r))
			}
		})
	}
}

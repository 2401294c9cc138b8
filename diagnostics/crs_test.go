package diagnostics_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// Several ImageUpdater CRs selecting one app: the built-in scenarios
// (multi-cr-*) cover the setup and two CRs that agree; these cover
// the variants a scenario file would only repeat.

const multiCR = "multi-cr-team-wide-overrides-constraint"

func replaceIn(tb testing.TB, s *string, old, new string) {
	tb.Helper()
	if !strings.Contains(*s, old) {
		tb.Fatalf("scenario text changed: %q not found", old)
	}
	*s = strings.Replace(*s, old, new, 1)
}

func findingOf(r *report.Report, c report.Code) *report.Finding {
	for _, f := range r.Findings() {
		if f.Code == c {
			return &f
		}
	}
	return nil
}

// The app's own CR has no candidate (nothing in ~1.1 yet) and writes
// nothing; the team-wide CR moves the image to 2.0.0 anyway. That is the
// answer, not "held back".
func TestOtherCRMovesImageTheOwnCRHolds(t *testing.T) {
	t.Parallel() // its own lab
	env := start(t, multiCR, func(sc *lab.Scenario) {
		replaceIn(t, &sc.Objects, `imageName: "${REGISTRY}/team/web:~1.0"`, `imageName: "${REGISTRY}/team/web:~1.1"`)
	})
	r := env.Diagnose(context.Background())
	if r.State != report.StateWrongUpdate || r.RootCause == nil || r.RootCause.Code != report.CodeCandidatesCRsDisagree {
		t.Fatalf("state %s, root cause %v\n%s", r.State, r.RootCause, dump(r))
	}
	if !strings.Contains(r.RootCause.Title, "argocd/team-all moves it to 2.0.0") || !strings.Contains(r.RootCause.Title, "constraint ~1.1") {
		t.Fatalf("title %q", r.RootCause.Title)
	}
	none := findingOf(r, report.CodeCandidatesNone)
	if none == nil || none.Severity != report.Warn || !strings.Contains(none.Title, "what ImageUpdater argocd/web alone does") {
		t.Fatalf("the own CR's no-candidate finding: %+v\n%s", none, dump(r))
	}
}

// The team-wide CR's ref already has labelSelectors: the fix adds
// matchExpressions to them instead of replacing them.
func TestCRsDisagreeFixKeepsTheTeamSelector(t *testing.T) {
	t.Parallel() // its own lab
	env := start(t, multiCR, func(sc *lab.Scenario) {
		replaceIn(t, &sc.Objects, "kind: Application\nmetadata: {name: web, namespace: argocd}",
			"kind: Application\nmetadata: {name: web, namespace: argocd, labels: {team: web}}")
		replaceIn(t, &sc.Objects, `  - namePattern: "*"`, "  - namePattern: \"*\"\n    labelSelectors: {matchLabels: {team: web}}")
	})
	r := env.Diagnose(context.Background())
	if r.RootCause == nil || r.RootCause.Code != report.CodeCandidatesCRsDisagree || r.RootCause.Fix == nil {
		t.Fatalf("root cause %v\n%s", r.RootCause, dump(r))
	}
	want := `"path":"/spec/applicationRefs/0/labelSelectors/matchExpressions","value":[{"key":"image-updater-cr","operator":"DoesNotExist"}]`
	fix := r.RootCause.Fix
	if len(fix.Steps) != 2 || !slices.Equal(fix.Steps[0].Run.Argvs(nil)[0], []string{"kubectl", "-n", "argocd", "label", "application", "web", "image-updater-cr=web"}) ||
		argvWith(fix, "patch", "imageupdater", "team-all", want) != &fix.Steps[1] || fix.Steps[1].Patch == nil || fix.Steps[1].Patch.Object() != "ImageUpdater argocd/team-all" {
		t.Fatalf("fix steps:\n%s", fix.Script())
	}
}

// The team-wide CR also lists api, which web runs: Image Updater updates
// it with the team CR's settings; imgupd says it does not judge it, and
// the answer for web's own image stands.
func TestOtherCRImageNotJudged(t *testing.T) {
	t.Parallel() // its own lab
	env := start(t, multiCR, func(sc *lab.Scenario) {
		sc.Registry.Repositories["team/api"] = []lab.Image{{Tag: "2.3.0"}, {Tag: "2.4.0"}}
		replaceIn(t, &sc.Objects, `summary: {images: ["${REGISTRY}/team/web:1.0.0"]}`,
			`summary: {images: ["${REGISTRY}/team/web:1.0.0", "${REGISTRY}/team/api:2.3.0"]}`)
		replaceIn(t, &sc.Objects, `      imageName: "${REGISTRY}/team/web"
      manifestTargets: {kustomize: {name: "${REGISTRY}/team/web"}}`, `      imageName: "${REGISTRY}/team/web"
      manifestTargets: {kustomize: {name: "${REGISTRY}/team/web"}}
    - alias: api
      imageName: "${REGISTRY}/team/api"
    - alias: gone
      imageName: "${REGISTRY}/team/gone"`)
	})
	r := env.Diagnose(context.Background())
	if r.RootCause == nil || r.RootCause.Code != report.CodeCandidatesCRsDisagree {
		t.Fatalf("root cause %v\n%s", r.RootCause, dump(r))
	}
	var notJudged []string
	for _, f := range r.Findings() {
		if f.Code == report.CodeCandidatesOtherCRImage {
			notJudged = append(notJudged, f.Title)
		}
	}
	if len(notJudged) != 1 || !strings.Contains(notJudged[0], "image api of ImageUpdater argocd/team-all") {
		t.Fatalf("not judged: %q (gone is not live: Image Updater skips it)\n%s", notJudged, dump(r))
	}
	var listed bool
	for _, nv := range r.NotVerified {
		listed = listed || nv.Code == report.CodeCandidatesOtherCRImage && !nv.Decides
	}
	if !listed {
		t.Fatalf("not listed as not verified (without deciding): %+v", r.NotVerified)
	}
}

// After the cycle the team CR's write is in the spec and its log: the
// answer is the same as before it, with the write as evidence.
func TestCRsDisagreeAfterTheWrite(t *testing.T) {
	t.Parallel() // its own lab
	env := start(t, multiCR+"-after", nil)
	r := env.Diagnose(context.Background())
	if r.State != report.StateWrongUpdate || r.RootCause == nil || r.RootCause.Code != report.CodeCandidatesCRsDisagree {
		t.Fatalf("state %s, root cause %v\n%s", r.State, r.RootCause, dump(r))
	}
	var picks, logged string
	for _, e := range r.RootCause.Evidence {
		switch e.Label {
		case "ImageUpdater argocd/team-all picks":
			picks = e.Value
		case "ImageUpdater argocd/team-all's last write in the log":
			logged = e.Value
		}
	}
	if !strings.HasPrefix(picks, "2.0.0 (already written in the spec)") || !strings.Contains(logged, "Setting new image to ") || !strings.HasSuffix(logged, "/team/web:2.0.0") {
		t.Fatalf("evidence %+v", r.RootCause.Evidence)
	}
}

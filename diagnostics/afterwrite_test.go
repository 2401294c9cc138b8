package diagnostics_test

import (
	"context"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// After the write, the same judgement as before it: a pick is judged
// whether Image Updater writes it on its next cycle or has written it
// already (the Application spec holds it, the event, the CR status and the
// log record it) and Argo CD has not deployed it yet.

func diagnose(t *testing.T, name string, edit func(*lab.Scenario)) *report.Report {
	t.Helper()
	return start(t, name, edit).Diagnose(context.Background())
}

func findingsOf(r *report.Report, c report.Code) []report.Finding {
	var out []report.Finding
	for _, f := range r.Findings() {
		if f.Code == c {
			out = append(out, f)
		}
	}
	return out
}

func TestDowngradeStaysWrongOnceWritten(t *testing.T) {
	t.Parallel() // its own lab
	for _, name := range []string{"constraint-downgrade", "constraint-downgrade-after-write", "constraint-downgrade-git-after-write"} {
		t.Run(name, func(t *testing.T) {
			r := diagnose(t, name, nil)
			if r.State != report.StateWrongUpdate || r.RootCause == nil || r.RootCause.Code != report.CodeCandidatesDowngrade {
				t.Fatalf("state %s, root cause %v; want wrong-update, CANDIDATES_DOWNGRADE\n%s", r.State, r.RootCause, dump(r))
			}
			written := findingsOf(r, report.CodeHistoryWritten)
			if name == "constraint-downgrade" {
				if len(written) != 0 {
					t.Fatalf("nothing is written before the cycle, but: %v", written)
				}
				return
			}
			if len(written) != 1 || written[0].Severity != report.Info || len(written[0].Evidence) < 4 {
				t.Fatalf("want one HISTORY_PICK_WRITTEN with the spec, event, CR status and log as evidence, got %+v", written)
			}
			fix := r.RootCause.Fix
			if name == "constraint-downgrade-git-after-write" {
				// The commit, not the spec, holds the downgrade.
				if !strings.Contains(r.RootCause.Title, "has committed 1.20.3") {
					t.Errorf("the root cause does not say the downgrade is committed: %q", r.RootCause.Title)
				}
				if s := argvWith(fix, "revert", "--no-edit"); s == nil || s != &fix.Steps[len(fix.Steps)-2] || argvWith(fix, "push", "HEAD") != &fix.Steps[len(fix.Steps)-1] {
					t.Errorf("the fix does not revert Image Updater's commit: %+v", fix)
				}
				return
			}
			if !strings.Contains(r.RootCause.Title, "has written 1.20.3") {
				t.Errorf("the root cause does not say the downgrade is written: %q", r.RootCause.Title)
			}
			// Widening the constraint alone leaves the written 1.20.3 in the
			// spec (Image Updater writes nothing when no update is needed).
			if s := argvWith(fix, "argocd", "argocd/web", "--kustomize-image=", "/team/web:1.21.0"); s == nil || s != &fix.Steps[len(fix.Steps)-1] {
				t.Errorf("the fix does not put the running 1.21.0 back into the spec: %+v", fix)
			}
		})
	}
}

func TestRollbackPinIsOnItsWay(t *testing.T) {
	t.Parallel() // its own lab
	for _, tc := range []struct{ name, written string }{
		{"rollback-pin", "on Image Updater's next cycle"},
		{"rollback-pin-after-write", "written, Argo CD deploys it on its next sync"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := diagnose(t, tc.name, nil)
			if r.State != report.StateOnItsWay || r.RootCause != nil {
				t.Fatalf("state %s, root cause %v; want update-on-its-way\n%s", r.State, r.RootCause, dump(r))
			}
			if len(findingsOf(r, report.CodeCandidatesRollback)) != 1 || len(findingsOf(r, report.CodeCandidatesDowngrade)) != 0 {
				t.Fatalf("want CANDIDATES_ROLLBACK and no downgrade\n%s", dump(r))
			}
			want := "web 1.2.0 → 1.0.0 (a rollback to the pinned version) " + tc.written
			if !strings.Contains(r.Headline, want) {
				t.Errorf("headline %q does not say %q", r.Headline, want)
			}
		})
	}
}

// TestWhatCountsAsAPin: one exact version, with or without "=" or "v", is a
// rollback; a range that leaves the running version out is a downgrade, even
// one that admits only the same tag here. Both before and after the write.
func TestWhatCountsAsAPin(t *testing.T) {
	t.Parallel() // its own lab
	cases := []struct {
		constraint string
		want       report.Code
	}{
		{"1.0.0", report.CodeCandidatesRollback},
		{"=1.0.0", report.CodeCandidatesRollback},
		{"v1.0.0", report.CodeCandidatesRollback},
		{"1.0", report.CodeCandidatesDowngrade},
		{"~1.0.0", report.CodeCandidatesDowngrade},
		{"<=1.0.0", report.CodeCandidatesDowngrade},
		{">=1.0.0 <1.1.0", report.CodeCandidatesDowngrade},
	}
	for _, scen := range []string{"rollback-pin", "rollback-pin-after-write"} {
		for _, tc := range cases {
			t.Run(scen+"/"+tc.constraint, func(t *testing.T) {
				t.Parallel() // each its own lab
				r := diagnose(t, scen, func(sc *lab.Scenario) {
					sc.Objects = strings.Replace(sc.Objects, `imageName: "${REGISTRY}/team/web:1.0.0"`, `imageName: "${REGISTRY}/team/web:`+tc.constraint+`"`, 1)
				})
				if len(findingsOf(r, tc.want)) != 1 {
					t.Fatalf("constraint %q: want %s\n%s", tc.constraint, tc.want, dump(r))
				}
				wantState := report.StateOnItsWay
				if tc.want == report.CodeCandidatesDowngrade {
					wantState = report.StateWrongUpdate
				}
				if r.State != wantState {
					t.Fatalf("constraint %q: state %s, want %s\n%s", tc.constraint, r.State, wantState, dump(r))
				}
			})
		}
	}
}

// TestDigestPinIsARollback: the digest strategy following an older version
// tag moves the image down to it, as asked.
func TestDigestPinIsARollback(t *testing.T) {
	t.Parallel() // its own lab
	r := diagnose(t, "rollback-pin", func(sc *lab.Scenario) {
		sc.Objects = strings.Replace(sc.Objects, `imageName: "${REGISTRY}/team/web:1.0.0"`,
			`imageName: "${REGISTRY}/team/web:1.0.0"`+"\n      commonUpdateSettings: {updateStrategy: digest}", 1)
	})
	if r.State != report.StateOnItsWay || len(findingsOf(r, report.CodeCandidatesRollback)) != 1 {
		t.Fatalf("state %s; want update-on-its-way with CANDIDATES_ROLLBACK\n%s", r.State, dump(r))
	}
}

// TestUnknownForgePushBeforeTheCycle: before Image Updater's first push, a
// protected branch on a host imgupd does not know as a forge cannot be
// seen: the update is on its way, with the push listed as not verified
// (and not deciding the answer). Once the log shows the rejection, the
// answer is blocked (article-4-protected-branch).
func TestUnknownForgePushBeforeTheCycle(t *testing.T) {
	t.Parallel() // its own lab
	r := diagnose(t, "protected-branch-unknown-forge-before", nil)
	if r.State != report.StateOnItsWay {
		t.Fatalf("state %s, want update-on-its-way\n%s", r.State, dump(r))
	}
	found := false
	for _, nv := range r.NotVerified {
		if nv.Code == report.CodeWriteBackPushUnverified {
			found = !nv.Decides
		}
	}
	if !found {
		t.Fatalf("the push is not listed as not verified (without deciding)\n%s", dump(r))
	}
	after := diagnose(t, "article-4-protected-branch", nil)
	if after.State != report.StateBlocked || after.RootCause == nil || after.RootCause.Code != report.CodeWriteBackCommitFailed {
		t.Fatalf("after the push: state %s, root cause %v; want blocked by the logged rejection\n%s", after.State, after.RootCause, dump(after))
	}
}

// TestOtherWrongPicksStayWrongOnceWritten: a pick the CR did not ask for
// (the CRD-defaulted strategy's) is as wrong in the spec as before it.
func TestOtherWrongPicksStayWrongOnceWritten(t *testing.T) {
	t.Parallel() // its own lab
	r := diagnose(t, "crd-defaulted-strategy", func(sc *lab.Scenario) {
		sc.Objects = strings.Replace(sc.Objects, `targetRevision: main, kustomize: {}}`,
			`targetRevision: main, kustomize: {images: ["${REGISTRY}/team/web:2.0.0"]}}`, 1)
		sc.Objects = strings.Replace(sc.Objects, `sync: {status: Synced, revision: abc123}`, `sync: {status: OutOfSync, revision: abc123}`, 1)
	})
	if len(findingsOf(r, report.CodeCandidatesAlreadyInSpec)) != 1 {
		t.Fatalf("the edit did not put the pick into the spec\n%s", dump(r))
	}
	if r.State != report.StateWrongUpdate || r.RootCause == nil || r.RootCause.Code != "TARGET_CRD_DEFAULTED_STRATEGY" {
		t.Fatalf("state %s, root cause %v; want wrong-update, TARGET_CRD_DEFAULTED_STRATEGY\n%s", r.State, r.RootCause, dump(r))
	}
}

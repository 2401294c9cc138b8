package e2e

import (
	"strings"
	"testing"

	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/report"
)

// TestWriteEvidenceOnRealAPIServer: what Image Updater leaves after its
// write survives the real API server (the CR's status.recentUpdates through
// the status subresource, the ImagesUpdated Event's annotations) and, with
// no log at all, still shows the committed downgrade as written.
func TestWriteEvidenceOnRealAPIServer(t *testing.T) {
	sc, ok := lab.Builtin("constraint-downgrade-git-after-write")
	if !ok {
		t.Fatal("no constraint-downgrade-git-after-write scenario")
	}
	sc.Logs = ""
	rep := diagnoseOnServer(t, sc, "imgupd", "imgupd", nil)
	if rep.RootCause == nil || rep.RootCause.Code != report.CodeCandidatesDowngrade || !strings.Contains(rep.RootCause.Title, "has committed 1.20.3") {
		t.Fatalf("root cause %+v; want the committed downgrade\n%s", rep.RootCause, findings(rep))
	}
	var labels []string
	for _, f := range rep.Findings() {
		if f.Code == report.CodeHistoryWritten {
			for _, e := range f.Evidence {
				labels = append(labels, e.Label)
			}
		}
	}
	got := strings.Join(labels, "; ")
	for _, want := range []string{"event ImagesUpdated", "status.recentUpdates", "Image Updater's last commit"} {
		if !strings.Contains(got, want) {
			t.Errorf("HISTORY_PICK_WRITTEN evidence %q lacks %q", got, want)
		}
	}
}

package report_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/report"
)

// TestJSONListsAreNeverNull: the JSON of an empty report, stage, candidate
// table, summary, summary group and where answer writes each list that is
// not omitted as [], never null, so that a script can iterate it.
func TestJSONListsAreNeverNull(t *testing.T) {
	for name, v := range map[string]any{
		"report":          &report.Report{},
		"report by value": report.Report{Stages: []report.StageResult{{}}, Candidates: []report.CandidateTable{{}}},
		"summary":         report.Summary{Attention: []report.SummaryGroup{{}}},
		"where":           &report.Where{},
	} {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"stages", "findings", "tags", "counts", "attention", "apps"} {
			if strings.Contains(string(data), `"`+key+`":null`) {
				t.Errorf("%s: %q is null: %s", name, key, data)
			}
		}
		if strings.Contains(string(data), `:null`) && !strings.Contains(string(data), `"rootCause":null`) {
			t.Errorf("%s: a null list: %s", name, data)
		}
	}
	// Reading JSON back is unchanged.
	var r report.Report
	if err := json.Unmarshal([]byte(`{"stages":[{"id":"target","findings":[]}],"state":"blocked"}`), &r); err != nil || len(r.Stages) != 1 || r.State != report.StateBlocked {
		t.Errorf("read back %+v, %v", r, err)
	}
}

package simulate

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/imgupd/imgupd/internal/jsonindent"
	"github.com/imgupd/imgupd/model/updater"
)

// TestJSONPartsAreTheWholeAnswer: the JSON form written in parts (its tags
// a slice at a time) is the answer marshalled whole, byte for byte, with
// many tags or none, with log lines or none.
func TestJSONPartsAreTheWholeAnswer(t *testing.T) {
	type whole JSON // JSON's fields, without JSONParts
	for _, n := range []int{0, 3, 700} {
		for _, logs := range [][]string{nil, {`Setting new image to "<x>"`}} {
			d := updater.Decision{Image: "ghcr.io/acme/web", Constraint: "~1.2", Listed: n, Logs: logs}
			for i := range n {
				d.Tags = append(d.Tags, updater.TagFate{Tag: fmt.Sprintf("1.2.%d", i), Kept: i%2 == 0, Fate: updater.FateCandidate, Why: `"quoted" <html> & more`, Rank: i})
			}
			j := NewJSON(Result{Decision: d, APIURL: "https://ghcr.io", Repository: "acme/web"})
			var got, want bytes.Buffer
			if err := jsonindent.EncodeObject(&got, j, "  ", "schemaVersion", 1); err != nil {
				t.Fatal(err)
			}
			if err := jsonindent.EncodeObject(&want, whole(j), "  ", "schemaVersion", 1); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("%d tags, logs %q: in parts\n%.400s\nwhole\n%.400s", n, logs, got.Bytes(), want.Bytes())
			}
		}
	}
}

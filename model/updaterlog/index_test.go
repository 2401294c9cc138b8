package updaterlog

import (
	"reflect"
	"testing"

	"github.com/imgupd/imgupd/model/updater"
)

// TestIndexIsAnalyze: analyzing through an Index gives exactly what
// Analyze gives, for every app the log names and for one it does not.
func TestIndexIsAnalyze(t *testing.T) {
	v, _ := updater.ParseVersion("v1.3.0")
	lines := ParseString(v13Log)
	x := NewIndex(lines, v)
	for _, app := range []AppRef{{Namespace: "argocd", Name: "web"}, {Namespace: "argocd", Name: "web-api"}, {Namespace: "team-b", Name: "web"},
		{Namespace: "argocd", Name: "web-api2"}, {Namespace: "argocd", Name: "nothing"}, {Name: "web"}} {
		want := Analyze(lines, app, v)
		got := x.Analyze(app)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: index %+v\nwant          %+v", app, got, want)
		}
	}
	if x.Lines() != len(lines) {
		t.Errorf("Lines() = %d", x.Lines())
	}
}

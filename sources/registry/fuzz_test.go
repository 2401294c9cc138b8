package registry

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// FuzzDecodeTags: the streaming decoder never panics, and reads what
// json.Unmarshal (Image Updater's decode) reads from any page it accepts
// with one "tags" member.
func FuzzDecodeTags(f *testing.F) {
	for _, s := range []string{
		`{"name":"a/b","tags":["1.0.0","latest"]}`,
		`{"tags":null}`,
		`{"tags":["a",null,"\u00e9\ud800"]}`,
		`{"child":[{"x":[1,{"y":null}]}],"tags":["1"],"name":"n"}`,
		`{"tags":["1"]} {"tags":["2"]}`,
		`{"tags":[1]}`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []string
		err := decodeTags(strings.NewReader(string(data)), func(s string) error { got = append(got, s); return nil })
		if len(got) > len(data) {
			t.Fatalf("%d tags from %d bytes", len(got), len(data))
		}
		var want struct {
			Tags []string `json:"tags"`
		}
		if strings.Count(strings.ToLower(string(data)), "tags") != 1 || json.Unmarshal(data, &want) != nil {
			return
		}
		if err != nil || !slices.Equal(got, want.Tags) && len(got)+len(want.Tags) > 0 {
			t.Fatalf("decodeTags %q, %v; json.Unmarshal %q", got, err, want.Tags)
		}
	})
}

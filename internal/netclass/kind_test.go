package netclass

import "testing"

// The kinds' values are what JSON and log lines carry: they never change.
func TestKindNames(t *testing.T) {
	t.Parallel()
	want := []string{"DNS", "Connect", "TLS", "Timeout", "Proxy", "Canceled"}
	got := Kinds()
	if len(got) != len(want) {
		t.Fatalf("Kinds() = %v, want %v", got, want)
	}
	for i, k := range got {
		if string(k) != want[i] {
			t.Errorf("Kinds()[%d] = %q, want %q", i, k, want[i])
		}
		if k.Phrase(nil) == "failed" {
			t.Errorf("%s has no phrase", k)
		}
	}
	if None != "" {
		t.Errorf("None = %q, want \"\"", None)
	}
}

func TestKindPhrase(t *testing.T) {
	t.Parallel()
	own := map[Kind]string{"Unauthorized": "unauthorized", TLS: "server identity not verified"}
	for _, tc := range []struct {
		k    Kind
		want string
	}{
		{"Unauthorized", "unauthorized"},
		{TLS, "server identity not verified"},
		{Timeout, "timed out"},
		{"Other", "failed"},
		{None, "failed"},
	} {
		if got := tc.k.Phrase(own); got != tc.want {
			t.Errorf("%q.Phrase = %q, want %q", tc.k, got, tc.want)
		}
	}
}

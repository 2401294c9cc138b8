package heapwatch

import "testing"

var keep [][]byte

// TestMeasureSeesGrowth: memory held while f runs shows in Peak, so a
// test with a bound can fail.
func TestMeasureSeesGrowth(t *testing.T) {
	g := Measure(func() {
		for range 64 {
			keep = append(keep, make([]byte, 1<<20))
		}
	})
	keep = nil
	if g.Peak < 60<<20 || g.Allocated < 64<<20 {
		t.Fatalf("64 MiB held, measured %+v", g)
	}
}

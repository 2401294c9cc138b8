package updater

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
)

// arrangedByCopy is arranged as it was before it moved the entries in
// place (issue 28): the ranked entries copied out, the rest moved back,
// the ranked put in front by rank.
func arrangedByCopy(list []TagFate) []TagFate {
	var ranked []TagFate
	for _, f := range list {
		if f.Rank > 0 {
			ranked = append(ranked, f)
		}
	}
	if len(ranked) == 0 {
		return list
	}
	w := len(list)
	for r := len(list) - 1; r >= 0; r-- {
		if list[r].Rank == 0 {
			w--
			list[w] = list[r]
		}
	}
	for _, f := range ranked {
		list[f.Rank-1] = f
	}
	return list
}

// TestArrangedInPlace: candidates by rank, then the rest in their order,
// as the copy did, over random tables.
func TestArrangedInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	for range 2000 {
		n := rng.IntN(40)
		list := make([]TagFate, n)
		for i := range list {
			list[i] = TagFate{Tag: strconv.Itoa(i), Fate: FateNotConsidered, Why: "w" + strconv.Itoa(i)}
		}
		ranks := rng.Perm(n)[:rng.IntN(n+1)] // the tags ranked, in rank order
		for r, i := range ranks {
			list[i].Rank = r + 1
		}
		want := arrangedByCopy(slicesClone(list))
		got := (&fateTable{list: slicesClone(list)}).arranged()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%v:\ngot  %v\nwant %v", list, got, want)
		}
	}
}

func slicesClone(l []TagFate) []TagFate { return append([]TagFate(nil), l...) }

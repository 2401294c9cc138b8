package fleet

import (
	"hash/maphash"
	"slices"
	"sync"
	"time"

	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/diagnostics/updater"
)

// minSharedTable is the smallest candidate table worth sharing.
const minSharedTable = 32

// tables keeps one copy of each distinct candidate table (every tag's
// fate, reason and rank) of a scan. Apps of one repository with the same
// settings get equal tables; a scan keeps every app's report, and a fleet
// of 500 apps over repositories of 2,000 tags would otherwise hold half a
// million tag rows, most of them copies: the scan's memory would grow
// with the apps instead of the repositories. Shared tables are read-only,
// as every report is once made.
type tables struct {
	seed maphash.Seed
	mu   sync.Mutex
	m    map[uint64][][]updater.TagFate
}

func newTables() *tables {
	return &tables{seed: maphash.MakeSeed(), m: map[uint64][][]updater.TagFate{}}
}

// share replaces each candidate table of rep by an equal one kept
// earlier, or keeps it for the apps that follow.
func (t *tables) share(rep *diagnostics.Report) {
	for i := range rep.Candidates {
		tags := rep.Candidates[i].Decision.Tags
		if len(tags) < minSharedTable {
			continue
		}
		h := t.hash(tags)
		t.mu.Lock()
		found := false
		for _, kept := range t.m[h] {
			if slices.EqualFunc(kept, tags, equalFate) {
				rep.Candidates[i].Decision.Tags, found = kept, true
				break
			}
		}
		if !found {
			t.m[h] = append(t.m[h], tags)
		}
		t.mu.Unlock()
	}
}

func (t *tables) hash(tags []updater.TagFate) uint64 {
	var h maphash.Hash
	h.SetSeed(t.seed)
	for i := range tags {
		f := &tags[i]
		h.WriteString(f.Tag)
		h.WriteByte(0)
		h.WriteString(string(f.Fate))
		h.WriteByte(0)
		h.WriteString(f.Why)
		h.WriteByte(0)
		maphash.WriteComparable(&h, f.Rank)
	}
	return h.Sum64()
}

func equalFate(a, b updater.TagFate) bool {
	return a.Tag == b.Tag && a.Kept == b.Kept && a.Fate == b.Fate && a.Why == b.Why && a.Rank == b.Rank &&
		a.Digest == b.Digest && equalTime(a.Created, b.Created) && slices.Equal(a.Platforms, b.Platforms)
}

func equalTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b) && a.Location() == b.Location()
}

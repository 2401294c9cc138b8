package fleet

import (
	"github.com/imgupd/imgupd/model/argo"
	"github.com/imgupd/imgupd/model/updater"
)

// Managed reports whether Image Updater manages the Application, or was
// meant to, as its model selects: an ImageUpdater CR lists its namespace
// and one of its applicationRefs matches it by name and labels (also when
// that ref's configuration then fails to build: the app is managed and
// broken), or, on v0.x, it carries the image-list annotation. An
// Application with the image-list annotation that no CR selects on v1.x is
// managed too: its annotations are ignored, which is the answer its owner
// needs (TARGET_ANNOTATIONS_IGNORED).
func Managed(app *argo.Application, crs []updater.ImageUpdater, opts updater.SelectOptions) bool {
	return managed(app.ToModel(), updater.NewSelector(crs, opts))
}

// managed is Managed over CRs prepared once for the whole scan.
func managed(m updater.Application, s *updater.Selector) bool {
	if _, ok := m.Annotations[updater.AnnotationImageList]; ok {
		return true
	}
	return s.Matches(m)
}

// selection is the scan's target selection for a managed app (nil when
// the diagnosis makes its own: v0.x, or an image-list annotation, which
// Managed takes without selecting): the CRs that concern the app, not
// every CR of the cluster (Selector.SelectConcerned).
func selection(m updater.Application, s *updater.Selector, v updater.Version) *updater.Targeting {
	if _, ok := m.Annotations[updater.AnnotationImageList]; ok || !v.UsesCRs() {
		return nil
	}
	t := s.SelectConcerned(m)
	return &t
}

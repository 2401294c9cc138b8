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
	ok, _ := managed(app, crs, opts)
	return ok
}

// managed is Managed, with the selection it made (nil when it needed none:
// v0.x, or an image-list annotation decided it).
func managed(app *argo.Application, crs []updater.ImageUpdater, opts updater.SelectOptions) (bool, *updater.Targeting) {
	m := app.ToModel()
	if _, ok := m.Annotations[updater.AnnotationImageList]; ok {
		return true, nil
	}
	if !opts.Version.UsesCRs() {
		return false, nil
	}
	t := updater.SelectTarget(m, crs, opts)
	if t.CR != "" {
		return true, &t
	}
	for _, c := range t.CRs {
		if !c.AppListed {
			continue
		}
		for _, r := range c.Refs {
			switch r.Outcome {
			case updater.RefSelected, updater.RefConfigError, updater.RefNotReached:
				return true, &t
			}
		}
	}
	return false, &t
}

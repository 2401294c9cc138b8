package argo

import (
	"maps"
	"slices"

	"github.com/imgupd/imgupd/model/updater"
)

// ToModel reduces the Application to the updater model's input. Sources is
// spec.sources (MultiSource true) when it has entries, else spec.source as
// one element, else empty; a hydrated Application carries its dry source in
// Hydrator and keeps Sources as written (normally empty). Maps and slices are
// copied, so the model may be changed without touching a.
func (a *Application) ToModel() updater.Application {
	m := updater.Application{
		Name:        a.Name,
		Namespace:   a.Namespace,
		Labels:      maps.Clone(a.Labels),
		Annotations: maps.Clone(a.Annotations),
		SourceType:  a.Status.SourceType,
		SourceTypes: slices.Clone(a.Status.SourceTypes),
		LiveImages:  slices.Clone(a.Status.Summary.Images),
	}
	switch {
	case a.HasMultipleSources():
		m.MultiSource = true
		m.Sources = make([]updater.AppSource, 0, len(a.Spec.Sources))
		for _, s := range a.Spec.Sources {
			m.Sources = append(m.Sources, s.toModel())
		}
	case a.Spec.Source != nil:
		m.Sources = []updater.AppSource{a.Spec.Source.toModel()}
	}
	if h := a.Spec.SourceHydrator; h != nil {
		d := h.DrySource
		m.Hydrator = &updater.DrySource{
			RepoURL:        d.RepoURL,
			Path:           d.Path,
			TargetRevision: d.TargetRevision,
			HasHelm:        d.Helm != nil,
			HasKustomize:   d.Kustomize != nil,
			HasPlugin:      d.Plugin != nil,
		}
	}
	return m
}

func (s ApplicationSource) toModel() updater.AppSource {
	return updater.AppSource{
		RepoURL:        s.RepoURL,
		Path:           s.Path,
		TargetRevision: s.TargetRevision,
		Chart:          s.Chart,
		HasHelm:        s.Helm != nil,
		HasKustomize:   s.Kustomize != nil,
		HasPlugin:      s.Plugin != nil,
	}
}

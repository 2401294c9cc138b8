package fleet

import (
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/imgupd/imgupd/model/argo"
)

// listNamespaces are the namespaces to list Applications in: each literal
// namespace of the scope, or "" (all) when any is a glob or none is given;
// within VisibleNamespaces when set (none: list nothing).
func listNamespaces(s Query) []string {
	if s.VisibleNamespaces != nil {
		out := []string{}
		for _, n := range s.VisibleNamespaces {
			if (len(s.Namespaces) == 0 || anyGlob(s.Namespaces, n)) && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		return out
	}
	if len(s.Namespaces) == 0 {
		return []string{""}
	}
	var out []string
	for _, n := range s.Namespaces {
		if strings.ContainsAny(n, "*?[") {
			return []string{""}
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// matches reports whether the Application is in the scope and, when the scope has a Visible
// filter, visible.
func matches(s Query, app *argo.Application) bool {
	if s.Visible != nil && !s.Visible(app.Namespace, project(app)) {
		return false
	}
	if s.VisibleNamespaces != nil && !slices.Contains(s.VisibleNamespaces, app.Namespace) {
		return false
	}
	if len(s.Namespaces) > 0 && !anyGlob(s.Namespaces, app.Namespace) {
		return false
	}
	if len(s.Names) > 0 && !anyGlob(s.Names, app.Name) {
		return false
	}
	if len(s.Projects) > 0 && !slices.Contains(s.Projects, project(app)) {
		return false
	}
	if s.Selector != "" {
		sel, err := labels.Parse(s.Selector)
		if err != nil || !sel.Matches(labels.Set(app.Labels)) {
			return false
		}
	}
	return true
}

// mayBeIn reports whether an Application of this namespace and name may
// be in the scope (matches, before anything else about it is known): its
// namespace is visible and in scope, its name in scope.
func mayBeIn(s Query, ns, name string) bool {
	return (s.VisibleNamespaces == nil || slices.Contains(s.VisibleNamespaces, ns)) &&
		(len(s.Namespaces) == 0 || anyGlob(s.Namespaces, ns)) && (len(s.Names) == 0 || anyGlob(s.Names, name))
}

func anyGlob(globs []string, s string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, s); ok {
			return true
		}
	}
	return false
}

package fleet

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/imgupd/imgupd/diagnostics/argo"
)

// Scope selects Applications: each non-empty part must match. Namespaces
// and Names are globs (path.Match), Projects exact names ("" counts as
// "default").
type Scope struct {
	Namespaces []string `json:"namespaces,omitempty"`
	Projects   []string `json:"projects,omitempty"`
	Names      []string `json:"names,omitempty"`
	// Selector is a label selector (kubectl's syntax), "" for any.
	Selector string `json:"selector,omitempty"`

	// Visible, when set, admits the Applications the asker may see, by namespace and Argo CD
	// project ("default" for none). The scan drops every other Application as soon as the list
	// is read, before anything about it is read, decided or counted: nothing in the Result
	// depends on it. It is not part of the scope as asked (not in String, nor in JSON).
	Visible func(namespace, project string) bool `json:"-"`
	// VisibleNamespaces, when not nil, are the only namespaces (literal names) Visible can
	// admit: Applications are listed only there.
	VisibleNamespaces []string `json:"-"`
}

// String is the scope in one line, for headers: "namespaces payments-*,
// projects payments" or "every Application".
func (s Scope) String() string {
	var parts []string
	if len(s.Namespaces) > 0 {
		parts = append(parts, "namespaces "+strings.Join(s.Namespaces, ","))
	}
	if len(s.Projects) > 0 {
		parts = append(parts, "projects "+strings.Join(s.Projects, ","))
	}
	if len(s.Names) > 0 {
		parts = append(parts, "names "+strings.Join(s.Names, ","))
	}
	if s.Selector != "" {
		parts = append(parts, "labels "+s.Selector)
	}
	if len(parts) == 0 {
		return "every Application"
	}
	return strings.Join(parts, ", ")
}

// Asked is the scope as asked, without the asker's visibility.
func (s Scope) Asked() Scope {
	s.Visible, s.VisibleNamespaces = nil, nil
	return s
}

// Validate checks the globs and the selector.
func (s Scope) Validate() error {
	for _, g := range append(append([]string{}, s.Namespaces...), s.Names...) {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("scope: %q is not a glob: %w", g, err)
		}
	}
	if _, err := labels.Parse(s.Selector); err != nil {
		return fmt.Errorf("scope: selector %q: %w", s.Selector, err)
	}
	return nil
}

// listNamespaces are the namespaces to list Applications in: each literal
// namespace of the scope, or "" (all) when any is a glob or none is given;
// within VisibleNamespaces when set (none: list nothing).
func (s Scope) listNamespaces() []string {
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

// Matches reports whether the Application is in the scope and, when the scope has a Visible
// filter, visible.
func (s Scope) Matches(app *argo.Application) bool {
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

func anyGlob(globs []string, s string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, s); ok {
			return true
		}
	}
	return false
}

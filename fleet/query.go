package fleet

import "github.com/imgupd/imgupd/report"

// Query is what a scan is asked: the scope as asked (report.Scope, which the
// answer carries and shows) and, apart from it, the asker's visibility,
// which no answer carries.
type Query struct {
	report.Scope
	// Visible, when set, admits the Applications the asker may see, by namespace and Argo CD
	// project ("default" for none). The scan drops every other Application as soon as the list
	// is read, before anything about it is read, decided or counted: nothing in the Result
	// depends on it.
	Visible func(namespace, project string) bool
	// VisibleNamespaces, when not nil, are the only namespaces (literal names) Visible can
	// admit: Applications are listed only there.
	VisibleNamespaces []string
}

// Everyone is a query of the scope s with no visibility filter (a terminal,
// whose kubeconfig decides what it may read).
func Everyone(s report.Scope) Query { return Query{Scope: s} }

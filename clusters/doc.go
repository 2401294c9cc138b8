// Package clusters owns the Argo CD installations one imgupd reads: the configuration's
// `clusters:` section parsed at the edge into typed, validated Specs (Decode), how each is
// reached (Connector.RESTConfig: in-cluster, a kubeconfig file or one kept in a Secret, or a
// server with a bearer token), what a diagnosis and a scan need in each (Member: its engine,
// fleet scanner and namespaces, or why it cannot be read), and the answers of several clusters'
// scans merged into one (MergeScans, MergeWhere), each app named with its cluster and a cluster
// that could not be read one line, never a failed answer for the others.
//
// It sits with the fleet scan in the layers: it uses the engine, the fleet scan and the sources,
// and knows nothing of the chat or the terminal.
package clusters

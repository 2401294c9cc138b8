package diagnostics_test

import (
	"github.com/imgupd/imgupd/diagnostics"
	"github.com/imgupd/imgupd/sources/gitsource"
	"github.com/imgupd/imgupd/sources/registry"
)

func newRegistryClient() diagnostics.Registry { return registry.New() }
func newGitClient() diagnostics.Git           { return gitsource.New() }

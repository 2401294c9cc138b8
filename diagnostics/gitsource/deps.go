package gitsource

// Temporary: pins go-git while the package is written.
import _ "github.com/go-git/go-git/v5"

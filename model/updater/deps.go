package updater

// Temporary: pins dependencies used by files being written in parallel.
import (
	_ "github.com/Masterminds/semver/v3"
	_ "k8s.io/apimachinery/pkg/apis/meta/v1"
	_ "k8s.io/apimachinery/pkg/labels"
	_ "sigs.k8s.io/yaml"
)

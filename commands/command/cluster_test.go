package command_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/imgupd/imgupd/clusters"
	"github.com/imgupd/imgupd/commands/command"
)

// An error names its cluster by its type, not by its words: cluster us-east's error does not
// name cluster us, though its text holds "cluster us".
func TestNamesCluster(t *testing.T) {
	east := command.Exit(69, fmt.Errorf("reading: %w", &command.ClusterError{Cluster: "us-east", Err: errors.New("cannot reach the Kubernetes API server of cluster us-east")}))
	connect := fmt.Errorf("opening: %w", &clusters.ConnectError{Cluster: "uk", Err: errors.New("Secret imgupd/uk not found")})
	for _, c := range []struct {
		err  error
		name string
		want bool
	}{
		{east, "us-east", true},
		{east, "us", false},
		{connect, "uk", true},
		{connect, "u", false},
		{errors.New("cluster us: refused"), "us", false},
		{nil, "us", false},
	} {
		if got := command.NamesCluster(c.err, c.name); got != c.want {
			t.Errorf("NamesCluster(%v, %q) = %v, want %v", c.err, c.name, got, c.want)
		}
	}
}

package main

import (
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/commands/command"
	"github.com/imgupd/imgupd/sources/forge"
)

// forgeFlagHelp documents --forge for the commands that take it.
const forgeFlagHelp = command.ForgeHelp

// parseForges reads --forge values: "github:ghe.corp.example",
// "gitlab:git.corp.example=https://git.corp.example/api/v4".
func parseForges(vals []string) ([]forge.Endpoint, error) {
	var out []forge.Endpoint
	for _, v := range vals {
		kind, rest, ok := strings.Cut(strings.TrimSpace(v), ":")
		if !ok || rest == "" {
			return nil, fmt.Errorf("--forge %q: want KIND:HOST[=API_URL], e.g. github:ghe.corp.example", v)
		}
		k, err := forge.ParseForge(kind)
		if err != nil {
			return nil, fmt.Errorf("--forge %q: %w", v, err)
		}
		host, api, _ := strings.Cut(rest, "=")
		ep := forge.Endpoint{Host: host, Kind: k, APIURL: api}
		if _, err := ep.Validate(); err != nil {
			return nil, fmt.Errorf("--forge %q: %w", v, err)
		}
		out = append(out, ep)
	}
	return out, nil
}

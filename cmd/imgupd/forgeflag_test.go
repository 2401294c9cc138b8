package main

import (
	"strings"
	"testing"

	"github.com/imgupd/imgupd/sources/forge"
)

func TestParseForges(t *testing.T) {
	got, err := parseForges([]string{"github:ghe.corp.example", "gitlab:git.corp.example:8443=https://git.corp.example:8443/api/v4"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Kind != forge.GitHub || got[0].Host != "ghe.corp.example" || got[0].APIURL != "" ||
		got[1].Kind != forge.GitLab || got[1].Host != "git.corp.example:8443" || got[1].APIURL != "https://git.corp.example:8443/api/v4" {
		t.Fatalf("%+v", got)
	}
	for _, bad := range []string{"ghe.corp.example", "svn:host", "github:", "gitlab:host=ftp://x"} {
		if _, err := parseForges([]string{bad}); err == nil || !strings.Contains(err.Error(), "--forge") {
			t.Errorf("%q: want an error naming --forge, got %v", bad, err)
		}
	}
}

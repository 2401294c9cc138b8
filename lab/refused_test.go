package lab

import (
	"context"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/report"
)

// TestRefusedMetadata: a registry account that lists tags but is refused
// the reads a strategy needs is named as such, by status (401, 403, 429),
// by read (manifest, config blob) and by reach (every tag, some tags), on
// the built-in scenario registry-manifest-forbidden-before with the lab
// registry's refusal varied. What is checked is what the reader sees: the
// code, the state, the title, the fix.
func TestRefusedMetadata(t *testing.T) {
	cases := []struct {
		name      string
		behaviour Behaviour
		// edit changes the scenario's objects (old → new), if set.
		edit       [2]string
		anonymous  bool
		code       report.Code
		state      report.State
		title      []string
		fix        string
		notInTitle string
	}{
		{name: "403 manifests, every tag", behaviour: Behaviour{Status: 403, Only: "manifests"},
			code: report.CodeRegistryManifestForbidden, state: report.StateBlocked,
			title: []string{"refuses their manifests: HTTP 403 for all 3 tags read"}, fix: "pull (read) permission on team/web"},
		{name: "401 manifests, every tag", behaviour: Behaviour{Status: 401, Only: "manifests"},
			code: report.CodeRegistryManifestForbidden, state: report.StateBlocked,
			title: []string{"HTTP 401 for all 3 tags read"}, fix: "pull (read) permission"},
		{name: "403 config blobs, every tag", behaviour: Behaviour{Status: 403, Only: "blobs"},
			code: report.CodeRegistryManifestForbidden, state: report.StateBlocked,
			title: []string{"refuses their image configs (config blobs): HTTP 403"}, fix: "pull (read) permission", notInTitle: "manifests"},
		{name: "429 manifests, every tag", behaviour: Behaviour{Status: 429, Only: "manifests", RetryAfter: "60s"},
			code: report.CodeRegistryMetadataRateLimited, state: report.StateBlocked,
			title: []string{"HTTP 429 for all 3 tags read"}, fix: "limit"},
		{name: "403 manifest of the newest tag only", behaviour: Behaviour{Status: 403, Only: "manifests", Tags: []string{"1.1.0"}},
			code: report.CodeRegistryMetadataPartial, state: report.StateOnItsWay,
			title: []string{"the manifests of 1 of the 3 tags read (HTTP 403): 1.1.0", "the pick 1.0.1 could change"}, fix: "pull (read) permission"},
		{name: "429 config blob of one tag", behaviour: Behaviour{Status: 429, Only: "blobs", Tags: []string{"1.0.1"}},
			code: report.CodeRegistryMetadataPartial, state: report.StateOnItsWay,
			title: []string{"image configs (config blobs) of 1 of the 3 tags read (HTTP 429): 1.0.1", "the pick 1.1.0 could change"}, fix: "limit"},
		{name: "403 manifests of two tags, the third dropped by the platform filter", behaviour: Behaviour{Status: 403, Only: "manifests", Tags: []string{"1.0.0", "1.0.1"}},
			edit: [2]string{"commonUpdateSettings: {updateStrategy: newest-build}", "commonUpdateSettings: {updateStrategy: newest-build, platforms: [linux/arm64]}"},
			code: report.CodeRegistryManifestForbidden, state: report.StateBlocked,
			title: []string{"HTTP 403 for 2 of the 3 tags read"}, fix: "pull (read) permission"},
		{name: "v1.1 keeps the running tag when every manifest is refused", behaviour: Behaviour{Status: 403, Only: "manifests"},
			edit: [2]string{"argocd-image-updater:v1.3.0", "argocd-image-updater:v1.1.0"},
			code: report.CodeRegistryManifestForbidden, state: report.StateBlocked,
			title: []string{"HTTP 403 for all 3 tags read"}, fix: "pull (read) permission"},
		{name: "anonymous requests, 401 on manifests", behaviour: Behaviour{Status: 401, Only: "manifests"}, anonymous: true,
			edit: [2]string{"credentials: secret:argocd/lab-registry-robot#creds", ""},
			code: report.CodeRegistryManifestForbidden, state: report.StateBlocked,
			title: []string{"HTTP 401 for all 3 tags read"}, fix: "kubectl"},
		{name: "semver reads no manifest", behaviour: Behaviour{Status: 403, Only: "manifests"},
			edit:  [2]string{"commonUpdateSettings: {updateStrategy: newest-build}", "commonUpdateSettings: {updateStrategy: semver}"},
			state: report.StateOnItsWay},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc, ok := Builtin("registry-manifest-forbidden-before")
			if !ok {
				t.Fatal("no built-in registry-manifest-forbidden-before")
			}
			b := c.behaviour
			b.Repo = "team/web"
			sc.Registry.Behaviours = []Behaviour{b}
			if c.anonymous {
				sc.Registry.Auth = nil
			}
			if c.edit[0] != "" {
				if !strings.Contains(sc.Objects, c.edit[0]) {
					t.Fatalf("the scenario no longer holds %q", c.edit[0])
				}
				sc.Objects = strings.Replace(sc.Objects, c.edit[0], c.edit[1], 1)
			}
			env, err := Start(context.Background(), sc)
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			r := env.Diagnose(context.Background())
			if r.State != c.state {
				t.Errorf("state %s, want %s (root cause %v)", r.State, c.state, r.RootCause)
			}
			var f *report.Finding
			for _, g := range r.Findings() {
				if g.Code == c.code {
					f = &g
				}
				if g.Code == report.CodeCandidatesNone {
					t.Errorf("the filters are blamed: %s", g.Title)
				}
			}
			if c.code == "" {
				for _, g := range r.Findings() {
					if strings.HasPrefix(string(g.Code), "REGISTRY_M") {
						t.Errorf("a strategy that reads no manifest gets %s: %s", g.Code, g.Title)
					}
				}
				return
			}
			if f == nil {
				t.Fatalf("no %s finding; primary %s", c.code, Primary(r))
			}
			if c.state == report.StateBlocked && (r.RootCause == nil || r.RootCause.Code != c.code) {
				t.Errorf("root cause %v, want %s", r.RootCause, c.code)
			}
			for _, w := range c.title {
				if !strings.Contains(f.Title, w) {
					t.Errorf("title %q does not say %q", f.Title, w)
				}
			}
			if c.notInTitle != "" && strings.Contains(f.Title, c.notInTitle) {
				t.Errorf("title %q says %q", f.Title, c.notInTitle)
			}
			if f.Fix == nil {
				t.Fatal("no fix")
			}
			if all := f.Fix.Summary + "\n" + f.Fix.Script(); !strings.Contains(all, c.fix) {
				t.Errorf("the fix does not say %q:\n%s", c.fix, all)
			}
		})
	}
}

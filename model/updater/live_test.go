package updater

import (
	"strings"
	"testing"
)

func TestMatchLive(t *testing.T) {
	type nm struct {
		live    string
		against string
		kind    NearMissKind
		write   string
	}
	tests := []struct {
		name       string
		configured string
		kustomize  string
		force      bool
		live       []string
		v          Version
		found      bool
		via        string
		liveTag    string
		forceAdded bool
		also       int
		near       []nm
		note       string
		noNote     string
	}{
		{name: "same name, tag ignored", configured: "nginx:~1.26", live: []string{"nginx:1.26.1"},
			found: true, via: LiveViaImage, liveTag: "1.26.1"},
		{name: "digest live image", configured: "nginx:1.x", live: []string{"nginx@" + testDigest},
			found: true, via: LiveViaImage},
		{name: "docker.io written, live bare", configured: "docker.io/nginx:1.x", live: []string{"nginx:1.27"},
			near: []nm{{"nginx:1.27", "image", NearMissDockerHubSpelling, "nginx:1.x"}}},
		{name: "bare configured, live docker.io/library with constraint", configured: "nginx:~1.26", live: []string{"docker.io/library/nginx:1.26.1"},
			near: []nm{{"docker.io/library/nginx:1.26.1", "image", NearMissDockerHubSpelling, "docker.io/nginx:~1.26"}}},
		{name: "library/ written", configured: "library/nginx", live: []string{"nginx:1"},
			near: []nm{{"nginx:1", "image", NearMissLibrary, "nginx"}}},
		{name: "legacy constraint keeps library/", configured: "docker.io/library/nginx:~1.26", live: []string{"docker.io/library/nginx:1.26.1"},
			near: []nm{{"docker.io/library/nginx:1.26.1", "image", NearMissLibrary, "docker.io/nginx:~1.26"}}},
		{name: "same image under another path", configured: "ghcr.io/org/app:^1", live: []string{"ghcr.io/other/app:1.2", "redis:7"},
			near: []nm{{"ghcr.io/other/app:1.2", "image", NearMissPath, "ghcr.io/other/app:^1"}}},
		{name: "upper case", configured: "ghcr.io/Org/App:1.0", live: []string{"ghcr.io/org/app:1.0"},
			near: []nm{{"ghcr.io/org/app:1.0", "image", NearMissCase, "ghcr.io/org/app:1.0"}}},
		{name: "other registry", configured: "quay.io/org/app", live: []string{"ghcr.io/org/app:1"},
			near: []nm{{"ghcr.io/org/app:1", "image", NearMissRegistry, "ghcr.io/org/app"}}},
		{name: "kustomize name first", configured: "ghcr.io/org/nginx", kustomize: "nginx", live: []string{"nginx:1.25"},
			found: true, via: LiveViaKustomize, liveTag: "1.25"},
		{name: "kustomize name wins over image", configured: "ghcr.io/org/app", kustomize: "app", live: []string{"ghcr.io/org/app:2", "app:1"},
			found: true, via: LiveViaKustomize, liveTag: "1"},
		{name: "kustomize name not live falls back to image", configured: "ghcr.io/org/app", kustomize: "wrongname", live: []string{"ghcr.io/org/app:1"},
			found: true, via: LiveViaImage, liveTag: "1", note: "Kustomize image name \"wrongname\" is not among the live images"},
		{name: "kustomize near miss", configured: "ghcr.io/org/nginx", kustomize: "docker.io/nginx", live: []string{"nginx:1"},
			near: []nm{{"nginx:1", "kustomize-name", NearMissDockerHubSpelling, "nginx"}, {"nginx:1", "image", NearMissPath, "nginx"}}},
		{name: "force update adds the image", configured: "ghcr.io/org/app:1.x", force: true, live: []string{"redis:7"},
			found: true, via: LiveViaForce, forceAdded: true, note: "forceUpdate adds"},
		{name: "force update with a near miss", configured: "docker.io/nginx", force: true, live: []string{"nginx:1"},
			found: true, via: LiveViaForce, forceAdded: true, near: []nm{{"nginx:1", "image", NearMissDockerHubSpelling, "nginx"}}},
		{name: "force update but live", configured: "nginx", force: true, live: []string{"nginx:1"},
			found: true, via: LiveViaImage, liveTag: "1"},
		{name: "v1.0 force update clears the constraint", configured: "nginx:1.x", force: true, live: []string{"nginx:1"}, v: V1_0,
			found: true, via: LiveViaImage, liveTag: "1", note: "clears the version constraint"},
		{name: "v1.1 force update keeps the constraint", configured: "nginx:1.x", force: true, live: []string{"nginx:1"}, v: V1_1,
			found: true, via: LiveViaImage, liveTag: "1", noNote: "clears the version constraint"},
		{name: "empty summary", configured: "nginx", live: nil, note: "status.summary.images is empty"},
		{name: "nothing similar", configured: "nginx", live: []string{"redis:7"}, note: "no live image resembles"},
		{name: "several containers", configured: "nginx", live: []string{"nginx:1", "redis:7", "nginx:2"},
			found: true, via: LiveViaImage, liveTag: "1", also: 1, note: "2 live images"},
		{name: "port registry with constraint cannot match", configured: "registry:5000/x:~1", live: []string{"registry:5000/x:1"},
			note: "fallback parser"},
		{name: "v1.3 strips library/ of ghcr live image", configured: "ghcr.io/library/x:~1", live: []string{"ghcr.io/library/x:1.0"}, v: V1_3,
			near: []nm{{"ghcr.io/library/x:1.0", "image", NearMissLibrary, "ghcr.io/x:~1"}}},
		{name: "head keeps library/ for ghcr", configured: "ghcr.io/library/x:~1", live: []string{"ghcr.io/library/x:1.0"}, v: headV13,
			found: true, via: LiveViaImage, liveTag: "1.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.v
			if v == (Version{}) {
				v = V1_3
			}
			m := MatchLive(ParseImageRef(tt.configured, v), tt.kustomize, tt.force, tt.live, v)
			if m.Found != tt.found || m.Via != tt.via || m.ForceAdded != tt.forceAdded {
				t.Errorf("found/via/forceAdded = %v/%q/%v, want %v/%q/%v", m.Found, m.Via, m.ForceAdded, tt.found, tt.via, tt.forceAdded)
			}
			if tt.found && !tt.forceAdded && m.Live.Tag != tt.liveTag {
				t.Errorf("live tag = %q, want %q", m.Live.Tag, tt.liveTag)
			}
			if tt.forceAdded && (m.Live.Tag != "" || m.Live.Digest != "" || !m.Live.SameImage(ParseImageRef(tt.configured, v))) {
				t.Errorf("force-added live = %+v", m.Live)
			}
			if len(m.AlsoLive) != tt.also {
				t.Errorf("alsoLive = %v", m.AlsoLive)
			}
			if tt.noNote != "" && regAnyContains(m.Notes, tt.noNote) {
				t.Errorf("notes %q contain %q", m.Notes, tt.noNote)
			}
			if tt.note != "" && !regAnyContains(m.Notes, tt.note) {
				t.Errorf("notes %q lack %q", m.Notes, tt.note)
			}
			if len(m.NearMisses) != len(tt.near) {
				t.Fatalf("near misses = %+v, want %d", m.NearMisses, len(tt.near))
			}
			for i, w := range tt.near {
				g := m.NearMisses[i]
				if g.Live != w.live || g.Against != w.against || g.Write != w.write {
					t.Errorf("near miss %d = %q/%q write %q, want %q/%q write %q", i, g.Live, g.Against, g.Write, w.live, w.against, w.write)
				}
				hasKind := false
				for _, k := range g.Kinds {
					hasKind = hasKind || k == w.kind
				}
				if !hasKind {
					t.Errorf("near miss %d kinds %v lack %s", i, g.Kinds, w.kind)
				}
				if g.Reason == "" || g.Fix == "" {
					t.Errorf("near miss %d without reason or fix: %+v", i, g)
				}
				if g.Write != "" {
					// The suggestion must really match the live image.
					if !ParseImageRef(g.Write, v).SameImage(g.LiveRef) {
						t.Errorf("suggested %q does not match %q", g.Write, g.Live)
					}
					if !strings.Contains(g.Fix, g.Write) {
						t.Errorf("fix %q does not name %q", g.Fix, g.Write)
					}
				}
			}
		})
	}
}

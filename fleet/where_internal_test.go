package fleet

import (
	"errors"
	"testing"

	"github.com/imgupd/imgupd/model/updater"
)

// TestRepoKey: the repository Image Updater asks tags of, whatever way the
// image is written: Docker Hub's spellings and library/, a registries.conf
// entry's defaultns.
func TestRepoKey(t *testing.T) {
	conf := updater.RegistriesConf{Registries: []updater.RegistryConfig{{Name: "corp", APIURL: "https://registry.corp.example", Prefix: "registry.corp.example", DefaultNS: "platform"}}}
	for _, c := range []struct{ image, want string }{
		{"nginx", "docker.io/library/nginx"},
		{"nginx:1.27", "docker.io/library/nginx"},
		{"docker.io/nginx", "docker.io/library/nginx"},
		{"docker.io/library/nginx", "docker.io/library/nginx"},
		{"library/nginx", "docker.io/library/nginx"},
		{"index.docker.io/library/nginx", "docker.io/library/nginx"},
		{"bitnami/redis", "docker.io/bitnami/redis"},
		{"ghcr.io/acme/web:1.4.2", "ghcr.io/acme/web"},
		{"ghcr.io/acme/web@sha256:" + sixtyFour, "ghcr.io/acme/web"},
		{"registry.corp.example/web", "registry.corp.example/platform/web"},
		{"registry.corp.example/team/web", "registry.corp.example/team/web"},
		{"localhost:5000/web", "localhost:5000/web"},
	} {
		q, err := ParseImageQuery(c.image)
		if err != nil {
			t.Errorf("%s: %v", c.image, err)
			continue
		}
		if got := repoKey(q.ref, conf); got != c.want {
			t.Errorf("%s: %s, want %s", c.image, got, c.want)
		}
	}
}

const sixtyFour = "6c02ad6d1cb125ce5cc63f1ffb0fb1dd1f12fe28c6bf3a9899f8a77cf97b0095"

func TestParseImageQueryRefuses(t *testing.T) {
	for _, s := range []string{"", "  ", "web=ghcr.io/acme/web", "ghcr.io/acme/web:~1.2", "ghcr.io/acme web", "ghcr.io/acme/web:>=1", "UPPER/Case", "a//b"} {
		if _, err := ParseImageQuery(s); !errors.Is(err, ErrBadImage) {
			t.Errorf("%q: %v, want ErrBadImage", s, err)
		}
	}
	q, err := ParseImageQuery(" ghcr.io/acme/web:1.4.2 ")
	if err != nil || q.Tag() != "1.4.2" || q.Digest() != "" || q.Asked != "ghcr.io/acme/web:1.4.2" {
		t.Errorf("%+v %v", q, err)
	}
	q, err = ParseImageQuery("ghcr.io/acme/web@sha256:" + sixtyFour)
	if err != nil || q.Digest() != "sha256:"+sixtyFour || q.Tag() != "" {
		t.Errorf("%+v %v", q, err)
	}
}

// FuzzParseImageQuery: any input is refused with ErrBadImage or gives a
// query with a repository name; never a panic.
func FuzzParseImageQuery(f *testing.F) {
	for _, s := range []string{"nginx", "ghcr.io/acme/web:1.4.2", "a@sha256:" + sixtyFour, "web=x", "", "localhost:5000/x:y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseImageQuery(s)
		if err != nil {
			if !errors.Is(err, ErrBadImage) {
				t.Fatalf("%q: %v is not ErrBadImage", s, err)
			}
			return
		}
		if q.ref.Name == "" {
			t.Fatalf("%q: accepted without a name", s)
		}
		_ = repoKey(q.ref, updater.RegistriesConf{})
	})
}

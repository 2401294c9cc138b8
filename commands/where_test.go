package commands

import (
	"errors"
	"strings"
	"testing"
)

func TestParseWhere(t *testing.T) {
	for _, c := range []struct{ in, image, scope string }{
		{"where ghcr.io/acme/web:1.4.2", "ghcr.io/acme/web:1.4.2", "every Application"},
		{"<@U0BOT> where nginx", "nginx", "every Application"},
		{"where <http://ghcr.io/acme/web:1.4.2|ghcr.io/acme/web:1.4.2> -n payments", "ghcr.io/acme/web:1.4.2", "namespaces payments"},
		{"where <https://registry.corp.example/team/web>", "registry.corp.example/team/web", "every Application"},
		{"where ghcr.io/acme/web --project payments", "ghcr.io/acme/web", "projects payments"},
	} {
		cmd, err := Parse(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		w, ok := cmd.(Where)
		if !ok || w.Image != c.image || w.Scope.String() != c.scope {
			t.Errorf("%q: %#v (scope %q)", c.in, cmd, w.Scope.String())
		}
		again, err := Parse(w.String())
		if err != nil || again.(Where).Image != w.Image {
			t.Errorf("%q: String() %q does not parse back: %v", c.in, w.String(), err)
		}
	}
	for _, c := range []struct{ in, reason, suggestion string }{
		{"where", "where takes one image", ""},
		{"where a b", "where takes one image", ""},
		{"where web=ghcr.io/acme/web", "is not an image: write REGISTRY/PATH", ""},
		{"where ghcr.io/acme/web:~1.2", "no alias, version constraint or space", ""},
		{"where GHCR.io/Acme/web", "", "where ghcr.io/acme/web"},
		{"where ghcr.io/acme/web --projcet x", "did you mean --project", ""},
		{"wher ghcr.io/acme/web", "unknown command", "where ghcr.io/acme/web"},
	} {
		_, err := Parse(c.in)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: %v, want a ParseError", c.in, err)
			continue
		}
		if !strings.Contains(pe.Error(), c.reason) || pe.Suggestion != c.suggestion {
			t.Errorf("%q: %q, suggestion %q; want %q and %q", c.in, pe.Error(), pe.Suggestion, c.reason, c.suggestion)
		}
	}
}

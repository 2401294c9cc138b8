package gitsource

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	labgit "github.com/imgupd/imgupd/lab/git"
)

func TestAuthString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		auth Auth
		want string
	}{
		{Auth{}, "anonymous"},
		{Auth{KnownHosts: []byte{}}, "known-hosts=0 lines"},
		{Auth{SSHPrivateKey: "k", KnownHosts: []byte("# c\n\nh ssh-ed25519 AAAA\n[h]:2222,g ssh-rsa AAAA\n")}, "ssh-key=*** known-hosts=2 lines"},
		{Auth{CAData: []byte("1234"), CAReplacesSystemRoots: true}, "ca=4B replaces-system-roots"},
		{Auth{CAReplacesSystemRoots: true}, "anonymous"},
		{Auth{TLSClientCert: []byte("c"), TLSClientKey: "k"}, "client-cert client-key=***"},
		{Auth{Proxy: "http://u:pw@proxy.corp:3128/x?y", NoProxy: "a, b,,c"}, "proxy=http://proxy.corp:3128 no-proxy=3 entries"},
		{Auth{Proxy: "http://u:pw@[bad"}, "proxy=(unparsable proxy URL)"},
	} {
		if got := tc.auth.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
		if got := fmt.Sprintf("%#v", tc.auth); got != "gitsource.Auth{"+tc.want+"}" {
			t.Errorf("%%#v = %q", got)
		}
	}
}

// TestAuthIdentityCoversEveryField: changing any field of Auth changes
// the key a Shared scope keeps answers by, so two Auths that connect differently never
// share a snapshot. It fails when a field is added without entering
// identity.
func TestAuthIdentityCoversEveryField(t *testing.T) {
	t.Parallel()
	seen := map[string]string{(Auth{}).identity(): "zero"}
	typ := reflect.TypeOf(Auth{})
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		var a Auth
		v := reflect.ValueOf(&a).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Slice:
			v.SetBytes([]byte("x"))
		default:
			t.Fatalf("field %s: kind %s not covered by this test", f.Name, v.Kind())
		}
		id := a.identity()
		if other, dup := seen[id]; dup {
			t.Errorf("field %s does not change identity (same as %s)", f.Name, other)
		}
		seen[id] = f.Name
	}
	// nil and empty KnownHosts connect differently.
	if (Auth{KnownHosts: []byte{}}).identity() == (Auth{}).identity() {
		t.Error("empty KnownHosts has the identity of nil")
	}
	if id := (Auth{Password: "secret-value"}).identity(); strings.Contains(id, "secret") {
		t.Errorf("identity shows the secret: %s", id)
	}
}

// TestSharedByHostKeySettings: within a scope, a snapshot fetched with
// host keys ignored is not handed to a caller who checks them.
func TestSharedByHostKeySettings(t *testing.T) {
	t.Parallel()
	lab := startLab(t)
	key := testSSHKey(t)
	srv := startSSH(t, lab, labgit.WithAuthorizedKey(publicKey(t, key)))
	c := newClient().Share()
	ctx := context.Background()
	if _, err := c.Snapshot(ctx, srv.RepoURL("team/app"), "main", Auth{SSHPrivateKey: key, InsecureSkipTLS: true}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Snapshot(ctx, srv.RepoURL("team/app"), "main", Auth{SSHPrivateKey: key, KnownHosts: []byte{}})
	wantKind(t, err, HostKeyUnknown)
	if _, err := c.Snapshot(ctx, srv.RepoURL("team/app"), "main", Auth{SSHPrivateKey: key, KnownHosts: srv.KnownHosts()}); err != nil {
		t.Fatal(err)
	}
	if st := c.c.Stats(); st.Fetches != 3 || st.SnapshotCacheHits != 0 {
		t.Errorf("stats = %s", st)
	}
}

package lab

import (
	"context"
	"strings"
	"testing"

	"github.com/imgupd/imgupd/report"
)

// TestExtScriptMounts: an ext: credentials script is looked for where Image
// Updater runs it, in its container, through the shapes a mount takes: a
// file by subPath, a directory, ConfigMap items, a Secret, an emptyDir an
// init container fills, the image's own files, a script mounted in another
// directory than the credentials say, a file without an execute bit; and
// Image Updater's own log line after the cycle. Each case changes the
// Deployment of the built-in scenario registry-ext-script-not-mounted-before
// and checks the code the reader sees, what it says and the fix.
func TestExtScriptMounts(t *testing.T) {
	const (
		mountsLine  = "volumeMounts: [{name: image-updater-conf, mountPath: /app/config}]"
		volumesLine = "volumes: [{name: image-updater-conf, configMap: {name: argocd-image-updater-config}}]"
		script      = "ext:/app/scripts/ecr-login.sh"
	)
	cm := func(data string) string {
		return "\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ext, namespace: argocd}\ndata: " + data + "\n"
	}
	cases := []struct {
		name          string
		mount, volume string // added to the controller's volumeMounts and the pod's volumes
		objects       string // appended to the scenario's objects
		credentials   string // replaces the credentials, if set
		logs          string // Image Updater's log, if set
		code          report.Code
		says, fix     []string
		notFix        string
		rootCause     bool
	}{
		{name: "a file by subPath", mount: "{name: s, mountPath: /app/scripts/ecr-login.sh, subPath: ecr-login.sh}", volume: "{name: s, configMap: {name: ext, defaultMode: 493}}",
			objects: cm(`{ecr-login.sh: "#!/bin/sh"}`),
			code:    report.CodeRegistryCredsUnchecked, says: []string{`volume "s" (configMap) mounted at /app/scripts/ecr-login.sh with subPath ecr-login.sh`, "key ecr-login.sh, mode 0755"}},
		{name: "a directory", mount: "{name: s, mountPath: /app/scripts}", volume: "{name: s, configMap: {name: ext, defaultMode: 493}}",
			objects: cm(`{ecr-login.sh: "#!/bin/sh"}`),
			code:    report.CodeRegistryCredsUnchecked, says: []string{"ConfigMap argocd/ext key ecr-login.sh, mode 0755"}},
		{name: "a directory whose ConfigMap lacks the key", mount: "{name: s, mountPath: /app/scripts}", volume: "{name: s, configMap: {name: ext, defaultMode: 493}}",
			objects: cm(`{other.sh: "#!/bin/sh"}`),
			code:    report.CodeRegistryExtNotMounted, rootCause: true, says: []string{"which the ConfigMap does not hold"},
			fix: []string{"kubectl -n argocd edit configmap -- ext", "ecr-login.sh"}, notFix: "patch deployment"},
		{name: "ConfigMap items", mount: "{name: s, mountPath: /app/scripts}", volume: "{name: s, configMap: {name: ext, items: [{key: login, path: ecr-login.sh, mode: 493}]}}",
			objects: cm(`{login: "#!/bin/sh"}`),
			code:    report.CodeRegistryCredsUnchecked, says: []string{"ConfigMap argocd/ext key login, mode 0755"}},
		{name: "ConfigMap items naming another path", mount: "{name: s, mountPath: /app/scripts}", volume: "{name: s, configMap: {name: ext, defaultMode: 493, items: [{key: login, path: login.sh}]}}",
			objects: cm(`{login: "#!/bin/sh"}`),
			code:    report.CodeRegistryExtNotMounted, rootCause: true, says: []string{"it shows no file ecr-login.sh"}},
		{name: "a Secret's items", mount: "{name: s, mountPath: /app/scripts}", volume: "{name: s, secret: {secretName: ext, defaultMode: 493, items: [{key: login, path: ecr-login.sh}]}}",
			code: report.CodeRegistryCredsUnchecked, says: []string{"Secret argocd/ext key login, mode 0755"}},
		{name: "the script in another directory", mount: "{name: s, mountPath: /app/auth}", volume: "{name: s, configMap: {name: ext, defaultMode: 493}}",
			objects: cm(`{ecr-login.sh: "#!/bin/sh"}`),
			code:    report.CodeRegistryExtNotMounted, rootCause: true, says: []string{"no volume of Deployment argocd/argocd-image-updater-controller is mounted at /app/scripts/ecr-login.sh"},
			fix: []string{"patch deployment --type strategic", `"subPath":"ecr-login.sh"`, "ext:/app/auth/ecr-login.sh"}},
		{name: "not executable", mount: "{name: s, mountPath: /app/scripts}", volume: "{name: s, configMap: {name: ext}}",
			objects: cm(`{ecr-login.sh: "#!/bin/sh"}`),
			code:    report.CodeRegistryExtFailed, rootCause: true, says: []string{"is not executable", "mode 0644"},
			fix: []string{`"path":"/spec/template/spec/volumes/1/configMap/defaultMode","value":493`}},
		{name: "an emptyDir an init container fills", mount: "{name: s, mountPath: /app/scripts}", volume: "{name: s, emptyDir: {}}",
			code: report.CodeRegistryCredsUnchecked, says: []string{"not visible from the API"}},
		{name: "the image's own file", credentials: "ext:/usr/local/bin/git-ask-pass.sh",
			code: report.CodeRegistryCredsUnchecked, says: []string{"the Image Updater image ships /usr/local/bin/git-ask-pass.sh"}},
		{name: "nothing mounted, another ext: path", credentials: "ext:/scripts/login",
			code: report.CodeRegistryExtNotMounted, rootCause: true, says: []string{"/scripts/login"},
			fix: []string{`"mountPath":"/scripts/login"`, `"subPath":"login"`, "get-authorization-token"}},
		{name: "mounted, and Image Updater logged could not stat", mount: "{name: s, mountPath: /app/scripts}", volume: "{name: s, configMap: {name: ext, defaultMode: 493}}",
			objects: cm(`{ecr-login.sh: "#!/bin/sh"}`),
			logs:    `time="2026-11-29T11:58:01Z" level=error msg="Could not set registry endpoint credentials: could not stat /app/scripts/ecr-login.sh: stat /app/scripts/ecr-login.sh: no such file or directory" application=argocd/web image_alias=web`,
			code:    report.CodeRegistryExtFailed, rootCause: true, says: []string{"could not stat /app/scripts/ecr-login.sh"},
			fix: []string{"exec deploy/argocd-image-updater-controller -c argocd-image-updater-controller -- /app/scripts/ecr-login.sh"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc, ok := Builtin("registry-ext-script-not-mounted-before")
			if !ok {
				t.Fatal("no built-in registry-ext-script-not-mounted-before")
			}
			edit := func(old, new string) {
				t.Helper()
				if !strings.Contains(sc.Objects, old) {
					t.Fatalf("the scenario no longer holds %q", old)
				}
				sc.Objects = strings.Replace(sc.Objects, old, new, 1)
			}
			if c.mount != "" {
				edit(mountsLine, strings.TrimSuffix(mountsLine, "]")+", "+c.mount+"]")
				edit(volumesLine, strings.TrimSuffix(volumesLine, "]")+", "+c.volume+"]")
			}
			if c.credentials != "" {
				edit(script, c.credentials)
			}
			sc.Objects += c.objects
			sc.Logs = c.logs
			env, err := Start(context.Background(), sc)
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			r := env.Diagnose(context.Background())
			var f *report.Finding
			for _, g := range r.Findings() {
				switch g.Code {
				case c.code:
					f = &g
				case report.CodeRegistryExtNotMounted, report.CodeRegistryExtFailed, report.CodeRegistryCredsUnchecked:
					t.Errorf("also %s: %s", g.Code, g.Title)
				}
			}
			if f == nil {
				t.Fatalf("no %s; root cause %v", c.code, r.RootCause)
			}
			if c.rootCause && (r.RootCause == nil || r.RootCause.Code != c.code || r.State != report.StateBlocked) {
				t.Errorf("root cause %v, state %s; want %s, blocked", r.RootCause, r.State, c.code)
			}
			shown := f.Title
			for _, e := range f.Evidence {
				shown += "\n" + e.Label + ": " + e.Value
			}
			for _, w := range c.says {
				if !strings.Contains(shown, w) {
					t.Errorf("the finding does not say %q:\n%s", w, shown)
				}
			}
			if len(c.fix) == 0 && c.notFix == "" {
				return
			}
			if f.Fix == nil {
				t.Fatal("no fix")
			}
			script := f.Fix.Script()
			for _, w := range c.fix {
				if !strings.Contains(script, w) {
					t.Errorf("the fix does not hold %q:\n%s", w, script)
				}
			}
			if c.notFix != "" && strings.Contains(script, c.notFix) {
				t.Errorf("the fix holds %q:\n%s", c.notFix, script)
			}
		})
	}
}

// TestECRWithIRSAMountsTheScript: an ECR image without credentials whose
// ServiceAccount has an IAM role gets the ext: script as the fix, and the
// fix mounts that script first (the image ships none), so that following
// it does not lead to "could not stat".
func TestECRWithIRSAMountsTheScript(t *testing.T) {
	sc, ok := Builtin("ecr-without-irsa")
	if !ok {
		t.Fatal("no built-in ecr-without-irsa")
	}
	const sa = "metadata: {name: argocd-image-updater, namespace: argocd}"
	if !strings.Contains(sc.Objects, sa) {
		t.Fatalf("the scenario no longer holds %q", sa)
	}
	sc.Objects = strings.Replace(sc.Objects, sa, `metadata: {name: argocd-image-updater, namespace: argocd, annotations: {eks.amazonaws.com/role-arn: "arn:aws:iam::123456789012:role/iu"}}`, 1)
	env, err := Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	r := env.Diagnose(context.Background())
	if r.RootCause == nil || r.RootCause.Code != report.CodeRegistryECRNoCredentials || r.RootCause.Fix == nil {
		t.Fatalf("root cause %v", r.RootCause)
	}
	script := r.RootCause.Fix.Script()
	for _, w := range []string{"get-authorization-token", `"mountPath":"/app/scripts/ecr-login.sh"`, "credentials: ext:/app/scripts/ecr-login.sh"} {
		if !strings.Contains(script, w) {
			t.Errorf("the fix does not hold %q:\n%s", w, script)
		}
	}
}

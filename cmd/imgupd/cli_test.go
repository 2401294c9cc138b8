package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	labregistry "github.com/imgupd/imgupd/lab/registry"
)

func runCLI(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCLIWith(t, nil, env, args...)
}

// runCLIWith is runCLI with the command tree built with opt (nil: none).
func runCLIWith(t *testing.T, opt rootOption, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	var opts []rootOption
	if opt != nil {
		opts = append(opts, opt)
	}
	code = run(context.Background(), args, streams{In: strings.NewReader(""), Out: &out, Err: &errb}, lookup, opts...)
	return code, out.String(), errb.String()
}

func labServer(t *testing.T) *labregistry.Server {
	t.Helper()
	srv, err := labregistry.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	d := func(s string) time.Time { tm, _ := time.Parse("2006-01-02", s); return tm }
	err = srv.Push(context.Background(), "acme/app",
		labregistry.Image{Tag: "1.0.0", Created: d("2026-01-01")},
		labregistry.Image{Tag: "1.1.0", Created: d("2026-02-01")},
		labregistry.Image{Tag: "2.0.0-rc1", Created: d("2026-03-01")},
		labregistry.Image{Tag: "latest", SameAs: "1.1.0"},
	)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func TestSimulateJSONContract(t *testing.T) {
	srv := labServer(t)
	code, out, errOut := runCLI(t, nil, "simulate", srv.Host+"/acme/app", "--plain-http", "--current-tag", "1.0.0", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var j map[string]any
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"image", "strategy", "constraint", "selected", "updateNeeded", "reason", "tags"} {
		if _, ok := j[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if j["selected"] != "1.1.0" || j["updateNeeded"] != true || j["strategy"] != "semver" {
		t.Errorf("selected=%v updateNeeded=%v strategy=%v", j["selected"], j["updateNeeded"], j["strategy"])
	}
	tags := j["tags"].([]any)
	if len(tags) != 4 {
		t.Fatalf("%d tags, want 4", len(tags))
	}
	first := tags[0].(map[string]any)
	for _, k := range []string{"tag", "kept", "why", "rank"} {
		if _, ok := first[k]; !ok {
			t.Errorf("tag entry lacks %q", k)
		}
	}
	if first["tag"] != "1.1.0" || first["rank"] != float64(1) || first["kept"] != true {
		t.Errorf("first tag %v", first)
	}
}

func TestSimulateVersionDifference(t *testing.T) {
	srv := labServer(t)
	// Before v1.3.0 an empty constraint let pre-releases win.
	_, out, _ := runCLI(t, nil, "simulate", srv.Host+"/acme/app", "--plain-http", "--updater-version", "v1.2", "-o", "json")
	if !strings.Contains(out, `"selected": "2.0.0-rc1"`) {
		t.Errorf("v1.2 should pick the pre-release:\n%s", out)
	}
	_, out, _ = runCLI(t, nil, "simulate", srv.Host+"/acme/app", "--plain-http", "--updater-version", "v1.3", "-o", "json")
	if !strings.Contains(out, `"selected": "1.1.0"`) {
		t.Errorf("v1.3 should skip the pre-release:\n%s", out)
	}
	// The same through the environment.
	_, out, _ = runCLI(t, map[string]string{"IMGUPD_UPDATER_VERSION": "v1.2", "IMGUPD_OUTPUT": "json"}, "simulate", srv.Host+"/acme/app", "--plain-http")
	if !strings.Contains(out, `"selected": "2.0.0-rc1"`) {
		t.Errorf("IMGUPD_UPDATER_VERSION not honoured:\n%s", out)
	}
}

func TestSimulateConfigFile(t *testing.T) {
	srv := labServer(t)
	cfg := filepath.Join(t.TempDir(), "imgupd.yaml")
	if err := os.WriteFile(cfg, []byte("simulate:\n  update-strategy: alphabetical\n  ignore-tags: [latest]\n  output: json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, nil, "--config", cfg, "simulate", srv.Host+"/acme/app", "--plain-http")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"strategy": "alphabetical"`) || !strings.Contains(out, `"selected": "2.0.0-rc1"`) {
		t.Errorf("config file not applied:\n%s", out)
	}
}

func TestSimulateExitStatus(t *testing.T) {
	srv := labServer(t)
	cases := []struct {
		name string
		args []string
		code int
		err  string // fragment of the one-line error
		out  string // fragment of stdout
	}{
		{name: "decided", args: []string{"simulate", srv.Host + "/acme/app:1.0", "--plain-http", "--current-tag", "1.0.0"}, code: 0, out: "Pick      1.0.0"},
		{name: "no candidate is a decision", args: []string{"simulate", srv.Host + "/acme/app:~5.0", "--plain-http", "--current-tag", "1.0.0"}, code: 0, out: "no-candidate"},
		{name: "improper constraint", args: []string{"simulate", srv.Host + "/acme/app:latest", "--plain-http"}, code: 1, err: "improper constraint: latest", out: "not a semver constraint"},
		{name: "unknown output", args: []string{"simulate", "x", "-o", "yaml"}, code: exitUsage, err: `--output "yaml"`},
		{name: "bad updater version", args: []string{"simulate", "x", "--updater-version", "latest"}, code: exitUsage, err: "--updater-version"},
		{name: "unreachable registry", args: []string{"simulate", "registry.invalid/team/app"}, code: 2, err: "registry.invalid"},
		{name: "missing registries.conf", args: []string{"simulate", "x", "--registries-conf-path", "/nonexistent/registries.conf"}, code: 2, err: "--registries-conf-path"},
		{name: "no image", args: []string{"simulate"}, code: exitUsage, err: "arg"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errOut)
			}
			if tc.err != "" {
				if !strings.Contains(errOut, tc.err) {
					t.Errorf("stderr %q lacks %q", errOut, tc.err)
				}
				if n := strings.Count(strings.TrimSpace(errOut), "\n"); n > 0 {
					t.Errorf("error is not one line: %q", errOut)
				}
			}
			if tc.out != "" && !strings.Contains(out, tc.out) {
				t.Errorf("stdout lacks %q:\n%s", tc.out, out)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, nil, "version")
	if code != 0 || !strings.Contains(out, "v0.18, v1.0, v1.1, v1.2, v1.3") {
		t.Fatalf("exit %d: %s", code, out)
	}
}

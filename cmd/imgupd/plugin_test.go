package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestCommandName(t *testing.T) {
	for argv0, want := range map[string]string{
		"/usr/local/bin/kubectl-imgupd": "kubectl imgupd",
		"kubectl-imgupd.exe":            "kubectl imgupd",
		"kubectl-imgupd":                "kubectl imgupd",
		"/usr/local/bin/imgupd":         "imgupd",
		"./imgupd":                      "imgupd",
		"/tmp/go-build/exe/imgupd":      "imgupd",
	} {
		if got := commandName(argv0); got != want {
			t.Errorf("commandName(%q) = %q, want %q", argv0, got, want)
		}
	}
}

// TestKubectlPluginUsage: started as kubectl-imgupd, help, usage lines, examples and errors say
// "kubectl imgupd"; started as imgupd, they say imgupd.
func TestKubectlPluginUsage(t *testing.T) {
	runName := func(name string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := runAs(context.Background(), name, args, streams{In: strings.NewReader(""), Out: &out, Err: &errb},
			func(string) (string, bool) { return "", false })
		return code, out.String(), errb.String()
	}
	code, out, _ := runName("kubectl imgupd", "diagnose", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"Usage:\n  kubectl imgupd diagnose APP [flags]", "  kubectl imgupd diagnose guestbook -n argocd", "--context", "-n, --namespace", "--kubeconfig"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl imgupd diagnose --help lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(strings.ReplaceAll(out, "kubectl imgupd", ""), "\n  imgupd ") {
		t.Errorf("an example still starts with a bare imgupd:\n%s", out)
	}
	_, out, _ = runName("kubectl imgupd", "--help")
	if !strings.Contains(out, "kubectl imgupd [command]") {
		t.Errorf("root help:\n%s", out)
	}
	code, _, errOut := runName("kubectl imgupd", "diagnose")
	if code != exitUsage || !strings.HasPrefix(errOut, "kubectl imgupd: ") {
		t.Errorf("exit %d, stderr %q: want 64 and a kubectl imgupd: prefix", code, errOut)
	}

	_, out, _ = runName("imgupd", "diagnose", "--help")
	if !strings.Contains(out, "Usage:\n  imgupd diagnose APP [flags]") || strings.Contains(out, "kubectl imgupd") {
		t.Errorf("imgupd diagnose --help:\n%s", out)
	}
}

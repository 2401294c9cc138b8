package blockkit

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
)

var update = flag.Bool("update", false, "rewrite the golden payloads in testdata/golden")

// TestScenarioPayloads: for every built-in scenario the Block Kit payload
// stays within Slack's limits, names the root cause, and matches its golden
// JSON (go test ./present/blockkit -update rewrites them).
func TestScenarioPayloads(t *testing.T) {
	all := diagnoseBuiltins(t)
	snippets, ran := 0, 0
	var bad shape
	defer func() {
		t.Logf("main messages over %d built-in scenarios: %d with an inline code span over %d characters, %d headers over %d characters, %d unknown answers without a next step, %d offering an empty button, %d with Not verified outside the small print",
			ran, bad.longSpans, maxInlineCode, bad.wideHeader, maxHeaderLine, bad.noNextStep, bad.emptyButtons, bad.nvProminent)
		if !t.Failed() && ran == len(all) && snippets < 20 {
			t.Errorf("only %d fix snippets read back: the check would check nothing", snippets)
		}
	}()
	for _, d := range all {
		sc := d.sc
		t.Run(sc.Name, func(t *testing.T) {
			if d.err != nil {
				t.Fatal(d.err)
			}
			ran++
			r := d.rep
			p := Report(r, Options{Buttons: true})
			for _, e := range Validate(p) {
				t.Error(e)
			}
			snippets += checkSnippetsReadBack(t, r, p)
			checkReadingRules(t, r, p)
			bad.add(checkMessageShape(t, r, p))
			got, err := json.MarshalIndent(p, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if rc := r.RootCause; rc != nil && !strings.Contains(string(got), string(rc.Code)) {
				t.Errorf("payload does not name the root cause %s", rc.Code)
			}
			norm := string(got)
			// Commit hashes depend on file contents, which hold the
			// random loopback ports: name the branch heads instead.
			for head, h := range d.heads {
				norm = strings.ReplaceAll(norm, h, "${HEAD:"+head+"}")
				norm = strings.ReplaceAll(norm, h[:8], "${HEAD:"+head+"}")
			}
			// Every address the scenario's servers got (longest first, so
			// ${GIT_SSH} is not half-replaced by ${GIT}).
			vars := d.vars
			keys := make([]string, 0, len(vars))
			for k, v := range vars {
				if v != "" && !strings.Contains(v, "\n") {
					keys = append(keys, k)
				}
			}
			sort.Slice(keys, func(i, j int) bool {
				if len(vars[keys[i]]) != len(vars[keys[j]]) {
					return len(vars[keys[i]]) > len(vars[keys[j]])
				}
				return keys[i] < keys[j]
			})
			for _, k := range keys {
				norm = replaceValue(norm, vars[k], "${"+k+"}")
				// Fixes may rewrite http:// as https://.
				if u, ok := strings.CutPrefix(vars[k], "http://"); ok {
					norm = replaceValue(norm, "https://"+u, "https://${"+k+"#host}")
				}
			}
			norm = sshNormal(norm, vars)
			golden := filepath.Join("testdata", "golden", sc.Name+".json")
			if *update {
				if err := os.WriteFile(golden, []byte(norm+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./present/blockkit -update)", err)
			}
			if string(want) != norm+"\n" {
				t.Errorf("payload differs from %s (go test ./present/blockkit -update, then review the diff)", golden)
			}
		})
	}
}

// sshNormal names the lab SSH server's port and host key fingerprint, which
// change every run, where a report writes them outside its URL: host key
// findings show [127.0.0.1]:PORT, ssh-keyscan -p PORT and SHA256:….
func sshNormal(s string, vars map[string]string) string {
	u, err := url.Parse(vars["GIT_SSH"])
	if err != nil || u.Port() == "" {
		return s
	}
	port := u.Port()
	for _, old := range []string{"127.0.0.1]:", "127.0.0.1:", "-p "} {
		s = replaceValue(s, old+port, old+"${GIT_SSH_PORT}")
	}
	if _, _, key, _, _, err := ssh.ParseKnownHosts([]byte(vars["GIT_SSH_KNOWN_HOSTS"])); err == nil {
		s = strings.ReplaceAll(s, ssh.FingerprintSHA256(key), "${GIT_SSH_FINGERPRINT}")
	}
	return s
}

// replaceValue replaces every v in s, also where running text broke one of
// its colons with a zero-width space (md: "127.0.0.1:​5000:" would be an emoji).
func replaceValue(s, v, with string) string {
	re := regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(v), ":", ":(?:\u200b)?"))
	return re.ReplaceAllLiteralString(s, with)
}

// TestOversizedReportFits: a report far larger than a message (5,000 tags,
// long titles and evidence, many findings) still yields valid payloads.
func TestOversizedReportFits(t *testing.T) {
	long := strings.Repeat("very long evidence value ", 400)
	r := &report.Report{App: report.AppRef{Namespace: "argocd", Name: strings.Repeat("a", 200)}, Verdict: report.VerdictBroken, UpdaterVersion: "v1.3.0"}
	for _, s := range report.Stages() {
		st := report.StageResult{StageInfo: s, Status: report.Fail}
		for i := 0; i < 30; i++ {
			st.Findings = append(st.Findings, report.Finding{Code: "REGISTRY_ERROR", Stage: s.ID, Severity: report.Fail,
				Title: strings.Repeat("title ", 200), Detail: long, Image: "web",
				Evidence: []report.Evidence{{Label: "x", Value: long}, {Label: "y", Value: "`backticks` <b>&</b>"}},
				Fix:      &report.Fix{Summary: long, Where: long, Snippet: long + "```"}})
		}
		r.Stages = append(r.Stages, st)
	}
	f := r.Stages[0].Findings[0]
	r.RootCause = &f
	var tags []updater.TagFate
	for i := 0; i < 5000; i++ {
		tags = append(tags, updater.TagFate{Tag: fmt.Sprintf("1.0.%d-%s", i, strings.Repeat("x", 100)), Fate: updater.FateConstraint, Why: long})
	}
	r.Candidates = []report.CandidateTable{{Alias: "web", Image: "ghcr.io/acme/web", Decision: updater.Decision{Tags: tags}}}
	p := Report(r, Options{Buttons: true})
	for _, e := range Validate(p) {
		t.Error(e)
	}
	if len(p.Thread) < 2 {
		t.Errorf("the details should be split over several thread messages, got %d", len(p.Thread))
	}
}

// TestValidateCatchesViolations: the validator is not a no-op.
func TestValidateCatchesViolations(t *testing.T) {
	r := &report.Report{App: report.AppRef{Namespace: "a", Name: "b"}, Verdict: report.VerdictHealthy}
	p := Report(r, Options{})
	if errs := Validate(p); len(errs) != 0 {
		t.Fatalf("a small report should be valid: %v", errs)
	}
	p.Message.Blocks.BlockSet = append(p.Message.Blocks.BlockSet, section(strings.Repeat("x", MaxSectionText+1)))
	for i := 0; i < MaxBlocks; i++ {
		p.Message.Blocks.BlockSet = append(p.Message.Blocks.BlockSet, section("x"))
	}
	p.Message.Text = ""
	errs := Validate(p)
	var rules []string
	for _, e := range errs {
		rules = append(rules, e.Error())
	}
	all := strings.Join(rules, "\n")
	for _, want := range []string{"section text has 3001 characters", "blocks (1–50)", "fallback text has 0 characters"} {
		if !strings.Contains(all, want) {
			t.Errorf("missing violation %q in:\n%s", want, all)
		}
	}
}

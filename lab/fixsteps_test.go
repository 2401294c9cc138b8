package lab

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	sigyaml "sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/internal/shell"
	"github.com/imgupd/imgupd/report"
)

// varsBefore are the values only the reader knows in the fixes of the
// built-in scenarios, by finding code, as the fixes wrote them when they
// were <placeholders>: the steps must still ask for every one, now as a
// variable set in a step of its own.
var varsBefore = map[report.Code][]string{
	report.CodeRegistryUnauthorized:     {"REGISTRY_USER", "REGISTRY_TOKEN"},
	report.CodeRegistryDNS:              {"PROXY_URL"},
	report.CodeRegistryECRNoCredentials: {"ECR_ROLE_ARN"},
	report.CodeRegistryPullSecretKey:    {"REGISTRY_USER", "REGISTRY_TOKEN"},
	report.CodeRegistryRateLimited:      {"REGISTRY_USER", "REGISTRY_TOKEN"},
	report.CodeWriteBackCredsMissing:    {"GIT_USER", "GIT_TOKEN"},
	report.CodeRegistryProxy:            {"PROXY_URL"},
}

// programs are the commands a fix may run.
var programs = []string{"kubectl", "argocd", "git", "cosign", "printf", "grep", "ssh-keyscan", "ssh-keygen"}

// anglesRE finds what reads as a value to supply: <words>.
var anglesRE = regexp.MustCompile(`<([A-Za-z][^<>\n]*)>`)

// checkFixSteps proves every fix of the report by parsing it as bash does
// (mvdan.cc/sh): each shell step, and the snippet that joins them, runs
// exactly the argv its data says, word for word, and nothing else (no
// command substitution, no second command, no redirection, no expansion but
// of the reader's own variables, each set by an earlier step); the program is
// one a fix may run; no <placeholder> of imgupd's is left in a command for
// the reader to replace (a <…> the scenario's own input holds is the
// cluster's value, which the command carries as written); each patch is
// valid JSON and applies to the object as the lab stores it (the test
// operations hold); a YAML step names its object and parses. It returns the
// steps it checked.
func checkFixSteps(t *testing.T, r *report.Report, objects []*unstructured.Unstructured, inputs string) int {
	t.Helper()
	checked := 0
	for _, f := range r.Findings() {
		if f.Fix == nil || len(f.Fix.Steps) == 0 {
			if f.Fix != nil && f.Fix.Snippet != "" {
				t.Errorf("%s: the fix has a snippet but no steps:\n%s", f.Code, f.Fix.Snippet)
			}
			continue
		}
		fix := f.Fix
		if fix.Snippet != fix.Script() || fix.Lang != fix.ScriptLang() {
			t.Errorf("%s: the snippet is not the steps' script:\n%s", f.Code, fix.Snippet)
		}
		set := map[string]bool{}
		var vars []string
		var want []shell.Statement
		for i, s := range fix.Steps {
			checked++
			where := string(f.Code) + " step " + strconv.Itoa(i) + " (" + s.Say + ")"
			if s.Say == "" || strings.TrimSpace(s.Text) == "" {
				t.Errorf("%s: says %q, text %q", where, s.Say, s.Text)
			}
			if i == 0 && s.Or || s.Then && !fix.Steps[i-1].Or {
				t.Errorf("%s: the first step is an alternative to nothing", where)
			}
			if s.Refused != "" {
				t.Errorf("%s: refused in a built-in scenario: %s", where, s.Refused)
				continue
			}
			switch s.Lang {
			case report.LangShell:
				if len(s.Set) > 0 {
					var names []string
					for _, v := range s.Set {
						names = append(names, v.Name)
						set[v.Name] = true
						vars = append(vars, v.Name)
					}
					var st []shell.Statement
					for _, n := range names {
						st = append(st, shell.Statement{Set: []string{n}})
					}
					if err := shell.Verify(s.Text, st, nil); err != nil {
						t.Errorf("%s: %v\n%s", where, err, s.Text)
					}
					want = append(want, st...)
					continue
				}
				if len(s.Run) == 0 {
					t.Errorf("%s: a shell step with no command as data:\n%s", where, s.Text)
					continue
				}
				for _, v := range s.Vars() {
					if !set[v] {
						t.Errorf("%s: uses %s, which no earlier step sets", where, v)
					}
				}
				env := shell.Sentinels(s.Vars()...)
				argvs := s.Run.Argvs(env)
				if err := shell.Verify(s.Text, []shell.Statement{{Run: argvs}}, env); err != nil {
					t.Errorf("%s: %v\n%s", where, err, s.Text)
				}
				for _, argv := range argvs {
					if !slices.Contains(programs, argv[0]) {
						t.Errorf("%s: runs %q, not a program a fix may run", where, argv[0])
					}
					// No fix copies a Secret (reads it to write it elsewhere),
					// and a grant of a Secret that holds credentials says
					// where Image Updater then sends them.
					if slices.Contains(argv, "get") && (slices.Contains(argv, "secret") || slices.Contains(argv, "secrets")) {
						t.Errorf("%s: reads a Secret: %q", where, argv)
					}
					if slices.Contains(argv, "role") && slices.Contains(argv, "--resource=secrets") && !strings.HasPrefix(string(f.Code), "CANDIDATES_SIGNATURE") &&
						!strings.Contains(s.Say, "sends") && !strings.Contains(s.Say, "push") {
						t.Errorf("%s: grants a read of a Secret without saying where its credentials go: %s", where, s.Say)
					}
				}
				for _, m := range anglesRE.FindAllString(s.Text, -1) {
					if !strings.Contains(inputs, m) {
						t.Errorf("%s: %s is left for the reader to replace in a command:\n%s", where, m, s.Text)
						break
					}
				}
				want = append(want, shell.Statement{Run: argvs})
				if s.Patch != nil {
					checkPatch(t, where, s, objects)
				}
			case report.LangYAML:
				if s.Object == "" {
					t.Errorf("%s: YAML without the object it goes into:\n%s", where, s.Text)
				}
				var v any
				if err := sigyaml.Unmarshal([]byte(s.Text), &v); err != nil {
					t.Errorf("%s: the YAML does not parse: %v\n%s", where, err, s.Text)
				}
			case report.LangText:
			default:
				t.Errorf("%s: language %q", where, s.Lang)
			}
		}
		if err := shell.Verify(fix.Script(), want, shell.Sentinels(vars...)); err != nil {
			t.Errorf("%s: the snippet: %v\n%s", f.Code, err, fix.Script())
		}
		for _, v := range varsBefore[f.Code] {
			if f.RootCause && !slices.Contains(vars, v) {
				t.Errorf("%s: the steps lost the reader's value %s:\n%s", f.Code, v, fix.Script())
			}
		}
	}
	return checked
}

// checkPatch applies the step's patch to the object the lab stores: the
// test operations hold, and the result is an object.
func checkPatch(t *testing.T, where string, s report.Step, objects []*unstructured.Unstructured) {
	t.Helper()
	p := s.Patch
	argv := s.Run.Argvs(shell.Sentinels(s.Vars()...))[0]
	body := ""
	for i, w := range argv {
		if w == "-p" && i+1 < len(argv) {
			body = argv[i+1]
		}
	}
	if argv[len(argv)-2] != "--" || argv[len(argv)-1] != p.Name {
		t.Errorf("%s: the patched object's name is not the last word, after --: %q", where, argv)
	}
	var obj *unstructured.Unstructured
	for _, o := range objects {
		if strings.EqualFold(o.GetKind(), p.Kind) && o.GetNamespace() == p.Namespace && o.GetName() == p.Name {
			obj = o
		}
	}
	if obj == nil {
		t.Errorf("%s: patches %s, which the scenario does not hold", where, p.Object())
		return
	}
	doc, err := obj.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	switch p.Type {
	case report.PatchJSON:
		jp, err := jsonpatch.DecodePatch([]byte(body))
		if err != nil {
			t.Errorf("%s: not a JSON patch: %v\n%s", where, err, body)
			return
		}
		out, err = jp.Apply(doc)
		if err != nil {
			t.Errorf("%s: the patch does not apply to %s as the cluster holds it: %v\n%s", where, p.Object(), err, body)
			return
		}
	case report.PatchMerge:
		out, err = jsonpatch.MergePatch(doc, []byte(body))
		if err != nil {
			t.Errorf("%s: the merge patch does not apply: %v\n%s", where, err, body)
			return
		}
	case report.PatchStrategic:
		if p.Kind != "Deployment" {
			t.Errorf("%s: a strategic merge patch of a %s, which imgupd's test cannot apply", where, p.Kind)
			return
		}
		out, err = strategicpatch.StrategicMergePatch(doc, []byte(body), appsv1.Deployment{})
		if err != nil {
			t.Errorf("%s: the strategic merge patch does not apply: %v\n%s", where, err, body)
			return
		}
	default:
		t.Errorf("%s: patch type %q", where, p.Type)
		return
	}
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil || back["metadata"] == nil {
		t.Errorf("%s: the patched %s is no object: %v", where, p.Object(), err)
	}
}

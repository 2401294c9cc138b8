package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/imgupd/imgupd/internal/shell"
	"github.com/imgupd/imgupd/internal/textutil"
)

// Fix is what to change, where, and the steps that do it.
type Fix struct {
	// Summary is one sentence: what to do.
	Summary string `json:"summary"`
	// Where names the object or file to change.
	Where string `json:"where,omitempty"`
	// Steps do it, in order: each one operation, as data (a command's argv,
	// an exact patch of one object, the values the reader supplies), with
	// its text rendered from that data (a step marked Or is another way to
	// do the step before it).
	Steps []Step `json:"steps,omitempty"`
	// Snippet is the steps as one copy-pasteable text (a step's Say and
	// Object as # comments), for scripts that read the JSON; Script
	// builds it from Steps.
	Snippet string `json:"snippet,omitempty"`
	// Lang is the snippet's language for highlighting: yaml, sh, text.
	Lang string `json:"lang,omitempty"`
}

// StepLang is the language of a fix step's text.
type StepLang string

// A step's text is shell to paste as it is (a command, or the lines that
// set the reader's values), YAML to merge into the step's object where no
// patch can say it, or a value to write where the fix says (a forge's
// setting, say).
const (
	LangShell StepLang = "sh"
	LangYAML  StepLang = "yaml"
	LangText  StepLang = "text"
)

// Step is one thing to do, as data: a command (Run: an argv of words, a
// pipeline at most), an exact edit of one object (Patch, which Run applies
// with kubectl patch), the values the reader supplies (Set: each a shell
// variable the later steps use, and refuse to run without), or, where
// nothing can be run, YAML to merge or a value to write. Text is what it
// shows and what is pasted, rendered from the data by internal/shell's one
// quoting function and read back by bash's grammar before it is kept: no
// value the cluster wrote is ever formatted into it.
type Step struct {
	// Say is what the step does, a few words ("create the pull secret").
	Say  string   `json:"say"`
	Lang StepLang `json:"lang"`
	// Text is the command(s) or the YAML, without comments.
	Text string `json:"text"`
	// Object is what the step changes ("ImageUpdater argocd/web"), and
	// Edit, for YAML to merge, the command that opens it.
	Object string `json:"object,omitempty"`
	Edit   string `json:"edit,omitempty"`
	// Or: this step is another way to do the step before it; Then (with
	// Or): it goes on from the step before it, in the same other way.
	Or   bool `json:"or,omitempty"`
	Then bool `json:"then,omitempty"`
	// Run is the step's command: one command, or commands each reading
	// the one before it.
	Run shell.Pipeline `json:"run,omitempty"`
	// Patch is the edit Run makes, when the step is one exact edit.
	Patch *Patch `json:"patch,omitempty"`
	// Set are the values the reader supplies in this step (Text sets each
	// to '' for them to fill).
	Set []Var `json:"set,omitempty"`
	// Refused says why the step has no command: a value it needs cannot be
	// written for a shell (a NUL byte).
	Refused string `json:"refused,omitempty"`
	// Context is YAML to read with the step, not to paste: what a long
	// patch writes (a registries.conf entry), as the object will hold it.
	Context string `json:"context,omitempty"`
}

// Var is a value only the reader knows (a token, a proxy's URL): a shell
// variable set in its own step, used by the later ones as "${NAME:?…}", so
// that a command pasted before it is filled refuses to run.
type Var struct {
	// Name is the shell variable (upper case).
	Name string `json:"name"`
	// About says what to write, in a few words.
	About string `json:"about"`
}

// refused is the step when its command cannot be written safely.
func refused(say string, err error) Step {
	reason := "a value in it cannot be written for a shell"
	var qe *shell.QuoteError
	if errors.As(err, &qe) {
		reason += ": " + qe.Err.Error()
	}
	return Step{Say: say, Lang: LangText, Text: "(not shown: " + reason + ")", Refused: reason}
}

// Command is a step that runs one command of literal words.
func Command(say string, argv ...string) Step {
	return RunPipe(say, shell.Pipeline{shell.Cmd(argv...)})
}

// RunWords is a step that runs one command whose words may hold the
// reader's values.
func RunWords(say string, argv ...shell.Word) Step {
	return RunPipe(say, shell.Pipeline{{Argv: argv}})
}

// RunPipe is a step that runs a pipeline.
func RunPipe(say string, p shell.Pipeline) Step {
	text, err := p.Checked()
	if err != nil {
		return refused(say, err)
	}
	return Step{Say: say, Lang: LangShell, Text: text, Run: p}
}

// Apply is a step that creates (or updates) the object doc, a Kubernetes
// object as JSON writes it, with kubectl apply: the document is fed on
// standard input, pretty printed.
func Apply(say string, doc any) Step {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return refused(say, err)
	}
	return RunPipe(say, shell.Pipeline{{Argv: shell.Args("kubectl", "apply", "-f", "-"), Stdin: strings.TrimSuffix(b.String(), "\n")}})
}

// SetVars is the step that sets the reader's values, each empty for them
// to fill; it comes before the steps that use them.
func SetVars(vars ...Var) Step {
	names := make([]string, len(vars))
	about := make([]string, len(vars))
	for i, v := range vars {
		names[i] = v.Name
		about[i] = v.Name + ": " + v.About
	}
	text, err := shell.Assignments(names...)
	say := "set your values (" + strings.Join(about, "; ") + ")"
	if err != nil {
		return refused(say, err)
	}
	return Step{Say: say, Lang: LangShell, Text: text, Set: vars}
}

// Paste is a step that merges YAML into an object where no command can
// (open, when set, is the command that opens it for editing).
func Paste(say, object string, open []string, yaml string) Step {
	s := Step{Say: say, Lang: LangYAML, Text: yaml, Object: object}
	if len(open) > 0 {
		edit, err := shell.Pipeline{shell.Cmd(open...)}.Checked()
		if err != nil {
			return refused(say, err)
		}
		s.Edit = edit
	}
	return s
}

// Value is a step that writes a value where the object says (a setting no
// command reaches).
func Value(say, object, value string) Step {
	return Step{Say: say, Lang: LangText, Text: value, Object: object}
}

// Otherwise marks s as another way to do the step before it.
func Otherwise(s Step) Step { s.Or = true; return s }

// AndThen marks s as the next step of the other way the step before it
// began (Otherwise).
func AndThen(s Step) Step { s.Or, s.Then = true, true; return s }

// Alternative is steps as one other way: the first marked Otherwise, the
// rest AndThen.
func Alternative(steps ...Step) []Step {
	out := make([]Step, len(steps))
	for i, s := range steps {
		if i == 0 {
			out[i] = Otherwise(s)
			continue
		}
		out[i] = AndThen(s)
	}
	return out
}

// Vars are the reader's values the step's command uses.
func (s Step) Vars() []string { return s.Run.Vars() }

// AllSteps are the fix's steps; a fix with only a snippet (one built by
// hand, or read from an older report) is one step of its Lang.
func (f Fix) AllSteps() []Step {
	if len(f.Steps) > 0 || f.Snippet == "" {
		return f.Steps
	}
	lang := LangText
	switch strings.ToLower(f.Lang) {
	case "yaml", "yml":
		lang = LangYAML
	case "sh", "bash", "shell", "console":
		lang = LangShell
	}
	return []Step{{Lang: lang, Text: f.Snippet}}
}

// NumberedStep is a step as a reader meets it: N is its number (0 for an
// alternative, marked Or, and for the only step of a fix); SameObject: its
// YAML goes into the object the step before it named.
type NumberedStep struct {
	Step
	N          int
	SameObject bool
}

// Numbered are the fix's steps (AllSteps) numbered, each saying whether
// it pastes into the object just named.
func (f Fix) Numbered() []NumberedStep {
	steps := f.AllSteps()
	out := make([]NumberedStep, len(steps))
	n, prev := 0, ""
	for i, s := range steps {
		out[i].Step = s
		if !s.Or && len(steps) > 1 {
			n++
			out[i].N = n
		}
		out[i].SameObject = s.Lang == LangYAML && s.Object != "" && s.Object == prev
		prev = ""
		if s.Lang == LangYAML {
			prev = s.Object
		}
	}
	return out
}

// Lead is how the step reads before its Say: "1. ", "or: ", "then: ", "".
func (s NumberedStep) Lead() string {
	switch {
	case s.Then:
		return "then: "
	case s.Or:
		return "or: "
	case s.N > 0:
		return fmt.Sprintf("%d. ", s.N)
	}
	return ""
}

// Action says what to do with the step's text: "run (shell)", "fill in,
// then run (shell)", "paste into OBJECT, YAML", "set in OBJECT, value".
func (s NumberedStep) Action() string {
	switch {
	case s.Refused != "":
		return "not shown"
	case s.Lang == LangShell && len(s.Set) > 0:
		return "fill in the quotes, then run (shell)"
	case s.Lang == LangShell:
		return "run (shell)"
	case s.Lang == LangYAML && s.SameObject:
		return "paste into the same object, YAML"
	case s.Lang == LangYAML && s.Object == "":
		return "paste (YAML)"
	case s.Lang == LangYAML:
		return "paste into " + s.Object + ", YAML"
	case s.Object != "":
		return "set in " + s.Object + ", value"
	}
	return "write (value)"
}

// Comment is text as a shell comment line: one line, every control, bidi
// and zero-width character shown as an escape, and ! (which an interactive
// bash expands even in a comment) escaped.
func Comment(s string) string {
	return "# " + strings.ReplaceAll(textutil.Visible(s), "!", `\!`)
}

// Script is the steps as one text to copy: each step's Say (and Object,
// Edit) as # comments, then its text. A YAML or value step's text is
// commented out too, so that the script pastes into a shell as it is.
func (f Fix) Script() string {
	var b strings.Builder
	for i, s := range f.Steps {
		if i > 0 {
			b.WriteString("\n")
		}
		say := s.Say
		switch {
		case s.Then:
			say = "then: " + say
		case s.Or:
			say = "or: " + say
		}
		if say != "" {
			b.WriteString(Comment(say) + "\n")
		}
		if s.Object != "" && s.Lang != LangShell {
			b.WriteString(Comment("in "+s.Object) + "\n")
		}
		if s.Edit != "" {
			b.WriteString(Comment(s.Edit) + "\n")
		}
		text := strings.TrimRight(s.Text, "\n")
		if s.Lang != LangShell {
			lines := strings.Split(text, "\n")
			for j, l := range lines {
				lines[j] = Comment(l)
			}
			text = strings.Join(lines, "\n")
		}
		b.WriteString(text + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// ScriptLang is the language of Script: sh (it pastes into a shell as it
// is: the other steps' text is commented out), "" without steps.
func (f Fix) ScriptLang() string {
	if len(f.Steps) == 0 {
		return ""
	}
	return string(LangShell)
}

// PatchType is kubectl patch's --type: an RFC 6902 JSON patch of exact
// paths, or a JSON merge patch (RFC 7386).
type PatchType string

const (
	PatchJSON  PatchType = "json"
	PatchMerge PatchType = "merge"
	// PatchStrategic: Kubernetes' strategic merge patch, which merges
	// lists of built-in types by their key (containers, volumes by name).
	PatchStrategic PatchType = "strategic"
)

// Patch is one exact edit of one named object.
type Patch struct {
	// Kind is the object's kind as people name it (ImageUpdater), Resource
	// as kubectl names it (imageupdater).
	Kind      string    `json:"kind"`
	Resource  string    `json:"resource"`
	Namespace string    `json:"namespace,omitempty"`
	Name      string    `json:"name"`
	Type      PatchType `json:"type"`
	// Ops are the JSON patch's operations (Type json).
	Ops []PatchOp `json:"ops,omitempty"`
	// Merge is the merge patch's document (Type merge or strategic).
	Merge any `json:"merge,omitempty"`
}

// Object names the patched object: "ImageUpdater argocd/web".
func (p Patch) Object() string {
	if p.Namespace == "" {
		return p.Kind + " " + p.Name
	}
	return p.Kind + " " + p.Namespace + "/" + p.Name
}

// PatchOp is one RFC 6902 operation: add, replace, remove or test at Path
// (a JSON pointer, Pointer writes one), with Value for all but remove.
type PatchOp struct {
	Op    string
	Path  string
	Value any
}

// MarshalJSON writes the value for every operation but remove, false, ""
// and null included.
func (o PatchOp) MarshalJSON() ([]byte, error) {
	if o.Op == "remove" {
		return json.Marshal(struct {
			Op   string `json:"op"`
			Path string `json:"path"`
		}{o.Op, o.Path})
	}
	return json.Marshal(struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value"`
	}{o.Op, o.Path, o.Value})
}

// UnmarshalJSON reads an operation back.
func (o *PatchOp) UnmarshalJSON(b []byte) error {
	var v struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*o = PatchOp{Op: v.Op, Path: v.Path, Value: v.Value}
	return nil
}

// Pointer is the JSON pointer of the path's tokens (~ and / escaped).
func Pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteString("/" + strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// VarValue is a value in a patch that the reader supplies: the variable's
// value, unquoted, inside the JSON string it stands for.
type VarValue string

// Joined is one string value in a patch made of literal text (string) and
// the reader's values (VarValue), in order: a line the reader supplies
// appended to a value the object holds.
type Joined []any

// MarshalJSON writes the value as one string, the reader's values as
// ${NAME}, so that the step's data reads as the value it stands for.
func (j Joined) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	for _, p := range j {
		switch v := p.(type) {
		case VarValue:
			b.WriteString("${" + string(v) + "}")
		case string:
			b.WriteString(v)
		}
	}
	return json.Marshal(b.String())
}

// varMarker stands for a VarValue while the patch is encoded: JSON writes its
// NUL bytes as \u0000, which imgupd's own text never holds; a cluster value
// that holds the marker is counted and refused.
const varMarker = "\x00imgupd-var\x00"

// encodedMarker is varMarker as JSON writes it.
var encodedMarker = strings.ReplaceAll(varMarker, "\x00", `\u0000`)

// markVars is v with every VarValue replaced by its marker.
func markVars(v any, n *int) any {
	switch x := v.(type) {
	case VarValue:
		*n++
		return varMarker + string(x) + varMarker
	case Joined:
		var b strings.Builder
		for _, p := range x {
			switch v := p.(type) {
			case VarValue:
				*n++
				b.WriteString(varMarker + string(v) + varMarker)
			case string:
				b.WriteString(v)
			}
		}
		return b.String()
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = markVars(e, n)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = markVars(e, n)
		}
		return out
	case []PatchOp:
		out := make([]PatchOp, len(x))
		for i, o := range x {
			out[i] = PatchOp{Op: o.Op, Path: o.Path, Value: markVars(o.Value, n)}
		}
		return out
	}
	return v
}

// body is the patch's document as one word: its JSON, with the reader's
// values as variables where VarValues stand.
func (p Patch) body() (shell.Word, error) {
	var doc any = p.Merge
	if p.Type == PatchJSON {
		doc = p.Ops
	}
	placed := 0
	doc = markVars(doc, &placed)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	text := strings.TrimSuffix(b.String(), "\n")
	if strings.Count(text, encodedMarker) != 2*placed {
		return nil, &shell.QuoteError{Value: text, Err: errors.New("a value holds imgupd's variable marker")}
	}
	var w shell.Word
	for i, piece := range strings.Split(text, encodedMarker) {
		if i%2 == 1 {
			w = append(w, shell.Part{Var: piece})
			continue
		}
		w = append(w, shell.Part{Lit: piece})
	}
	return w, nil
}

// PatchStep is a step that makes the exact edit p with kubectl patch.
func PatchStep(say string, p Patch) Step {
	body, err := p.body()
	if err != nil {
		return refused(say, err)
	}
	argv := shell.Args("kubectl")
	if p.Namespace != "" {
		argv = append(argv, shell.Args("-n", p.Namespace)...)
	}
	// The name after --: a name read from a reference (a Secret named in
	// an annotation) is free text, and must never be read as a flag.
	argv = append(append(argv, shell.Args("patch", p.Resource, "--type", string(p.Type), "-p")...), body)
	s := RunWords(say, append(argv, shell.Args("--", p.Name)...)...)
	if s.Refused == "" {
		s.Patch = &p
		s.Object = p.Object()
	}
	return s
}

// SetAt are the operations that set path (tokens below the object's top)
// to value in doc, the object as JSON reads it (AsJSON): add at the first
// token that is missing (with the rest of the path nested in the value),
// replace where the value is already set. A list index must exist; "-"
// appends. Guards (test operations) go first. doc is changed as the
// operations change it, so that the next SetAt on it sees this one's value.
func SetAt(doc any, path []string, value any, guards ...PatchOp) ([]PatchOp, error) {
	ops := append([]PatchOp(nil), guards...)
	cur := doc
	for i, tok := range path {
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok || next == nil {
				v := nest(path[i+1:], value)
				c[tok] = v
				return append(ops, PatchOp{Op: "add", Path: Pointer(path[:i+1]...), Value: v}), nil
			}
			if i == len(path)-1 {
				c[tok] = value
			}
			cur = next
		case []any:
			if tok == "-" {
				if i == 0 {
					return nil, fmt.Errorf("%s: cannot append to the top", Pointer(path...))
				}
				v := nest(path[i+1:], value)
				if err := appendAt(doc, path[:i], v); err != nil {
					return nil, err
				}
				return append(ops, PatchOp{Op: "add", Path: Pointer(path[:i+1]...), Value: v}), nil
			}
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 || n >= len(c) {
				return nil, fmt.Errorf("%s: no item %s in a list of %d", Pointer(path[:i+1]...), tok, len(c))
			}
			if i == len(path)-1 {
				c[n] = value
			}
			cur = c[n]
		default:
			return nil, fmt.Errorf("%s: not an object or a list", Pointer(path[:i]...))
		}
	}
	if len(path) == 0 {
		return nil, errors.New("an empty path")
	}
	return append(ops, PatchOp{Op: "replace", Path: Pointer(path...), Value: value}), nil
}

// appendAt appends v to the list at path in doc.
func appendAt(doc any, path []string, v any) error {
	parent := doc
	for _, tok := range path[:len(path)-1] {
		switch c := parent.(type) {
		case map[string]any:
			parent = c[tok]
		case []any:
			n, _ := strconv.Atoi(tok)
			parent = c[n]
		}
	}
	last := path[len(path)-1]
	switch c := parent.(type) {
	case map[string]any:
		l, _ := c[last].([]any)
		c[last] = append(l, v)
	case []any:
		n, _ := strconv.Atoi(last)
		l, _ := c[n].([]any)
		c[n] = append(l, v)
	default:
		return fmt.Errorf("%s: not a list", Pointer(path...))
	}
	return nil
}

// nest is value below the object keys of path.
func nest(path []string, value any) any {
	for i := len(path) - 1; i >= 0; i-- {
		value = map[string]any{path[i]: value}
	}
	return value
}

// AsJSON is v (a typed object) as JSON reads it: maps, lists and values.
func AsJSON(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

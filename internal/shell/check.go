package shell

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Statement is what one line of a checked script does: set the reader's
// variables (Set), or run a pipeline (Run, each command's argv as bash
// expands it).
type Statement struct {
	Set []string
	Run [][]string
}

// CheckError says why a script is not only the commands it was meant to be.
type CheckError struct {
	Script string
	Reason string
}

func (e *CheckError) Error() string {
	return "the script does more than its commands: " + e.Reason
}

func refuse(script, format string, a ...any) error {
	return &CheckError{Script: script, Reason: fmt.Sprintf(format, a...)}
}

// Check reads script as bash does and returns what it would do, statement by
// statement: only assignments of empty or literal values to variables, and
// pipelines of simple commands whose words are literal text or a variable
// (written as VarRef) that env names or an earlier statement sets, expanded
// with env's values (an earlier step of a fix sets env's variables). Anything else
// (a command substitution, an expansion of any other kind, a redirection, a
// here-document, a glob, a second command joined by ; && ||, a background
// job, a function) is a *CheckError.
func Check(script string, env map[string]string) ([]Statement, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		return nil, refuse(script, "bash cannot parse it: %v", err)
	}
	var out []Statement
	set := map[string]bool{}
	for name := range env {
		set[name] = true
	}
	for _, st := range f.Stmts {
		if st.Negated || st.Background || st.Coprocess || st.Disown || len(st.Redirs) > 0 {
			return nil, refuse(script, "a statement that is not a plain command (line %d)", st.Pos().Line())
		}
		call, ok := st.Cmd.(*syntax.CallExpr)
		if ok && len(call.Args) == 0 {
			names, err := assignments(script, call)
			if err != nil {
				return nil, err
			}
			for _, n := range names {
				set[n] = true
			}
			out = append(out, Statement{Set: names})
			continue
		}
		calls, err := pipeline(script, st.Cmd)
		if err != nil {
			return nil, err
		}
		var run [][]string
		for _, c := range calls {
			argv, err := words(script, c, set, env)
			if err != nil {
				return nil, err
			}
			run = append(run, argv)
		}
		out = append(out, Statement{Run: run})
	}
	return out, nil
}

// pipeline flattens a | b | c into its simple commands.
func pipeline(script string, c syntax.Command) ([]*syntax.CallExpr, error) {
	switch c := c.(type) {
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 {
			return nil, refuse(script, "a command run with variables set before it (line %d)", c.Pos().Line())
		}
		return []*syntax.CallExpr{c}, nil
	case *syntax.BinaryCmd:
		if c.Op != syntax.Pipe {
			return nil, refuse(script, "two commands joined by %s (line %d)", c.Op, c.Pos().Line())
		}
		x, err := pipeline(script, c.X.Cmd)
		if err != nil {
			return nil, err
		}
		if len(c.X.Redirs) > 0 || len(c.Y.Redirs) > 0 || c.X.Background || c.Y.Background || c.X.Negated || c.Y.Negated {
			return nil, refuse(script, "a command of a pipeline that is not a plain command (line %d)", c.Pos().Line())
		}
		y, err := pipeline(script, c.Y.Cmd)
		if err != nil {
			return nil, err
		}
		return append(x, y...), nil
	case nil:
		return nil, refuse(script, "an empty statement")
	}
	return nil, refuse(script, "a %T, not a command (line %d)", c, c.Pos().Line())
}

// assignments: NAME set empty or to a quoted literal, nothing else.
func assignments(script string, c *syntax.CallExpr) ([]string, error) {
	var names []string
	for _, a := range c.Assigns {
		if a.Append || a.Naked || a.Index != nil || a.Array != nil || a.Name == nil || !ValidVar(a.Name.Value) {
			return nil, refuse(script, "an assignment that is not NAME='value' (line %d)", a.Pos().Line())
		}
		if a.Value != nil {
			for _, p := range a.Value.Parts {
				if !literalPart(p) {
					return nil, refuse(script, "%s is set to something that expands (line %d)", a.Name.Value, a.Pos().Line())
				}
			}
		}
		names = append(names, a.Name.Value)
	}
	return names, nil
}

// literalPart: quoted text, or bare text with nothing bash would expand,
// in a script or typed into an interactive bash (no ! outside single quotes).
func literalPart(p syntax.WordPart) bool {
	switch p := p.(type) {
	case *syntax.SglQuoted:
		// In $'…' an interactive bash's history scan reads \' as the end.
		return !p.Dollar || !strings.Contains(p.Value, `\'`) && !strings.Contains(p.Value, "!")
	case *syntax.Lit:
		return bareLiteral(p.Value)
	case *syntax.DblQuoted:
		// Backslash escapes (\$, \") are text; an expansion is another node.
		if p.Dollar {
			return false
		}
		for _, q := range p.Parts {
			// ! expands history inside double quotes in an interactive bash.
			if l, ok := q.(*syntax.Lit); !ok || strings.Contains(l.Value, "!") {
				return false
			}
		}
		return true
	}
	return false
}

// bareLiteral: text outside quotes in which bash expands nothing: each
// special character escaped by a backslash (not a line break), none bare.
// A bare ] or } is literal without the [ or { that would open a pattern or a
// brace expansion (both refused), as syntax.Quote leaves them.
func bareLiteral(v string) bool {
	if strings.HasPrefix(v, "#") {
		return false
	}
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\':
			if i+1 == len(v) || v[i+1] == '\n' || v[i+1] == '!' {
				return false
			}
			i++
		case strings.IndexByte("*?[{~$`\"'!", c) >= 0:
			return false
		}
	}
	return true
}

// words checks the command's words and expands them: literal parts, and
// "${NAME:?…}" of variables set earlier.
func words(script string, c *syntax.CallExpr, set map[string]bool, env map[string]string) ([]string, error) {
	for _, w := range c.Args {
		for _, p := range w.Parts {
			if literalPart(p) {
				continue
			}
			name, ok := varRef(p)
			if !ok {
				return nil, refuse(script, "a word that expands (%T, line %d)", p, p.Pos().Line())
			}
			if !set[name] {
				return nil, refuse(script, "variable %s is used before a step sets it (line %d)", name, p.Pos().Line())
			}
		}
	}
	var pairs []string
	for name := range set {
		pairs = append(pairs, name+"="+env[name])
	}
	slices.Sort(pairs)
	fields, err := expand.Fields(&expand.Config{Env: expand.ListEnviron(pairs...)}, c.Args...)
	if err != nil {
		return nil, refuse(script, "bash would not expand it: %v", err)
	}
	if len(fields) != len(c.Args) {
		return nil, refuse(script, "%d words became %d arguments (line %d)", len(c.Args), len(fields), c.Pos().Line())
	}
	return fields, nil
}

// varRef reads "${NAME:?message}", the one expansion a word may hold.
func varRef(p syntax.WordPart) (string, bool) {
	dq, ok := p.(*syntax.DblQuoted)
	if !ok || dq.Dollar || len(dq.Parts) != 1 {
		return "", false
	}
	pe, ok := dq.Parts[0].(*syntax.ParamExp)
	if !ok || pe.Short || pe.Excl || pe.Length || pe.Width || pe.Index != nil || pe.Slice != nil || pe.Repl != nil || pe.Names != 0 || pe.Exp == nil || pe.Param == nil {
		return "", false
	}
	if pe.Exp.Op != syntax.ErrorUnsetOrNull || !ValidVar(pe.Param.Value) {
		return "", false
	}
	if pe.Exp.Word != nil {
		for _, q := range pe.Exp.Word.Parts {
			if l, ok := q.(*syntax.Lit); !ok || strings.ContainsAny(l.Value, "\\$`") {
				return "", false
			}
		}
	}
	return pe.Param.Value, true
}

// Verify renders nothing: it checks that script, read by bash, does exactly
// what want says (statement by statement: the variables set, the argvs run,
// with env's values for the variables) and nothing else.
func Verify(script string, want []Statement, env map[string]string) error {
	got, err := Check(script, env)
	if err != nil {
		return err
	}
	if len(got) != len(want) {
		return refuse(script, "%d statements, meant %d", len(got), len(want))
	}
	for i := range got {
		if !slices.Equal(got[i].Set, want[i].Set) {
			return refuse(script, "statement %d sets %v, meant %v", i+1, got[i].Set, want[i].Set)
		}
		if len(got[i].Run) != len(want[i].Run) {
			return refuse(script, "statement %d runs %d commands, meant %d", i+1, len(got[i].Run), len(want[i].Run))
		}
		for j := range got[i].Run {
			if !slices.Equal(got[i].Run[j], want[i].Run[j]) {
				return refuse(script, "statement %d runs %q, meant %q", i+1, got[i].Run[j], want[i].Run[j])
			}
		}
	}
	return nil
}

// Sentinels are values for variables in a check: each its own name in
// angle brackets, which no literal word of imgupd's holds by accident.
func Sentinels(names ...string) map[string]string {
	env := make(map[string]string, len(names))
	for _, n := range names {
		env[n] = "<" + n + ">"
	}
	return env
}

// Checked renders the pipeline and checks the text bash reads back: the
// argvs it runs must be the pipeline's, word for word, and nothing else may
// run. The variables it uses are set by an earlier step.
func (p Pipeline) Checked() (string, error) {
	text, err := p.Render()
	if err != nil {
		return "", err
	}
	env := Sentinels(p.Vars()...)
	if err := Verify(text, []Statement{{Run: p.Argvs(env)}}, env); err != nil {
		return "", err
	}
	return text, nil
}

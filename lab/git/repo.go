package labgit

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// RepoSpec describes a repository to create.
type RepoSpec struct {
	// DefaultBranch is the branch HEAD points at; "" means "main". It must
	// be one of Branches unless Branches is empty (an empty repository
	// whose HEAD names an unborn branch).
	DefaultBranch string
	// Branches are the branches and their content.
	Branches map[string]BranchSpec
}

// BranchSpec is one branch. The default branch starts with one commit
// holding Files; every other branch starts from that first commit, plus
// one commit that sets its tree to exactly Files when they differ, so all
// branches share a root as in a real repository. Commits follow on top.
type BranchSpec struct {
	// Files maps repository paths ("apps/web/values.yaml") to contents.
	Files map[string]string
	// Commits are extra commits on top of Files, oldest first.
	Commits []CommitSpec
	// Protected installs a pre-receive hook that rejects every push to
	// this branch with GitHub's "GH006: Protected branch update failed"
	// message, as a branch protection rule does.
	Protected bool
}

// CommitSpec is one extra commit.
type CommitSpec struct {
	// AuthorName and AuthorEmail are the author and committer; empty means
	// DefaultAuthorName / DefaultAuthorEmail.
	AuthorName, AuthorEmail string
	// Message is the commit message; empty means "Update <paths>".
	Message string
	// Files are written (created or replaced) by this commit.
	Files map[string]string
	// Delete are paths removed by this commit.
	Delete []string
	// When is the author and commit date; zero means one minute after
	// the repository's previous commit (the first is 2026-01-01T00:00:00Z), so
	// histories are reproducible.
	When time.Time
}

// The author of the commits CreateRepo makes without a CommitSpec, and of
// CommitSpecs that name none.
const (
	DefaultAuthorName  = "Lab Admin"
	DefaultAuthorEmail = "admin@lab.invalid"
)

// baseTime is the date of the first commit of every repository.
var baseTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// CreateRepo creates the bare repository name (".git" is appended when
// missing; "team/app" is served at RepoURL("team/app")) with the given
// branches, pushes enabled (http.receivepack) and HEAD at the default
// branch. It fails if the repository exists.
func (s *Server) CreateRepo(name string, spec RepoSpec) error {
	rel := repoPath(name)
	if rel == ".git" || strings.Contains(rel, "..") || strings.ContainsAny(rel, "\\\x00") {
		return fmt.Errorf("labgit: invalid repository name %q", name)
	}
	def := spec.DefaultBranch
	if def == "" {
		def = "main"
	}
	if _, ok := spec.Branches[def]; !ok && len(spec.Branches) > 0 {
		return fmt.Errorf("labgit: repository %q: default branch %q is not among its branches", name, def)
	}
	names := make([]string, 0, len(spec.Branches))
	for b := range spec.Branches {
		names = append(names, b)
	}
	sort.Strings(names)
	for _, b := range append([]string{def}, names...) {
		if err := checkBranchName(b); err != nil {
			return fmt.Errorf("labgit: repository %q: %w", name, err)
		}
	}

	s.repoMu.Lock()
	defer s.repoMu.Unlock()
	dir := filepath.Join(s.reposDir(), filepath.FromSlash(rel))
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("labgit: repository %q already exists", name)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("labgit: %w", err)
	}
	b := &builder{gitDir: dir, home: s.homeDir(), clock: baseTime}
	if err := b.create(def, names, spec); err != nil {
		_ = os.RemoveAll(dir)
		return fmt.Errorf("labgit: repository %q: %w", name, err)
	}
	return nil
}

// BranchHash returns the commit hash a branch of repository name points at.
func (s *Server) BranchHash(name, branch string) (string, error) {
	b := &builder{gitDir: filepath.Join(s.reposDir(), filepath.FromSlash(repoPath(name))), home: s.homeDir()}
	out, err := b.git(nil, nil, "rev-parse", "--verify", "refs/heads/"+branch+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("labgit: %w", err)
	}
	return out, nil
}

// checkBranchName applies git's rules plus one of ours: no single quote,
// because protected branch names are quoted in the hook script. A plain
// name (letters, digits, '.', '_', '-', '/') that go-git's reading of git's
// rules accepts needs no process; any other name is asked of `git
// check-ref-format` itself (each process costs a lab scenario ~10 ms of CPU).
func checkBranchName(b string) error {
	if b == "" || strings.ContainsRune(b, '\'') {
		return fmt.Errorf("invalid branch name %q", b)
	}
	if plainRefName(b) && plumbing.NewBranchReferenceName(b).Validate() == nil {
		return nil
	}
	cmd := exec.Command("git", "check-ref-format", "refs/heads/"+b)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("invalid branch name %q: %w", b, err)
	}
	return nil
}

// plainRefName: b holds only ASCII letters, digits, '.', '_', '-' and '/'.
func plainRefName(b string) bool {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-', c == '/':
		default:
			return false
		}
	}
	return true
}

// builder writes a repository's history with one `git fast-import`
// stream, so creating a repository costs a few processes whatever its size.
type builder struct {
	gitDir string
	home   string
	clock  time.Time
	first  bool
	mark   int
	// from is the parent of a commit given no parent mark: an existing
	// commit's hash, when commits are added to a branch (Commit).
	from   string
	stream strings.Builder
}

func (b *builder) create(def string, others []string, spec RepoSpec) error {
	if err := initBare(b.gitDir, def); err != nil {
		return err
	}
	if len(spec.Branches) == 0 {
		return nil
	}
	defSpec := spec.Branches[def]
	order := []string{def}
	for _, n := range others {
		if n != def {
			order = append(order, n)
		}
	}
	var protected []string
	var root int
	for _, name := range order {
		bs := spec.Branches[name]
		ref := "refs/heads/" + name
		var head int
		var err error
		switch {
		case name == def:
			root, err = b.commit(ref, 0, CommitSpec{Message: "Initial commit", Files: bs.Files}, true)
			head = root
		case sameFiles(bs.Files, defSpec.Files):
			fmt.Fprintf(&b.stream, "reset %s\nfrom :%d\n\n", ref, root)
			head = root
		default:
			head, err = b.commit(ref, root, CommitSpec{Message: "Create branch " + name, Files: bs.Files}, true)
		}
		if err != nil {
			return err
		}
		for _, c := range bs.Commits {
			if head, err = b.commit(ref, head, c, false); err != nil {
				return err
			}
		}
		if bs.Protected {
			protected = append(protected, name)
		}
	}
	b.stream.WriteString("done\n")
	if _, err := b.git(strings.NewReader(b.stream.String()), nil, "fast-import", "--quiet", "--done"); err != nil {
		return err
	}
	if len(protected) > 0 {
		return b.installHook(protected)
	}
	return nil
}

// bareConfig is a bare repository's config as `git init --bare` writes it,
// with pushes over HTTP enabled and fast-import keeping what it imports as
// one pack (below transfer.unpackLimit it would run unpack-objects).
const bareConfig = `[core]
	repositoryformatversion = 0
	filemode = true
	bare = true
[http]
	receivepack = true
[fastimport]
	unpackLimit = 0
`

// initBare lays out an empty bare repository whose HEAD is the branch def,
// as `git init --bare --initial-branch=def` does (less the sample hooks and
// the description): written here, it costs no process.
func initBare(dir, def string) error {
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags", "hooks", "info"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
			return err
		}
	}
	for name, text := range map[string]string{
		"HEAD":   "ref: refs/heads/" + def + "\n",
		"config": bareConfig,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// commit appends a commit on ref to the stream and returns its mark.
// parent 0 makes a root commit; replace makes the tree exactly c.Files.
func (b *builder) commit(ref string, parent int, c CommitSpec, replace bool) (int, error) {
	name, email := c.AuthorName, c.AuthorEmail
	if name == "" {
		name = DefaultAuthorName
	}
	if email == "" {
		email = DefaultAuthorEmail
	}
	if strings.ContainsAny(name+email, "<>\n") {
		return 0, fmt.Errorf("invalid author %q <%s>", name, email)
	}
	when := c.When
	if when.IsZero() {
		if b.first {
			b.clock = b.clock.Add(time.Minute)
		}
		when = b.clock
	} else {
		b.clock = when
	}
	b.first = true
	paths := make([]string, 0, len(c.Files))
	for p := range c.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	msg := c.Message
	if msg == "" {
		all := append(append([]string{}, paths...), c.Delete...)
		sort.Strings(all)
		msg = "Update " + strings.Join(all, ", ")
	}
	b.mark++
	w := &b.stream
	fmt.Fprintf(w, "commit %s\nmark :%d\n", ref, b.mark)
	fmt.Fprintf(w, "author %s <%s> %d +0000\ncommitter %s <%s> %d +0000\n", name, email, when.Unix(), name, email, when.Unix())
	fmt.Fprintf(w, "data %d\n%s\n", len(msg)+1, msg)
	if parent != 0 {
		fmt.Fprintf(w, "from :%d\n", parent)
	} else if b.from != "" {
		fmt.Fprintf(w, "from %s\n", b.from)
	}
	if replace {
		w.WriteString("deleteall\n")
	}
	for _, p := range c.Delete {
		rp, err := repoFilePath(p)
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(w, "D %s\n", rp)
	}
	for _, p := range paths {
		rp, err := repoFilePath(p)
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", rp, len(c.Files[p]), c.Files[p])
	}
	w.WriteString("\n")
	return b.mark, nil
}

// repoFilePath checks a path and writes it for the fast-import stream: as
// it is, or C-quoted when it holds what fast-import would misread (a line
// break, a control character, a leading quote, a backslash), as git allows
// any byte in a path but NUL.
func repoFilePath(p string) (string, error) {
	p = strings.TrimPrefix(p, "/")
	if p == "" || strings.Contains(p, "\x00") || strings.Contains("/"+p+"/", "/../") {
		return "", fmt.Errorf("invalid file path %q", p)
	}
	if !strings.HasPrefix(p, "\"") && strings.IndexFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }) < 0 {
		return p, nil
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\%03o`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}

// git runs one git command against the bare repository with a clean,
// isolated environment and returns its trimmed standard output.
func (b *builder) git(stdin *strings.Reader, env []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Env = append([]string{
		"GIT_DIR=" + b.gitDir,
		"HOME=" + b.home,
		"GIT_CONFIG_NOSYSTEM=1",
		"PATH=" + os.Getenv("PATH"),
	}, env...)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s: %w", args[0], msg, err)
	}
	return strings.TrimSpace(stdout.String()), nil
}

package labgit

import (
	"os"
	"path/filepath"
	"strings"
)

// installHook writes a pre-receive hook that refuses every push that
// updates, creates or deletes one of the branches, with the message GitHub
// prints for a branch protection rule (git shows it prefixed "remote: ").
func (b *builder) installHook(branches []string) error {
	pats := make([]string, len(branches))
	for i, br := range branches {
		// checkBranchName rejected single quotes, so this quoting is safe.
		pats[i] = "'refs/heads/" + br + "'"
	}
	script := `#!/bin/sh
# Installed by labgit: protected branches refuse every push, as a
# GitHub branch protection rule that requires pull requests does.
status=0
while read old new ref; do
	case "$ref" in
	` + strings.Join(pats, "|") + `)
		echo "error: GH006: Protected branch update failed for $ref." >&2
		echo "error: Changes must be made through a pull request." >&2
		status=1
		;;
	esac
done
exit $status
`
	dir := filepath.Join(b.gitDir, "hooks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "pre-receive"), []byte(script), 0o755)
}

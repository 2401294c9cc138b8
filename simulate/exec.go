package simulate

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// scriptTimeout is Image Updater's limit for ext: credential scripts.
const scriptTimeout = 10 * time.Second

// runScript runs an ext: credentials script without arguments and returns its
// trimmed output. Errors never include the output (it holds the password).
func runScript(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, scriptTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path).Output()
	if ctx.Err() != nil {
		return "", fmt.Errorf("credentials script %s did not finish within %s", path, scriptTimeout)
	}
	if err != nil {
		return "", fmt.Errorf("credentials script %s failed: %w", path, scrub(err))
	}
	return strings.TrimSpace(string(out)), nil
}

// scrub drops captured output from exec errors.
func scrub(err error) error {
	if ee, ok := err.(*exec.ExitError); ok {
		return fmt.Errorf("exit status %d", ee.ExitCode())
	}
	return err
}

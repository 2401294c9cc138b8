package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// TestReportOnATerminal: on a terminal of 100×40 (a pseudo-terminal),
// with no COLUMNS and no flag, the report is painted and wrapped to the
// terminal's own width, and the recap is its last line.
func TestReportOnATerminal(t *testing.T) {
	ptm, tty := openPTY(t)
	defer ptm.Close()
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 100}); err != nil {
		t.Skipf("window size: %v", err)
	}
	got := make(chan string)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, ptm) // until the terminal is closed (EIO)
		got <- b.String()
	}()
	var errb bytes.Buffer
	code := run(context.Background(), []string{"demo", "--scenario", "article-3-registry-credentials"}, streams{In: strings.NewReader(""), Out: tty, Err: &errb}, func(string) (string, bool) { return "", false })
	tty.Close()
	out := strings.ReplaceAll(<-got, "\r\n", "\n")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out, "\x1b[31m✗\x1b[0m  argocd/web is blocked") {
		t.Errorf("not painted:\n%q", out)
	}
	if !strings.Contains(out, "--docker-server=http://") || !strings.Contains(out, " \\\n") {
		t.Errorf("the command is not wrapped:\n%s", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, l := range lines {
		if n := utf8.RuneCountInString(sgrOff(l)); n > 100 && len(strings.Fields(strings.TrimSuffix(l, " \\"))) > 1 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
	if last := sgrOff(lines[len(lines)-1]); last != "✗ blocked [REGISTRY_UNAUTHORIZED] · fix above, 3 steps" {
		t.Errorf("the last line is %q, want the recap", last)
	}
}

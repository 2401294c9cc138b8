package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair: what is written to tty reads back
// from ptm.
func openPTY(t *testing.T) (ptm, tty *os.File) {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	fd := int(ptm.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		ptm.Close()
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		ptm.Close()
		t.Skipf("ptsname: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		ptm.Close()
		t.Skipf("open pts: %v", err)
	}
	return ptm, tty
}

// TestSummaryProgressOnATerminal: on a terminal, stderr shows the progress
// line (apps done of the total, elapsed), rewritten with \r and cleared at
// the end; stdout has the summary and nothing of it.
func TestSummaryProgressOnATerminal(t *testing.T) {
	fleet := labFleet(t, thirtyApps())
	ptm, tty := openPTY(t)
	defer ptm.Close()
	got := make(chan string)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, ptm) // until the terminal is closed (EIO)
		got <- b.String()
	}()
	var out bytes.Buffer
	code := run(context.Background(), []string{"summary"}, streams{In: strings.NewReader(""), Out: &out, Err: tty}, func(string) (string, bool) { return "", false }, fleet)
	tty.Close()
	stderr := <-got
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	if !regexp.MustCompile(`\rscanning: 30/30 apps, [0-9]+s\x1b\[K`).MatchString(stderr) || !strings.Contains(stderr, "\rscanning: 1/30 apps, ") || !strings.HasSuffix(stderr, "\r\x1b[K") {
		t.Errorf("progress on the terminal: %q", stderr)
	}
	if strings.Contains(out.String(), "scanning:") {
		t.Errorf("progress on stdout:\n%s", out.String())
	}
}

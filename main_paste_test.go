package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"natslab/broker/brokertest"
)

// 100 KB pasted into a terminal without bracketed paste arrives as one key
// press per character. The lab takes what fits in a command, says it cut
// the rest, and answers the next keys.
func TestPasteAsKeystrokesInATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives it in tmux")
	}
	bin := natslabBinary(t)
	dir := t.TempDir()
	term := brokertest.StartTerminal(t, 120, 40, "HOME="+dir)
	term.Type(fmt.Sprintf("%s --store %s --listen none; echo natslab-exit=$?", bin, filepath.Join(dir, "store")))
	term.WaitText("Type help for the commands")
	paste := "pub big " + strings.Repeat("x", 100*1024)
	for len(paste) > 0 {
		n := min(len(paste), 8*1024)
		term.Keys("-l", paste[:n]) // keys, not a bracketed paste
		paste = paste[n:]
	}
	term.WaitText("the line is cut at 64 KiB")
	term.Keys("Enter")
	term.WaitText(`Published 65528 bytes to "big"`)
	term.Type("pub small hello")
	s := term.WaitText(`Published 5 bytes to "small"`)
	if n := strings.Count(s, "cut at 64 KiB"); n > 1 {
		t.Errorf("the cut was said %d times:\n%s", n, s)
	}
	term.Type("quit")
	// The store is the test's temporary directory: natslab must be done
	// with it before the test's cleanup removes it.
	term.WaitFor("natslab to exit", exitedRE.MatchString)
}

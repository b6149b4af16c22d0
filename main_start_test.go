package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"natslab/broker/brokertest"
)

// A cluster restarting from its stores waits seconds for Raft to elect a
// meta leader before the lab can show anything: the terminal says what it
// waits for instead of staying blank.
func TestClusterStartSaysWhatItWaitsFor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives it in tmux")
	}
	bin := natslabBinary(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	term := brokertest.StartTerminal(t, 120, 40, "HOME="+dir)
	for _, want := range []string{
		"natslab: starting three servers (n1, n2, n3)…",
		"natslab: starting three servers (n1, n2, n3) from their stores: Raft elects the meta leader after its election timeout",
	} {
		term.Type("clear")
		term.Type(fmt.Sprintf("%s --cluster 3 --store %s --listen none; echo natslab-exit=$?", bin, store))
		term.WaitText("Type help for the commands", "JetStream on")
		term.Type("quit")
		// natslab has let go of the store before the next start opens it.
		s := term.WaitFor("natslab to exit", func(s string) bool {
			return !strings.Contains(s, "Type help for the commands") && exitedRE.MatchString(s)
		})
		if !strings.Contains(s, want) {
			t.Errorf("before the lab, the terminal should say %q:\n%s", want, s)
		}
	}
}

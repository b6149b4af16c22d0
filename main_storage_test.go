package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"natslab/broker/brokertest"
)

// damagedStore makes a store whose stream ORDERS has junk for its
// configuration file, as a bad disk or a careless edit leaves it.
func damagedStore(t *testing.T) string {
	t.Helper()
	store := filepath.Join(t.TempDir(), "store")
	cmd := exec.Command(natslabBinary(t), "run", "--store", store, "--listen", "none", "-")
	cmd.Stdin = strings.NewReader("stream add ORDERS --subjects 'orders.>' --defaults\npub orders.new one --jetstream\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("making the store: %v\n%s", err, out)
	}
	meta := filepath.Join(store, "jetstream", "$G", "streams", "ORDERS", "meta.inf")
	if err := os.WriteFile(meta, []byte("junk, not a stream's configuration"), 0o644); err != nil {
		t.Fatal(err)
	}
	return store
}

// A stream whose files are damaged is left out when the server starts. The
// real CLI's output alone would look as if it had never existed: natslab
// run says which stream and what to do, and fails.
func TestDamagedStreamIsSaidAndFailsTheRun(t *testing.T) {
	store := damagedStore(t)
	cmd := exec.Command(natslabBinary(t), "run", "--store", store, "--listen", "none", "-")
	cmd.Stdin = strings.NewReader("stream ls\n")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Errorf("natslab run should exit 1 with a stream left out, got %v\n%s%s", err, stdout.String(), stderr.String())
	}
	var said []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, "ORDERS") {
			said = append(said, l)
		}
	}
	if len(said) != 1 || !strings.HasPrefix(said[0], "natslab: stream ORDERS was not loaded: its configuration file in ") || !strings.Contains(said[0], "create the stream again") {
		t.Errorf("want one line naming ORDERS and what to do, got:\n%s", stderr.String())
	}
}

// The lab says it in its pane, from the start.
func TestDamagedStreamIsSaidInThePane(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives it in tmux")
	}
	store := damagedStore(t)
	term := brokertest.StartTerminal(t, 160, 40, "HOME="+t.TempDir())
	term.Type(fmt.Sprintf("%s --store %s --listen none; echo natslab-exit=$?", natslabBinary(t), store))
	term.WaitText("Type help for the commands", "» stream ORDERS was not loaded: its configuration file in")
	term.Type("quit")
	// The store is the test's temporary directory: wait until natslab has
	// shut its server down and let go of it.
	term.WaitFor("natslab to exit", exitedRE.MatchString)
}

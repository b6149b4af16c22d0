package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"natslab/lab/policy/startup"
)

// The test binary links main, hence lab/policy/startup, whose pause only
// natslab's main ends: the tests run with the collector on, as usual.
func TestMain(m *testing.M) {
	startup.Resume()
	os.Exit(m.Run())
}

// The collector waits while natslab starts: a one-line script runs, start
// to end, without a single collection (lab/policy/startup pauses it while
// packages initialise, policy.Script keeps it off until the heap nears
// natslab's memory limit). Without either, the run collects at least once:
// the packages' initialisation and the server's start each reach the first
// goal. With GOGC chosen by the user, the collector is theirs again.
func TestAScriptRunsWithoutCollecting(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := natslabBinary(t)
	gcs := func(env ...string) int {
		t.Helper()
		cmd := exec.Command(bin, "run", "--store", filepath.Join(t.TempDir(), "store"), "--listen", "none", "-")
		cmd.Env = append(append(os.Environ(), "GODEBUG=gctrace=1"), env...)
		cmd.Stdin = strings.NewReader("stream ls\n")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("natslab run: %v\n%s", err, stderr.String())
		}
		n := 0
		for _, l := range strings.Split(stderr.String(), "\n") {
			if strings.HasPrefix(l, "gc ") {
				n++
			}
		}
		return n
	}
	if n := gcs(); n != 0 {
		t.Errorf("a one-line script collected %d times, want none", n)
	}
	if n := gcs("GOGC=5"); n == 0 {
		t.Error("with GOGC=5 chosen, the run should collect as the user asked")
	}
}

// The tests themselves run with the collector as GOGC says (TestMain).
func TestTestsCollect(t *testing.T) {
	if p := debug.SetGCPercent(100); p < 0 {
		t.Fatalf("the collector is off (%d) in the tests", p)
	} else {
		debug.SetGCPercent(p)
	}
}

// The ed25519 tables are computed beside the packages' initialisation
// (broker/keytables): that package must be initialised before the ones that
// make most of it, nats-server's and natscli's, or it would begin too late
// to be ready when the server makes its key.
func TestKeyTablesBeginBeforeTheServerInitialises(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	initialisedBefore(t, "natslab/broker/keytables", "github.com/nats-io/nats-server/v2/server", "github.com/nats-io/natscli/cli")
}

// The memory start-up writes is mapped on a spare core (lab/policy/prefault):
// that package must be initialised before the ones that write the most, or
// their pages would fault in before it mapped them.
func TestMemoryIsMappedBeforeTheHeaviestInitialisation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	initialisedBefore(t, "natslab/lab/policy/prefault",
		"gopkg.in/gizak/termui%2ev1",               // fills go-runewidth's width table
		"github.com/santhosh-tekuri/jsonschema/v5", // compiles its meta-schemas
		"github.com/nats-io/jsm.go/api/jetstream/advisory",
	)
}

// initialisedBefore fails unless natslab's start (GODEBUG=inittrace=1)
// initialises pkg before each of later.
func initialisedBefore(t *testing.T, pkg string, later ...string) {
	t.Helper()
	cmd := exec.Command(natslabBinary(t), "--help")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("natslab --help: %v\n%s", err, stderr.String())
	}
	order := map[string]int{}
	for i, l := range strings.Split(stderr.String(), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "init" {
			order[f[1]] = i
		}
	}
	at, ok := order[pkg]
	if !ok {
		t.Fatalf("%s is not initialised at start:\n%s", pkg, stderr.String())
	}
	for _, heavy := range later {
		heavyAt, ok := order[heavy]
		if !ok {
			t.Fatalf("%s is not in the init trace", heavy)
		}
		if at > heavyAt {
			t.Errorf("%s is initialised after %s", pkg, heavy)
		}
	}
}

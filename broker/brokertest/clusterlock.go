package brokertest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Three-node clusters hold elections on timers: several started at once on
// a small machine (go test runs packages side by side) starve each other's
// Raft heartbeats into failed elections. Clustered servers therefore start
// one test process at a time, machine-wide: the first cluster in a process
// takes a file lock, which the process keeps while any of its clusters
// runs.
var clusterLock struct {
	sync.Mutex
	held int
	f    *os.File
}

// holdClusterLock waits for the machine-wide cluster lock, if this process
// does not hold it yet, and lets it go when the test and every other
// holder in the process are done (after the cluster's shutdown, which is
// registered later and so runs first).
func holdClusterLock(t testing.TB) {
	t.Helper()
	clusterLock.Lock()
	defer clusterLock.Unlock()
	if clusterLock.held == 0 {
		f, err := os.OpenFile(filepath.Join(os.TempDir(), "natslab-brokertest-cluster.lock"), os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			t.Fatalf("the cluster lock: %v", err)
		}
		if err := lockFile(f); err != nil {
			f.Close()
			t.Fatalf("the cluster lock: %v", err)
		}
		clusterLock.f = f
	}
	clusterLock.held++
	t.Cleanup(func() {
		clusterLock.Lock()
		defer clusterLock.Unlock()
		if clusterLock.held--; clusterLock.held == 0 {
			unlockFile(clusterLock.f)
			clusterLock.f.Close()
			clusterLock.f = nil
		}
	})
}

package brokertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
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

// clusterLockWait bounds the wait for another process's clusters: a
// process whose cluster test hangs would otherwise hold every other
// process's cluster tests until go test's own timeout, which names the
// waiting test and not the cause.
const clusterLockWait = 3 * time.Minute

// holdClusterLock waits for the machine-wide cluster lock, if this process
// does not hold it yet, and lets it go when the test and every other
// holder in the process are done (after the cluster's shutdown, which is
// registered later and so runs first).
func holdClusterLock(t testing.TB) {
	t.Helper()
	clusterLock.Lock()
	defer clusterLock.Unlock()
	if clusterLock.held == 0 {
		path := filepath.Join(os.TempDir(), "natslab-brokertest-cluster.lock")
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			t.Fatalf("the cluster lock: %v", err)
		}
		if err := lockWithin(f, clusterLockWait); err != nil {
			t.Fatalf("the cluster lock %s: %v", path, err)
		}
		// Who holds it, for a process that waits too long.
		if err := f.Truncate(0); err == nil {
			_, _ = f.WriteAt([]byte(fmt.Sprintf("pid %d: %s\n", os.Getpid(), strings.Join(os.Args, " "))), 0)
		}
		clusterLock.f = f
	}
	clusterLock.held++
	t.Cleanup(func() {
		clusterLock.Lock()
		defer clusterLock.Unlock()
		if clusterLock.held--; clusterLock.held == 0 {
			_ = clusterLock.f.Truncate(0)
			unlockFile(clusterLock.f)
			clusterLock.f.Close()
			clusterLock.f = nil
		}
	})
}

// lockWithin takes f's lock, waiting wait at most. Given up, the lock is
// let go as soon as it comes, and f closed.
func lockWithin(f *os.File, wait time.Duration) error {
	got := make(chan error, 1)
	go func() { got <- lockFile(f) }()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case err := <-got:
		if err != nil {
			f.Close()
		}
		return err
	case <-timer.C:
		holder, _ := os.ReadFile(f.Name())
		go func() {
			if <-got == nil {
				unlockFile(f)
			}
			f.Close()
		}()
		who := strings.TrimSpace(string(holder))
		if who == "" {
			who = "a process that did not say which"
		}
		return fmt.Errorf("another test process has run its clusters for over %s (%s): look for a cluster test of its that hangs", wait, who)
	}
}

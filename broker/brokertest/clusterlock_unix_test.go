//go:build unix

package brokertest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A process waiting for the cluster lock gives up after its bound, saying
// who holds it, instead of waiting until go test's timeout; and the lock
// it was still waiting for is let go when it comes, not kept.
func TestClusterLockWaitIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cluster.lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	holder := open()
	defer holder.Close()
	if err := lockFile(holder); err != nil {
		t.Fatal(err)
	}
	if _, err := holder.WriteString("pid 42: stuck.test\n"); err != nil {
		t.Fatal(err)
	}
	err := lockWithin(open(), 10*time.Millisecond)
	if err == nil {
		t.Fatal("took a lock another holder has")
	}
	if !strings.Contains(err.Error(), "pid 42: stuck.test") {
		t.Errorf("the error does not name the holder: %v", err)
	}
	unlockFile(holder)
	// The waiter given up takes the lock when it comes and lets it go.
	next := open()
	defer next.Close()
	if err := lockWithin(next, time.Minute); err != nil {
		t.Fatalf("the lock was kept by the waiter that gave up: %v", err)
	}
}

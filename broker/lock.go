package broker

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gofrs/flock"
)

// LockFile is the name of the lock natslab holds in its store directory.
// nats-server takes no lock of its own, and two servers writing one store
// corrupt it, so the lab takes one.
const LockFile = "natslab.lock"

type storeLock struct {
	fl *flock.Flock
}

func lockStore(dir string) (*storeLock, error) {
	path := filepath.Join(dir, LockFile)
	fl := flock.New(path)
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("cannot lock the store %s: %w (choose another with --store DIR)", dir, err)
	}
	if !ok {
		who := "another natslab"
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				who = fmt.Sprintf("another natslab (pid %d)", pid)
			}
		}
		return nil, fmt.Errorf("the store %s is in use by %s: it holds the lock %s; stop that one, or use a different --store DIR", dir, who, path)
	}
	// Record who holds it, for the message above. The lock itself is the
	// flock, not the content.
	_ = os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
	return &storeLock{fl: fl}, nil
}

func (l *storeLock) release() {
	if l != nil && l.fl != nil {
		l.fl.Unlock()
	}
}

package broker

import (
	"os"
	"path/filepath"
	"time"
)

// AwaitStreamRemoved returns once the lab's own server has finished
// removing the files of a stream deleted from the default account, or
// after d. nats-server moves a deleted stream's directory aside (to
// ".NAME") and removes it in the background; a second delete of the same
// name before that is done cannot move its directory aside, leaves its
// files in place, and a stream created next under that name brings the
// old messages back. The JetStream API answers before the files are gone,
// so the store itself is the only witness: this is the one place outside
// nats-server that knows its layout. On an external deployment it returns
// at once.
func AwaitStreamRemoved(dep Deployment, stream string, d time.Duration) {
	if !dep.Own() || dep.JetStreamDir() == "" {
		return
	}
	root := dep.JetStreamDir()
	aside := []string{filepath.Join(root, "$G", "streams", "."+stream)}
	if nodes, _ := filepath.Glob(filepath.Join(root, "*", "jetstream")); len(nodes) > 0 {
		aside = aside[:0]
		for _, n := range nodes {
			aside = append(aside, filepath.Join(n, "$G", "streams", "."+stream))
		}
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(d)
	for {
		gone := true
		for _, dir := range aside {
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				gone = false
			}
		}
		if gone {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			return
		}
	}
}

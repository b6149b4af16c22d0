package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// The key-value walkthrough's watch (docs.nats.io, JetStream › Key/Value
// Store › Key/Value Store Walkthrough): "nats kv watch my-kv" in a second
// terminal, here a background line, while the first changes keys. The
// watch shows the value it found, then every change in order.
func TestKeyValueWatchWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "key-value watch walkthrough",
		Lines: []string{
			"nats kv add my-kv",
			"nats kv put my-kv Key1 Value1",
			"nats kv watch my-kv &",
			"nats kv put my-kv Key1 Value2",
			"nats kv put my-kv Key2 Value3",
			"nats kv del my-kv Key1 --force",
			"nats kv purge my-kv Key2 --force",
			"nats kv put my-kv Key1 Value4",
			"nats kv get my-kv Key1",
		},
		Shown: map[string][]string{
			"nats kv watch my-kv &": {
				"[DATE] PUT my-kv > Key1: Value1",
				"[DATE] PUT my-kv > Key1: Value2",
				"[DATE] PUT my-kv > Key2: Value3",
				"[DATE] DELETE my-kv > Key1",
				"[DATE] PURGE my-kv > Key2",
				"[DATE] PUT my-kv > Key1: Value4",
			},
		},
	})
}

// What watch's flags change: --history starts with every kept revision,
// --no-deletes leaves out deletes and purges (and keys whose latest
// revision is one), --updates skips the values already there, a key
// pattern narrows it to matching keys, --revision starts at a revision.
// Four watches at once, each its own process.
func TestKeyValueWatchOptions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "key-value watch options",
		Lines: []string{
			"nats kv add H --history 5",
			"nats kv put H a.1 one",
			"nats kv put H a.1 uno",
			"nats kv put H b.1 two",
			"nats kv del H b.1 -f",
			"nats kv watch H --history &",
			"nats kv watch H --no-deletes &",
			"nats kv watch H 'a.*' --updates &",
			"nats kv watch H --revision 3 &",
			"nats kv put H a.2 dos",
			"nats kv put H b.2 tres",
			"nats kv purge H a.1 -f",
			"nats kv del H a.2 -f",
			"nats kv put H a.1 again",
		},
		Shown: map[string][]string{
			"nats kv watch H --history &": {
				"[DATE] PUT H > a.1: one",
				"[DATE] PUT H > a.1: uno",
				"[DATE] PUT H > b.1: two",
				"[DATE] DELETE H > b.1",
				"[DATE] PUT H > a.2: dos",
				"[DATE] PUT H > b.2: tres",
				"[DATE] PURGE H > a.1",
				"[DATE] DELETE H > a.2",
				"[DATE] PUT H > a.1: again",
			},
			"nats kv watch H --no-deletes &": {
				"[DATE] PUT H > a.1: uno",
				"[DATE] PUT H > a.2: dos",
				"[DATE] PUT H > b.2: tres",
				"[DATE] PUT H > a.1: again",
			},
			"nats kv watch H 'a.*' --updates &": {
				"[DATE] PUT H > a.2: dos",
				"[DATE] PURGE H > a.1",
				"[DATE] DELETE H > a.2",
				"[DATE] PUT H > a.1: again",
			},
			"nats kv watch H --revision 3 &": {
				"[DATE] PUT H > b.1: two",
				"[DATE] DELETE H > b.1",
				"[DATE] PUT H > a.2: dos",
				"[DATE] PUT H > b.2: tres",
				"[DATE] PURGE H > a.1",
				"[DATE] DELETE H > a.2",
				"[DATE] PUT H > a.1: again",
			},
		},
	})
}

// A watch whose bucket is removed under it: the real CLI's watch prints
// nothing more and, once its heartbeats stop coming, ends with no error
// (here it is interrupted first); the lab's ends at once, saying why only
// in a note.
func TestKeyValueWatchOfARemovedBucket(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "key-value watch of a removed bucket",
		Lines: []string{
			"nats kv add B",
			"nats kv put B k v",
			"nats kv watch B &",
			"nats kv rm B -f",
			"nats kv ls",
		},
		Shown: map[string][]string{
			"nats kv watch B &": {"[DATE] PUT B > k: v"},
		},
	})
}

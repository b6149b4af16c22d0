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

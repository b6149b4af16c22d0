package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// kv ls of a bucket's keys, as a learner and a script list them: an empty
// bucket (--names, for scripts, prints nothing there; the table and the
// plain list say there are no keys), keys under a filter that matches
// some or none, the verbose table with and without values, a bucket that
// is not there.
func TestKeyValueListKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "key-value list keys",
		Lines: []string{
			"nats kv add B",
			"nats kv ls B",
			"nats kv ls B --names",
			"nats kv ls B -n",
			"nats kv ls B -v",
			"nats kv put B k.a 1",
			"nats kv put B x 3",
			"nats kv ls B -n",
			"nats kv ls B 'k.>'",
			"nats kv ls B 'zz' -n",
			"nats kv ls B 'zz'",
			"nats kv ls B -v --display-value",
			"nats kv ls NOPE",
			"nats kv ls NOPE -n",
		},
	})
}

package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// What a learner may try on nothing: an empty bucket name, a watch of a
// bucket that is not there (or with a flag watch does not have), compact
// and revert of an empty bucket and of keys never written, revert where
// the bucket keeps one revision, revert without --force in a script.
func TestKeyValueOnNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "key-value on nothing",
		Lines: []string{
			"nats kv add ''",
			"nats kv watch ''",
			"nats kv watch NOPE",
			"nats kv watch NOPE k",
			"nats kv add E --history 5",
			"nats kv watch E --include-deletes",
			"nats kv watch E 'a.>.b'",
			"nats kv compact E",
			"nats kv compact E -f",
			"nats kv compact NOPE -f",
			"nats kv compact '' -f",
			"nats kv revert E k 1 --force",
			"nats kv revert E k 1",
			"nats kv revert E k x --force",
			"nats kv revert NOPE k 1 --force",
			"nats kv put E k v1",
			"nats kv revert E k 1 --force",
			"nats kv put E k v2",
			"nats kv revert E k 7 --force",
			"nats kv revert E k 1",
			"nats kv revert E k 1 --force",
			"nats kv del E k -f",
			"nats kv revert E k 3 --force",
			"nats kv compact E -f",
			"nats kv history E k",
			"nats kv add One",
			"nats kv put One k v1",
			"nats kv put One k v2",
			"nats kv revert One k 1 --force",
			"nats kv revert One k 2 --force",
			"nats kv revert E k 0 --force",
			"nats kv revert E k 0x2 --force",
			"nats kv revert E k 99999999999999999999 --force",
			"nats kv update E k v3",
			"nats kv update E k v3 x",
			"nats kv update E k v3 0x4",
			"nats kv watch ''",
			"nats kv compact ''",
			"nats kv watch NOPE 'a.>.b'",
		},
	})
}

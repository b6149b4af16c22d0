package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// consumer add in a script, where the real CLI has no terminal to ask in:
// each line leaves out one more of what it asks for, in the order it
// asks, and the lines that give everything (or --defaults) make the
// consumer.
func TestConsumerAddWithoutATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "consumer add without a terminal",
		Lines: []string{
			"nats stream add S9 --subjects 's9.>' --defaults",
			"nats consumer add S9 C9 --defaults",
			"nats consumer add S9 C8 --pull",
			"nats consumer add S9 C7 --pull --deliver all",
			"nats consumer add S9 C6 --pull --deliver all --ack explicit --replay instant --filter ''",
			"nats consumer add S9 C5 --pull --deliver all --ack explicit --replay instant --filter '' --max-deliver 3 --max-pending 10",
			"nats consumer add S9 C4 --pull --deliver all --ack explicit --replay instant --filter '' --max-deliver 3 --max-pending 10 --no-headers-only",
			"nats consumer add S9 C3 --pull --deliver all --ack explicit --replay instant --filter '' --max-deliver 3 --max-pending 10 --no-headers-only --backoff none",
			"nats consumer add S9 C2 --target out --defaults",
			"nats consumer add S9 C1 --target out",
			"nats consumer add S9 C0 --target out --deliver-group '' --deliver all --ack none --replay instant --filter '' --heartbeat 0s --flow-control",
			"nats consumer add S9 CX --target out --deliver-group '' --deliver all --ack none --replay instant --filter '' --heartbeat 0s --flow-control --no-headers-only",
			"nats consumer add S9 --pull --defaults",
			"nats consumer ls S9 --names",
		},
	})
}

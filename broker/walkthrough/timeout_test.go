package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// TestTimeoutZero: --timeout 0 means what it means to the real CLI, which
// depends on the library under each command. jsm.go (consumer add, info,
// ls, report and rm, kv ls, account info) waits at least half a second
// whatever it is told, so they work; nats.go's JetStream handle (kv, sub
// --all) refuses a timeout that is not above zero; consumer next's pull
// waits for nothing.
func TestTimeoutZero(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "timeout zero",
		Lines: []string{
			"nats stream add S --subjects 's.>' --defaults",
			"nats pub s.a one",
			"nats consumer add S P --pull --defaults",
			"nats kv add K",
			"nats kv put K a 1",
			"nats consumer ls S --timeout 0",
			"nats consumer info S P --timeout 0",
			"nats consumer add S Q --pull --defaults --timeout 0",
			"nats consumer report S --timeout 0",
			"nats consumer next S P --timeout 0",
			"nats consumer rm S Q -f --timeout 0",
			"nats kv ls --timeout 0",
			"nats kv ls K --timeout 0",
			"nats kv get K a --timeout 0",
			"nats sub 's.>' --all --count 1 --timeout 0",
			"nats account info --timeout 0",
		},
	})
}

package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// TestMachineOutput: the outputs scripts read, --json and --raw, as the
// real CLI prints them: consumer info --json is jsm.go's ConsumerInfo (its
// field order, pause_until always there), consumer ls --json of a stream
// without consumers is null, and stream report --raw has no API level
// (the replicas column moves under its header).
func TestMachineOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "machine output",
		Lines: []string{
			"nats stream add S --subjects 's.>' --defaults",
			"nats consumer ls S --json",
			"nats pub s.a one",
			"nats consumer add S P --pull --defaults --max-deliver 5",
			"nats consumer add S Q --target out --defaults --heartbeat 5s --flow-control --description push",
			"nats consumer info S P --json",
			"nats consumer info S Q --json",
			"nats consumer ls S --json",
			"nats stream report --raw",
		},
	})
}

package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// The JetStream walkthrough (docs.nats.io, JetStream › JetStream
// Walkthrough), with the changes a script needs: where the docs answer
// the real CLI's prompts (the stream's subject foo and the defaults, the
// consumer's name and policies), the lines give them as flags; the
// publisher sends ten messages without its one-second sleep; the stream
// is removed with --force.
func TestJetStreamWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "jetstream walkthrough",
		Lines: []string{
			"nats stream add my_stream --subjects foo --defaults",
			"nats stream ls",
			"nats stream info my_stream",
			`nats pub foo --count=10 "publication #{{.Count}} @ {{.TimeStamp}}"`,
			"nats stream info my_stream",
			"nats consumer add my_stream pull_consumer --pull --deliver all --ack explicit --defaults",
			"nats consumer ls my_stream",
			"nats consumer info my_stream pull_consumer",
			"nats consumer next my_stream pull_consumer --count 10",
			"nats consumer info my_stream pull_consumer",
			"nats consumer rm my_stream pull_consumer --force",
			"nats stream rm my_stream --force",
			"nats stream ls",
		},
	})
}

package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// Configuration contexts, from natscli's README: add two, list them,
// switch between them, show and remove one. In the lab the contexts live
// in its store, never in the user's own configuration.
func TestContextsWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "contexts",
		Lines: []string{
			`nats context add localhost --description "Localhost"`,
			`nats context add nats --server demo.nats.io:4222 --description "NATS Demo" --select`,
			`nats context ls`,
			`nats ctx select localhost`,
			`nats context ls`,
			`nats ctx -- -`,
			`nats context info`,
			`nats context info localhost --json`,
			`nats context copy localhost staging --description "Staging"`,
			`nats context validate`,
			`nats context rm nats`,
			`nats context rm nats --force`,
			`nats context unselect`,
			`nats context ls --names`,
		},
	})
}

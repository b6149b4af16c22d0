package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// consumer info of consumers with priority groups (pinned client and
// prioritized, made with the real CLI's code): the policy, the groups and
// the pinned TTL among the configuration.
func TestConsumerInfoOfPriorityGroups(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "consumer info of priority groups",
		Lines: []string{
			"nats stream add S --subjects 's.>' --defaults",
			"nats consumer add S PIN --pull --defaults --pinned-groups g1 --pinned-ttl 1m",
			"nats consumer info S PIN",
			"nats consumer add S PRI --pull --defaults --prioritized-groups g1 --prioritized-groups g2",
			"nats consumer info S PRI",
			"nats consumer edit S PRI --description prioritized -f",
		},
	})
}

// consumer info and ls with --no-select, the real CLI's force: a
// consumer left out or not there is unknown rather than one to pick.
func TestConsumerNoSelect(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "consumer no-select",
		Lines: []string{
			"nats consumer info --no-select",
			"nats stream add S --subjects 's.>' --defaults",
			"nats consumer add S C --pull --defaults",
			"nats consumer info S --no-select",
			"nats consumer info S NOPE --no-select",
			"nats consumer info S C --no-select",
			"nats consumer ls --no-select",
			"nats consumer ls S --no-select",
			"nats consumer ls NOPE --no-select",
		},
	})
}

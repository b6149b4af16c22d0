package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// The first steps of every NATS tutorial: a subscriber in one terminal
// (here a background line), messages published from another, one with a
// header. The subscriber shows each message as it arrives.
func TestSubscriberInTheBackground(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "subscriber in the background",
		Lines: []string{
			"nats sub greet &",
			"nats pub greet hello",
			"nats pub greet 'hello again' -H a:1",
		},
		Shown: map[string][]string{
			"nats sub greet &": {
				`[#1] Received on "greet"`,
				"hello",
				"",
				"",
				`[#2] Received on "greet"`,
				"a: 1",
				"",
				"hello again",
				"",
				"",
			},
		},
	})
}

// A service in one terminal, requests from another: the replier says what
// it got, the requester prints the answer.
func TestReplierInTheBackground(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "replier in the background",
		Lines: []string{
			"nats reply help.please 'OK, I CAN HELP!!!' &",
			"nats request help.please 'I need help!'",
			"nats request help.please 'again'",
		},
		Shown: map[string][]string{
			"nats reply help.please 'OK, I CAN HELP!!!' &": {
				"",
				"I need help!",
				"",
				"again",
			},
		},
	})
}

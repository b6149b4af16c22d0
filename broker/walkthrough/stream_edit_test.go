package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// stream edit with half of a pair of flags: a republish's source without
// its destination (or --republish-headers alone), a transform's source
// without its destination. The real CLI refuses each with the bare
// message, before it shows a difference or asks to go ahead; a missing
// stream is refused before the flags are looked at.
func TestStreamEditHalfAPair(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "stream edit half a pair",
		Lines: []string{
			"nats stream add S --subjects 's.>' --defaults",
			"nats stream edit S --republish-headers -f",
			"nats stream edit S --republish-source 's.>' -f",
			"nats stream edit S --republish-destination 'r.>'",
			"nats stream edit S --transform-source 's.>' -f",
			"nats stream edit S --transform-destination 'x.>' --republish-headers -f",
			"nats stream edit S --republish-headers --dry-run",
			"nats stream edit NOPE --republish-headers -f",
			"nats stream edit S --republish-source 's.>' --republish-destination 'r.>' --republish-headers -f",
			"nats stream info S",
		},
	})
}

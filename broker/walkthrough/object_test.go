package walkthrough

import (
	"bytes"
	"testing"

	"natslab/broker/brokertest"
)

// The object store walkthrough (docs.nats.io, JetStream › Object Store ›
// Walkthrough), with two changes a script needs: the file is a relative
// path (no shell expands ~ here), and the lines that ask for confirmation
// also run with --force, since neither side has a terminal to ask in;
// put and get draw a progress bar even without a terminal, at whatever
// point the transfer has reached when it redraws (or not at all when it
// finishes first), so those lines say --no-progress.
// nats object watch runs until interrupted, so it is left out.
func TestObjectStoreWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	movie := bytes.Repeat([]byte("NATS logo frames. "), 20000) // about 350 KiB: three chunks
	brokertest.CompareScript(t, brokertest.Script{
		Name:  "object store walkthrough",
		Files: map[string][]byte{"Movies/NATS-logo.mov": movie},
		Lines: []string{
			"nats object add myobjbucket",
			"nats object put myobjbucket Movies/NATS-logo.mov --no-progress",
			"nats object put --name /Movies/NATS-logo.mov myobjbucket Movies/NATS-logo.mov --no-progress",
			"nats object ls myobjbucket",
			"nats object get myobjbucket Movies/NATS-logo.mov --no-progress",
			"nats object get myobjbucket --output copy-of-logo.mov /Movies/NATS-logo.mov --no-progress",
			"nats object rm myobjbucket Movies/NATS-logo.mov",
			"nats object rm myobjbucket Movies/NATS-logo.mov --force",
			"nats object info myobjbucket",
			"nats object ls",
			"nats object seal myobjbucket",
			"nats object seal myobjbucket --force",
			"nats object put myobjbucket Movies/NATS-logo.mov --name late.mov --no-progress",
			"nats object rm myobjbucket --force",
			"nats object ls",
		},
	})
}

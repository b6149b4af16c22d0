package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// sub's direct reads of the last message per subject name the subjects
// on the line: with --stream alone (and --direct, or a work-queue stream,
// which is read directly) the real CLI asks the client library for the
// last message of no subject, which refuses, after the line saying what
// it subscribes to. With a subject, the last message of each.
func TestSubDirectLastPerSubject(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "sub direct last per subject",
		Lines: []string{
			"nats stream add S --subjects 's.>' --defaults",
			"nats sub --stream S -T --direct --last-per-subject",
			"nats pub s.a one",
			"nats pub s.b two",
			"nats pub s.a three",
			"nats sub --stream S -T --direct --last-per-subject",
			"nats sub --stream S --direct --last-per-subject --count 1",
			"nats sub s.a --stream S --direct --last-per-subject --count 1 --raw",
			"nats stream add W --subjects 'w.>' --defaults --retention work --allow-direct",
			"nats pub w.a one",
			"nats sub --stream W --last-per-subject --count 1",
			"nats sub 'w.>' --stream W --last-per-subject --count 1 --raw",
		},
	})
}

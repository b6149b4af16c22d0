package episode

import (
	"strings"
	"testing"

	"natslab/broker/command"
)

// A delivery counts as mapped only as often as the lab's pub sent, while
// the subscriber's job ran, on a subject the mapping turns into it: a
// message published on the destination itself does not count, nor does a
// mapped publish made while the subscriber was not running.
func TestViaMappingPairsEachPublishOnce(t *testing.T) {
	o := newObservations(nil)
	// jobs.N → jobs.0.N for this test's mapping.
	dests := func(subject string) []string {
		if id, ok := strings.CutPrefix(subject, "jobs."); ok && !strings.Contains(id, ".") {
			return []string{"jobs.0." + id}
		}
		return nil
	}
	pub := func(job int, subject string) {
		o.event(command.Event{Kind: command.JobStarted, Job: job})
		o.event(command.Event{Kind: command.Published, Job: job, Subject: subject})
		o.event(command.Event{Kind: command.JobEnded, Job: job})
	}
	got := func() int64 {
		var n int64
		for _, m := range o.viaMapping(dests) {
			n += m["jobs.0.7"]
		}
		return n
	}

	pub(9, "jobs.7") // no subscriber runs yet: nothing to pair it with
	o.event(command.Event{Kind: command.JobStarted, Job: 1})
	pub(2, "jobs.0.7") // the destination itself
	o.event(command.Event{Kind: command.Received, Job: 1, Subject: "jobs.0.7"})
	if n := got(); n != 0 {
		t.Fatalf("a publish on jobs.0.7 itself counted as mapped: %d", n)
	}
	pub(2, "jobs.7")
	o.event(command.Event{Kind: command.Received, Job: 1, Subject: "jobs.0.7"})
	pub(2, "jobs.0.7")
	o.event(command.Event{Kind: command.Received, Job: 1, Subject: "jobs.0.7"})
	if n := got(); n != 1 {
		t.Fatalf("one mapped publish among three deliveries counted %d times, want 1", n)
	}
	o.event(command.Event{Kind: command.JobEnded, Job: 1})
	pub(2, "jobs.7") // the subscriber is gone
	o.event(command.Event{Kind: command.JobStarted, Job: 1})
	pub(2, "jobs.0.7")
	o.event(command.Event{Kind: command.Received, Job: 1, Subject: "jobs.0.7"})
	if n := got(); n != 1 {
		t.Fatalf("a new subscriber counted a mapped publish made before it ran: %d, want 1", n)
	}
}

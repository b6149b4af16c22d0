package retention

import (
	"testing"
	"time"
)

// A publish is news at once, not at the next idle look: the tap wakes the
// poller, and the scene reads its look even while it animates (the lab
// delivers frames then, not waits).
func TestPublishShowsWithinAMoment(t *testing.T) {
	h := newHarness(t, Options{})
	h.makeStreams()
	for i, subject := range []string{"limits.note", "news.note", "work.job"} {
		start := time.Now()
		h.Run(`pub ` + subject + ` x --jetstream`)
		policy := Policies[i]
		h.Until("stored", func(s Snapshot) bool { return col(s, policy).Last == 1 })
		if el := time.Since(start); el > 2500*time.Millisecond { // well short of the 5 s idle look, with room for a loaded machine
			t.Fatalf("%s: the scene showed the publish after %v", subject, el)
		}
	}
}

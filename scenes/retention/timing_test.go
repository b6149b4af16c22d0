package retention

import (
	"testing"
	"time"
)

// A publish is news, not something for the next idle look: the tap wakes
// the poller, and the scene reads its look even while it animates (the lab
// delivers frames then, not waits).
func TestPublishIsNews(t *testing.T) {
	withoutIdleLooks(t)
	h := newHarness(t, Options{})
	h.makeStreams()
	for i, subject := range []string{"limits.note", "news.note", "work.job"} {
		h.Run(`pub ` + subject + ` x --jetstream`)
		policy := Policies[i]
		h.Until("stored", func(s Snapshot) bool { return col(s, policy).Last == 1 })
	}
}

// withoutIdleLooks leaves the scene no looks but those news brings: none
// while idle, and none in the moment after news.
func withoutIdleLooks(t *testing.T) {
	idle, busy := idlePoll, busyFor
	idlePoll, busyFor = time.Hour, 0
	t.Cleanup(func() { idlePoll, busyFor = idle, busy })
}

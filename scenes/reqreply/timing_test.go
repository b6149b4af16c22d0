package reqreply

import (
	"testing"
	"time"
)

// A responder coming and going is seen within a moment: the scene looks at
// the server's connections often enough, and reads what it saw even while
// it animates.
func TestRespondersSeenWithinAMoment(t *testing.T) {
	h := newHarness(t, Options{})
	h.Do("ask") // something animating
	start := time.Now()
	rep := h.Start(`reply time "it is {{Time}}"`)
	h.Until("responder", func(s Snapshot) bool { return len(s.Responders) == 1 && s.Watching })
	if el := time.Since(start); el > 2500*time.Millisecond { // room for a loaded machine
		t.Fatalf("the responder showed after %v", el)
	}
	start = time.Now()
	rep.Stop()
	<-rep.Done()
	h.Until("gone", func(s Snapshot) bool { return len(s.Responders) == 0 && !s.Watching })
	if el := time.Since(start); el > 2500*time.Millisecond { // room for a loaded machine
		t.Fatalf("the responder's leaving showed after %v", el)
	}
}

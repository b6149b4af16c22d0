package reqreply

import (
	"testing"
	"time"
)

// A responder coming and going is news: the scene counts the subject's
// interest and looks when it changes, without waiting for its idle look,
// and reads what it saw even while it animates.
func TestRespondersAreNews(t *testing.T) {
	withoutIdleLooks(t)
	h := newHarness(t, Options{})
	h.Do("ask") // something animating
	rep := h.Start(`reply time "it is {{Time}}"`)
	h.Until("responder", func(s Snapshot) bool { return len(s.Responders) == 1 && s.Watching })
	rep.Stop()
	<-rep.Done()
	h.Until("gone", func(s Snapshot) bool { return len(s.Responders) == 0 && !s.Watching })
}

// withoutIdleLooks puts the scene's idle look out of reach for the test:
// what it waits for has to come by news.
func withoutIdleLooks(t *testing.T) {
	old := idlePoll
	idlePoll = time.Hour
	t.Cleanup(func() { idlePoll = old })
}

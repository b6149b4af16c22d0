package reqreply

import (
	"testing"
	"time"

	"natslab/scenes/kit"
	"natslab/scenes/kit/kittest"
)

// benchScene has a train of round trips in flight at 118x18.
func benchScene(b *testing.B) *harness {
	h := newHarness(b, Options{})
	h.Scene.Styles = kit.NewStyles(true)
	h.Start(`reply time "it is {{Time}}"`)
	h.Settle("responder", func(s Snapshot) bool { return len(s.Responders) == 1 && s.Watching })
	if _, err := h.Try(`request time "" --count 10`); err != nil {
		b.Fatal(err)
	}
	h.Settle("ten", func(s Snapshot) bool { return s.Replies == 10 })
	h.Scene.SetSize(118, 18)
	return h
}

// Drawing a frame mid-animation: what each frame costs.
func BenchmarkViewAnimating(b *testing.B) {
	h := benchScene(b)
	kittest.BenchAnimating(b, h.Clock, h.Scene.View)
}

// Drawing when nothing moved costs nothing: the cached frame.
func BenchmarkViewIdle(b *testing.B) {
	h := benchScene(b)
	h.Clock.Advance(time.Minute)
	kittest.BenchIdle(b, h.Scene.View)
}

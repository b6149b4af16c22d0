package reqreply

import (
	"testing"

	"natslab/scenes/kit"
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
func BenchmarkViewAnimating(b *testing.B) { benchScene(b).BenchAnimating(b) }

// Drawing when nothing moved costs nothing: the cached frame.
func BenchmarkViewIdle(b *testing.B) { benchScene(b).BenchIdle(b) }

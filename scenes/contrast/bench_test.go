package contrast

import (
	"testing"
	"time"

	"natslab/scenes/kit"
	"natslab/scenes/kit/kittest"
)

// benchScene is a split scene at 120x40 with a train of messages in flight
// on both sides, as 20 messages a second look.
func benchScene(b *testing.B) *harness {
	h := newHarness(b, Options{Mode: Split})
	h.Scene.Styles = kit.NewStyles(true)
	h.Settle("ready", func(s Snapshot) bool { return s.JS.Ready && s.JS.Known })
	h.Do("publish", "20")
	h.Settle("20", func(s Snapshot) bool { return s.Published == 20 && s.JS.Received == 20 })
	h.Scene.SetSize(120, 40)
	return h
}

// Drawing a frame mid-animation: what each of the frames costs.
func BenchmarkViewAnimating(b *testing.B) {
	h := benchScene(b)
	kittest.BenchAnimating(b, h.Clock, h.Scene.View)
}

// Drawing when nothing moved: the lab calls View after every message it
// gets (keys typed in the pane), and this must cost nothing.
func BenchmarkViewIdle(b *testing.B) {
	h := benchScene(b)
	h.Clock.Advance(time.Minute)
	kittest.BenchIdle(b, h.Scene.View)
}

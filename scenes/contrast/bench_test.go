package contrast

import (
	"testing"
	"time"

	"natslab/scenes/kit"
)

// benchScene is a split scene at 120x40 with a train of messages in flight
// on both sides, as 20 messages a second look.
func benchScene(b *testing.B) *harness {
	h := newHarness(b, Options{Mode: Split})
	h.s.Styles = kit.NewStyles(true)
	h.settle("ready", func(s Snapshot) bool { return s.JS.Ready && s.JS.Known })
	h.do("publish", "20")
	h.settle("20", func(s Snapshot) bool { return s.Published == 20 && s.JS.Received == 20 })
	h.s.SetSize(120, 40)
	return h
}

// Drawing a frame mid-animation: what each of the frames costs.
func BenchmarkViewAnimating(b *testing.B) {
	h := benchScene(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.clock.Advance(time.Millisecond) // every frame differs
		if i%1000 == 0 {
			h.clock.Advance(-time.Second) // keep the train in flight
		}
		_ = h.s.View()
	}
}

// Drawing when nothing moved: the lab calls View after every message it
// gets (keys typed in the pane), and this must cost nothing.
func BenchmarkViewIdle(b *testing.B) {
	h := benchScene(b)
	h.clock.Advance(time.Minute)
	_ = h.s.View()
	_ = h.s.View()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = h.s.View()
	}
}

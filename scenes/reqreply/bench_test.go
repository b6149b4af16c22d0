package reqreply

import (
	"testing"
	"time"

	"natslab/scenes/kit"
)

// benchScene has a train of round trips in flight at 118x18.
func benchScene(b *testing.B) *harness {
	h := newHarness(b, Options{})
	h.s.Styles = kit.NewStyles(true)
	h.job(`reply time "it is {{Time}}"`)
	h.settle("responder", func(s Snapshot) bool { return len(s.Responders) == 1 && s.Watching })
	if _, err := h.run(`request time "" --count 10`); err != nil {
		b.Fatal(err)
	}
	h.settle("ten", func(s Snapshot) bool { return s.Replies == 10 })
	h.s.SetSize(118, 18)
	return h
}

// Drawing a frame mid-animation: what each frame costs.
func BenchmarkViewAnimating(b *testing.B) {
	h := benchScene(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.clock.Advance(time.Millisecond)
		if i%1000 == 0 {
			h.clock.Advance(-time.Second) // keep the train in flight
		}
		_ = h.s.View()
	}
}

// Drawing when nothing moved costs nothing: the cached frame.
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

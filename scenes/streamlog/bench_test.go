package streamlog

import (
	"testing"
	"time"

	"natslab/scenes/kit"
)

// benchScene has two logs at 118x18, publishes and acknowledgements in
// flight and the window sliding.
func benchScene(b *testing.B) *harness {
	h := newHarness(b, Options{})
	h.s.Styles = kit.NewStyles(true)
	h.add(`stream add ORDERS --subjects "orders.>" --max-msgs 8 --defaults`, "ORDERS")
	h.add(`stream add EVENTS --subjects "events.>" --defaults`, "EVENTS")
	h.must(`pub orders.new "order {{Count}}" --count 20 --jetstream`)
	h.must(`pub events.new "event {{Count}}" --count 20 --jetstream`)
	h.settle("stored", func(s Snapshot) bool {
		e, _ := laneOf(s, "EVENTS")
		return orders(s).Last == 20 && e.Last == 20 && e.Seen.Acked == 20
	})
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
			h.clock.Advance(-time.Second) // keep things in flight
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

package streamlog

import (
	"testing"

	"natslab/scenes/kit"
)

// benchScene has two logs at 118x18, publishes and acknowledgements in
// flight and the window sliding.
func benchScene(b *testing.B) *harness {
	h := newHarness(b, Options{})
	h.Scene.Styles = kit.NewStyles(true)
	h.add(`stream add ORDERS --subjects "orders.>" --max-msgs 8 --defaults`, "ORDERS")
	h.add(`stream add EVENTS --subjects "events.>" --defaults`, "EVENTS")
	h.Run(`pub orders.new "order {{Count}}" --count 20 --jetstream`)
	h.Run(`pub events.new "event {{Count}}" --count 20 --jetstream`)
	h.Settle("stored", func(s Snapshot) bool {
		e, _ := laneOf(s, "EVENTS")
		return orders(s).Last == 20 && e.Last == 20 && e.Seen.Acked == 20
	})
	h.Scene.SetSize(118, 18)
	return h
}

// Drawing a frame mid-animation: what each frame costs.
func BenchmarkViewAnimating(b *testing.B) { benchScene(b).BenchAnimating(b) }

// Drawing when nothing moved costs nothing: the cached frame.
func BenchmarkViewIdle(b *testing.B) { benchScene(b).BenchIdle(b) }

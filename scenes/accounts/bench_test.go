package accounts

import (
	"testing"

	"natslab/scenes/kit"
)

// benchScene has the lesson's accounts with a subscriber on each side of
// the stream import, and orders crossing it, at 118x18.
func benchScene(b *testing.B) *harness {
	h := newHarness(b)
	h.Scene.Styles = kit.NewStyles(true)
	audit, shop := h.as(b, "audit"), h.as(b, "shop")
	for _, subject := range []string{"orders.>", "shop.orders.>"} {
		if _, err := audit.SubscribeSync(subject); err != nil {
			b.Fatal(err)
		}
	}
	flush(b, audit)
	h.Settle("the subscriber", func(s Snapshot) bool { l, _ := s.Link("stream", "AUDIT"); return l.Subscribers == 1 })
	for range 6 {
		if err := shop.Publish("orders.new", nil); err != nil {
			b.Fatal(err)
		}
	}
	flush(b, shop)
	h.Settle("six across", func(s Snapshot) bool { l, _ := s.Link("stream", "AUDIT"); return l.Crossed == 6 })
	h.Scene.SetSize(118, 18)
	return h
}

// One look at the server: what the driver costs, four times a second.
func BenchmarkLook(b *testing.B) {
	h := benchScene(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.Scene.d.look()
	}
}

// Drawing a frame mid-animation: what each frame costs.
func BenchmarkViewAnimating(b *testing.B) { benchScene(b).BenchAnimating(b) }

// Drawing when nothing moved costs nothing: the cached frame.
func BenchmarkViewIdle(b *testing.B) { benchScene(b).BenchIdle(b) }

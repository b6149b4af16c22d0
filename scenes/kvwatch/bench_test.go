package kvwatch

import (
	"testing"
	"time"

	"natslab/scenes/kit"
)

// A bucket of 12 keys at 120x40 with a write in flight.
func benchScene(b *testing.B) *harness {
	h := newHarness(b, "kv add config --history 5")
	h.s.Styles = kit.NewStyles(true)
	for i := 0; i < 12; i++ {
		h.run("kv put config key" + string(rune('a'+i)) + " value")
	}
	h.settle("keys", func(s Snapshot) bool { return len(s.Keys) == 12 && last(s).Rev == 12 })
	h.s.SetSize(120, 40)
	return h
}

func BenchmarkViewAnimating(b *testing.B) {
	h := benchScene(b)
	h.run("kv put config keya other")
	h.settle("write", func(s Snapshot) bool { return last(s).Rev == 13 })
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.clock.Advance(time.Microsecond) // every frame differs, the write stays in flight
		_ = h.s.View()
	}
}

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

package kvwatch

import (
	"testing"
	"time"

	"natslab/scenes/kit"
)

// A bucket of 12 keys at 120x40 with a write in flight.
func benchScene(b *testing.B) *harness {
	h := newHarness(b, "kv add config --history 5")
	h.Scene.Styles = kit.NewStyles(true)
	for i := 0; i < 12; i++ {
		h.Run("kv put config key" + string(rune('a'+i)) + " value")
	}
	h.Settle("keys", func(s Snapshot) bool { return len(s.Keys) == 12 && last(s).Rev == 12 })
	h.Scene.SetSize(120, 40)
	return h
}

func BenchmarkViewAnimating(b *testing.B) {
	h := benchScene(b)
	h.Run("kv put config keya other")
	h.Settle("write", func(s Snapshot) bool { return last(s).Rev == 13 })
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.Clock.Advance(time.Microsecond) // every frame differs, the write stays in flight
		_ = h.Scene.View()
	}
}

func BenchmarkViewIdle(b *testing.B) { benchScene(b).BenchIdle(b) }

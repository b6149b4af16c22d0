package retention

import (
	"testing"
	"time"

	"natslab/scenes/kit"
)

// benchScene has three streams with consumers and acknowledgements in
// flight at 118x18.
func benchScene(b *testing.B) *harness {
	h := newHarness(b, Options{})
	h.s.Styles = kit.NewStyles(true)
	h.makeStreams()
	for _, line := range []string{
		`consumer add INTEREST a --pull --defaults`, `consumer add INTEREST b --pull --defaults`,
		`consumer add WORK w --pull --defaults`, `consumer add LIMITS l --pull --defaults`,
	} {
		h.must(line)
	}
	h.do("publish", "10")
	for _, line := range []string{`consumer next INTEREST a --count 5`, `consumer next WORK w --count 5`, `consumer next LIMITS l --count 5`} {
		h.must(line)
	}
	h.settle("acked", func(s Snapshot) bool { return col(s, "workqueue").Msgs == 5 && col(s, "limits").Acks == 5 })
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
			h.clock.Advance(-time.Second)
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

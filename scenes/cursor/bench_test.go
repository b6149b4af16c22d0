package cursor

import (
	"testing"
	"time"

	"natslab/scenes/kit"
)

// benchScene is a pool at 120x40 with two messages counting down and a
// delivery in flight: what each frame of a busy lesson costs.
func benchScene(b *testing.B) *harness {
	h := newHarness(b, "stream add JOBS --subjects 'jobs.>' --defaults",
		`pub jobs.resize "resize image {{Count}}" --count 40 --jetstream`,
		"consumer add JOBS pool --pull --ack explicit --wait 30s --defaults",
		`consumer add JOBS audit --pull --filter "jobs.resize" --defaults`)
	h.s.Styles = kit.NewStyles(true)
	h.run("consumer next JOBS pool --count 3")
	h.run("consumer next JOBS pool --no-ack")
	h.run("consumer next JOBS pool --no-ack")
	h.settle("two out", func(s Snapshot) bool { return len(consumer(s, "pool").Out) == 2 })
	h.s.SetSize(120, 40)
	return h
}

// A frame while the ack waits count down: every frame differs.
func BenchmarkViewCountdown(b *testing.B) {
	h := benchScene(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.clock.Advance(time.Millisecond)
		if i%1000 == 0 {
			h.clock.Advance(-time.Second) // keep the countdown running
		}
		_ = h.s.View()
	}
}

// Nothing moved: the lab calls View after every message it gets, and this
// must cost nothing.
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

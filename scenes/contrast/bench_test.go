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
	h.Scene.Styles = kit.NewStyles(true)
	h.Settle("ready", func(s Snapshot) bool { return s.JS.Ready && s.JS.Known })
	h.Do("publish", "20")
	h.Settle("20", func(s Snapshot) bool { return s.Published == 20 && s.JS.Received == 20 })
	h.Scene.SetSize(120, 40)
	return h
}

// Drawing a frame mid-animation: what each of the frames costs.
func BenchmarkViewAnimating(b *testing.B) { benchScene(b).BenchAnimating(b) }

// Drawing when nothing moved: the lab calls View after every message it
// gets (keys typed in the pane), and this must cost nothing.
func BenchmarkViewIdle(b *testing.B) { benchScene(b).BenchIdle(b) }

// After a flood of a million messages the scene answers and draws as it
// did before: a publish (the control waits for the server's confirmation)
// and a frame drawn afresh, each reported as a ratio against the same
// scene before the flood, in the same run.
func BenchmarkAfterFlood(b *testing.B) {
	h := newHarness(b, Options{Mode: JetStream})
	h.Settle("ready", func(s Snapshot) bool { return s.JS.Ready && s.JS.Known })
	const rounds = 20
	measure := func() (publish, draw time.Duration) {
		for i := 0; i < rounds; i++ {
			start := time.Now()
			h.Do("publish")
			publish += time.Since(start)
			h.Scene.Touch()
			start = time.Now()
			h.View(120, 20)
			draw += time.Since(start)
		}
		return publish / rounds, draw / rounds
	}
	pub0, draw0 := measure()
	flood(b, h, rounds, 1_000_000)
	var pub1, draw1 time.Duration
	for b.Loop() {
		pub1, draw1 = measure()
	}
	b.ReportMetric(float64(pub1)/float64(pub0), "publish-x-before")
	b.ReportMetric(float64(draw1)/float64(draw0), "draw-x-before")
}

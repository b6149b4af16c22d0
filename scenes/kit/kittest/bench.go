package kittest

import (
	"testing"
	"time"

	"natslab/scenes/kit"
)

// BenchAnimating measures a frame drawn mid-animation: the clock moves a
// millisecond before each (every frame differs), and steps back a second
// now and then so that what is in flight stays in flight.
func BenchAnimating(b *testing.B, clock *kit.ManualClock, view func() string) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clock.Advance(time.Millisecond)
		if i%1000 == 0 {
			clock.Advance(-time.Second)
		}
		_ = view()
	}
}

// BenchIdle measures View when nothing moved, as the lab calls it after
// every message it gets: the cached frame, which must cost nothing. The
// caller has let everything come to rest.
func BenchIdle(b *testing.B, view func() string) {
	_ = view()
	_ = view()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = view()
	}
}

// BenchAnimating measures a frame of the scene drawn mid-animation
// (BenchAnimating on the harness's clock): what each frame costs.
func (h *Harness[Sc, S]) BenchAnimating(b *testing.B) {
	BenchAnimating(b, h.Clock, h.Scene.View)
}

// BenchIdle measures View once everything has come to rest, a minute
// later on the clock (BenchIdle): the cached frame, which must cost
// nothing.
func (h *Harness[Sc, S]) BenchIdle(b *testing.B) {
	h.Clock.Advance(time.Minute)
	BenchIdle(b, h.Scene.View)
}

package cursor

import (
	"testing"

	"natslab/scenes/kit"
)

// benchScene is a pool at 120x40 with two messages counting down and a
// delivery in flight: what each frame of a busy lesson costs.
func benchScene(b *testing.B) *harness {
	h := newHarness(b, "stream add JOBS --subjects 'jobs.>' --defaults",
		`pub jobs.resize "resize image {{Count}}" --count 40 --jetstream`,
		"consumer add JOBS pool --pull --ack explicit --wait 30s --defaults",
		`consumer add JOBS audit --pull --filter "jobs.resize" --defaults`)
	h.Scene.Styles = kit.NewStyles(true)
	h.Run("consumer next JOBS pool --count 3")
	h.Run("consumer next JOBS pool --no-ack")
	h.Run("consumer next JOBS pool --no-ack")
	h.Settle("two out", func(s Snapshot) bool { return len(consumer(s, "pool").Out) == 2 })
	h.Scene.SetSize(120, 40)
	return h
}

// A frame while the ack waits count down: every frame differs.
func BenchmarkViewCountdown(b *testing.B) { benchScene(b).BenchAnimating(b) }

// Nothing moved: the lab calls View after every message it gets, and this
// must cost nothing.
func BenchmarkViewIdle(b *testing.B) { benchScene(b).BenchIdle(b) }

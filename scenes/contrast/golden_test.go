package contrast

import (
	"testing"
	"time"

	"natslab/scenes/kit/kittest"
)

// Goldens of the scene at each stage of the story, drawn on a manual clock
// (ANSI stripped: the picture, not the palette). Update with -update.

func TestGoldenCore(t *testing.T) {
	h := newHarness(t, Options{})
	const w, ht = 100, 10
	h.Golden(t, "1-start", w, ht)

	h.Do("publish", "2")
	h.Settle("received 2", func(s Snapshot) bool { return s.Core.Received == 2 })
	h.Clock.Advance(300 * time.Millisecond)
	h.Golden(t, "2-online-publish-in-flight", w, ht)
	h.Clock.Advance(700 * time.Millisecond)
	h.Golden(t, "3-online-publish-delivered", w, ht)
	h.Clock.Advance(3 * time.Second)

	h.Do("offline")
	h.Settle("offline", func(s Snapshot) bool { return !s.Core.Online })
	h.Golden(t, "4-offline", w, ht)

	h.Do("publish", "3")
	h.Settle("lost 3", func(s Snapshot) bool { return s.Core.Lost == 3 })
	h.Clock.Advance(600 * time.Millisecond)
	h.Golden(t, "5-offline-publish-in-flight", w, ht)
	h.Clock.Advance(500 * time.Millisecond)
	h.Golden(t, "6-offline-publish-fading", w, ht)
	h.Clock.Advance(3 * time.Second)
	h.Golden(t, "7-lost", w, ht)

	h.Do("online")
	h.Settle("online", func(s Snapshot) bool { return s.Core.Online })
	h.Clock.Advance(3 * time.Second)
	h.Golden(t, "8-back-online-nothing-arrives", w, ht)
}

func TestGoldenJetStream(t *testing.T) {
	h := newHarness(t, Options{})
	const w, ht = 110, 10
	h.Do("mode", "jetstream")
	h.Settle("ready", func(s Snapshot) bool { return s.JS.Ready && s.JS.Known })
	h.Clock.Advance(3 * time.Second)
	h.Golden(t, "1-start", w, ht)

	h.Do("offline")
	h.Settle("offline", func(s Snapshot) bool { return !s.JS.Online })
	h.Clock.Advance(3 * time.Second)
	h.Golden(t, "2-offline", w, ht)

	for i := uint64(1); i <= 3; i++ {
		h.Do("publish")
		h.Settle("pending climbs", func(s Snapshot) bool { return s.JS.Pending == i && s.JS.LastSeq == i })
		if i == 3 {
			h.Clock.Advance(300 * time.Millisecond)
			h.Golden(t, "3-pending-3-in-flight", w, ht)
		}
		h.Clock.Advance(3 * time.Second)
	}
	h.Golden(t, "4-pending-3", w, ht)

	h.Do("online")
	h.Settle("drained", func(s Snapshot) bool { return s.JS.Pending == 0 && s.JS.Received == 3 })
	h.Clock.Advance(250 * time.Millisecond)
	h.Golden(t, "5-replay-in-flight", w, ht)
	h.Clock.Advance(3 * time.Second)
	h.Golden(t, "6-drained", w, ht)
}

func TestGoldenSizes(t *testing.T) {
	h := newHarness(t, Options{Mode: Split})
	h.Settle("ready", func(s Snapshot) bool { return s.JS.Ready && s.JS.Known })
	h.Do("offline")
	h.Do("publish", "4")
	// Everything drawn: the stream's count and the consumer's are read
	// apart, so one may come before the other.
	h.Settle("pending 4, lost 4", func(s Snapshot) bool {
		return s.JS.Pending == 4 && s.JS.Msgs == 4 && s.Core.Lost == 4 && s.Published == 4
	})
	h.Clock.Advance(3 * time.Second)
	h.GoldenSizes(t,
		kittest.Size{Name: "split-120x20-stacked", W: 120, H: 20},
		kittest.Size{Name: "split-200x8-side-by-side", W: 200, H: 8},
		kittest.Size{Name: "split-60x16-short-labels", W: 60, H: 16},
		kittest.Size{Name: "split-40x10-compact", W: 40, H: 10},
		kittest.Size{Name: "split-30x3-lines", W: 30, H: 3},
		kittest.Size{Name: "split-1x1", W: 1, H: 1},
	)
}

func TestGoldenPresenter(t *testing.T) {
	h := newHarness(t, Options{Presenter: true, Mode: JetStream})
	h.Settle("ready", func(s Snapshot) bool { return s.JS.Ready && s.JS.Known })
	h.Do("offline")
	h.Do("publish", "3")
	h.Settle("pending 3, stored 3", func(s Snapshot) bool { return s.JS.Pending == 3 && s.JS.Msgs == 3 && s.Published == 3 })
	h.Clock.Advance(250 * time.Millisecond)
	h.Golden(t, "pending-in-flight", 120, 36)
	h.Clock.Advance(3 * time.Second)
	h.Golden(t, "pending-3", 120, 36)
}

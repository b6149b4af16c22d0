package contrast

import (
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
)

// Goldens of the scene at each stage of the story, drawn on a manual clock
// (ANSI stripped: the picture, not the palette). Update with -update.

// settle delivers the scene's events until cond holds and a moment more,
// so every event of the stage is in before the clock moves.
func (h *harness) settle(what string, cond func(Snapshot) bool) {
	h.t.Helper()
	h.until(what, cond)
	h.quiet(100 * time.Millisecond)
}

func (h *harness) golden(t *testing.T, name string, w, hgt int) {
	t.Helper()
	v := h.view(w, hgt)
	t.Run(name, func(t *testing.T) { golden.RequireEqual(t, v) })
}

func TestGoldenCore(t *testing.T) {
	h := newHarness(t, Options{})
	const w, ht = 100, 10
	h.golden(t, "1-start", w, ht)

	h.do("publish", "2")
	h.settle("received 2", func(s Snapshot) bool { return s.Core.Received == 2 })
	h.clock.Advance(300 * time.Millisecond)
	h.golden(t, "2-online-publish-in-flight", w, ht)
	h.clock.Advance(700 * time.Millisecond)
	h.golden(t, "3-online-publish-delivered", w, ht)
	h.clock.Advance(3 * time.Second)

	h.do("offline")
	h.settle("offline", func(s Snapshot) bool { return !s.Core.Online })
	h.golden(t, "4-offline", w, ht)

	h.do("publish", "3")
	h.settle("lost 3", func(s Snapshot) bool { return s.Core.Lost == 3 })
	h.clock.Advance(600 * time.Millisecond)
	h.golden(t, "5-offline-publish-in-flight", w, ht)
	h.clock.Advance(500 * time.Millisecond)
	h.golden(t, "6-offline-publish-fading", w, ht)
	h.clock.Advance(3 * time.Second)
	h.golden(t, "7-lost", w, ht)

	h.do("online")
	h.settle("online", func(s Snapshot) bool { return s.Core.Online })
	h.clock.Advance(3 * time.Second)
	h.golden(t, "8-back-online-nothing-arrives", w, ht)
}

func TestGoldenJetStream(t *testing.T) {
	h := newHarness(t, Options{})
	const w, ht = 110, 10
	h.do("mode", "jetstream")
	h.settle("ready", func(s Snapshot) bool { return s.JS.Ready && s.JS.Known })
	h.clock.Advance(3 * time.Second)
	h.golden(t, "1-start", w, ht)

	h.do("offline")
	h.settle("offline", func(s Snapshot) bool { return !s.JS.Online })
	h.clock.Advance(3 * time.Second)
	h.golden(t, "2-offline", w, ht)

	for i := uint64(1); i <= 3; i++ {
		h.do("publish")
		h.settle("pending climbs", func(s Snapshot) bool { return s.JS.Pending == i && s.JS.LastSeq == i })
		if i == 3 {
			h.clock.Advance(300 * time.Millisecond)
			h.golden(t, "3-pending-3-in-flight", w, ht)
		}
		h.clock.Advance(3 * time.Second)
	}
	h.golden(t, "4-pending-3", w, ht)

	h.do("online")
	h.settle("drained", func(s Snapshot) bool { return s.JS.Pending == 0 && s.JS.Received == 3 })
	h.clock.Advance(250 * time.Millisecond)
	h.golden(t, "5-replay-in-flight", w, ht)
	h.clock.Advance(3 * time.Second)
	h.golden(t, "6-drained", w, ht)
}

func TestGoldenSizes(t *testing.T) {
	h := newHarness(t, Options{Mode: Split})
	h.settle("ready", func(s Snapshot) bool { return s.JS.Ready && s.JS.Known })
	h.do("offline")
	h.do("publish", "4")
	h.settle("pending 4, lost 4", func(s Snapshot) bool { return s.JS.Pending == 4 && s.Core.Lost == 4 })
	h.clock.Advance(3 * time.Second)
	for _, sz := range []struct {
		name string
		w, h int
	}{
		{"split-120x20-stacked", 120, 20},
		{"split-200x8-side-by-side", 200, 8},
		{"split-60x16-short-labels", 60, 16},
		{"split-40x10-compact", 40, 10},
		{"split-30x3-lines", 30, 3},
		{"split-1x1", 1, 1},
	} {
		h.golden(t, sz.name, sz.w, sz.h)
	}
}

func TestGoldenPresenter(t *testing.T) {
	h := newHarness(t, Options{Presenter: true, Mode: JetStream})
	h.settle("ready", func(s Snapshot) bool { return s.JS.Ready && s.JS.Known })
	h.do("offline")
	h.do("publish", "3")
	h.settle("pending 3", func(s Snapshot) bool { return s.JS.Pending == 3 })
	h.clock.Advance(250 * time.Millisecond)
	h.golden(t, "pending-in-flight", 120, 36)
	h.clock.Advance(3 * time.Second)
	h.golden(t, "pending-3", 120, 36)
}

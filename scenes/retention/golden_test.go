package retention

import (
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
)

// Goldens of the scene at each stage of episode 15, on a manual clock, ANSI
// stripped (the picture, not the palette). Update with -update.

func (h *harness) golden(t *testing.T, name string, w, hgt int) {
	t.Helper()
	v := h.view(w, hgt)
	t.Run(name, func(t *testing.T) { golden.RequireEqual(t, v) })
}

const gw, gh = 68, 12 // the scene pane beside a lesson in a 120x40 terminal

func TestGoldenEpisode(t *testing.T) {
	h := newHarness(t, Options{})
	h.settle("started", func(s Snapshot) bool { return s.ServerUp })
	h.golden(t, "1-no-streams", gw, gh)
	h.makeStreams()
	h.golden(t, "2-three-streams", gw, gh)

	h.must(`pub news.note "does anyone want this?" --jetstream`)
	h.settle("dropped", func(s Snapshot) bool { return col(s, "interest").Last == 1 })
	h.clock.Advance(500 * time.Millisecond)
	h.golden(t, "3-interest-drops-at-once", gw, gh)
	h.clock.Advance(5 * time.Second)

	h.must(`consumer add INTEREST a --pull --defaults`)
	h.must(`consumer add INTEREST b --pull --defaults`)
	h.must(`pub news.note "for both of you" --jetstream`)
	h.settle("kept", func(s Snapshot) bool { c := col(s, "interest"); return c.Msgs == 1 && len(c.Consumers) == 2 })
	h.must(`consumer next INTEREST a`)
	h.settle("a acked", func(s Snapshot) bool { return cons(col(s, "interest"), "a").AckFloor == 2 })
	h.clock.Advance(250 * time.Millisecond)
	h.golden(t, "4-ack-travels-to-a", gw, gh)
	h.clock.Advance(5 * time.Second)
	h.golden(t, "5-kept-for-b", gw, gh)

	h.must(`consumer next INTEREST b`)
	h.settle("removed", func(s Snapshot) bool { return col(s, "interest").Msgs == 0 })
	h.clock.Advance(400 * time.Millisecond)
	h.golden(t, "6-removed-once-all-acked", gw, gh)
	h.clock.Advance(5 * time.Second)

	h.must(`consumer add WORK w --pull --defaults`)
	h.must(`pub work.job "do this once" --jetstream`)
	h.settle("queued", func(s Snapshot) bool { return col(s, "workqueue").Msgs == 1 })
	h.must(`consumer next WORK w`)
	h.settle("done", func(s Snapshot) bool { return col(s, "workqueue").Msgs == 0 })
	h.run(`consumer add WORK w2 --pull --defaults`)
	h.settle("refused", func(s Snapshot) bool { return col(s, "workqueue").Note != "" })
	h.must(`consumer add LIMITS l --pull --defaults`)
	h.must(`pub limits.note "here to stay" --jetstream`)
	h.must(`consumer next LIMITS l`)
	h.settle("kept", func(s Snapshot) bool { return cons(col(s, "limits"), "l").AckFloor == 1 })
	h.clock.Advance(5 * time.Second)
	h.golden(t, "7-all-three", gw, gh)
	for _, sz := range []struct {
		name string
		w, h int
	}{
		{"200x20", 200, 20},
		{"118x12", 118, 12},
		{"54x8", 54, 8},
		{"50x6-lines", 50, 6},
		{"1x1", 1, 1},
	} {
		h.golden(t, sz.name, sz.w, sz.h)
	}
}

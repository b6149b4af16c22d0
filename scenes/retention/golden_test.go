package retention

import (
	"slices"
	"strings"
	"testing"
	"time"

	"natslab/scenes"
	"natslab/scenes/kit/kittest"
)

// Goldens of the scene at each stage of episode 15, on a manual clock, ANSI
// stripped (the picture, not the palette). Update with -update.

const gw, gh = 68, 12 // the scene pane beside a lesson in a 120x40 terminal

func TestGoldenEpisode(t *testing.T) {
	h := newHarness(t, Options{})
	h.Settle("started", func(s Snapshot) bool { return s.ServerUp })
	h.Golden(t, "1-no-streams", gw, gh)
	h.makeStreams()
	h.Golden(t, "2-three-streams", gw, gh)

	h.Run(`pub news.note "does anyone want this?" --jetstream`)
	h.Settle("dropped", func(s Snapshot) bool { return col(s, "interest").Last == 1 })
	h.Clock.Advance(500 * time.Millisecond)
	h.Golden(t, "3-interest-drops-at-once", gw, gh)
	// Where the story's row has no room for why, it says what happened,
	// whole: at 100x30 it read 'INTEREST acknowledged #1 and kept
	// nothing: no …'.
	for _, sz := range slices.Concat(scenes.SmallestPanes, scenes.LessonPanes) {
		v := h.View(sz.W, sz.H)
		if !strings.Contains(v, "INTEREST acknowledged #1 and kept nothing") || strings.Contains(v, " …") {
			t.Errorf("at %dx%d the story is cut:\n%s", sz.W, sz.H, v)
		}
	}
	h.Clock.Advance(5 * time.Second)

	h.Run(`consumer add INTEREST a --pull --defaults`)
	h.Run(`consumer add INTEREST b --pull --defaults`)
	h.Run(`pub news.note "for both of you" --jetstream`)
	h.Settle("kept", func(s Snapshot) bool { c := col(s, "interest"); return c.Msgs == 1 && len(c.Consumers) == 2 })
	h.Run(`consumer next INTEREST a`)
	h.Settle("a acked", func(s Snapshot) bool { return cons(col(s, "interest"), "a").AckFloor == 2 })
	h.Clock.Advance(250 * time.Millisecond)
	h.Golden(t, "4-ack-travels-to-a", gw, gh)
	h.Clock.Advance(5 * time.Second)
	h.Golden(t, "5-kept-for-b", gw, gh)

	h.Run(`consumer next INTEREST b`)
	h.Settle("removed", func(s Snapshot) bool { return col(s, "interest").Msgs == 0 })
	h.Clock.Advance(400 * time.Millisecond)
	h.Golden(t, "6-removed-once-all-acked", gw, gh)
	h.Clock.Advance(5 * time.Second)

	h.Run(`consumer add WORK w --pull --defaults`)
	h.Run(`pub work.job "do this once" --jetstream`)
	h.Settle("queued", func(s Snapshot) bool { return col(s, "workqueue").Msgs == 1 })
	h.Run(`consumer next WORK w`)
	h.Settle("done", func(s Snapshot) bool { return col(s, "workqueue").Msgs == 0 })
	h.Try(`consumer add WORK w2 --pull --defaults`)
	h.Settle("refused", func(s Snapshot) bool { return col(s, "workqueue").Note != "" })
	// One change a look: the story is the last look's.
	h.Run(`consumer add LIMITS l --pull --defaults`)
	h.Settle("l", func(s Snapshot) bool { return cons(col(s, "limits"), "l").Name == "l" })
	h.Run(`pub limits.note "here to stay" --jetstream`)
	h.Settle("stored", func(s Snapshot) bool { c := col(s, "limits"); return c.Msgs == 1 && c.Last == 1 })
	h.Run(`consumer next LIMITS l`)
	h.Settle("kept", func(s Snapshot) bool { return cons(col(s, "limits"), "l").AckFloor == 1 })
	h.Clock.Advance(5 * time.Second)
	h.Golden(t, "7-all-three", gw, gh)
	h.GoldenSizes(t,
		kittest.Size{Name: "200x20", W: 200, H: 20},
		kittest.Size{Name: "118x12", W: 118, H: 12},
		kittest.Size{Name: "54x8", W: 54, H: 8},
		kittest.Size{Name: "50x6-lines", W: 50, H: 6},
		kittest.Size{Name: "1x1", W: 1, H: 1},
	)
	h.GoldenSizes(t,
		kittest.Size{Name: "44x7-80x24", W: 44, H: 7},
		kittest.Size{Name: "56x16-100x30-reading", W: 56, H: 16},
	)
	// The story of the lesson's last step reads to its end beside the
	// lesson: a column whose ack floor fits beside its stream gives up its
	// second row for it (at 80x24 it stopped at 'after it was read and …').
	for _, sz := range slices.Concat(scenes.SmallestPanes, scenes.LessonPanes) {
		if v := h.View(sz.W, sz.H); !strings.Contains(strings.Join(strings.Fields(v), " "), "LIMITS keeps #1 after it was read and acknowledged") {
			t.Errorf("at %dx%d the story is not whole:\n%s", sz.W, sz.H, v)
		}
	}
}

// With no stream yet, each command the scene lists to make one reads
// whole on its row, at every size the lab gives the scene: a command
// wrapped over rows, typed as it reads, fails.
func TestEmptyColumnsListWholeCommands(t *testing.T) {
	h := newHarness(t, Options{})
	h.Settle("started", func(s Snapshot) bool { return s.ServerUp })
	sizes := slices.Concat(scenes.SmallestPanes, scenes.LessonPanes, scenes.TypingPanes,
		[]scenes.PaneSize{{W: gw, H: gh}, {W: 118, H: 12}, {W: 200, H: 20}})
	for _, sz := range sizes {
		v := h.View(sz.W, sz.H)
		for _, l := range strings.Split(v, "\n") {
			if !strings.Contains(l, "stream add") {
				continue
			}
			whole := false
			for _, ex := range examples {
				whole = whole || strings.Contains(l, ex)
			}
			if !whole {
				t.Errorf("%dx%d: a command is cut on its row: %q\n%s", sz.W, sz.H, strings.TrimSpace(l), v)
				break
			}
		}
	}
}

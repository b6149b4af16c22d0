package reqreply

import (
	"strings"
	"testing"
	"time"

	"natslab/scenes"
	"natslab/scenes/kit/kittest"
)

// Goldens of the scene at each stage of episode 3, on a manual clock, ANSI
// stripped (the picture, not the palette); inbox names and measured round
// trips are normalised. Update with -update.

func TestGoldenEpisode(t *testing.T) {
	h := newHarness(t, Options{})
	const w, ht = 68, 12 // the scene pane beside a lesson in a 120x40 terminal
	h.Settle("started", func(s Snapshot) bool { return s.ServerUp })
	h.Golden(t, "1-nobody", w, ht)

	rep := h.Start(`reply time "it is {{Time}}"`)
	h.Settle("responder", func(s Snapshot) bool { return len(s.Responders) == 1 && s.Watching })
	h.Golden(t, "2-responder", w, ht)

	if _, err := h.Try(`request time "" --timeout 2s`); err != nil {
		t.Fatal(err)
	}
	h.Settle("served", func(s Snapshot) bool {
		return s.Replies == 1 && len(s.Responders) == 1 && s.Responders[0].Msgs == 1
	})
	h.Clock.Advance(300 * time.Millisecond)
	h.Golden(t, "3-request-in-flight", w, ht)
	h.Clock.Advance(900 * time.Millisecond)
	h.Golden(t, "4-reply-in-flight", w, ht)
	h.Clock.Advance(3 * time.Second)
	h.Golden(t, "5-round-trip-done", w, ht)

	rep.Stop()
	<-rep.Done()
	h.Settle("nobody again", func(s Snapshot) bool { return len(s.Responders) == 0 && !s.Watching })
	h.Clock.Advance(3 * time.Second)
	h.Do("ask")
	h.Settle("bounced", func(s Snapshot) bool { return s.Bounced == 1 })
	h.Clock.Advance(300 * time.Millisecond)
	h.Golden(t, "6-ask-in-flight", w, ht)
	h.Clock.Advance(400 * time.Millisecond)
	h.Golden(t, "7-bounce", w, ht)
	h.Clock.Advance(3 * time.Second)
	h.Golden(t, "8-bounced", w, ht)
}

func TestGoldenSizes(t *testing.T) {
	h := newHarness(t, Options{})
	h.Start(`reply time one`)
	h.Start(`reply time two --queue other`)
	h.Settle("two responders", func(s Snapshot) bool { return len(s.Responders) == 2 && s.Watching })
	if _, err := h.Try(`request time "" --count 3`); err != nil {
		t.Fatal(err)
	}
	h.Settle("three round trips", func(s Snapshot) bool { return s.Replies == 3 })
	h.Until("served", func(s Snapshot) bool { return s.Responders[0].Msgs+s.Responders[1].Msgs == 6 })
	h.Clock.Advance(5 * time.Second)
	h.GoldenSizes(t,
		kittest.Size{Name: "200x20", W: 200, H: 20},
		kittest.Size{Name: "118x12", W: 118, H: 12},
		kittest.Size{Name: "44x7-80x24", W: 44, H: 7},
		kittest.Size{Name: "48x6-compact", W: 48, H: 6},
		kittest.Size{Name: "40x3-compact", W: 40, H: 3},
		kittest.Size{Name: "30x2-line", W: 30, H: 2},
		kittest.Size{Name: "1x1", W: 1, H: 1},
	)
	// The compact picture, at 80x24, says how many responders there
	// are, as the full picture's box does.
	for _, sz := range scenes.SmallestPanes {
		if v := h.View(sz.W, sz.H); !strings.Contains(v, "[2 responders]") {
			t.Errorf("at %dx%d the picture does not say how many responders there are:\n%s", sz.W, sz.H, v)
		}
	}
	h.NeverCut(t, "two responders")
}

package core

import (
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
)

// Goldens of each scene at each stage of its episode, drawn on a manual
// clock (ANSI stripped: the picture, not the palette). Update with -update.
// 68x12 is the scene pane of a 120x40 lab with the lesson open.

func (h *harness) golden(t *testing.T, name string, w, hgt int) {
	t.Helper()
	v := h.view(w, hgt)
	t.Run(name, func(t *testing.T) { golden.RequireEqual(t, v) })
}

func TestGoldenHello(t *testing.T) {
	h := newHarness(t, Hello)
	const w, ht = 68, 12
	h.golden(t, "1-nobody", w, ht)
	h.golden(t, "1-nobody-44x7", 44, 7) // the scene pane of an 80x24 lab with the lesson open

	h.run(`pub greet "Is anyone there?"`)
	h.until("unheard", func(s Snapshot) bool { return s.Unheard == 1 })
	h.clock.Advance(250 * time.Millisecond)
	h.golden(t, "2-unheard-on-its-way", w, ht)
	h.clock.Advance(900 * time.Millisecond)
	h.golden(t, "3-unheard-fading", w, ht)
	h.clock.Advance(3 * time.Second)
	h.golden(t, "4-unheard-gone", w, ht)

	h.start("sub greet")
	tcpSub(t, h.srv.ClientURL(), "greet")
	h.until("two subscribers", subsOn("greet", 2))
	h.clock.Advance(3 * time.Second)
	h.golden(t, "5-two-subscribers", w, ht)

	h.run(`pub greet "Hello NATS!"`)
	h.until("delivered", func(s Snapshot) bool { return s.Delivered() == 2 })
	h.clock.Advance(250 * time.Millisecond)
	h.golden(t, "6-to-the-server", w, ht)
	h.clock.Advance(450 * time.Millisecond)
	h.golden(t, "7-fanned-out", w, ht)
	h.clock.Advance(3 * time.Second)
	h.golden(t, "8-delivered", w, ht)

	for _, sz := range []struct {
		name string
		w, h int
	}{
		{"size-200x20", 200, 20},
		{"size-118x12", 118, 12},
		{"size-40x8", 40, 8},
		{"size-30x4", 30, 4},
		{"size-40x2-line", 40, 2},
		{"size-1x1", 1, 1},
	} {
		h.golden(t, sz.name, sz.w, sz.h)
	}
}

func TestGoldenWildcards(t *testing.T) {
	h := newHarness(t, Wildcards)
	h.start(`sub "orders.*.created"`)
	h.start(`sub "orders.>"`)
	h.until("two filters", func(s Snapshot) bool { return len(s.Subs) == 2 })
	h.clock.Advance(3 * time.Second)
	h.golden(t, "1-filters", 110, 14)
	for i, subject := range []string{"orders.us.created", "orders.created", "orders.us.west.created"} {
		h.run("pub " + subject + " order")
		h.until(subject, func(s Snapshot) bool { return s.Published == uint64(i+1) && s.Delivered() == uint64(i+2) })
		h.clock.Advance(700 * time.Millisecond) // at the server, two tokens compared
		h.golden(t, subject+"-1-comparing", 110, 14)
		h.clock.Advance(3 * time.Second)
		h.golden(t, subject+"-2-verdict", 110, 14)
	}
	h.golden(t, "size-68x12-verdicts-below", 68, 12)
	h.golden(t, "size-68x6-one-line-each", 68, 6)
	h.golden(t, "size-40x10", 40, 10)
}

func TestGoldenQueues(t *testing.T) {
	h := newHarness(t, Queues)
	const w, ht = 68, 12
	h.start("sub tasks --queue workers")
	h.start("sub tasks --queue workers")
	h.until("two members", subsOn("tasks", 2))
	h.clock.Advance(3 * time.Second)
	h.golden(t, "1-two-workers", w, ht)

	h.sixSplitEvenly(6)
	h.clock.Advance(900 * time.Millisecond)
	h.golden(t, "2-dealt-out", w, ht)
	h.clock.Advance(5 * time.Second)
	h.golden(t, "3-split-3-3", w, ht)

	h.start("sub tasks --queue worker")
	h.until("a second group", subsOn("tasks", 3))
	h.sixSplitEvenly(12)
	h.clock.Advance(5 * time.Second)
	h.golden(t, "4-typo-doubles-delivery", w, ht)
	h.golden(t, "size-118x12", 118, 12)
	h.golden(t, "size-40x8", 40, 8)
}

// sixSplitEvenly publishes six tasks, again and again from a reset, until
// the two members of workers got three each: the server picks a member at
// random, and the picture is drawn for that split. delivered is what all
// groups got together.
func (h *harness) sixSplitEvenly(delivered uint64) {
	h.t.Helper()
	for try := 0; ; try++ {
		if try == 60 {
			h.t.Fatal("six tasks never split three and three")
		}
		h.do("reset")
		h.until("reset", func(s Snapshot) bool { return s.Published == 0 && s.Delivered() == 0 })
		h.run(`pub tasks "task {{Count}}" --count 6`)
		h.until("six", func(s Snapshot) bool { return s.Published == 6 && s.Delivered() == delivered })
		if c := memberCounts(h.s.snap, "workers"); len(c) == 2 && c[0] == 3 && c[1] == 3 {
			return
		}
		h.clock.Advance(10 * time.Second)
	}
}

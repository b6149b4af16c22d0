package core

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"natslab/scenes/kit/kittest"
)

// Goldens of each scene at each stage of its episode, drawn on a manual
// clock (ANSI stripped: the picture, not the palette). Update with -update.
// 68x12 is the scene pane of a 120x40 lab with the lesson open.

func TestGoldenHello(t *testing.T) {
	h := newHarness(t, Hello)
	const w, ht = 68, 12
	h.Golden(t, "1-nobody", w, ht)
	h.Golden(t, "1-nobody-44x7", 44, 7) // the scene pane of an 80x24 lab with the lesson open

	h.Run(`pub greet "Is anyone there?"`)
	h.Settle("unheard", func(s Snapshot) bool { return s.Unheard == 1 })
	h.Clock.Advance(250 * time.Millisecond)
	h.Golden(t, "2-unheard-on-its-way", w, ht)
	h.Clock.Advance(900 * time.Millisecond)
	h.Golden(t, "3-unheard-fading", w, ht)
	h.Clock.Advance(3 * time.Second)
	h.Golden(t, "4-unheard-gone", w, ht)

	h.Start("sub greet")
	tcpSub(t, h.Srv.ClientURL(), "greet")
	h.Settle("two subscribers", subsOn("greet", 2))
	h.Clock.Advance(3 * time.Second)
	h.Golden(t, "5-two-subscribers", w, ht)

	h.Run(`pub greet "Hello NATS!"`)
	h.Settle("delivered", func(s Snapshot) bool { return s.Delivered() == 2 })
	h.Clock.Advance(250 * time.Millisecond)
	h.Golden(t, "6-to-the-server", w, ht)
	h.Clock.Advance(450 * time.Millisecond)
	h.Golden(t, "7-fanned-out", w, ht)
	h.Clock.Advance(3 * time.Second)
	h.Golden(t, "8-delivered", w, ht)

	h.GoldenSizes(t,
		kittest.Size{Name: "size-200x20", W: 200, H: 20},
		kittest.Size{Name: "size-118x12", W: 118, H: 12},
		kittest.Size{Name: "size-40x8", W: 40, H: 8},
		kittest.Size{Name: "size-30x4", W: 30, H: 4},
		kittest.Size{Name: "size-40x2-line", W: 40, H: 2},
		kittest.Size{Name: "size-1x1", W: 1, H: 1},
	)
}

func TestGoldenWildcards(t *testing.T) {
	h := newHarness(t, Wildcards)
	h.Start(`sub "orders.*.created"`)
	h.Start(`sub "orders.>"`)
	h.Settle("two filters", func(s Snapshot) bool { return len(s.Subs) == 2 })
	h.Clock.Advance(3 * time.Second)
	h.Golden(t, "1-filters", 110, 14)
	for i, subject := range []string{"orders.us.created", "orders.created", "orders.us.west.created"} {
		h.Run("pub " + subject + " order")
		h.Settle(subject, func(s Snapshot) bool { return s.Published == uint64(i+1) && s.Delivered() == uint64(i+2) })
		h.Clock.Advance(700 * time.Millisecond) // at the server, two tokens compared
		h.Golden(t, subject+"-1-comparing", 110, 14)
		h.Clock.Advance(3 * time.Second)
		h.Golden(t, subject+"-2-verdict", 110, 14)
	}
	h.Golden(t, "size-68x12-verdicts-below", 68, 12)
	h.Golden(t, "size-68x6-one-line-each", 68, 6)
	h.Golden(t, "size-40x10", 40, 10)
}

func TestGoldenQueues(t *testing.T) {
	h := newHarness(t, Queues)
	const w, ht = 68, 12
	h.Start("sub tasks --queue workers")
	h.Start("sub tasks --queue workers")
	h.Settle("two members", subsOn("tasks", 2))
	h.Clock.Advance(3 * time.Second)
	h.goldenConns(t, "1-two-workers", w, ht)

	h.sixSplitEvenly(6)
	h.Clock.Advance(900 * time.Millisecond)
	h.goldenConns(t, "2-dealt-out", w, ht)
	h.Clock.Advance(5 * time.Second)
	h.goldenConns(t, "3-split-3-3", w, ht)

	h.Start("sub tasks --queue worker")
	h.Settle("a second group", subsOn("tasks", 3))
	h.sixSplitEvenly(12)
	h.Clock.Advance(5 * time.Second)
	h.goldenConns(t, "4-typo-doubles-delivery", w, ht)
	h.goldenConns(t, "size-118x12", 118, 12)
	h.goldenConns(t, "size-40x8", 40, 8)
}

// goldenConns is Golden with the connection ids shifted so that the first
// member's reads 6: the server's own clients take the first ids, and how
// many of them it has made when the subscribers connect depends on the
// moment.
func (h *harness) goldenConns(t *testing.T, name string, w, hgt int) {
	t.Helper()
	first := uint64(0)
	for _, sub := range h.Scene.snap.Subs {
		if first == 0 || sub.Cid < first {
			first = sub.Cid
		}
	}
	v := regexp.MustCompile(`conn [0-9]+`).ReplaceAllStringFunc(h.View(w, hgt), func(id string) string {
		cid, err := strconv.ParseUint(id[len("conn "):], 10, 64)
		if err != nil || first == 0 {
			return id
		}
		return "conn " + strconv.FormatUint(cid+6-first, 10)
	})
	t.Run(name, func(t *testing.T) { golden.RequireEqual(t, v) })
	h.NeverCut(t, name)
}

// sixSplitEvenly publishes six tasks, again and again from a reset, until
// the two members of workers got three each: the server picks a member at
// random, and the picture is drawn for that split. delivered is what all
// groups got together.
func (h *harness) sixSplitEvenly(delivered uint64) {
	h.T.Helper()
	for try := 0; ; try++ {
		if try == 60 {
			h.T.Fatal("six tasks never split three and three")
		}
		h.Do("reset")
		h.Settle("reset", func(s Snapshot) bool { return s.Published == 0 && s.Delivered() == 0 })
		h.Run(`pub tasks "task {{Count}}" --count 6`)
		h.Settle("six", func(s Snapshot) bool { return s.Published == 6 && s.Delivered() == delivered })
		if c := memberCounts(h.Scene.snap, "workers"); len(c) == 2 && c[0] == 3 && c[1] == 3 {
			return
		}
		h.Clock.Advance(10 * time.Second)
	}
}

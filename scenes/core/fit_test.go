package core

import (
	"strings"
	"testing"
	"time"
)

// At the lab's smallest size (80x24) the scene pane is 44x7 beside the
// lesson and 78x7 alone: each of the three scenes, nobody subscribed,
// subscribers from the lab and from a client of its own, a publish on its
// way, delivered, and one nobody hears, prints nothing cut mid-word.
func TestNeverCutAt80x24(t *testing.T) {
	for _, kind := range []Kind{Hello, Wildcards, Queues} {
		t.Run(kind.info().name, func(t *testing.T) {
			h := newHarness(t, kind)
			subject, heard, unheard, queue := kind.info().watch, kind.info().watch, "", ""
			switch kind {
			case Wildcards:
				subject, heard, unheard = "orders.*", "orders.new", "orders.us.created"
			case Queues:
				queue = " --queue workers"
			}
			h.NeverCut(t, "nobody subscribed")
			if unheard == "" {
				h.Run("pub " + heard + " hi")
				h.Settle("unheard", func(s Snapshot) bool { return s.Unheard == 1 })
				h.NeverCut(t, "a message nobody hears")
				h.Clock.Advance(3 * time.Second)
			}
			h.Start(`sub "` + subject + `"` + queue)
			tcpSub(t, h.Srv.ClientURL(), subject)
			h.Settle("two subscribers", subsOn(subject, 2))
			h.Clock.Advance(3 * time.Second)
			h.NeverCut(t, "two subscribers")
			h.Run("pub " + heard + " hi")
			h.Settle("delivered", func(s Snapshot) bool { return s.Delivered() >= 1 })
			h.Clock.Advance(300 * time.Millisecond)
			h.NeverCut(t, "a publish on its way")
			h.Clock.Advance(3 * time.Second)
			h.NeverCut(t, "delivered")
			if unheard != "" {
				h.Run("pub " + unheard + " hi")
				h.Settle("unheard", func(s Snapshot) bool { return s.Unheard == 1 })
				h.Clock.Advance(3 * time.Second)
				h.NeverCut(t, "a message nobody hears")
			}
		})
	}
}

// With the server down, each scene says so under its picture in whole
// words, over the rows the picture leaves empty.
func TestServerDownNeverCut(t *testing.T) {
	for _, kind := range []Kind{Hello, Wildcards, Queues} {
		t.Run(kind.info().name, func(t *testing.T) {
			h := newHarness(t, kind)
			h.Settle("up", func(s Snapshot) bool { return s.ServerUp })
			h.Srv.Stop()
			h.Settle("down", func(s Snapshot) bool { return !s.ServerUp })
			h.Clock.Advance(3 * time.Second)
			h.NeverCut(t, "the server down")
		})
	}
}

// Four filters in the scene pane at 80x24 leave no line under each row for
// its verdict, nor room beside it for the words: each row then ends with
// the verdict's mark, where a cut verdict ("✗ …", "…") said nothing.
func TestWildcardsCrowdedVerdictsAreMarks(t *testing.T) {
	h := newHarness(t, Wildcards)
	for _, f := range []string{"orders.*.create", "orders.*.created", "orders.*", "orders.>"} {
		h.Start(`sub "` + f + `"`)
	}
	h.Settle("four filters", func(s Snapshot) bool { return len(s.Subs) == 4 })
	h.Clock.Advance(3 * time.Second)
	// The tap counts a publish before the server's counters show who got
	// it: wait for both, orders.> got the first, orders.* and orders.> the
	// second.
	delivered := []uint64{1, 3}
	for i, subject := range []string{"orders.us.west.created", "orders.created"} {
		h.Run("pub " + subject + " x")
		h.Settle(subject, func(s Snapshot) bool { return s.Published == uint64(i+1) && s.Delivered() == delivered[i] })
		h.Clock.Advance(3 * time.Second)
		h.Golden(t, subject+"-44x7", 44, 7)
		if v := h.View(44, 7); strings.Contains(v, "…") {
			t.Errorf("after %s, a verdict cut short:\n%s", subject, v)
		}
	}
}

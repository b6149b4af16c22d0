package streamlog

import (
	"strings"
	"testing"
	"time"

	"natslab/scenes/kit/kittest"
)

// Goldens of the scene at each stage of episodes 7 to 10, on a manual clock,
// ANSI stripped (the picture, not the palette). Update with -update.

const gw, gh = 68, 12 // the scene pane beside a lesson in a 120x40 terminal

func TestGoldenLog(t *testing.T) {
	h := newHarness(t, Options{})
	h.Settle("no stream", func(s Snapshot) bool { return s.Problem != "" })
	h.Golden(t, "1-no-stream", gw, gh)

	h.add(`stream add ORDERS --subjects "orders.>" --defaults`, "ORDERS")
	h.Golden(t, "2-empty-log", gw, gh)

	h.Run(`pub orders.new "order {{Count}}" --count 3 --jetstream`)
	h.Settle("three", func(s Snapshot) bool { l := orders(s); return l.Msgs == 3 && l.Seen.Acked == 3 })
	h.Clock.Advance(300 * time.Millisecond)
	h.Golden(t, "3-publishes-in-flight", gw, gh)
	h.Clock.Advance(500 * time.Millisecond)
	h.Golden(t, "4-first-lands-ack-returns", gw, gh)
	h.Clock.Advance(5 * time.Second)
	h.Golden(t, "5-three-stored", gw, gh)

	h.Run(`pub orders.new "order {{Count}}" --count 7 --jetstream`)
	h.Settle("ten", func(s Snapshot) bool { l := orders(s); return l.Msgs == 10 && l.Seen.Acked == 10 })
	h.Clock.Advance(5 * time.Second)
	h.Golden(t, "6-ten-stored", gw, gh)

	h.Run(`stream edit ORDERS --max-msgs 5 -f`)
	h.Settle("five", func(s Snapshot) bool { return orders(s).Msgs == 5 })
	h.Clock.Advance(300 * time.Millisecond)
	h.Golden(t, "7-oldest-fading", gw, gh)
	h.Clock.Advance(5 * time.Second)
	h.Golden(t, "8-window-of-five", gw, gh)

	h.Run(`pub orders.new "order 11" --jetstream`)
	h.Settle("eleven", func(s Snapshot) bool { return orders(s).Last == 11 })
	h.Clock.Advance(700 * time.Millisecond)
	h.Golden(t, "9-window-slides", gw, gh)
	// The footer "ORDERS: the new limits dropped the oldest 1" keeps its
	// 1 at every pane size: at 44 columns it wraps before "oldest".
	h.GoldenPanes(t, "9-window-slides")
	h.Clock.Advance(5 * time.Second)

	h.Run(`stream edit ORDERS --discard new -f`)
	h.Settle("discard new", func(s Snapshot) bool { return orders(s).Discard == "new" })
	h.Try(`pub orders.new "one too many" --jetstream`)
	h.Settle("refused", func(s Snapshot) bool { return orders(s).Seen.Refused == 1 })
	h.Clock.Advance(750 * time.Millisecond)
	h.Golden(t, "10-refused-bouncing", gw, gh)
	h.Clock.Advance(5 * time.Second)

	h.Run(`stream rmm ORDERS 9 -f`)
	h.Settle("9 removed", func(s Snapshot) bool { return orders(s).Msgs == 4 })
	h.Clock.Advance(5 * time.Second)
	h.Golden(t, "11-a-gap", gw, gh)

	h.Run(`stream purge ORDERS -f`)
	h.Settle("purged", func(s Snapshot) bool { return orders(s).Msgs == 0 })
	h.Clock.Advance(5 * time.Second)
	h.Golden(t, "12-purged", gw, gh)
	h.GoldenSizes(t, paneSizes...)
}

func TestGoldenDedupe(t *testing.T) {
	h := newHarness(t, Options{})
	h.add(`stream add ORDERS --subjects "orders.>" --defaults`, "ORDERS")
	h.Run(`pub orders.new "order 1" -H Nats-Msg-Id:ord-1 --jetstream`)
	h.Settle("stored", func(s Snapshot) bool { l := orders(s); return l.Seen.Acked == 1 && l.Last == 1 && l.Msgs == 1 })
	h.Clock.Advance(5 * time.Second)
	h.Run(`pub orders.new "order 1" -H Nats-Msg-Id:ord-1 --jetstream`)
	h.Settle("duplicate", func(s Snapshot) bool { return orders(s).Seen.Dups == 1 })
	h.Clock.Advance(800 * time.Millisecond)
	h.Golden(t, "duplicate-ack", gw, gh)
	h.Clock.Advance(5 * time.Second)
	h.Golden(t, "duplicate-done", gw, gh)
	h.GoldenSizes(t, paneSizes...)
	// What the episode is about reads whole at 80x24 and 100x30.
	for _, sz := range paneSizes {
		v := h.View(sz.W, sz.H)
		for _, want := range []string{"not stored twice", "#1"} {
			if !strings.Contains(strings.ReplaceAll(v, "\n ", " "), want) {
				t.Errorf("at %s the scene does not say %q:\n%s", sz.Name, want, v)
			}
		}
		if !strings.Contains(v, "duplicates 1") {
			t.Errorf("at %s the scene does not count the duplicate:\n%s", sz.Name, v)
		}
		if sz.W > 44 && !strings.Contains(v, "dupe window 2m0s") {
			t.Errorf("at %s the scene does not say the dupe window:\n%s", sz.Name, v)
		}
	}
}

func TestGoldenRestart(t *testing.T) {
	h := newHarness(t, Options{})
	h.add(`stream add DISK --subjects "disk.>" --storage file --defaults`, "DISK")
	h.Run(`pub disk.note "kept {{Count}}" --count 3 --jetstream`)
	h.add(`stream add RAM --subjects "ram.>" --storage memory --defaults`, "RAM")
	h.Run(`pub ram.note "fleeting {{Count}}" --count 3 --jetstream`)
	h.Settle("both", func(s Snapshot) bool {
		d, _ := laneOf(s, "DISK")
		r, _ := laneOf(s, "RAM")
		return d.Msgs == 3 && r.Msgs == 3
	})
	h.Clock.Advance(5 * time.Second)
	h.Golden(t, "1-before", gw, 14)
	h.Run(`restart`)
	h.Settle("after", func(s Snapshot) bool {
		r, _ := laneOf(s, "RAM")
		return s.ServerUp && r.Gone != ""
	})
	h.Clock.Advance(300 * time.Millisecond)
	h.Golden(t, "2-blink", gw, 14)
	h.Clock.Advance(5 * time.Second)
	h.Golden(t, "3-after", gw, 14)
	h.GoldenSizes(t,
		kittest.Size{Name: "200x20", W: 200, H: 20},
		kittest.Size{Name: "118x12", W: 118, H: 12},
		kittest.Size{Name: "68x8-compact", W: 68, H: 8},
		kittest.Size{Name: "40x5-compact", W: 40, H: 5},
		kittest.Size{Name: "40x2-lines", W: 40, H: 2},
		kittest.Size{Name: "1x1", W: 1, H: 1},
	)
}

// paneSizes are the scene pane's at 80x24 and 100x30 beside the lesson.
var paneSizes = []kittest.Size{
	{Name: "44x7-80x24", W: 44, H: 7},
	{Name: "56x16-100x30-reading", W: 56, H: 16},
}

// Episode 29: a mirror and a stream with sources are fed by other streams,
// not by publishers: their lanes draw where the copies come from, and no
// acknowledgements.
func TestGoldenMirrorsSources(t *testing.T) {
	h := newHarness(t, Options{})
	h.add(`stream add ORDERS --subjects "orders.>" --defaults`, "ORDERS")
	h.add(`stream add RETURNS --subjects "returns.>" --defaults`, "RETURNS")
	h.Run(`pub orders.new "order {{Count}}" --count 3 --jetstream`)
	h.Run(`pub returns.new "return {{Count}}" --count 2 --jetstream`)
	h.Settle("returns", func(s Snapshot) bool { l, _ := laneOf(s, "RETURNS"); return l.Last == 2 })
	h.add(`stream add BACKUP --mirror ORDERS --defaults`, "BACKUP")
	h.Settle("mirrored", func(s Snapshot) bool { l, _ := laneOf(s, "BACKUP"); return l.Last == 3 })
	// Whether the scene saw BACKUP made and filled in one look or two
	// changes its story: the picture starts from none.
	h.Do("reset")
	h.Settle("no story", func(s Snapshot) bool { return s.Story == "" && orders(s).Seen.Acked == 0 })
	h.Clock.Advance(5 * time.Second)
	h.Golden(t, "1-backup-beside-orders", 100, 20)
	h.GoldenSizes(t, paneSizes...)
	// A mirror keeps its origin's sequence numbers
	// (TestAMirrorKeepsTheOriginsSequencesASourceRenumbers): the footer
	// does not say every message stored gets the next.
	for _, sz := range append(paneSizes, kittest.Size{Name: "100x20", W: 100, H: 20}) {
		if v := h.View(sz.W, sz.H); !strings.Contains(strings.ReplaceAll(v, "\n ", " "), "a mirror keeps") {
			t.Errorf("at %s the footer does not say a mirror keeps its origin's numbers:\n%s", sz.Name, v)
		}
	}
	if v := h.View(100, 20); strings.Count(v, "publisher") != 2 || strings.Count(v, "acks") != 2 || !strings.Contains(v, "mirror of ORDERS") {
		t.Errorf("BACKUP is drawn as published to, or not as ORDERS' mirror:\n%s", v)
	}

	h.add(`stream add ALL --source ORDERS --source RETURNS --defaults`, "ALL")
	h.Settle("gathered", func(s Snapshot) bool { l, _ := laneOf(s, "ALL"); return l.Msgs == 5 })
	// ALL is the stream, where one has that name, not every stream.
	if got := h.Do("watch", "ALL"); !strings.Contains(got, "watching ALL: its log, its limits, and the streams it copies") {
		t.Fatalf("watch ALL: %q", got)
	}
	h.Settle("ALL alone", func(s Snapshot) bool { return len(s.Streams) == 1 && s.Streams[0].Name == "ALL" })
	h.Clock.Advance(5 * time.Second)
	h.Golden(t, "2-all-from-two-sources", gw, gh)
	for _, want := range []string{"sources ORDERS, RETURNS", "2 sources", "messages 5"} {
		if v := h.View(gw, gh); !strings.Contains(v, want) {
			t.Errorf("ALL's lane lacks %q:\n%s", want, v)
		}
	}
}

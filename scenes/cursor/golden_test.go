package cursor

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"natslab/scenes"
	"natslab/scenes/kit"
	"natslab/scenes/kit/kittest"
)

// Goldens of the scene at each stage of the episodes that use it, drawn on
// a manual clock (ANSI stripped: the picture, not the palette). Update with
// -update. The commands are the episodes' own, run through a command
// session on a real server.

// still takes the clock past every movement and flash, so the frame shows
// the state alone.
func (h *harness) still() { h.Clock.Advance(3 * time.Second) }

// exact makes the countdown start when the scene saw the delivery, never
// re-synced to the server's timing: on a loaded machine the scene may see
// it a few hundred milliseconds late, which would change the picture.
func exact(t *testing.T) {
	old := resyncSlack
	resyncSlack = time.Hour
	t.Cleanup(func() { resyncSlack = old })
}

func TestGoldenDurableConsumer(t *testing.T) {
	h := newHarness(t, "stream add EVENTS --subjects 'events.>' --defaults",
		`pub events.page_loaded '{"page":"/home"}' --jetstream`,
		`pub events.input_changed '{"field":"email"}' --jetstream`,
		`pub events.page_loaded '{"page":"/pricing"}' --jetstream`)
	const w, ht = 100, 14
	h.Settle("stream", func(s Snapshot) bool { return s.LastSeq == 3 })
	h.still()
	h.Golden(t, "1-no-consumer", w, ht)
	h.NeverCut(t, "1-no-consumer")

	h.Run("consumer add EVENTS worker --pull --ack explicit --defaults")
	h.Settle("worker", func(s Snapshot) bool { return consumer(s, "worker").Name != "" })
	h.still()
	h.Golden(t, "2-consumer-at-start", w, ht)
	h.NeverCut(t, "2-consumer-at-start")

	h.Run("consumer next EVENTS worker --ack")
	h.Run("consumer next EVENTS worker --ack")
	h.Settle("floor 2", func(s Snapshot) bool { return consumer(s, "worker").AckFloor == 2 })
	h.still()
	h.Golden(t, "3-floor-2", w, ht)
	h.NeverCut(t, "3-floor-2")

	h.Srv.Stop()
	h.Settle("down", func(s Snapshot) bool { return !s.ServerUp })
	h.still()
	h.Golden(t, "4-server-down", w, ht)
	h.NeverCut(t, "4-server-down")

	h.Reconnecting(func() error { return h.Srv.Restart(true) })
	h.Settle("back", func(s Snapshot) bool { return s.ServerUp && storyHas(s, "kept its place") })
	h.still()
	h.Golden(t, "5-back-same-place", w, ht)
	h.NeverCut(t, "5-back-same-place")
	h.storyWhole(t, "worker kept its place across the restart: cursor 2, ack floor 2")

	h.Run("consumer next EVENTS worker --ack")
	h.Settle("floor 3", func(s Snapshot) bool { return consumer(s, "worker").AckFloor == 3 })
	h.still()
	h.Golden(t, "6-carried-on", w, ht)
	h.NeverCut(t, "6-carried-on")
}

func TestGoldenAckRedelivery(t *testing.T) {
	exact(t)
	h := newHarness(t, "stream add JOBS --subjects 'jobs.>' --defaults", `pub jobs.email "send welcome email" --jetstream`)
	const w, ht = 100, 14
	h.Run("consumer add JOBS worker --pull --wait 3s --max-deliver 3 --defaults")
	h.Settle("worker", func(s Snapshot) bool { return consumer(s, "worker").Name != "" })
	h.still()
	h.Golden(t, "1-consumer", w, ht)
	h.NeverCut(t, "1-consumer")

	h.Run("consumer next JOBS worker --no-ack")
	h.Settle("delivered", func(s Snapshot) bool { return len(consumer(s, "worker").Out) == 1 })
	h.Clock.Advance(150 * time.Millisecond)
	h.Golden(t, "2-delivering", w, ht)
	h.NeverCut(t, "2-delivering")
	h.Clock.Advance(1350 * time.Millisecond)
	h.Golden(t, "3-countdown-half-way", w, ht)
	h.NeverCut(t, "3-countdown-half-way")
	h.Clock.Advance(1600 * time.Millisecond)
	h.Golden(t, "4-ack-wait-ran-out", w, ht)
	h.NeverCut(t, "4-ack-wait-ran-out")
	h.GoldenPanes(t, "4-ack-wait-ran-out")

	h.Start("consumer next JOBS worker --no-ack")
	h.Settle("try 2", func(s Snapshot) bool {
		o := consumer(s, "worker").Out
		return len(o) == 1 && o[0].Tries == 2
	})
	h.Clock.Advance(time.Second)
	h.Golden(t, "5-redelivered-try-2", w, ht)
	h.NeverCut(t, "5-redelivered-try-2")
}

func TestGoldenGivenUp(t *testing.T) {
	exact(t)
	h := newHarness(t, "stream add JOBS --subjects 'jobs.>' --defaults", `pub jobs.email "send welcome email" --jetstream`,
		"consumer add JOBS worker --pull --wait 1s --max-deliver 3 --defaults")
	const w, ht = 100, 14
	for i := 0; i < 3; i++ {
		h.Run("consumer next JOBS worker --no-ack --timeout 3s")
	}
	h.Settle("try 3", func(s Snapshot) bool {
		o := consumer(s, "worker").Out
		return len(o) == 1 && o[0].Tries == 3
	})
	h.still()
	h.Golden(t, "1-last-try-ran-out", w, ht)
	h.NeverCut(t, "1-last-try-ran-out")

	// The server gives up on the message when its last ack wait runs out
	// while a pull waits for it.
	_, _ = h.Try("consumer next JOBS worker --no-ack --timeout 3s")
	h.Settle("given up, the pull ended", func(s Snapshot) bool {
		c := consumer(s, "worker")
		return c.Dead[1] != "" && c.Waiting == 0
	})
	h.still()
	h.Golden(t, "2-max-deliveries", w, ht)
	h.NeverCut(t, "2-max-deliveries")
	h.storyWhole(t, "#1 given up after 3 tries: the server's")
	h.storyWhole(t, "advisory; it is never delivered again")

	h.Run(`pub jobs.resize "resize image 42" --jetstream`)
	h.Run("consumer next JOBS worker --nak")
	h.Run("consumer next JOBS worker --term")
	h.Settle("terminated", func(s Snapshot) bool {
		c := consumer(s, "worker")
		return c.Dead[2] != "" && storyHas(s, "terminated") && s.LastSeq == 2 && c.Delivered == 2 && c.AckFloor == 2
	})
	h.still()
	h.Golden(t, "3-nak-then-term", w, ht)
	h.NeverCut(t, "3-nak-then-term")
	h.GoldenPanes(t, "3-nak-then-term")
}

func TestGoldenTwoConsumers(t *testing.T) {
	h := newHarness(t, "stream add ORDERS --subjects 'orders.>' --defaults",
		`pub orders.us.new "order 1 (us)" --jetstream`, `pub orders.eu.new "order 2 (eu)" --jetstream`,
		`pub orders.us.new "order 3 (us)" --jetstream`, `pub orders.eu.new "order 4 (eu)" --jetstream`)
	const w, ht = 110, 16
	h.Run(`consumer add ORDERS us --pull --filter "orders.us.>" --defaults`)
	// A learner reads the scene between two commands: it has looked at
	// the new consumer (and listens to its acks) before the next pulls.
	h.Settle("us added", func(s Snapshot) bool { return s.consumer("us") != nil })
	h.Run(`consumer next ORDERS us --count 2`)
	h.Settle("us", func(s Snapshot) bool { return consumer(s, "us").AckFloor == 3 })
	h.still()
	h.Golden(t, "1-us-read-its-two", w, ht)
	h.NeverCut(t, "1-us-read-its-two")

	h.Run(`consumer add ORDERS eu --pull --filter "orders.eu.>" --defaults`)
	h.Settle("eu added", func(s Snapshot) bool { return s.consumer("eu") != nil })
	h.Run(`consumer next ORDERS eu --count 2`)
	h.Run(`pub orders.eu.new "order 5 (eu)" --jetstream`)
	h.Settle("eu", func(s Snapshot) bool { return consumer(s, "eu").AckFloor == 4 && consumer(s, "eu").Pending == 1 })
	h.still()
	h.Golden(t, "2-new-eu-order-waits-for-eu", w, ht)
	h.NeverCut(t, "2-new-eu-order-waits-for-eu")

	h.Run(`consumer add ORDERS ue --pull --filter "orders.ue.>" --defaults`)
	h.Settle("typo", func(s Snapshot) bool { return consumer(s, "ue").NoMatch })
	h.still()
	h.Golden(t, "3-filter-typo", w, ht)
	h.NeverCut(t, "3-filter-typo")
	h.GoldenPanes(t, "3-filter-typo")
}

func TestGoldenWorkerPool(t *testing.T) {
	exact(t)
	h := newHarness(t, "stream add JOBS --subjects 'jobs.>' --defaults",
		`pub jobs.resize "resize image {{Count}}" --count 7 --jetstream`,
		"consumer add JOBS pool --pull --ack explicit --wait 3s --defaults")
	const w, ht = 120, 16
	for i := 0; i < 3; i++ {
		h.Run("consumer next JOBS pool --count 2")
	}
	h.Settle("six", func(s Snapshot) bool { return consumer(s, "pool").AckFloor == 6 })
	h.still()
	h.Golden(t, "1-three-workers-six-jobs", w, ht)
	h.NeverCut(t, "1-three-workers-six-jobs")
	h.GoldenPanes(t, "1-three-workers-six-jobs")

	h.Run("consumer next JOBS pool --no-ack")
	h.Settle("seventh out", func(s Snapshot) bool { return len(consumer(s, "pool").Out) == 1 })
	h.Clock.Advance(time.Second)
	h.Start("consumer next JOBS pool")
	h.Settle("survivor waits", func(s Snapshot) bool { return consumer(s, "pool").Waiting == 1 })
	h.Golden(t, "2-a-worker-died-a-survivor-waits", w, ht)
	h.NeverCut(t, "2-a-worker-died-a-survivor-waits")
	h.GoldenPanes(t, "2-a-worker-died-a-survivor-waits")

	h.Settle("finished", func(s Snapshot) bool { return consumer(s, "pool").AckFloor == 7 })
	h.still()
	h.Golden(t, "3-the-survivor-finished-it", w, ht)
	h.NeverCut(t, "3-the-survivor-finished-it")
}

func TestGoldenSizes(t *testing.T) {
	exact(t)
	h := newHarness(t, "stream add JOBS --subjects 'jobs.>' --defaults",
		`pub jobs.resize "resize image {{Count}}" --count 30 --jetstream`,
		"consumer add JOBS pool --pull --ack explicit --wait 10s --defaults")
	h.Run("consumer next JOBS pool --count 3")
	h.Run("consumer next JOBS pool --no-ack")
	h.Run("consumer next JOBS pool --no-ack")
	h.Settle("two out", func(s Snapshot) bool { return len(consumer(s, "pool").Out) == 2 })
	h.Clock.Advance(4 * time.Second)
	h.GoldenSizes(t,
		kittest.Size{Name: "200x30", W: 200, H: 30},
		kittest.Size{Name: "120x20", W: 120, H: 20},
		kittest.Size{Name: "80x12", W: 80, H: 12},
		kittest.Size{Name: "60x10", W: 60, H: 10},
		kittest.Size{Name: "40x6", W: 40, H: 6},
		kittest.Size{Name: "39x6-one-line", W: 39, H: 6},
		kittest.Size{Name: "100x3-one-line", W: 100, H: 3},
		kittest.Size{Name: "1x1", W: 1, H: 1},
	)
}

// Colour only adds to the picture: with the palette and under NO_COLOR the
// same text is drawn.
func TestSamePictureWithoutColour(t *testing.T) {
	h := newHarness(t, "stream add JOBS --subjects 'jobs.>' --defaults", "pub jobs.a 1 --jetstream",
		"consumer add JOBS w --pull --wait 30s --defaults")
	h.Run("consumer next JOBS w --no-ack")
	h.Settle("out", func(s Snapshot) bool { return len(consumer(s, "w").Out) == 1 })
	plain := h.View(100, 14)
	h.Scene.Styles = kit.NewStyles(true)
	h.Scene.Touch()
	h.Scene.SetSize(100, 14)
	coloured := h.Scene.View()
	if coloured == plain || ansi.Strip(coloured) != plain {
		t.Fatalf("colour changes the text:\n%s\n---\n%s", plain, ansi.Strip(coloured))
	}
}

// Lesson 22: six consumers of one stream, each started by another deliver
// policy. Beside the lesson at 120x36 every consumer has its row and the
// subjects read one a column; in the smaller panes the consumers that do
// not fit are counted, in whole words.
func TestGoldenDeliverPolicies(t *testing.T) {
	h := newHarness(t, "stream add PRICES --subjects 'prices.>' --defaults",
		"pub prices.aapl 190 --jetstream", "pub prices.msft 410 --jetstream", "pub prices.aapl 191 --jetstream",
		"pub prices.msft 411 --jetstream", "pub prices.aapl 192 --jetstream")
	for _, line := range []string{
		"consumer add PRICES history --pull --deliver all --defaults", "consumer next PRICES history",
		"consumer add PRICES latest --pull --deliver last --defaults", "consumer next PRICES latest",
		"consumer add PRICES ticker --pull --deliver new --defaults", "pub prices.aapl 193 --jetstream", "consumer next PRICES ticker",
		"consumer add PRICES replay --pull --deliver 3 --defaults", "consumer next PRICES replay",
		"consumer add PRICES recent --pull --deliver 1h --defaults", "consumer next PRICES recent",
		"consumer add PRICES board --pull --deliver subject --defaults", "consumer next PRICES board --count 2",
	} {
		h.Run(line)
		if f := strings.Fields(line); f[1] == "add" {
			// A learner reads the scene between two commands: it has
			// looked at the new consumer before the next takes a price.
			h.Settle(f[3], func(s Snapshot) bool { return s.consumer(f[3]) != nil })
		}
	}
	names := []string{"history", "latest", "ticker", "replay", "recent", "board"}
	h.Settle("six consumers", func(s Snapshot) bool { return len(s.Consumers) == 6 && consumer(s, "board").AckFloor == 6 })
	h.still()
	const w, ht = 68, 19 // the scene pane beside the lesson at 120x36
	v := h.View(w, ht)
	for _, name := range names {
		if !strings.Contains(v, " "+name+" ") {
			t.Errorf("consumer %s is not on screen at %dx%d:\n%s", name, w, ht, v)
		}
	}
	if n := strings.Count(v, "cursor "); n != len(names) {
		t.Errorf("%d of the %d consumers' cursors are on screen at %dx%d:\n%s", n, len(names), w, ht, v)
	}
	if strings.Contains(v, "aapl, msft") || !strings.Contains(v, "aapl msft aapl msft aapl") {
		t.Errorf("the subject row does not name each message's subject in its column at %dx%d:\n%s", w, ht, v)
	}
	h.Golden(t, "six-consumers", w, ht)
	h.NeverCut(t, "six-consumers")
	// Every consumer on screen shows its cursor (none is left with its
	// marks alone), and those left out are counted.
	for _, sz := range append(slices.Clone(scenes.SmallestPanes), scenes.LessonPanes...) {
		v := h.View(sz.W, sz.H)
		// The header says how many messages the stream holds, apart
		// from the server's state: "6 messages server ● up" read as one.
		if header, _, _ := strings.Cut(v, "\n"); !strings.Contains(header, "· 6 messages") || !regexp.MustCompile(`\S {2,}server ● up$`).MatchString(strings.TrimRight(header, " ")) {
			t.Errorf("at %dx%d the header lacks the count, or runs it into the server's state: %q", sz.W, sz.H, header)
		}
		shown := 0
		for _, name := range names {
			if strings.Contains(v, " "+name+" ") {
				shown++
			}
		}
		if n := strings.Count(v, "cursor "); n != shown {
			t.Errorf("at %dx%d, %d consumers are on screen and %d cursors:\n%s", sz.W, sz.H, shown, n, v)
		}
		if more := fmt.Sprintf("+%d more", len(names)-shown); shown < len(names) && !strings.Contains(v, more) {
			t.Errorf("at %dx%d, %d consumers are on screen and nothing says %q:\n%s", sz.W, sz.H, shown, more, v)
		}
	}
	h.GoldenPanes(t, "six-consumers")
}

// An empty stream says where to publish to fill it, whole: at 80x24 beside
// the lesson (lesson 24's PAY) "empty: publish to pay.> to add messages"
// was clipped to "… to add …". Where the full sentence does not fit, a
// shorter one does; where the subjects alone are too long for a line, they
// take the row under it. With a consumer waiting on the empty log, the
// consumer keeps its row.
func TestGoldenEmptyLog(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup []string
		want  []string // each on screen at every pane size, across its lines
	}{
		{"pay", []string{"stream add PAY --subjects 'pay.>' --defaults"}, []string{"pay.>"}},
		{"three-subjects", []string{"stream add SHOP --subjects 'orders.created,orders.shipped,payments.settled' --defaults"},
			[]string{"orders.created", "orders.shipped", "payments.settled"}},
		{"consumer-waits", []string{"stream add PAY --subjects 'pay.>' --defaults", "consumer add PAY bill --pull --defaults"},
			[]string{"pay.>", "bill"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.setup...)
			h.Settle("stream", func(s Snapshot) bool { return s.Stream != "" && len(s.Subjects) > 0 })
			if len(tc.setup) > 1 {
				h.Settle("consumer", func(s Snapshot) bool { return len(s.Consumers) == 1 })
			}
			h.still()
			for _, sz := range append(slices.Clone(scenes.SmallestPanes), scenes.LessonPanes...) {
				v := h.View(sz.W, sz.H)
				if !strings.Contains(v, "empty: publish to") {
					t.Errorf("at %dx%d the empty log does not say where to publish:\n%s", sz.W, sz.H, v)
				}
				for _, w := range tc.want {
					if !strings.Contains(v, w) {
						t.Errorf("at %dx%d %q is not on screen:\n%s", sz.W, sz.H, w, v)
					}
				}
			}
			h.NeverCut(t, tc.name)
			h.GoldenPanes(t, "empty-"+tc.name)
		})
	}
}

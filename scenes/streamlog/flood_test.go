package streamlog

import (
	"context"
	"io"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// floodLine publishes floodMsgs messages, each waiting for its
// acknowledgement, as the episodes' publishers do.
const (
	floodMsgs = 50_000
	floodLine = `pub orders.new "order {{Count}}" --count 50000 --jetstream --quiet`
)

// watchedFlood runs the flood into ORDERS with the scene watching and
// returns how long the publisher took, once the scene shows every message
// stored.
func watchedFlood(t testing.TB) time.Duration {
	h := newHarness(t, Options{})
	h.add(`stream add ORDERS --subjects "orders.>" --defaults`, "ORDERS")
	start := time.Now()
	h.Run(floodLine)
	took := time.Since(start)
	h.Until("all stored", func(s Snapshot) bool { return orders(s).Last == floodMsgs && orders(s).Msgs == floodMsgs })
	l := orders(h.Scene.snap)
	t.Logf("the taps saw %d published, %d acks, skipped %d", l.Seen.Published, l.Seen.Acked, h.Scene.snap.Sampled)
	return took
}

// A flood into the watched stream: the broker's numbers on screen stay
// exact. What watching costs the publisher is BenchmarkFloodWatched's.
func TestFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("a flood")
	}
	watchedFlood(t)
}

// The same flood with the scene watching, as a ratio against a server
// nobody watches, in the same run.
func BenchmarkFloodWatched(b *testing.B) {
	plain := brokertest.Start(b)
	sess := command.NewSession(plain)
	defer sess.Close()
	if err := sess.Run(context.Background(), `stream add ORDERS --subjects "orders.>" --defaults`, io.Discard, io.Discard); err != nil {
		b.Fatal(err)
	}
	var alone, watched time.Duration
	for b.Loop() {
		start := time.Now()
		if err := sess.Run(context.Background(), floodLine, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
		alone = time.Since(start)
		watched = watchedFlood(b)
	}
	b.ReportMetric(float64(watched)/float64(alone), "watched-x-alone")
}

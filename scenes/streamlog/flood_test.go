package streamlog

import (
	"context"
	"io"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// A flood into the watched stream: the broker's numbers on screen stay
// exact, and watching costs the publisher little. The same publish runs
// first on a server nobody watches, for comparison.
func TestFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("a flood")
	}
	const n = 50_000
	line := `pub orders.new "order {{Count}}" --count 50000 --jetstream --quiet`

	plain := brokertest.Start(t)
	sess := command.NewSession(plain)
	defer sess.Close()
	if err := sess.Run(context.Background(), `stream add ORDERS --subjects "orders.>" --defaults`, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := sess.Run(context.Background(), line, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	alone := time.Since(start)

	h := newHarness(t, Options{})
	h.add(`stream add ORDERS --subjects "orders.>" --defaults`, "ORDERS")
	start = time.Now()
	h.Run(line)
	watched := time.Since(start)
	h.Until("all stored", func(s Snapshot) bool { return orders(s).Last == n && orders(s).Msgs == n })
	l := orders(h.Scene.snap)
	t.Logf("%d --jetstream publishes: %v alone, %v with the scene watching (%.0f%%); the taps saw %d published, %d acks, skipped %d",
		n, alone, watched, 100*float64(alone)/float64(watched), l.Seen.Published, l.Seen.Acked, h.Scene.snap.Sampled)
	if watched > 3*alone+time.Second {
		t.Fatalf("watching slowed the publisher from %v to %v", alone, watched)
	}
}

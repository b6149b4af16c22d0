package command_test

import (
	"fmt"
	"strings"
	"testing"

	"natslab/broker/brokertest"
)

// A subscriber on a stream's subjects (a learner's sub, a scene's tap)
// gives every node interest in them, whoever leads the stream. node stop
// and node start still return only once the stream's leader itself has
// subscribed and every node forwards to it, so the next pub --jetstream is
// acknowledged, not heard by the subscriber alone and left to time out.
// That window is a few milliseconds after each election, so the test goes
// through several.
func TestNodeVerbsWaitForTheLeaderNotASubscriber(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	l := newLab(t, brokertest.Clustered())
	l.addReachable(`stream add ORDERS --subjects 'orders.>' --replicas 3 --defaults`, "ORDERS")
	l.addReachable(`stream add SOLO --subjects 'solo.>' --replicas 1 --defaults`, "SOLO")
	for _, subject := range []string{"orders.>", "solo.>"} {
		j, _ := l.background("sub '" + subject + "'")
		waitReady(t, j)
	}
	seq := map[string]int{}
	pub := func(stream, subject, after string) {
		t.Helper()
		seq[stream]++
		r := l.run(fmt.Sprintf("pub %s %d --jetstream", subject, seq[stream]))
		if want := fmt.Sprintf("Stored in Stream: %s Sequence: %d", stream, seq[stream]); r.e != nil || !strings.Contains(r.err, want) {
			t.Fatalf("pub --jetstream right after %s: want %q:\n%s", after, want, r.all())
		}
	}
	for range 3 {
		l.must("node stop leader ORDERS")
		pub("ORDERS", "orders.new", "node stop leader ORDERS")
		l.must("node start")

		home := l.srv.StreamLeader("SOLO")
		l.must("node stop " + home)
		l.must("node start " + home)
		pub("SOLO", "solo.new", "node start "+home+", SOLO's only node")
	}
}

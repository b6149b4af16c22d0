package episode

import (
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// What the lesson texts of Part I say about Core NATS beyond what their
// steps and claim scripts show, tried on a real nats-server with a plain
// client.

// deliveries publishes n numbered messages on subject, then a sentinel,
// and returns, in the order the server sent them, which subscription
// received each message. Every subscription must be on conn and feed ch:
// one connection gets the server's deliveries in the order the server
// made them, so once the sentinel is in, every copy of the n messages is.
func deliveries(t *testing.T, conn *nats.Conn, ch chan *nats.Msg, subject string, n int) [][]*nats.Subscription {
	t.Helper()
	for i := range n {
		if err := conn.Publish(subject, fmt.Append(nil, i)); err != nil {
			t.Fatal(err)
		}
	}
	const sentinel = "sentinel"
	if err := conn.Publish(subject, []byte(sentinel)); err != nil {
		t.Fatal(err)
	}
	got := make([][]*nats.Subscription, n)
	for {
		select {
		case m := <-ch:
			if string(m.Data) == sentinel {
				return got
			}
			var i int
			if _, err := fmt.Sscan(string(m.Data), &i); err != nil || i < 0 || i >= n {
				t.Fatalf("an unexpected message %q", m.Data)
			}
			got[i] = append(got[i], m.Sub)
		case <-time.After(10 * time.Second): // a failure's bound, not a wait
			t.Fatal("the sentinel never came")
		}
	}
}

// Each message goes to one member of a queue group, picked at random (two
// members that took turns would alternate exactly); a member that leaves
// leaves the whole load to the others; and another group, or a plain
// subscriber, gets a copy of its own.
func TestClaimQueueGroupsShareAtRandom(t *testing.T) {
	claimIn(t, "queue-groups", "Subscribers that join the same group name on the same subject share the messages: each message goes to **one** member.")
	claimIn(t, "queue-groups", "The split is random, not round-robin.")
	claimIn(t, "queue-groups", "remove one and the others carry on.")
	claimIn(t, "queue-groups", "Each group, and each plain subscriber, gets its own copy.")
	claimIn(t, "troubleshooting", "Queue groups share work only within one group name.")
	s := startNATS(t, nil)
	nc := connect(t, s)
	const n = 40
	ch := make(chan *nats.Msg, 4*n+4)
	a, err := nc.QueueSubscribeSyncWithChan("tasks", "workers", ch)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := nc.QueueSubscribeSyncWithChan("tasks", "workers", ch)

	got := deliveries(t, nc, ch, "tasks", n)
	alternate, count := true, map[*nats.Subscription]int{}
	for i, subs := range got {
		if len(subs) != 1 {
			t.Fatalf("task %d reached %d members of workers, want exactly 1", i, len(subs))
		}
		count[subs[0]]++
		if i > 0 && subs[0] == got[i-1][0] {
			alternate = false
		}
	}
	if count[a] == 0 || count[b] == 0 {
		t.Errorf("the members took %d and %d of %d tasks: both should get some", count[a], count[b], n)
	}
	if alternate {
		t.Errorf("the two members took the %d tasks strictly in turn: that is round-robin, not random", n)
	}

	if err := a.Unsubscribe(); err != nil {
		t.Fatal(err)
	}
	for i, subs := range deliveries(t, nc, ch, "tasks", n) {
		if len(subs) != 1 || subs[0] != b {
			t.Fatalf("with one member gone, task %d reached %d subscriptions, want the other member alone", i, len(subs))
		}
	}

	stray, _ := nc.QueueSubscribeSyncWithChan("tasks", "worker", ch)
	plain, _ := nc.ChanSubscribe("tasks", ch)
	for i, subs := range deliveries(t, nc, ch, "tasks", n) {
		seen := map[*nats.Subscription]int{}
		for _, sub := range subs {
			seen[sub]++
		}
		if len(subs) != 3 || seen[b] != 1 || seen[stray] != 1 || seen[plain] != 1 {
			t.Fatalf("task %d reached %d subscriptions: want one copy each for workers, worker and the plain subscriber", i, len(subs))
		}
	}
}

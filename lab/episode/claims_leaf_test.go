package episode

import (
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"natslab/broker"
	"natslab/broker/brokertest"
)

// What the leaf-node text says beyond its steps, on a plain nats-server
// and on the lab's own leaf node.

// A leaf node port comes from the configuration at start: a reload that
// adds one is refused.
func TestClaimALeafNodePortIsNotReloadable(t *testing.T) {
	claimIn(t, "leaf-node", "which nats-server opens from its configuration when it starts (a `leafnodes { port: … }` block): it cannot be added by a reload")
	opts := &server.Options{Host: "127.0.0.1", Port: -1, NoSigs: true}
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	more := opts.Clone()
	more.LeafNode.Host, more.LeafNode.Port = "127.0.0.1", -1
	err = s.ReloadOptions(more)
	if err == nil || !strings.Contains(err.Error(), "config reload not supported") {
		t.Fatalf("adding a leaf node port by reload: want the server's refusal, got %v", err)
	}
}

// Only interest crosses on its own: the lab's server sends a message over
// the leaf connection when the leaf has a subscriber for it.
func TestClaimOnlyWantedMessagesCrossTheLeaf(t *testing.T) {
	claimIn(t, "leaf-node", "a message crosses only when someone on the other side wants it")
	claimIn(t, "leaf-node", "A message nobody on the leaf subscribes to does not cross at all.")
	s := brokertest.Start(t)
	leaf := s.Leaf()
	if _, _, err := leaf.Start(); err != nil {
		t.Fatal(err)
	}
	hub := brokertest.Connect(t, s, "hub")
	crossed := func() int64 {
		lz, err := s.NATS().Leafz(nil)
		if err != nil || len(lz.Leafs) != 1 {
			t.Fatalf("leaf connections: %+v, %v", lz, err)
		}
		return lz.Leafs[0].OutMsgs
	}
	before := crossed()
	hub.Publish("nobody.there", []byte("x"))
	hub.Flush()
	nc, err := nats.Connect(leaf.Status().URL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sub, _ := nc.SubscribeSync("greet")
	nc.Flush()
	if !broker.WaitFor(5*time.Second, func() bool { return s.Monitor().Interest("greet") > 0 }) {
		t.Fatal("the lab's server never heard of the leaf's interest")
	}
	if got := crossed(); got != before {
		t.Errorf("%d messages crossed the leaf connection with nobody on the leaf listening", got-before)
	}
	hub.Publish("greet", []byte("hello leaf"))
	if _, err := sub.NextMsg(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if got := crossed(); got != before+1 {
		t.Errorf("%d messages crossed for one the leaf wanted", got-before)
	}
}

// Offline, the leaf's interest is gone and what is published is dropped;
// its subscriber reconnects by itself and gets only what comes after.
func TestClaimALeafOfflineMissesCoreMessages(t *testing.T) {
	claimIn(t, "leaf-node", "The leaf is gone, and with it its interest: the lab's server has nobody for `greet`, and the message is dropped.")
	claimIn(t, "leaf-node", "its subscriber reconnects on its own and gets `welcome back`, never the message published while the leaf was away")
	s := brokertest.Start(t)
	leaf := s.Leaf()
	if _, _, err := leaf.Start(); err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(leaf.Status().URL, nats.MaxReconnects(-1))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sub, _ := nc.SubscribeSync("greet")
	nc.Flush()
	hub := brokertest.Connect(t, s, "hub")
	if !broker.WaitFor(5*time.Second, func() bool { return s.Monitor().Interest("greet") > 0 }) {
		t.Fatal("the lab's server never heard of the leaf's interest")
	}
	if _, err := leaf.Stop(); err != nil {
		t.Fatal(err)
	}
	if !broker.WaitFor(5*time.Second, func() bool { return s.Monitor().Interest("greet") == 0 }) {
		t.Fatal("the leaf's interest outlived it")
	}
	hub.Publish("greet", []byte("while you were away"))
	hub.Flush()
	if _, back, err := leaf.Start(); err != nil || back != 1 {
		t.Fatalf("restart: %d clients back, %v", back, err)
	}
	if !broker.WaitFor(5*time.Second, func() bool { return s.Monitor().Interest("greet") > 0 }) {
		t.Fatal("the subscriber's interest did not come back")
	}
	hub.Publish("greet", []byte("welcome back"))
	m, err := sub.NextMsg(5 * time.Second)
	if err != nil || string(m.Data) != "welcome back" {
		t.Fatalf("the first message after the outage: %v %v", m, err)
	}
}

package broker_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/broker/brokertest"
)

func nextMsg(t *testing.T, sub *nats.Subscription, want string) {
	t.Helper()
	m, err := sub.NextMsg(5 * time.Second)
	if err != nil {
		t.Fatalf("waiting for %q on %s: %v", want, sub.Subject, err)
	}
	if string(m.Data) != want {
		t.Fatalf("got %q on %s, want %q", m.Data, sub.Subject, want)
	}
}

// leafClient connects to the leaf's client port and waits until its
// subscriptions are known on the lab's server too: the leaf forwards its
// interest over the leaf connection.
func leafClient(t *testing.T, s *broker.Server, url string, subs ...string) (*nats.Conn, []*nats.Subscription) {
	t.Helper()
	nc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	var out []*nats.Subscription
	for _, subj := range subs {
		sub, err := nc.SubscribeSync(subj)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, sub)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, subj := range subs {
		if !broker.WaitFor(5*time.Second, func() bool { return s.Monitor().Interest(subj) > 0 }) {
			t.Fatalf("the lab's server never heard of the leaf's interest in %s", subj)
		}
	}
	return nc, out
}

// A leaf node joins the lab's server: messages cross both ways; stopped,
// it takes its clients' interest with it, and what is published meanwhile
// is not kept for them; started again, it rejoins on the same client port
// and its clients resume.
func TestLeafNodeJoinsCrossesAndGoesOffline(t *testing.T) {
	s := brokertest.Start(t)
	leaf := s.Leaf()
	if leaf == nil {
		t.Fatal("a single server has a leaf node")
	}
	if st := leaf.Status(); st.Running || st.HubPort != 0 {
		t.Fatalf("before start: %+v", st)
	}
	hubID := s.Monitor().ID()
	restarted, _, err := leaf.Start()
	if err != nil || !restarted {
		t.Fatalf("first start: restarted %v, %v", restarted, err)
	}
	if s.Monitor().ID() == hubID {
		t.Error("the lab's server should have restarted to open its leaf node port")
	}
	st := leaf.Status()
	if !st.Running || !st.Connected || !strings.HasPrefix(st.URL, "nats://127.0.0.1:") || st.HubPort == 0 {
		t.Fatalf("after start: %+v", st)
	}
	lz, err := s.NATS().Leafz(nil)
	if err != nil || lz.NumLeafs != 1 || lz.Leafs[0].Name != broker.LeafName {
		t.Fatalf("the lab's server's leaf connections: %+v, %v", lz, err)
	}

	hub := brokertest.Connect(t, s, "hub")
	hubSub, _ := hub.SubscribeSync("hub.>")
	hub.Flush()
	lc, subs := leafClient(t, s, st.URL, "greet")
	nextOnHub := func(want string) { t.Helper(); nextMsg(t, hubSub, want) }

	hub.Publish("greet", []byte("hello leaf"))
	nextMsg(t, subs[0], "hello leaf")
	if !broker.WaitFor(5*time.Second, func() bool { return leaf.Monitor().Interest("hub.news") > 0 }) {
		t.Fatal("the leaf never heard of the lab's server's interest in hub.>")
	}
	lc.Publish("hub.news", []byte("from the leaf"))
	nextOnHub("from the leaf")

	if clients, err := leaf.Stop(); err != nil || clients != 1 {
		t.Fatalf("stop: %d clients, %v", clients, err)
	}
	if st := leaf.Status(); st.Running || st.Connected {
		t.Fatalf("after stop: %+v", st)
	}
	if leaf.Monitor() != nil {
		t.Error("a stopped leaf has no monitor")
	}
	if !broker.WaitFor(5*time.Second, func() bool { return s.Monitor().Interest("greet") == 0 }) {
		t.Fatal("the leaf's interest in greet outlived the leaf")
	}
	hub.Publish("greet", []byte("while you were away"))
	hub.Flush()

	if restarted, clients, err := leaf.Start(); err != nil || restarted || clients != 1 {
		t.Fatalf("second start: restarted %v, %d clients back, %v", restarted, clients, err)
	}
	if again := leaf.Status(); again.URL != st.URL || again.HubPort != st.HubPort {
		t.Fatalf("the leaf moved: %+v, was %+v", again, st)
	}
	if !broker.WaitFor(5*time.Second, func() bool { return lc.IsConnected() && s.Monitor().Interest("greet") > 0 }) {
		t.Fatal("the leaf's client did not resume its subscription")
	}
	hub.Publish("greet", []byte("welcome back"))
	// The next message is the one sent after the leaf returned: the one
	// published while it was offline was never kept for it.
	nextMsg(t, subs[0], "welcome back")
}

// The lab's server restarting (nats-server -js, a lesson) keeps its leaf
// node port, and the leaf joins again on its own.
func TestLeafNodeRejoinsAfterTheLabsServerRestarts(t *testing.T) {
	s := brokertest.Start(t)
	leaf := s.Leaf()
	if _, _, err := leaf.Start(); err != nil {
		t.Fatal(err)
	}
	port := leaf.Status().HubPort
	if err := s.Restart(true); err != nil {
		t.Fatal(err)
	}
	if !broker.WaitFor(10*time.Second, func() bool { return leaf.Status().Connected }) {
		t.Fatal("the leaf did not rejoin the restarted server")
	}
	if got := leaf.Status().HubPort; got != port {
		t.Errorf("the leaf node port moved from %d to %d", port, got)
	}
	// Only the leaf's user may join at that port.
	conn, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(conn)
	if info, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(info, "INFO ") {
		t.Fatalf("the leaf node port said %q, %v", info, err)
	}
	fmt.Fprint(conn, "CONNECT {}\r\n")
	if line, _ := r.ReadString('\n'); !strings.Contains(line, "Authorization Violation") {
		t.Errorf("a leaf without the password got %q", line)
	}
}

// Only the single embedded server has a leaf node; a lesson's fresh start
// (UseArea) begins without one running.
func TestLeafNodeStopsWhenALessonStarts(t *testing.T) {
	s := brokertest.Start(t)
	if _, _, err := s.Leaf().Start(); err != nil {
		t.Fatal(err)
	}
	if err := s.UseArea("lessons/x", true, true); err != nil {
		t.Fatal(err)
	}
	if s.Leaf().Status().Running {
		t.Error("the leaf still runs in a fresh lesson")
	}
	if _, _, err := s.Leaf().Start(); err != nil {
		t.Fatalf("starting the leaf again: %v", err)
	}
}

// leafHears reports whether the leaf node has been told that the lab's
// server wants messages on subject.
func leafHears(t *testing.T, leaf *broker.Leaf, subject string) bool {
	t.Helper()
	lz, err := leaf.Monitor().Leafz(&server.LeafzOptions{Subscriptions: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, lf := range lz.Leafs {
		if slices.Contains(lf.Subs, subject) {
			return true
		}
	}
	return false
}

// Forgets looks for what the leaf still hears of a subscription the lab's
// server no longer has: interest the lab's server keeps (another client's,
// a stream's) is no reason to wait.
func TestLeafForgets(t *testing.T) {
	s := brokertest.Start(t)
	leaf := s.Leaf()
	if _, _, err := leaf.Start(); err != nil {
		t.Fatal(err)
	}
	nc := brokertest.Connect(t, s, "hub client")
	js, _ := jetstream.New(nc)
	if _, err := js.CreateStream(context.Background(), jetstream.StreamConfig{Name: "EVENTS", Subjects: []string{"events.>"}}); err != nil {
		t.Fatal(err)
	}
	a, err := nc.SubscribeSync("greet")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nc.SubscribeSync("greet"); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, subj := range []string{"greet", "events.>"} {
		if !broker.WaitFor(5*time.Second, func() bool { return leafHears(t, leaf, subj) }) {
			t.Fatalf("the leaf never heard of the lab's server's interest in %s", subj)
		}
	}
	// A timeout of 0 looks once.
	if !leaf.Forgets([]string{"events.>", "greet"}, 0) {
		t.Error("Forgets waits for what the lab's server still wants (a stream's subjects, another subscriber's)")
	}
	if err := a.Unsubscribe(); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	if !leaf.Forgets([]string{"greet"}, 0) {
		t.Error("Forgets waits for greet while a second subscriber of the lab's server still has it")
	}
	nc.Close()
	if !broker.WaitFor(5*time.Second, func() bool { return !leafHears(t, leaf, "greet") }) {
		t.Fatal("the leaf never forgot greet")
	}
	if !leaf.Forgets([]string{"greet"}, 0) {
		t.Error("Forgets after the leaf forgot")
	}
}

// The lab's server's Listeners counts the leaf node's subscribers too:
// the server itself lists its own clients' subscriptions only, and hears
// of the leaf's no more than that some client of the leaf wants a subject.
func TestListenersCountTheLeafsSubscribers(t *testing.T) {
	s := brokertest.Start(t)
	leaf := s.Leaf()
	if _, _, err := leaf.Start(); err != nil {
		t.Fatal(err)
	}
	url := leaf.Status().URL
	leafClient(t, s, url, "greet")
	before := s.Monitor().Subscriptions()
	// A second subscriber at the leaf: the leaf tells the lab's server
	// nothing new, it already wants greet.
	leafClient(t, s, url, "greet")
	if got := s.Monitor().Listeners("greet"); got != 2 {
		t.Errorf("Listeners(greet) with two subscribers at the leaf = %d, want 2", got)
	}
	if s.Monitor().Subscriptions() == before {
		t.Error("Subscriptions did not move when a subscriber came at the leaf")
	}
	leafClient(t, s, url, "greet.>")
	hub := brokertest.Connect(t, s, "hub client")
	if _, err := hub.SubscribeSync("greet"); err != nil {
		t.Fatal(err)
	}
	if err := hub.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := s.Monitor().Listeners("greet"); got != 3 {
		t.Errorf("Listeners(greet) with two subscribers at the leaf and one at the lab's server = %d, want 3", got)
	}
	if got := s.Monitor().Listeners("greet.x"); got != 1 {
		t.Errorf("Listeners(greet.x) = %d, want 1 (greet.> at the leaf)", got)
	}
	if got := leaf.Monitor().Listeners("greet"); got != 2 {
		t.Errorf("the leaf's own Listeners(greet) = %d, want its own 2", got)
	}
	if _, err := leaf.Stop(); err != nil {
		t.Fatal(err)
	}
	if got := s.Monitor().Listeners("greet"); got != 1 {
		t.Errorf("Listeners(greet) with the leaf stopped = %d, want 1", got)
	}
}

// What the leaf passed to the lab's server still counts once the leaf has
// stopped (the server forgets a closed connection's counts), and again
// after it started anew; a restarted lab's server has been passed nothing.
func TestLeafPassedOutlivesTheLeafsStop(t *testing.T) {
	s := brokertest.Start(t)
	leaf := s.Leaf()
	if _, _, err := leaf.Start(); err != nil {
		t.Fatal(err)
	}
	passed := func() int64 {
		t.Helper()
		n, err := leaf.Passed()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := passed(); n != 0 {
		t.Fatalf("a new leaf passed %d", n)
	}
	hub := brokertest.Connect(t, s, "hub")
	hubSub, _ := hub.SubscribeSync("hub.>")
	hub.Flush()
	lc, _ := leafClient(t, s, leaf.Status().URL)
	if !broker.WaitFor(5*time.Second, func() bool { return leaf.Monitor().Interest("hub.news") > 0 }) {
		t.Fatal("the leaf never heard of the lab's server's interest in hub.>")
	}
	lc.Publish("hub.news", []byte("one"))
	nextMsg(t, hubSub, "one")
	if n := passed(); n != 1 {
		t.Fatalf("the leaf passed %d, want 1", n)
	}
	if _, err := leaf.Stop(); err != nil {
		t.Fatal(err)
	}
	if n := passed(); n != 1 {
		t.Fatalf("stopped, the leaf passed %d, want the 1 it passed before", n)
	}
	if _, _, err := leaf.Start(); err != nil {
		t.Fatal(err)
	}
	if !broker.WaitFor(5*time.Second, func() bool { return leaf.Status().Connected && leaf.Monitor().Interest("hub.news") > 0 }) {
		t.Fatal("the leaf did not rejoin")
	}
	if !broker.WaitFor(5*time.Second, func() bool { return lc.IsConnected() }) {
		t.Fatal("the leaf's client did not come back")
	}
	lc.Publish("hub.news", []byte("two"))
	nextMsg(t, hubSub, "two")
	if n := passed(); n != 2 {
		t.Fatalf("started again, the leaf passed %d, want 2", n)
	}
	if err := s.Restart(true); err != nil {
		t.Fatal(err)
	}
	if n := passed(); n != 0 {
		t.Fatalf("the restarted lab's server was passed %d, want 0", n)
	}
}

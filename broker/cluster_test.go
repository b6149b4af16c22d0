package broker_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/broker/brokertest"
)

// The cluster tests run a real three-node cluster in the test process, one
// per test and one test at a time (several clusters electing leaders at
// once on a two-core machine would test the machine's load, not the lab),
// stopped gracefully; every wait is for a condition.

const clusterWait = 10 * time.Second

func clusterJS(t *testing.T, s *broker.Server) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc := brokertest.Connect(t, s, "cluster test")
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// testCtx bounds one request (each gets its own: elections in between
// take seconds on a busy machine).
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	t.Cleanup(cancel)
	return ctx
}

// waitConnected waits for an in-process client to land on a running node
// after the one it used stopped.
func waitConnected(t *testing.T, s *broker.Server, nc *nats.Conn) {
	t.Helper()
	if !broker.WaitFor(clusterWait, func() bool { return s.Attached(nc) }) {
		t.Fatal("the client did not reconnect to a running node")
	}
}

// waitLeader waits until stream has a leader other than not and a publish
// on any running node reaches it: right after an election the new leader
// reports itself a moment before its subscription has reached every node.
func waitLeader(t *testing.T, s *broker.Server, stream, not string) string {
	t.Helper()
	var leader string
	if !broker.WaitFor(clusterWait, func() bool {
		leader = s.StreamLeader(stream)
		return leader != "" && leader != not && s.Reachable(stream)
	}) {
		t.Fatalf("stream %s elected no new leader (old %q)", stream, not)
	}
	return leader
}

func TestClusterFormsWithThreeNodesAndServesRealClients(t *testing.T) {
	s := brokertest.Start(t, brokertest.Clustered())
	if !s.Clustered() || !s.Running() {
		t.Fatal("want a running cluster")
	}
	urls := strings.Split(s.ClientURL(), ",")
	if len(urls) != 3 {
		t.Fatalf("want three client URLs, got %q", s.ClientURL())
	}
	for _, u := range urls {
		if !strings.HasPrefix(u, "nats://127.0.0.1:") {
			t.Fatalf("want loopback URLs, got %q", s.ClientURL())
		}
	}
	leaders := 0
	for i, n := range s.Nodes() {
		if n.Name != broker.NodeNames[i] || !n.Running || n.ClientURL != urls[i] {
			t.Fatalf("node %d: %+v", i, n)
		}
		if n.MetaLeader {
			leaders++
		}
	}
	if leaders != 1 || s.MetaLeader() == "" {
		t.Fatalf("want exactly one meta leader: %+v", s.Nodes())
	}
	// A real TCP client given the URL list, as the nats CLI would be.
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	if _, err := js.CreateStream(testCtx(t), jetstream.StreamConfig{Name: "ORDERS", Subjects: []string{"orders.>"}, Replicas: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(testCtx(t), "orders.new", []byte("1")); err != nil {
		t.Fatal(err)
	}
	// Every node holds its copy, one of them leads.
	if !broker.WaitFor(clusterWait, func() bool {
		for _, r := range s.Replicas("ORDERS") {
			if r.Stream != "ORDERS" || r.LastSeq != 1 || r.Group == "" {
				return false
			}
		}
		return s.StreamLeader("ORDERS") != ""
	}) {
		t.Fatalf("replicas: %+v", s.Replicas("ORDERS"))
	}
	if st := s.Stats(); st.Streams != 1 || st.Connections < 1 || !st.JetStream {
		t.Fatalf("stats: %+v", st)
	}
	for _, name := range broker.NodeNames {
		if !s.Log().Contains("[" + name + "] Server is ready") {
			t.Fatalf("the log should hold %s's lines, prefixed with its name", name)
		}
	}
}

func TestClusterFailoverElectsNewLeaderLosesNothingAndCatchesUp(t *testing.T) {
	s := brokertest.Start(t, brokertest.Clustered())
	nc, js := clusterJS(t, s)
	if _, err := js.CreateStream(testCtx(t), jetstream.StreamConfig{Name: "ORDERS", Subjects: []string{"orders.>"}, Replicas: 3}); err != nil {
		t.Fatal(err)
	}
	ack, err := js.Publish(testCtx(t), "orders.new", []byte("first"))
	if err != nil || ack.Sequence != 1 {
		t.Fatalf("first publish: %v %+v", err, ack)
	}
	old := waitLeader(t, s, "ORDERS", "")

	// Election: stop the leader, another node takes over.
	if err := s.StopNode(old); err != nil {
		t.Fatal(err)
	}
	if s.Node(old) != nil {
		t.Fatalf("%s should be stopped", old)
	}
	leader := waitLeader(t, s, "ORDERS", old)
	waitConnected(t, s, nc)

	// Failover: publishing goes on, and what was acknowledged is there. A
	// client retries a publish nobody answered, as applications do (no
	// responders means nothing was stored), for at most two seconds.
	const more = 20
	for i := 0; i < more; i++ {
		ack, err := js.Publish(testCtx(t), "orders.new", []byte("more"), jetstream.WithRetryWait(50*time.Millisecond), jetstream.WithRetryAttempts(40))
		if err != nil {
			t.Fatalf("publish %d after failover: %v", i, err)
		}
		if ack.Sequence != uint64(i+2) {
			t.Fatalf("publish %d stored as %d, want %d", i, ack.Sequence, i+2)
		}
	}
	st, err := js.Stream(testCtx(t), "ORDERS")
	if err != nil {
		t.Fatal(err)
	}
	info := st.CachedInfo()
	if info.State.Msgs != more+1 || info.Cluster == nil || info.Cluster.Leader != leader {
		t.Fatalf("after failover: %d messages, cluster %+v", info.State.Msgs, info.Cluster)
	}
	first, err := st.GetMsg(testCtx(t), 1)
	if err != nil || string(first.Data) != "first" {
		t.Fatalf("the message acknowledged before the failover: %v %+v", err, first)
	}
	var offline bool
	for _, p := range info.Cluster.Replicas {
		if p.Name == old && p.Offline {
			offline = true
		}
	}
	if !offline {
		t.Fatalf("stream info should report %s offline: %+v", old, info.Cluster.Replicas)
	}

	// Catch-up: the stopped node comes back and holds every message.
	if err := s.StartNode(old); err != nil {
		t.Fatal(err)
	}
	if !broker.WaitFor(clusterWait, func() bool {
		for _, r := range s.Replicas("ORDERS") {
			if r.Node == old {
				return r.LastSeq == more+1 && r.Msgs == more+1 && r.Current
			}
		}
		return false
	}) {
		t.Fatalf("%s did not catch up: %+v", old, s.Replicas("ORDERS"))
	}
}

func TestClusterR1StreamOnStoppedNodeIsUnavailableThenBack(t *testing.T) {
	s := brokertest.Start(t, brokertest.Clustered())
	nc, js := clusterJS(t, s)
	if _, err := js.CreateStream(testCtx(t), jetstream.StreamConfig{Name: "SOLO", Subjects: []string{"solo.>"}, Replicas: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(testCtx(t), "solo.x", []byte("kept")); err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateConsumer(testCtx(t), "SOLO", jetstream.ConsumerConfig{Durable: "reader"}); err != nil {
		t.Fatal(err)
	}
	home := waitLeader(t, s, "SOLO", "")
	holders := 0
	for _, r := range s.Replicas("SOLO") {
		if r.Stream == "SOLO" {
			holders++
		}
	}
	if holders != 1 {
		t.Fatalf("an R1 stream lives on one node: %+v", s.Replicas("SOLO"))
	}
	if err := s.StopNode(home); err != nil {
		t.Fatal(err)
	}
	waitConnected(t, s, nc)
	// Unavailable: nothing stores the publish, and info cannot answer. The
	// meta leader says "stream is offline" once it has marked the node
	// offline; when the stopped node was the meta leader, the new one may
	// not have yet, and the request times out instead.
	if _, err := js.Publish(testCtx(t), "solo.x", []byte("lost"), jetstream.WithRetryAttempts(0)); !errors.Is(err, jetstream.ErrNoStreamResponse) {
		t.Fatalf("publishing to an R1 stream on a stopped node: want no response, got %v", err)
	}
	infoCtx, cancel := context.WithTimeout(testCtx(t), 2*time.Second)
	defer cancel()
	if _, err := js.Stream(infoCtx, "SOLO"); err == nil || !(strings.Contains(err.Error(), "offline") || errors.Is(err, context.DeadlineExceeded)) {
		t.Fatalf("stream info of an R1 stream on a stopped node: want offline, got %v", err)
	}
	if s.StreamLeader("SOLO") != "" {
		t.Fatal("no running node should lead SOLO")
	}
	// SOLO and its consumer still exist: the JetStream API counts them, and
	// so does the lab.
	var ai *jetstream.AccountInfo
	var err error
	if !broker.WaitFor(10*time.Second, func() bool { ai, err = js.AccountInfo(testCtx(t)); return err == nil }) {
		t.Fatalf("account info with %s stopped: %v", home, err)
	}
	if st := s.Stats(); ai.Streams != 1 || ai.Consumers != 1 || st.Streams != ai.Streams || st.Consumers != ai.Consumers {
		t.Fatalf("with %s stopped the lab counts %d streams and %d consumers, the JetStream API %d and %d", home, st.Streams, st.Consumers, ai.Streams, ai.Consumers)
	}
	// Back: the node's store still has the message, and publishing works again.
	if err := s.StartNode(home); err != nil {
		t.Fatal(err)
	}
	waitLeader(t, s, "SOLO", "") // its node leads it again, reachable from every node
	ack, err := js.Publish(testCtx(t), "solo.x", []byte("again"))
	if err != nil || ack.Sequence != 2 {
		t.Fatalf("after the node is back: %v %+v", err, ack)
	}
}

func TestClusterAreasResetAndRecoveryCoverEveryNode(t *testing.T) {
	s := brokertest.Start(t, brokertest.Clustered())
	nc, js := clusterJS(t, s)
	if _, err := js.CreateStream(testCtx(t), jetstream.StreamConfig{Name: "ORDERS", Subjects: []string{"orders.>"}, Replicas: 3}); err != nil {
		t.Fatalf("creating ORDERS: %v", err)
	}
	if _, err := js.Publish(testCtx(t), "orders.new", nil); err != nil {
		t.Fatalf("publishing to ORDERS: %v", err)
	}
	url := s.ClientURL()

	// A lesson's area starts empty (a new cluster: it elects at once)
	// and leaves the sandbox alone.
	if err := s.UseArea("lessons/replicas", true, true); err != nil {
		t.Fatalf("moving to the lesson's area: %v", err)
	}
	if st := s.Stats(); st.Streams != 0 || len(s.Nodes()) != 3 {
		t.Fatalf("a fresh area holds nothing: %+v", st)
	}
	if _, err := js.CreateStream(testCtx(t), jetstream.StreamConfig{Name: "LESSON", Subjects: []string{"lesson.>"}, Replicas: 3}); err != nil {
		t.Fatalf("the lesson's cluster should take an R3 stream at once: %v", err)
	}

	// Back in the sandbox the nodes recover their stores: Raft elects its
	// leaders after its election timeout, and everything is there.
	if err := s.UseArea("", true, false); err != nil {
		t.Fatalf("back to the sandbox: %v", err)
	}
	if s.ClientURL() != url {
		t.Fatalf("a restart moved the ports: %s -> %s", url, s.ClientURL())
	}
	if !s.Log().Contains("natslab: the nodes recovered their stores") {
		t.Fatal("the log should say why a recovering cluster takes seconds")
	}
	waitConnected(t, s, nc)
	waitLeader(t, s, "ORDERS", "")
	if got := streamMsgsNamed(t, js, "ORDERS"); got != 1 {
		t.Fatalf("after recovery want 1 message, got %d", got)
	}

	// Reset erases every node's store and starts a new cluster.
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Streams != 0 {
		t.Fatalf("after reset: %+v", st)
	}
	for _, n := range s.Nodes() {
		if !n.Running {
			t.Fatalf("after reset every node runs: %+v", s.Nodes())
		}
	}
}

func TestClusterRefusals(t *testing.T) {
	if _, err := broker.Start(broker.Options{StoreDir: t.TempDir(), JetStream: true, Listen: "none", Cluster: 2}); err == nil || !strings.Contains(err.Error(), "--cluster 3") {
		t.Fatalf("--cluster 2 should be refused with what works, got %v", err)
	}
	single := brokertest.Start(t, brokertest.InProcessOnly())
	if err := single.StopNode("n1"); !errors.Is(err, broker.ErrNotClustered) {
		t.Fatalf("a single server has no nodes to stop, got %v", err)
	}
	if single.Nodes() != nil || single.Clustered() {
		t.Fatal("a single server is not clustered")
	}

	s := brokertest.Start(t, brokertest.Clustered(), brokertest.InProcessOnly())
	if s.ClientURL() != "" {
		t.Fatalf("--listen none has no URL, got %q", s.ClientURL())
	}
	if err := s.StopNode("n9"); err == nil || !strings.Contains(err.Error(), "n1, n2, n3") {
		t.Fatalf("unknown node: %v", err)
	}
	if err := s.StopNode("n2"); err != nil {
		t.Fatal(err)
	}
	if err := s.StopNode("n2"); err == nil || !strings.Contains(err.Error(), "already stopped") {
		t.Fatalf("stopping twice: %v", err)
	}
	if err := s.StopNode("n3"); err != nil {
		t.Fatal(err)
	}
	if err := s.StopNode("n1"); err == nil || !strings.Contains(err.Error(), "last one running") {
		t.Fatalf("the last node should be kept: %v", err)
	}
	// The refusal names the nodes to start instead.
	if err := s.StartNode("n1"); err == nil || err.Error() != "node n1 is already running; n2 and n3 are down: node start starts them" {
		t.Fatalf("starting a running node: %v", err)
	}
	// The store lock covers the whole cluster.
	if _, err := broker.Start(broker.Options{StoreDir: s.StoreDir(), JetStream: true, Listen: "none", Cluster: 3}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("a second cluster on the same store should be refused, got %v", err)
	}
}

func streamMsgsNamed(t *testing.T, js jetstream.JetStream, name string) uint64 {
	t.Helper()
	st, err := js.Stream(testCtx(t), name)
	if err != nil {
		t.Fatalf("stream %s: %v", name, err)
	}
	return st.CachedInfo().State.Msgs
}

// A node started again is a place for a replica as soon as node start
// returns: the meta leader places replicas only on nodes it has had a
// report from, and one elected when the other stopped, right after the
// cluster started, may have had none from it.
func TestClusterStartedNodeTakesAReplicaAtOnce(t *testing.T) {
	s := brokertest.Start(t, brokertest.Clustered())
	_, js := clusterJS(t, s)
	meta := s.MetaLeader()
	if err := s.StopNode(meta); err != nil {
		t.Fatal(err)
	}
	if err := s.StartNode(meta); err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateStream(testCtx(t), jetstream.StreamConfig{Name: "ORDERS", Subjects: []string{"orders.>"}, Replicas: 3}); err != nil {
		t.Fatalf("a stream of three replicas right after node start %s: %v", meta, err)
	}
}

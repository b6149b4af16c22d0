package command_test

import (
	"context"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
	"natslab/broker/script"
)

// The node verbs on a real three-node cluster in the test process.

var (
	leaderLine  = regexp.MustCompile(`(?m)^\s+Leader: (n\d)`)
	replicaLine = regexp.MustCompile(`(?m)^\s+Replica: (n\d), (current|outdated)(, OFFLINE)?`)
)

// clusterBlock is what the Cluster Information block says about who leads
// and how each replica is, without the times and lags that move.
func clusterBlock(t *testing.T, info string) (leader string, replicas []string) {
	t.Helper()
	m := leaderLine.FindStringSubmatch(info)
	if m == nil {
		t.Fatalf("no Cluster Information leader in:\n%s", info)
	}
	for _, r := range replicaLine.FindAllStringSubmatch(info, -1) {
		replicas = append(replicas, r[1]+" "+r[2]+r[3])
	}
	return m[1], replicas
}

// The script: an R3 stream, a publish, stream info, the leader
// stopped, another publish, stream info again; then the node returns and
// catches up.
func TestNodeStopLeaderFailsOverAndStartCatchesUp(t *testing.T) {
	l := newLab(t, brokertest.Clustered())
	l.addReachable(`stream add ORDERS --subjects 'orders.>' --replicas 3 --defaults`, "ORDERS")
	if r := l.must(`pub orders.new first --jetstream`); !strings.Contains(r.err, "Sequence: 1") {
		t.Fatalf("first publish: %s", r.all())
	}
	before, _ := clusterBlock(t, l.must("stream info ORDERS").out)

	stop := l.must("node stop leader ORDERS")
	wantLines(t, "node stop leader", stop.err, "Stopping "+before+", the leader of ORDERS", before+" stopped in ", "is the new leader of ORDERS, elected ")

	if r := l.must(`pub orders.new second --jetstream`); !strings.Contains(r.err, "Stored in Stream: ORDERS Sequence: 2") {
		t.Fatalf("the publish after the failover should be sequence 2: %s", r.all())
	}
	info := l.must("stream info ORDERS").out
	after, replicas := clusterBlock(t, info)
	if after == before {
		t.Fatalf("the leader should have changed from %s:\n%s", before, info)
	}
	if !strings.Contains(info, "Messages: 2\n") {
		t.Fatalf("want 2 messages:\n%s", info)
	}
	if !contains(replicas, before+" outdated, OFFLINE") {
		t.Fatalf("the stopped leader should show as an offline replica: %v", replicas)
	}

	// The real CLI, on the same cluster, sees the same leader and replicas.
	real := brokertest.RunRealCLI(t, l.srv.ClientURL(), "stream", "info", "ORDERS")
	if real.ExitCode != 0 {
		t.Fatalf("real CLI: %s", real.Stderr)
	}
	realLeader, realReplicas := clusterBlock(t, real.Stdout)
	if realLeader != after || strings.Join(realReplicas, "|") != strings.Join(replicas, "|") {
		t.Fatalf("lab says %s %v, the real CLI %s %v", after, replicas, realLeader, realReplicas)
	}

	ls := l.must("node ls").out
	wantLines(t, "node ls", ls, "Cluster natslab: 3 nodes, 2 up", "│ "+before+"   │ down ", "│ "+after+"   │ up ")

	// node start with no name starts the node that is down, and returns
	// once the leader counts it current: stream info says so at once.
	start := l.must("node start")
	wantLines(t, "node start", start.err, before+" started in ", "rejoined the cluster", before+" caught up on ORDERS in ", "2 messages, last sequence 2")
	if !strings.Contains(l.must("node ls").out, "3 nodes, 3 up") {
		t.Fatal("every node should be up again")
	}
	_, replicas = clusterBlock(t, l.must("stream info ORDERS").out)
	if len(replicas) != 2 || !strings.HasSuffix(replicas[0], " current") || !strings.HasSuffix(replicas[1], " current") {
		t.Fatalf("right after node start every replica should be current: %v", replicas)
	}
	l.fails("node start", "every node is running")
}

// stopClock is the lab's cluster on a clock of the test's that jumps an
// hour inside each node stop, after the node is down; with electedFirst a
// stop also returns only once the stream's new leader is reachable, as
// when the stopping leader's handover is over before the node is.
type stopClock struct {
	*broker.Server
	jumped       atomic.Int64
	electedFirst string
}

func (s *stopClock) Cluster() broker.Cluster { return s }
func (s *stopClock) now() time.Time          { return time.Now().Add(time.Duration(s.jumped.Load())) }

func (s *stopClock) StopNode(name string) error {
	if err := s.Server.StopNode(name); err != nil {
		return err
	}
	s.jumped.Add(int64(time.Hour))
	if st := s.electedFirst; st != "" {
		broker.WaitFor(10*time.Second, func() bool { return s.Reachable(st) && s.StreamLeader(st) != "" })
	}
	return nil
}

// The election after node stop leader counts from the moment the node is
// down, not from when its stop began (here an hour of the test's clock
// apart); one already over by then was the stopping leader's handover.
func TestNodeStopCountsTheElectionFromTheNodeDown(t *testing.T) {
	elected := regexp.MustCompile(`(?m)^\S+ (n\d) is the new leader of ORDERS, elected (.*)$`)
	for _, tc := range []struct {
		name         string
		electedFirst string
		want         *regexp.Regexp
	}{
		// Usually the survivors elect once the node is down; on a busy
		// machine the stopping leader's handover may be over first. Either
		// way no hour of the stop is counted.
		{"elected after the node is down", "", regexp.MustCompile(`^\d+ms after the stop$|^\d+(\.\d+)?s after the stop$|^while n\d was stopping$`)},
		{"elected while the node stops", "ORDERS", regexp.MustCompile(`^while n\d was stopping$`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &stopClock{Server: brokertest.Start(t, brokertest.Clustered()), electedFirst: tc.electedFirst}
			l := &lab{t: t, srv: srv.Server, changed: make(chan struct{}, 1)}
			l.s = command.NewSession(srv, command.WithTimeout(2*time.Second), command.WithClock(srv.now), command.WithObserver(func(command.Event) { l.poke() }))
			t.Cleanup(l.s.Close)
			l.addReachable(`stream add ORDERS --subjects 'orders.>' --replicas 3 --defaults`, "ORDERS")
			stop := l.must("node stop leader ORDERS").err
			m := elected.FindStringSubmatch(stop)
			if m == nil {
				t.Fatalf("no election line:\n%s", stop)
			}
			if !tc.want.MatchString(m[2]) {
				t.Errorf("elected %q, want %v:\n%s", m[2], tc.want, stop)
			}
		})
	}
}

// An R1 stream lives on one node: stopping it makes the stream unavailable,
// starting it brings the stream back with what it held.
func TestNodeStopTakesAnR1StreamAwayAndStartBringsItBack(t *testing.T) {
	l := newLab(t, brokertest.Clustered())
	l.addReachable(`stream add SOLO --subjects 'solo.>' --replicas 1 --defaults`, "SOLO")
	l.must(`pub solo.x one --jetstream`)
	home := l.srv.StreamLeader("SOLO")
	if home == "" {
		t.Fatal("SOLO should have a home node")
	}
	stop := l.must("node stop " + home)
	wantLines(t, "node stop", stop.err, "SOLO has its only copy on "+home+" (1 replica): it is unavailable until node start "+home)
	if r := l.run(`pub solo.x two --jetstream`); r.e == nil {
		t.Fatalf("publishing to SOLO with its node stopped should fail: %s", r.all())
	}
	// stream ls lists it as inaccessible, once the meta leader has marked
	// the node offline, in the real CLI's table.
	var lab string
	if !broker.WaitFor(10*time.Second, func() bool { lab = inaccessible(l.must("stream ls").out); return lab != "" }) {
		t.Fatalf("stream ls with %s stopped lists no inaccessible stream", home)
	}
	real := brokertest.RunRealCLI(t, l.srv.ClientURL(), "stream", "ls")
	if cli := inaccessible(real.Stdout); lab != cli {
		t.Fatalf("stream ls with %s stopped, the lab:\n%s\nthe real CLI:\n%s%s", home, lab, real.Stdout, real.Stderr)
	}
	start := l.must("node start " + home)
	wantLines(t, "node start", start.err, "SOLO is available again: its only copy is on "+home+", with 1 message")
	if r := l.must(`pub solo.x three --jetstream`); !strings.Contains(r.err, "Sequence: 2") {
		t.Fatalf("after the node is back SOLO takes messages again: %s", r.all())
	}
}

// An R1 consumer of a replicated stream lives on one node: with it stopped
// consumer ls and consumer report list it as inaccessible, as the real CLI
// does on the same cluster.
func TestNodeStopLeavesAnR1ConsumerInaccessible(t *testing.T) {
	l := newLab(t, brokertest.Clustered())
	l.addReachable(`stream add ORDERS --subjects 'orders.>' --replicas 3 --defaults`, "ORDERS")
	l.must(`pub orders.new one --jetstream`)
	l.must(`consumer add ORDERS solo --pull --replicas 1 --defaults`)
	home, _ := clusterBlock(t, l.must("consumer info ORDERS solo").out)
	stop := l.must("node stop " + home)
	wantLines(t, "node stop", stop.err, "Consumer ORDERS > solo has its only copy on "+home+" (1 replica): it is offline until node start "+home)
	// The server calls it offline; the real CLI then asks which consumer.
	l.fails("consumer info ORDERS solo", "could not select Consumer: cannot pick a Consumer without a terminal",
		"consumer solo on stream ORDERS is offline: every copy of it is on a stopped node", "(stopped: "+home+"; node start starts them again)")
	for _, verb := range []string{"ls", "report"} {
		var lab string
		if !broker.WaitFor(10*time.Second, func() bool {
			lab = l.must("consumer " + verb + " ORDERS").out
			return strings.Contains(lab, "Inaccessible")
		}) {
			t.Fatalf("consumer %s with %s stopped lists no inaccessible consumer:\n%s", verb, home, lab)
		}
		real := brokertest.RunRealCLI(t, l.srv.ClientURL(), "consumer", verb, "ORDERS")
		if got, want := inaccessible(lab), inaccessible(real.Stdout); got != want {
			t.Fatalf("consumer %s with %s stopped, the lab:\n%s\nthe real CLI:\n%s%s", verb, home, lab, real.Stdout, real.Stderr)
		}
	}
}

// restart on the cluster starts every node again, those node stop had
// stopped too, and says so.
func TestRestartOnTheClusterSaysEveryNodeRuns(t *testing.T) {
	l := newLab(t, brokertest.Clustered())
	l.must("node stop n2")
	r := l.must("restart")
	wantLines(t, "restart", r.err, "Cluster restarted in ", "every node running (n1, n2, n3; n2 had been stopped) with JetStream on: 0 streams, 0 consumers")
	if !strings.Contains(l.must("node ls").out, "3 nodes, 3 up") {
		t.Fatal("every node should run after restart")
	}
}

// inaccessible is the table stream ls or consumer ls prints after its first
// (the Inaccessible Streams or Consumers), or "".
func inaccessible(ls string) string {
	if strings.Count(ls, "╭") < 2 {
		return ""
	}
	return ls[strings.LastIndex(ls, "╭"):]
}

// The acceptance script, run as natslab run --cluster 3 runs it.
func TestNodeScriptShowsTwoLeadersAndTwoMessages(t *testing.T) {
	l := newLab(t, brokertest.Clustered())
	const lines = `stream add ORDERS --subjects 'orders.>' --replicas 3 --defaults
pub orders.new 'first order' --jetstream
stream info ORDERS
node stop leader ORDERS
pub orders.new 'second order' --jetstream
stream info ORDERS
`
	var out, errb syncBuf
	res, err := script.Run(context.Background(), l.s, strings.NewReader(lines), command.Streams{Out: &out, Err: &errb})
	if err != nil || res.Failed != 0 {
		t.Fatalf("script: %v, %d failed\n%s%s", err, res.Failed, errb.String(), out.String())
	}
	leaders := leaderLine.FindAllStringSubmatch(out.String(), -1)
	// stream add prints the new stream's information too: three blocks.
	if len(leaders) != 3 || strings.Count(out.String(), "Cluster Information:") != 3 {
		t.Fatalf("want the Cluster Information of stream add and of two stream infos:\n%s", out.String())
	}
	if first, second := leaders[1][1], leaders[2][1]; first == second {
		t.Fatalf("both stream infos name %s as the leader", first)
	}
	if !strings.Contains(errb.String(), "Stored in Stream: ORDERS Sequence: 2") {
		t.Fatalf("the second publish should be sequence 2:\n%s", errb.String())
	}
	infos := strings.Split(out.String(), "Information for Stream ORDERS")
	if last := infos[len(infos)-1]; !strings.Contains(last, "Messages: 2\n") {
		t.Fatalf("the last stream info should count 2 messages:\n%s", last)
	}
}

func TestNodeVerbErrors(t *testing.T) {
	single := newLab(t, brokertest.InProcessOnly())
	single.fails("node ls", "single server", "--cluster 3")
	if r := single.run(`stream add R3 --subjects 'r3.>' --replicas 3 --defaults`); r.e == nil || !strings.Contains(command.ErrorNote(r.e), "--cluster 3") {
		t.Fatalf("--replicas 3 on a single server should say how to start a cluster: %v", r.e)
	}

	l := newLab(t, brokertest.Clustered(), brokertest.InProcessOnly())
	l.fails("node", "node ls", "node stop NAME", "node start [NAME]")
	l.fails("node stpo n1", `no sub-command "stpo"`, "did you mean stop")
	l.fails("node stop", "one node name", "n1, n2, n3")
	l.fails("node stop n9", `no node "n9"`, "n1, n2, n3")
	l.fails("node stop leader", "node stop leader ORDERS")
	l.fails("node stop leader NOPE", "NOPE not found")
	l.fails("node start n1", "already running, as every node is")
	l.must("node stop n2")
	l.fails("node stop n2", "already stopped", "node start n2")
	l.fails("node start n1", "node n1 is already running; n2 is the one down: node start n2")
	l.must("node stop n3")
	stop := l.must("node ls")
	wantLines(t, "node ls without a listener", stop.out, "1 up", "│ n1   │ up ")
	if strings.Contains(stop.out, "URL") {
		t.Fatalf("with --listen none there is no URL column:\n%s", stop.out)
	}
	l.fails("node stop n1", "last one running")
	if got := broker.NodeNames; len(got) != 3 {
		t.Fatalf("nodes: %v", got)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

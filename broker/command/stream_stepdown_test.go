package command_test

import (
	"regexp"
	"testing"

	"natslab/broker/brokertest"
)

// stream cluster step-down on a real three-node cluster, against the real
// CLI on the same cluster.

var (
	nodeName    = regexp.MustCompile(`"n\d"|\bn\d\b`)
	replicaRest = regexp.MustCompile(`(?m)^(\s+Replica: N),.*$`)
	leaderSince = regexp.MustCompile(`(?m)^(\s+Leader: N) \(.*\)$`)
)

// stepDownSquash hides what differs between two step-downs: which node
// leads and how each replica is doing at that instant.
func stepDownSquash(s string) string {
	s = nodeName.ReplaceAllString(s, "N")
	s = replicaRest.ReplaceAllString(s, "$1")
	s = leaderSince.ReplaceAllString(s, "$1")
	return s
}

func TestStreamClusterStepDownMatchesRealCLI(t *testing.T) {
	l := newLab(t, brokertest.Clustered())
	l.addReachable(`stream add ORDERS --subjects 'orders.>' --replicas 3 --defaults`, "ORDERS")
	l.must(`pub orders.new one --jetstream`)
	before := l.srv.StreamLeader("ORDERS")

	lab := l.must("stream cluster step-down ORDERS")
	after := l.srv.StreamLeader("ORDERS")
	if after == "" || after == before {
		t.Fatalf("the leader should have changed from %s, is %q", before, after)
	}
	wantLines(t, "step-down", lab.err,
		`Requesting leader step down of "`+before+`" for stream "ORDERS" in a 3 peer cluster group`,
		`New leader elected "`+after+`"`)
	if leader, _ := clusterBlock(t, lab.out); leader != after {
		t.Fatalf("the stream information after the step-down should name %s:\n%s", after, lab.out)
	}

	real := brokertest.RunRealCLI(t, l.srv.ClientURL(), "stream", "cluster", "step-down", "ORDERS")
	if real.ExitCode != 0 {
		t.Fatalf("real CLI: %s", real.Stderr)
	}
	streamCompare(t, "stream cluster step-down ORDERS", "stderr", stepDownSquash(lab.err), stepDownSquash(real.Stderr))
	streamCompare(t, "stream cluster step-down ORDERS", "stdout", stepDownSquash(lab.out), stepDownSquash(real.Stdout))

	// --preferred names the next leader; the short aliases work.
	next := "n1"
	if l.srv.StreamLeader("ORDERS") == "n1" {
		next = "n2"
	}
	l.must("stream c sd ORDERS --preferred " + next)
	if got := l.srv.StreamLeader("ORDERS"); got != next {
		t.Fatalf("--preferred %s: the leader is %s", next, got)
	}
}

func TestStreamClusterStepDownErrors(t *testing.T) {
	l := newLab(t, brokertest.Clustered(), brokertest.InProcessOnly())
	l.must(`stream add SOLO --subjects 'solo.>' --replicas 1 --defaults`)
	l.fails("stream cluster step-down SOLO", `stream "SOLO" is not clustered`, "1 replica", "--replicas 3")
	const pick = "nats: error: could not pick a Stream to operate on: cannot pick a Stream without a terminal and no Stream name supplied\n"
	l.fails("stream cluster step-down NOPE", pick, "no stream NOPE")
	l.fails("stream cluster step-down", pick, "name the stream", "SOLO")
	l.fails("stream cluster balance", "--listen none") // the real CLI's, which needs a listener
	l.fails("stream cluster", "step-down")
	l.addReachable(`stream add ORDERS --subjects 'orders.>' --replicas 3 --defaults`, "ORDERS")
	l.fails("stream cluster step-down ORDERS --preferred n9", "nats: error: preferred server \"n9\" not known (10005)\n", "n9 is not a replica of ORDERS", "followers")
	leader := l.srv.StreamLeader("ORDERS")
	l.fails("stream cluster step-down ORDERS --preferred "+leader, leader+" leads ORDERS already")

	single := newLab(t, brokertest.InProcessOnly())
	single.must(`stream add ORDERS --subjects 'orders.>' --defaults`)
	single.fails("stream cluster step-down ORDERS", `stream "ORDERS" is not clustered`, "--cluster 3")
}

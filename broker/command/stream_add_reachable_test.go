package command_test

import (
	"fmt"
	"testing"

	"natslab/broker/brokertest"
)

// On the lab's cluster, stream add (stream edit, kv add) returns once a publish made on any node
// reaches the new stream's leader: the next line of a script or of a
// lesson's setup may publish to it at once, and must not meet "no
// responders".
func TestStreamAddIsReachableWhenTheNextLineRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	l := newLab(t, brokertest.Clustered())
	for i := 1; i <= 8; i++ {
		name := fmt.Sprintf("S%d", i)
		l.must(fmt.Sprintf("stream add %s --subjects 's%d.>' --replicas %d --defaults", name, i, 1+2*(i%2)))
		if !l.srv.Reachable(name) {
			t.Fatalf("stream add %s returned before a publish from every node reaches it", name)
		}
		l.must(fmt.Sprintf("stream edit %s --subjects 's%d.>' --subjects 'e%d.>' -f", name, i, i))
		if !l.srv.Reachable(name) {
			t.Fatalf("stream edit %s returned before a publish on its new subjects from every node reaches it", name)
		}
		bucket := fmt.Sprintf("B%d", i)
		l.must(fmt.Sprintf("kv add %s --replicas %d", bucket, 1+2*(i%2)))
		if !l.srv.Reachable("KV_" + bucket) {
			t.Fatalf("kv add %s returned before a put from every node reaches it", bucket)
		}
	}
}

// A cluster restarting from its stores elects each stream's leader on the
// stream's own Raft timeout, after the meta group's: restart returns once
// a publish from every node reaches every stream, so the next line's
// pub --jetstream does not time out.
func TestRestartOnTheClusterReturnsWithEveryStreamReachable(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	l := newLab(t, brokertest.Clustered())
	l.must(`stream add DISK --subjects 'disk.>' --replicas 3 --defaults`)
	l.must(`stream add RAM --subjects 'ram.>' --storage memory --replicas 3 --defaults`)
	l.must(`stream add ONE --subjects 'one.>' --defaults`)
	l.must("restart")
	for _, name := range []string{"DISK", "RAM", "ONE"} {
		if !l.srv.Reachable(name) {
			t.Errorf("restart returned before a publish from every node reaches %s", name)
		}
	}
	l.must(`pub ram.note hi --jetstream`)
}

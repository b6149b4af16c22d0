package episode

import (
	"bytes"
	"strings"
	"testing"

	"natslab/broker/brokertest"
)

// A check of the object store looks at the bucket at every look without a
// consumer: the library's List makes one, which the status bar's count of
// consumers showed for a moment each second while the step waited. The
// server's audit of its JetStream API shows none asked for, and the step's
// reason still names the objects the bucket holds.
func TestObjectChecksMakeNoConsumer(t *testing.T) {
	srv := brokertest.Start(t)
	audit := brokertest.AuditAPI(t, srv)

	rep, out := runLesson(t, srv, nil, "object-store", "object add files\nobject put files notes.txt\n")
	if len(rep.Steps) < 2 || !rep.Steps[0].Done || rep.Steps[1].Done {
		t.Fatalf("want step 1 done and step 2 not:\n%s", out)
	}
	if want := "bucket files has no object report.txt (it holds notes.txt)"; !strings.Contains(rep.Steps[1].Why, want) {
		t.Errorf("step 2's reason %q, want %q", rep.Steps[1].Why, want)
	}

	for _, asked := range audit.Asked(t, "$JS.API.CONSUMER.") {
		t.Error(asked)
	}
}

// A replica not current because its node is stopped: the step's reason
// says the node is down and how to start it, since the step cannot tick
// until it runs again.
func TestAReplicaOnAStoppedNodeSaysToStartIt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	srv := brokertest.Start(t, brokertest.Clustered(), brokertest.InProcessOnly())
	rep, out := runLesson(t, srv, nil, "replicas", `stream add ORDERS --subjects "orders.>" --replicas 3 --defaults
node stop n2
pub orders.new "order {{Count}}" --count 3 --jetstream
`)
	if len(rep.Steps) < 2 || !rep.Steps[0].Done || rep.Steps[1].Done {
		t.Fatalf("want step 1 done and step 2 not:\n%s", out)
	}
	if want := "not current: n2 (n2 is down: node start n2 starts it)"; !strings.Contains(rep.Steps[1].Why, want) {
		t.Errorf("step 2's reason %q, want it to end %q", rep.Steps[1].Why, want)
	}
}

// The lessons that change the server's configuration or join a leaf node
// to it run on the single server only: on the cluster the list says so,
// and natslab run --cluster 3 refuses them in one line rather than run
// every line into a refusal of its own.
func TestSingleServerLessonsSayNotOnTheCluster(t *testing.T) {
	var list bytes.Buffer
	WriteList(&list, catalog(), nil, ListOptions{Cluster: 3})
	for _, want := range []string{"26  accounts          not with --cluster", "30  leaf-node         not with --cluster", "16  replicas          new"} {
		if !strings.Contains(list.String(), want) {
			t.Errorf("the list on a cluster lacks %q:\n%s", want, list.String())
		}
	}
	r := runBinaryOn(t, "leaf-node", "leaf start\n", false, 3)
	if want := "natslab: lesson leaf-node runs on the single server: leave out --cluster"; r.code == 0 || strings.TrimSpace(r.out) != want {
		t.Errorf("natslab run --cluster 3 --lesson leaf-node: exit %d, want 1 line %q:\n%s", r.code, want, r.out)
	}
}

// A stream whose only copy is on a stopped node: the step's reason says
// the stream is offline and how to start the node, not the API's error.
func TestAStreamOnAStoppedNodeSaysToStartIt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	srv := brokertest.Start(t, brokertest.Clustered(), brokertest.InProcessOnly())
	rep, out := runLesson(t, srv, nil, "stream-log", `nats-server -js
stream add ORDERS --subjects "orders.>" --storage file --retention limits --defaults
node stop leader ORDERS
pub orders.created "order 1"
`)
	if len(rep.Steps) < 3 || !rep.Steps[1].Done || rep.Steps[2].Done {
		t.Fatalf("want step 2 done and step 3 not:\n%s", out)
	}
	if why := rep.Steps[2].Why; !strings.HasPrefix(why, "stream ORDERS is offline: no node that holds it runs (n") || !strings.Contains(why, "is down: node start n") {
		t.Errorf("step 3's reason %q, want it to say ORDERS is offline and which node to start", why)
	}
}

// A consumer whose stream's only copy is on a stopped node: the step
// says the consumer is offline and how to start the node.
func TestAConsumerOnAStoppedNodeSaysToStartIt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	srv := brokertest.Start(t, brokertest.Clustered(), brokertest.InProcessOnly())
	rep, out := runLesson(t, srv, nil, "durable-consumer", `consumer add EVENTS worker --pull --ack explicit --defaults
node stop leader EVENTS
`)
	if len(rep.Steps) < 2 || !rep.Steps[0].Done || rep.Steps[1].Done {
		t.Fatalf("want step 1 done and step 2 not:\n%s", out)
	}
	if why := rep.Steps[1].Why; !strings.Contains(why, "is offline: no node that holds it runs (n") || !strings.Contains(why, "is down: node start n") {
		t.Errorf("step 2's reason %q, want it to say worker (or EVENTS) is offline and which node to start", why)
	}
}

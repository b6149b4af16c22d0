package command

import (
	"io"
	"strings"
	"testing"

	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/brokertest"
)

// With two of three nodes stopped JetStream answers a new bucket or stream
// of three replicas with "no suitable peers" while the last node still
// leads the meta group, and "temporarily unavailable" (or nothing, a
// timeout) once it has given up its lead: which one, and when, is the
// server's to decide. Each answer, as each client library returns it, gets
// a note that says why from the lab's own nodes.
func TestTooFewNodesNotesSayWhy(t *testing.T) {
	srv := brokertest.Start(t, brokertest.Clustered())
	sess := NewSession(srv)
	t.Cleanup(sess.Close)
	c := &Call{S: sess, Out: io.Discard, Err: io.Discard, Job: &Job{}}
	for _, n := range []string{"n1", "n2"} {
		if err := srv.StopNode(n); err != nil {
			t.Fatal(err)
		}
	}
	const (
		noLeader = "has no leader: 1 of its 3 nodes run, and it needs 2 to elect one (node start"
		noPeers  = "1 of the cluster's 3 nodes run: node start starts those that are down"
	)
	unavailable := &jetstream.APIError{Code: 503, ErrorCode: errCodeClusterUnavailable, Description: "JetStream system temporarily unavailable"}
	placement := &jetstream.APIError{Code: 400, ErrorCode: errCodeNoPeers, Description: "no suitable peers for placement, peer offline"}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"kv add, unavailable", c.kvAPIError(unavailable), noLeader},
		{"kv add, no peers", c.kvAPIError(placement), noPeers},
		{"a JetStream call, unavailable", c.jsError(unavailable), noLeader},
		{"a JetStream call, no peers", c.jsError(placement), noPeers},
		{"a jsm.go call, unavailable", c.explainAPI(fatalIf(&api.ApiError{Code: 503, ErrCode: errCodeClusterUnavailable, Description: "JetStream system temporarily unavailable"}, "could not create Stream")), noLeader},
		// jsm.ParsePubAck's error, a publish's answer, is the value.
		{"a publish's answer, unavailable", c.explainAPI(api.ApiError{Code: 503, ErrCode: errCodeClusterUnavailable, Description: "JetStream system temporarily unavailable"}), noLeader},
	} {
		if note := ErrorNote(tc.err); !strings.Contains(note, tc.want) {
			t.Errorf("%s: the note should say %q: %q", tc.name, tc.want, note)
		}
	}
	// One node down: a leader elected right after the cluster started may
	// not have heard from it, and refuses to place a replica there.
	if err := srv.StartNode("n1"); err != nil {
		t.Fatal(err)
	}
	const unheard = "had no report from n2 before it stopped: node start starts it"
	streamAdd := (&streamCmd{stream: "ORDERS"}).createError(c, nil, api.StreamConfig{Name: "ORDERS", Replicas: 3}, false,
		fatalIf(&api.ApiError{Code: 400, ErrCode: errCodeNoPeers, Description: "no suitable peers for placement, peer offline"}, "could not create Stream"))
	for _, err := range []error{c.kvAPIError(placement), c.jsError(placement), streamAdd} {
		if note := ErrorNote(err); !strings.Contains(note, unheard) {
			t.Errorf("one node down: the note should say %q: %q", unheard, note)
		}
	}
	// All nodes up: a placement refusal is the server's to explain.
	if err := srv.StartNode("n2"); err != nil {
		t.Fatal(err)
	}
	if note := ErrorNote(c.kvAPIError(placement)); note != "" {
		t.Errorf("with every node up the lab added a note: %q", note)
	}
}

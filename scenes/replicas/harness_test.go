package replicas

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/scenes"
	"natslab/scenes/kit/kittest"
)

// harness runs a replicas scene on a real three-node cluster in the test
// process, with a manual clock, delivering the scene's feed messages as
// Bubble Tea would.
type harness struct {
	*kittest.Harness[*Scene, Snapshot]
	srv *broker.Server
	nc  *nats.Conn
	js  jetstream.JetStream
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	srv := brokertest.Start(t, brokertest.Clustered())
	// Every View draws afresh at the clock's time, whatever the cache holds.
	kh := kittest.Open(t, srv, func(env scenes.Env) (*Scene, error) { return New(env, Options{}) },
		func(s *Scene) Snapshot { return s.snap }, kittest.Redraw(), kittest.FitsThePanes())
	h := &harness{Harness: kh, srv: srv}
	h.nc = brokertest.Connect(t, srv, "replicas test")
	h.js, _ = jetstream.New(h.nc)
	return h
}

// createStream makes a stream the way a learner would, outside the scene.
func (h *harness) createStream(name, subject string, replicas int) {
	h.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := h.js.CreateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{subject}, Replicas: replicas}); err != nil {
		h.T.Fatal(err)
	}
}

// lead moves a stream's leadership to node, as `stream cluster step-down
// --preferred` does, so that a picture does not depend on who won an
// election; it returns once the scene has seen it.
func (h *harness) lead(stream, node string) {
	h.T.Helper()
	req, _ := json.Marshal(map[string]any{"placement": map[string]string{"preferred": node}})
	deadline := time.Now().Add(15 * time.Second)
	for h.Scene.snap.Leader(stream) != node {
		if time.Now().After(deadline) {
			h.T.Fatalf("%s did not become the leader of %s: the scene shows %+v", node, stream, h.Scene.snap)
		}
		if l := h.srv.StreamLeader(stream); l != "" && l != node {
			_, _ = h.nc.Request("$JS.API.STREAM.LEADER.STEPDOWN."+stream, req, 2*time.Second)
		}
		h.Step(100 * time.Millisecond)
	}
}

// copyOf is a node's copy of a stream in the scene's snapshot.
func copyOf(s Snapshot, node, stream string) (Copy, bool) {
	for _, n := range s.Nodes {
		if n.Name == node {
			c, ok := n.Copies[stream]
			return c, ok
		}
	}
	return Copy{}, false
}

// allAt reports whether the stream has a leader and every copy on a
// running node is at seq (every running node's, for a replicated stream).
func allAt(s Snapshot, stream string, seq uint64) bool {
	for _, n := range s.Nodes {
		if !n.Up {
			continue
		}
		c, ok := n.Copies[stream]
		if !ok && c.R <= 1 && s.Leader(stream) != n.Name {
			if lc, _ := copyOf(s, s.Leader(stream), stream); lc.R <= 1 {
				continue // an R1 stream lives on one node
			}
		}
		if !ok || c.Seq != seq || c.Behind {
			return false
		}
	}
	return s.Leader(stream) != ""
}

package replicas

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/scenes"
	"natslab/scenes/kit"
)

// harness runs a replicas scene on a real three-node cluster in the test
// process, with a manual clock, delivering the scene's feed messages as
// Bubble Tea would.
type harness struct {
	t       testing.TB
	srv     *broker.Server
	nc      *nats.Conn
	js      jetstream.JetStream
	s       *Scene
	clock   *kit.ManualClock
	waiting chan tea.Msg
}

var epoch = time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)

func newHarness(t testing.TB) *harness {
	t.Helper()
	srv := brokertest.Start(t, brokertest.Clustered())
	h := &harness{t: t, srv: srv, clock: kit.NewManualClock(epoch)}
	s, err := New(scenes.Env{Deployment: srv, Clock: h.clock}, Options{})
	if err != nil {
		t.Fatalf("new scene: %v", err)
	}
	t.Cleanup(s.Close)
	s.Styles = kit.NewStyles(false)
	h.s = s
	h.nc = brokertest.Connect(t, srv, "replicas test")
	h.js, _ = jetstream.New(h.nc)
	return h
}

// do runs a control and fails the test on an error.
func (h *harness) do(control string, args ...string) string {
	h.t.Helper()
	out, err := h.s.Do(control, args)
	if err != nil {
		h.t.Fatalf("%s %v: %v", control, args, err)
	}
	return out
}

// step delivers the scene's next feed message, if one comes within timeout.
func (h *harness) step(timeout time.Duration) bool {
	if h.waiting == nil {
		ch := make(chan tea.Msg, 1)
		cmd := h.s.Feed().Wait()
		go func() { ch <- cmd() }()
		h.waiting = ch
	}
	select {
	case m := <-h.waiting:
		h.waiting = nil
		h.s.Update(m)
		return true
	case <-time.After(timeout):
		return false
	}
}

// until delivers feed messages until the scene's own snapshot satisfies
// cond, then a moment more, so every event of the stage is in.
func (h *harness) until(what string, cond func(Snapshot) bool) {
	h.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond(h.s.snap) {
		if time.Now().After(deadline) {
			h.t.Fatalf("waiting for %s: the scene shows %+v", what, h.s.snap)
		}
		h.step(50 * time.Millisecond)
	}
	end := time.Now().Add(150 * time.Millisecond)
	for time.Now().Before(end) {
		h.step(10 * time.Millisecond)
	}
}

// view draws the scene at w×h, without escape sequences.
func (h *harness) view(w, hgt int) string {
	h.s.SetSize(w, hgt)
	h.s.Touch()
	return ansi.Strip(h.s.View())
}

// createStream makes a stream the way a learner would, outside the scene.
func (h *harness) createStream(name, subject string, replicas int) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := h.js.CreateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{subject}, Replicas: replicas}); err != nil {
		h.t.Fatal(err)
	}
}

// lead moves a stream's leadership to node, as `stream cluster step-down
// --preferred` does, so that a picture does not depend on who won an
// election; it returns once the scene has seen it.
func (h *harness) lead(stream, node string) {
	h.t.Helper()
	req, _ := json.Marshal(map[string]any{"placement": map[string]string{"preferred": node}})
	deadline := time.Now().Add(15 * time.Second)
	for h.s.snap.Leader(stream) != node {
		if time.Now().After(deadline) {
			h.t.Fatalf("%s did not become the leader of %s: the scene shows %+v", node, stream, h.s.snap)
		}
		if l := h.srv.StreamLeader(stream); l != "" && l != node {
			_, _ = h.nc.Request("$JS.API.STREAM.LEADER.STEPDOWN."+stream, req, 2*time.Second)
		}
		h.step(100 * time.Millisecond)
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

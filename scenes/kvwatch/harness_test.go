package kvwatch

import (
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
	"natslab/scenes"
	"natslab/scenes/kit/kittest"
)

// harness runs a kv-watch scene on a real embedded server with a manual
// clock, delivering the scene's feed messages as Bubble Tea would, and a
// command session to type the episodes' commands into.
type harness struct {
	*kittest.Harness[*Scene, Snapshot]
	*kittest.Session
	t   testing.TB
	srv *broker.Server
	dep broker.Deployment // what the scene and the session talk to: srv, or srv seen as an external server
}

// newHarness starts a server, types the setup commands, then opens the scene.
func newHarness(t testing.TB, setup ...string) *harness {
	t.Helper()
	srv := brokertest.Start(t)
	h := newLearner(t, srv, srv)
	for _, line := range setup {
		h.Run(line)
	}
	h.open()
	return h
}

// newLearner is a command session on dep, with no scene open yet: open
// opens it.
func newLearner(t testing.TB, srv *broker.Server, dep broker.Deployment) *harness {
	sess := kittest.NewSession(t, dep, command.WithTimeout(5*time.Second))
	sess.Timeout = 20 * time.Second
	return &harness{Session: sess, t: t, srv: srv, dep: dep}
}

// open opens the scene, on the learner's deployment.
func (h *harness) open() {
	h.t.Helper()
	h.Harness = kittest.Open(h.t, h.dep, func(env scenes.Env) (*Scene, error) { return New(env) },
		func(s *Scene) Snapshot { return s.snap }, kittest.FitsThePanes())
}

// key is the named key as the scene shows it (zero when absent).
func key(s Snapshot, name string) Key {
	if k := s.key(name); k != nil {
		return *k
	}
	return Key{}
}

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
type harness struct{ *kittest.Lab[*Scene, Snapshot] }

// newHarness starts a server, types the setup commands, then opens the scene.
func newHarness(t testing.TB, setup ...string) *harness {
	t.Helper()
	srv := brokertest.Start(t)
	h := newLearner(t, srv, srv)
	for _, line := range setup {
		h.Run(line)
	}
	h.Open()
	// The scene opens once its driver has looked, or after a bound a busy
	// machine can pass: the test's commands wait for the look, and with it
	// the scene's listeners.
	if !h.Scene.d.sync(10 * time.Second) {
		t.Fatal("the scene's driver did not look at the broker")
	}
	return h
}

// newLearner is a command session on dep, with no scene open yet: Open
// opens it.
func newLearner(t testing.TB, srv *broker.Server, dep broker.Deployment) *harness {
	return &harness{kittest.NewLab(t, srv, dep, func(env scenes.Env) (*Scene, error) { return New(env) },
		func(s *Scene) Snapshot { return s.snap }, kittest.Commands(20*time.Second, command.WithTimeout(5*time.Second)), kittest.FitsThePanes())}
}

// key is the named key as the scene shows it (zero when absent).
func key(s Snapshot, name string) Key {
	if k := s.key(name); k != nil {
		return *k
	}
	return Key{}
}

package core

import (
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/scenes"
	"natslab/scenes/kit/kittest"
)

// harness runs a scene on a real embedded server with a manual clock,
// delivering the scene's feed messages as Bubble Tea would, and a command
// session for the learner's side (sub, pub), as the lab's pane runs it.
type harness struct{ *kittest.Lab[*Scene, Snapshot] }

func newHarness(t testing.TB, kind Kind, bopts ...brokertest.Option) *harness {
	t.Helper()
	srv := brokertest.Start(t, append([]brokertest.Option{brokertest.WithoutJetStream()}, bopts...)...)
	return newHarnessOn(t, srv, srv, kind)
}

// newHarnessOn opens the scene and a session on dep: srv's deployment, or
// srv seen as a server the lab does not run.
func newHarnessOn(t testing.TB, srv *broker.Server, dep broker.Deployment, kind Kind) *harness {
	t.Helper()
	return &harness{kittest.OpenLab(t, srv, dep, func(env scenes.Env) (*Scene, error) { return New(env, kind) },
		func(s *Scene) Snapshot { return s.snap }, kittest.FitsThePanes(), kittest.Commands(10*time.Second))}
}

// settled draws the scene once everything on its way has landed: the
// counts on screen are then the server's.
func (h *harness) settled(w, hgt int) string {
	h.Clock.Advance(10 * time.Second)
	return h.View(w, hgt)
}

// counts maps each subscription's subject (and queue) to its count, summed
// over subscriptions that share them.
func counts(s Snapshot) map[string]uint64 {
	out := map[string]uint64{}
	for _, sub := range s.Subs {
		k := sub.Subject
		if sub.Queue != "" {
			k += " " + sub.Queue
		}
		out[k] += sub.Msgs
	}
	return out
}

func subsOn(subject string, n int) func(Snapshot) bool {
	return func(s Snapshot) bool {
		c := 0
		for _, sub := range s.Subs {
			if sub.Subject == subject {
				c++
			}
		}
		return c == n
	}
}

package contrast

import (
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/scenes"
	"natslab/scenes/kit/kittest"
)

// harness runs a contrast scene on a real embedded server with a manual
// clock, delivering the scene's feed messages as Bubble Tea would.
type harness struct {
	*kittest.Harness[*Scene, Snapshot]
	srv *broker.Server
}

func newHarness(t testing.TB, opts Options, bopts ...brokertest.Option) *harness {
	t.Helper()
	srv := brokertest.Start(t, bopts...)
	kh := kittest.Open(t, srv, func(env scenes.Env) (*Scene, error) { return New(env, opts) },
		func(s *Scene) Snapshot { return s.snap }, kittest.FitsThePanes())
	kh.Scene.d.pace = 10 * time.Millisecond // the app's replay pace is real time: keep tests quick
	return &harness{Harness: kh, srv: srv}
}

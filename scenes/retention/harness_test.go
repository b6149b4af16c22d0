package retention

import (
	"testing"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/scenes"
	"natslab/scenes/kit/kittest"
)

// harness runs the scene on a real embedded server with a manual clock,
// following its commands as Bubble Tea does, and a command session to type
// the episode's commands into.
type harness struct{ *kittest.Lab[*Scene, Snapshot] }

func newHarness(t testing.TB, opts Options, bopts ...brokertest.Option) *harness {
	t.Helper()
	srv := brokertest.Start(t, bopts...)
	return newHarnessOn(t, srv, srv, opts)
}

// newHarnessOn opens the scene and a session on dep: srv's deployment, or
// srv seen as a server the lab does not run.
func newHarnessOn(t testing.TB, srv *broker.Server, dep broker.Deployment, opts Options) *harness {
	t.Helper()
	return &harness{kittest.OpenLab(t, srv, dep, func(env scenes.Env) (*Scene, error) { return New(env, opts) },
		func(s *Scene) Snapshot { return s.snap }, kittest.FollowCommands(), kittest.FitsThePanes())}
}

// col is the scene's own view of a policy's column.
func col(s Snapshot, policy string) Column {
	for _, c := range s.Columns {
		if c.Policy == policy {
			return c
		}
	}
	return Column{}
}

func cons(c Column, name string) Consumer { k, _ := consumer(c, name); return k }

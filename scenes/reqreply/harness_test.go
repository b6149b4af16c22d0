package reqreply

import (
	"regexp"
	"strings"
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

func newHarness(t testing.TB, opts Options) *harness {
	t.Helper()
	srv := brokertest.Start(t, brokertest.WithoutJetStream())
	return newHarnessOn(t, srv, srv, opts)
}

// newHarnessOn opens the scene and a session on dep: srv's deployment, or
// srv seen as a server the lab does not run.
func newHarnessOn(t testing.TB, srv *broker.Server, dep broker.Deployment, opts Options) *harness {
	t.Helper()
	return &harness{kittest.OpenLab(t, srv, dep, func(env scenes.Env) (*Scene, error) { return New(env, opts) },
		func(s *Scene) Snapshot { return s.snap }, kittest.FollowCommands(), kittest.Normalize(normalize), kittest.FitsThePanes())}
}

// What differs from run to run is replaced, keeping its width: the
// inboxes' random names and measured round trips.
var (
	inboxRe = regexp.MustCompile(`_INBOX\.[A-Za-z0-9]+(\.[A-Za-z0-9]+)?`)
	rttRe   = regexp.MustCompile(`(round trip |after\s+|rtt )[0-9.]+(µs|ms|s)`)
)

func normalize(s string) string {
	s = inboxRe.ReplaceAllStringFunc(s, func(m string) string {
		return "_INBOX." + strings.Repeat("x", len(m)-len("_INBOX."))
	})
	return rttRe.ReplaceAllString(s, "${1}RTT")
}

package cursor

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
	"natslab/broker/text"
	"natslab/scenes"
	"natslab/scenes/kit/kittest"
)

// harness runs a cursor scene on a real embedded server with a manual
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
	h.sync()
	return h
}

// newLearner is a command session on dep, with no scene open yet: Open
// opens it.
func newLearner(t testing.TB, srv *broker.Server, dep broker.Deployment) *harness {
	return &harness{kittest.NewLab(t, srv, dep, func(env scenes.Env) (*Scene, error) { return New(env) },
		func(s *Scene) Snapshot { return s.snap }, kittest.Commands(20*time.Second, command.WithTimeout(5*time.Second)))}
}

// consumer is the named consumer as the scene shows it (zero when absent).
func consumer(s Snapshot, name string) Consumer {
	if c := s.consumer(name); c != nil {
		return *c
	}
	return Consumer{}
}

// advisories subscribes the test's own connection to an advisory subject,
// before the command that causes it.
func (h *harness) advisories(subject string) *nats.Subscription {
	h.T.Helper()
	nc := brokertest.Connect(h.T, h.Srv, "advisories")
	sub, err := nc.SubscribeSync(subject)
	if err != nil {
		h.T.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		h.T.Fatal(err)
	}
	return sub
}

// heard waits for an advisory on sub: the server has then handed it to
// every subscriber, the scene's connection among them.
func (h *harness) heard(sub *nats.Subscription) {
	h.T.Helper()
	if _, err := sub.NextMsg(10 * time.Second); err != nil {
		h.T.Fatalf("%s: %v", sub.Subject, err)
	}
}

// sync returns once the scene's driver has taken in everything the server
// sent it so far and looked at the broker since, and the scene has applied
// what the driver told it.
func (h *harness) sync() {
	h.T.Helper()
	if !h.Scene.d.sync(10 * time.Second) {
		h.T.Fatal("the scene's driver did not catch up with the server")
	}
	h.CatchUp()
}

func storyHas(s Snapshot, want string) bool {
	for _, l := range s.Story {
		if strings.Contains(strings.ReplaceAll(l.Text, text.NoBreak, " "), want) {
			return true
		}
	}
	return false
}

// storyWhole checks that want reads whole, in words not cut short, at
// every size the lab's scene pane has beside the lesson: where the pane
// has no rows for all of the newest story line, it says less, whole.
func (h *harness) storyWhole(t *testing.T, want string) {
	t.Helper()
	for _, sz := range slices.Concat(scenes.SmallestPanes, scenes.LessonPanes) {
		v := h.View(sz.W, sz.H)
		if !strings.Contains(strings.Join(strings.Fields(v), " "), want) || strings.Contains(v, " …") {
			t.Errorf("at %dx%d the story does not read %q whole:\n%s", sz.W, sz.H, want, v)
		}
	}
}

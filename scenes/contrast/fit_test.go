package contrast

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/scenes"
)

// At the lab's smallest size (80x24) the scene pane is 44x7 beside the
// lesson and 78x7 alone: in every mode, at every stage of the story and
// with the widest numbers a lesson reaches, nothing the scene prints is
// cut mid-word (a learner met "pendin").
func TestNeverCutAt80x24(t *testing.T) {
	h := newHarness(t, Options{})
	stage := func(what string) {
		t.Helper()
		h.Clock.Advance(3 * time.Second)
		h.NeverCut(t, what)
	}
	// The widest numbers the story reaches, every count on screen: the
	// numbers themselves come from the broker, the widths are what a
	// layout has to hold.
	widest := func(what string) {
		t.Helper()
		saved := h.Scene.snap
		n := &h.Scene.snap
		n.Published, n.Core.Received, n.Core.Lost, n.Core.Dropped = 123456, 123456, 123456, 1234
		n.JS.Received, n.JS.Pending, n.JS.AckPending, n.JS.NotStored = 123456, 123456, 1234, 1234
		n.JS.FirstSeq, n.JS.LastSeq, n.JS.Msgs = 1, 123456, 123456
		stage(what + ", the widest numbers")
		h.Scene.snap = saved
	}
	for _, mode := range []string{"core", "jetstream", "split"} {
		h.Do("reset")
		h.Do("mode", mode)
		h.Settle(mode, func(s Snapshot) bool {
			return s.Mode.String() == mode && (!s.Mode.showsJS() || s.JS.Ready && s.JS.Known)
		})
		stage(mode + ", at the start")
		h.Do("publish", "2")
		h.Settle(mode+", received 2", func(s Snapshot) bool {
			return (!s.Mode.showsCore() || s.Core.Received == 2) && (!s.Mode.showsJS() || s.JS.Received == 2)
		})
		h.Clock.Advance(300 * time.Millisecond)
		h.NeverCut(t, mode+", a publish in flight")
		stage(mode + ", delivered")
		h.Do("offline")
		h.Do("publish", "3")
		h.Settle(mode+", missed 3", func(s Snapshot) bool {
			return (!s.Mode.showsCore() || s.Core.Lost == 3) && (!s.Mode.showsJS() || s.JS.Pending == 3)
		})
		stage(mode + ", offline")
		widest(mode + ", offline")
		h.Do("online")
	}
}

// The JetStream side waiting for the learner's stream (a lesson's step),
// and the server down: the line saying so reads whole, or says less in
// words of its own, never ending " …" ("JetStream is off: nats-server -js
// turns …" beside the lesson at 80x24).
func TestProblemLinesNeverCutAt80x24(t *testing.T) {
	h := newHarness(t, Options{})
	whole := func(stage string) {
		t.Helper()
		h.NeverCut(t, stage)
		for _, sz := range slices.Concat(scenes.SmallestPanes, scenes.LessonPanes) {
			if v := h.View(sz.W, sz.H); strings.Contains(v, " …") {
				t.Errorf("%s at %dx%d: a line ends cut short:\n%s", stage, sz.W, sz.H, v)
			}
		}
	}
	for _, mode := range []string{"jetstream", "split"} {
		h.Do("mode", mode, "wait")
		h.Settle(mode+" waiting", func(s Snapshot) bool { return s.Mode.String() == mode && s.Problem != "" })
		h.Clock.Advance(3 * time.Second)
		whole(mode + ", waiting for a stream")
		saved := h.Scene.snap
		h.Scene.snap.Problem = explain(jetstream.ErrJetStreamNotEnabled)
		whole(mode + ", JetStream off")
		h.Scene.snap = saved
	}
	h.srv.Stop()
	h.Settle("down", func(s Snapshot) bool { return !s.ServerUp })
	for _, mode := range []string{"core", "jetstream", "split"} {
		h.Scene.snap.Mode, _ = ParseMode(mode)
		h.Clock.Advance(3 * time.Second)
		whole(mode + ", the server down")
	}
}

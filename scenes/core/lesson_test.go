package core

import (
	"path/filepath"
	"testing"

	"natslab/broker/brokertest"
	"natslab/scenes/kit/kittest"
)

// The episodes that show these scenes judge the same with the scene open:
// the scene's tap is a real subscription, but not the learner's, so it
// neither ticks a step (a subscriber on greet, messages received) nor
// keeps a subject heard. Each solution still completes its lesson, each
// wrong one still fails where it says. The lessons restart the server
// (their own store area): the scene rides through it.
func TestLessonsJudgeTheSameWithTheirSceneOpen(t *testing.T) {
	for _, c := range []struct {
		id   string
		kind Kind
		file string
	}{
		{"hello", Hello, "solutions/hello.txt"},
		{"hello", Hello, "wrong/hello-still-listening.txt"},
		{"hello", Hello, "wrong/hello-typo.txt"},
		{"subjects", Wildcards, "solutions/subjects.txt"},
		{"subjects", Wildcards, "wrong/subjects-missing.txt"},
		{"subjects", Wildcards, "wrong/subjects-star.txt"},
		{"queue-groups", Queues, "solutions/queue-groups.txt"},
		{"queue-groups", Queues, "wrong/queue-groups-double.txt"},
		{"queue-groups", Queues, "wrong/queue-groups-typo.txt"},
	} {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			srv := brokertest.Start(t)
			h := newHarnessOn(t, srv, srv, c.kind)
			if c.kind == Wildcards {
				h.Do("watch", "orders.>")
			}
			kittest.JudgeLesson(t, srv, c.id, c.file, "the "+c.kind.info().name+" scene open")
			// The scene came through the lesson's restart: it watches still.
			before := h.Scene.Snapshot().Published
			h.Do("publish")
			h.Settle("its publish after the restart", func(s Snapshot) bool { return s.ServerUp && s.Published > before })
		})
	}
}

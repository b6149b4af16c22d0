package contrast

import (
	"fmt"
	"path/filepath"
	"testing"

	"natslab/scenes/kit/kittest"
)

// The episodes that show the contrast scene judge the same with it open:
// its app (a core subscriber on events.>, a durable consumer on EVENTS) is
// the scene's, not the learner's, so it neither keeps "nobody listened" from
// happening nor reads a replay for the learner.
func TestLessonsJudgeTheSameWithTheContrastSceneOpen(t *testing.T) {
	for _, c := range []struct {
		id   string
		mode Mode
		wait bool // mode … wait: as the lesson opens it, never making EVENTS
		file string
	}{
		{"offline-client", Core, false, "solutions/offline-client.txt"},
		{"offline-client", Core, false, "wrong/offline-client-online.txt"},
		{"first-stream", JetStream, false, "solutions/first-stream.txt"},
		{"first-stream", JetStream, false, "wrong/first-stream-no-replay.txt"},
		{"first-stream", JetStream, true, "solutions/first-stream.txt"},
		{"first-stream", JetStream, true, "wrong/first-stream-evts.txt"},
		{"first-stream", JetStream, true, "wrong/first-stream-no-js.txt"},
	} {
		t.Run(fmt.Sprintf("%s-wait=%v", filepath.Base(c.file), c.wait), func(t *testing.T) {
			h := newHarness(t, Options{})
			mode := []string{c.mode.String()}
			if c.wait {
				mode = append(mode, "wait")
			}
			if _, err := h.Scene.Do("mode", mode); err != nil {
				t.Fatal(err)
			}
			kittest.JudgeLesson(t, h.srv, c.id, c.file, "the contrast scene open in "+c.mode.String()+" mode")
		})
	}
}

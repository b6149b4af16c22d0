package streamlog

import (
	"testing"
	"time"

	"natslab/scenes"
	"natslab/scenes/kit/kittest"
)

// The episodes that show this scene judge the same with it open: its taps
// are real subscriptions, but never a learner's, and they never change
// what the server answers. Each solution still completes its lesson, each
// wrong one still fails where it says, at a script's speed (faster than
// anyone types). The lessons restart the server (their own store area):
// the scene rides through it.
func TestLessonsJudgeTheSameWithTheSceneOpen(t *testing.T) {
	kittest.JudgeWithScene(t, "log", []kittest.Lesson{
		{ID: "stream-log", File: "solutions/stream-log.txt"},
		{ID: "stream-log", File: "wrong/stream-log-memory.txt"},
		{ID: "stream-log", File: "wrong/stream-log-uncaptured.txt"},
		{ID: "limits", File: "solutions/limits.txt"},
		{ID: "limits", File: "wrong/limits-discard.txt"},
		{ID: "limits", File: "wrong/limits-no-wait.txt"},
		{ID: "dedupe", File: "solutions/dedupe.txt"},
		{ID: "dedupe", File: "wrong/dedupe-no-id.txt"},
		{ID: "restart", File: "solutions/restart.txt"},
		{ID: "restart", File: "wrong/restart-memory.txt"},
	}, sceneCameThrough)
}

// sceneCameThrough: after the lesson's restart the scene still reads the
// broker: it shows the lesson's streams, or says why it cannot.
func sceneCameThrough(t *testing.T, sc scenes.Scene) {
	t.Helper()
	s := sc.(*Scene)
	deadline := time.Now().Add(5 * time.Second)
	for {
		snap := s.Snapshot()
		if snap.ServerUp && (len(snap.Streams) > 0 || snap.Problem != "") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the scene after the lesson: %+v", snap)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

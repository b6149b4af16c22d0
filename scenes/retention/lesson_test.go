package retention

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
	kittest.JudgeWithScene(t, "retention", []kittest.Lesson{
		{ID: "retention", File: "solutions/retention.txt"},
		{ID: "retention", File: "wrong/retention-limits-everywhere.txt"},
		{ID: "retention", File: "wrong/retention-one-reader.txt"},
	}, sceneCameThrough)
}

// sceneCameThrough: after the lesson's restart the scene still reads the
// broker: it shows the lesson's streams in their policies' columns.
func sceneCameThrough(t *testing.T, sc scenes.Scene) {
	t.Helper()
	s := sc.(*Scene)
	deadline := time.Now().Add(5 * time.Second)
	for {
		snap := s.Snapshot()
		for _, c := range snap.Columns {
			if snap.ServerUp && c.Stream != "" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the scene after the lesson: %+v", snap)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
